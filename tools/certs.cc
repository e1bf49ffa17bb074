#include "tools/certs.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <utility>

#include "tools/internal/cert_files.h"

namespace bloomroute {
namespace {

using cert_internal::CertPem;
using cert_internal::CheckAbsent;
using cert_internal::FileToWrite;
using cert_internal::KeyPem;
using cert_internal::KeyPtr;
using cert_internal::OpensslError;
using cert_internal::ReadCertFile;
using cert_internal::ReadKeyFile;
using cert_internal::WriteFileAtomically;
using cert_internal::X509Ptr;

constexpr int kSerialBits = 159;  // positive and at most 20 bytes (RFC 5280)

std::string PathIn(const std::string& dir, std::string_view file) {
  return dir + "/" + std::string(file);
}

// A name without its brackets when it is "[IPv6]".
std::string Unbracketed(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return std::string(host.substr(1, host.size() - 2));
  }
  return std::string(host);
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

bool IsDnsLabel(std::string_view label) {
  if (label.empty() || label.size() > 63) return false;
  if (label.front() == '-' || label.back() == '-') return false;
  for (char c : label) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-';
    if (!ok) return false;
  }
  return true;
}

// The subject of a certificate: O=bloomroute[, OU=ou], CN=cn.
struct Subject {
  std::string ou;  // empty: none (the CA)
  std::string cn;
};

Status AddNameEntry(X509_NAME* name, const char* field,
                    const std::string& value) {
  if (X509_NAME_add_entry_by_txt(
          name, field, MBSTRING_UTF8,
          reinterpret_cast<const unsigned char*>(value.data()),
          static_cast<int>(value.size()), -1, 0) != 1) {
    return Status::IOError(std::string("cannot set the subject's ") + field +
                           ": " + OpensslError());
  }
  return Status::OK();
}

Status SetRandomSerial(X509* cert) {
  BIGNUM* serial = BN_new();
  // Drawn from OpenSSL's CSPRNG; zero (chance 2^-159) would be invalid.
  bool ok =
      serial != nullptr &&
      BN_rand(serial, kSerialBits, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY) == 1 &&
      !BN_is_zero(serial) &&
      BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(cert)) != nullptr;
  BN_free(serial);
  if (!ok) return Status::IOError("cannot draw a serial: " + OpensslError());
  return Status::OK();
}

// An unsigned v3 certificate of `key` for `subject`, valid as given.
StatusOr<X509Ptr> NewCert(EVP_PKEY* key, const Subject& subject,
                          const CertValidity& validity) {
  X509Ptr cert(X509_new());
  if (cert == nullptr || X509_set_version(cert.get(), X509_VERSION_3) != 1 ||
      X509_set_pubkey(cert.get(), key) != 1) {
    return Status::IOError("cannot make a certificate: " + OpensslError());
  }
  BLOOMROUTE_RETURN_IF_ERROR(SetRandomSerial(cert.get()));
  if (ASN1_TIME_set(X509_getm_notBefore(cert.get()),
                    CertClock::to_time_t(validity.not_before)) == nullptr ||
      ASN1_TIME_set(X509_getm_notAfter(cert.get()),
                    CertClock::to_time_t(validity.not_after)) == nullptr) {
    return Status::IOError("cannot set the validity: " + OpensslError());
  }
  X509_NAME* name = X509_get_subject_name(cert.get());
  BLOOMROUTE_RETURN_IF_ERROR(AddNameEntry(name, "O", kCertOrganization));
  if (!subject.ou.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(AddNameEntry(name, "OU", subject.ou));
  }
  BLOOMROUTE_RETURN_IF_ERROR(AddNameEntry(name, "CN", subject.cn));
  return cert;
}

// Extensions in OpenSSL's configuration syntax, e.g. {NID_key_usage,
// "critical,digitalSignature"}; `issuer` may be `cert` itself.
Status AddExtensions(X509* cert, X509* issuer,
                     const std::vector<std::pair<int, const char*>>& exts) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : exts) {
    X509_EXTENSION* ext = X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value);
    const bool ok = ext != nullptr && X509_add_ext(cert, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    if (!ok) {
      return Status::IOError(std::string("cannot add ") + OBJ_nid2sn(nid) +
                             ": " + OpensslError());
    }
  }
  return Status::OK();
}

GENERAL_NAME* AltName(const std::string& host) {
  GENERAL_NAME* name = GENERAL_NAME_new();
  if (name == nullptr) return nullptr;
  if (IsIpAddress(host)) {
    ASN1_OCTET_STRING* ip = a2i_IPADDRESS(host.c_str());
    if (ip == nullptr) return GENERAL_NAME_free(name), nullptr;
    GENERAL_NAME_set0_value(name, GEN_IPADD, ip);
    return name;
  }
  ASN1_IA5STRING* dns = ASN1_IA5STRING_new();
  if (dns == nullptr ||
      ASN1_STRING_set(dns, host.data(), static_cast<int>(host.size())) != 1) {
    ASN1_IA5STRING_free(dns);
    return GENERAL_NAME_free(name), nullptr;
  }
  GENERAL_NAME_set0_value(name, GEN_DNS, dns);
  return name;
}

// subjectAltName: an IP address entry for each host that is one, a DNS name
// for the others (built directly, not from a text that a host could extend).
Status AddAltNames(X509* cert, const std::vector<std::string>& hosts) {
  GENERAL_NAMES* names = sk_GENERAL_NAME_new_null();
  bool ok = names != nullptr;
  for (size_t i = 0; ok && i < hosts.size(); ++i) {
    GENERAL_NAME* name = AltName(Unbracketed(hosts[i]));
    ok = name != nullptr && sk_GENERAL_NAME_push(names, name) > 0;
    if (!ok) GENERAL_NAME_free(name);
  }
  ok = ok && X509_add1_ext_i2d(cert, NID_subject_alt_name, names, 0,
                               X509V3_ADD_DEFAULT) == 1;
  GENERAL_NAMES_free(names);
  if (!ok) return Status::IOError("cannot add the hosts: " + OpensslError());
  return Status::OK();
}

StatusOr<KeyPtr> NewKey() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (key == nullptr) {
    return Status::IOError("cannot make a P-256 key: " + OpensslError());
  }
  return key;
}

Status Sign(X509* cert, EVP_PKEY* key) {
  if (X509_sign(cert, key, EVP_sha256()) <= 0) {
    return Status::IOError("cannot sign: " + OpensslError());
  }
  return Status::OK();
}

// Writes the key, then the certificate. Returns {cert path, key path}.
StatusOr<std::vector<std::string>> WriteCertAndKey(X509* cert, EVP_PKEY* key,
                                                   const std::string& cert_path,
                                                   const std::string& key_path,
                                                   bool overwrite) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string cert_pem, CertPem(cert));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string key_pem, KeyPem(key));
  Status s = WriteFileAtomically({key_path, key_pem, 0600}, overwrite);
  OPENSSL_cleanse(key_pem.data(), key_pem.size());
  BLOOMROUTE_RETURN_IF_ERROR(s);
  BLOOMROUTE_RETURN_IF_ERROR(
      WriteFileAtomically({cert_path, cert_pem, 0644}, overwrite));
  return std::vector<std::string>{cert_path, key_path};
}

StatusOr<cert_internal::Ca> LoadCa(const CertOptions& options) {
  return cert_internal::LoadCa(options.CaCertPath(), options.CaKeyPath());
}

// What is common to node and client certificates: checks, a new key, the
// subject, `exts` and the hosts, signed by the CA.
struct Issue {
  std::string cert_file;  // names in certs_dir
  std::string key_file;
  Subject subject;
  const char* extended_key_usage;
  std::vector<std::string> hosts;  // none: no subjectAltName
};

StatusOr<std::vector<std::string>> IssueCert(const CertOptions& options,
                                             const Issue& issue) {
  BLOOMROUTE_RETURN_IF_ERROR(options.validity.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(cert_internal::EnsureDirectory(options.certs_dir));
  const std::string cert_path = PathIn(options.certs_dir, issue.cert_file);
  const std::string key_path = PathIn(options.certs_dir, issue.key_file);
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckAbsent({cert_path, key_path}, options.overwrite));
  BLOOMROUTE_ASSIGN_OR_RETURN(cert_internal::Ca ca, LoadCa(options));
  BLOOMROUTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  BLOOMROUTE_ASSIGN_OR_RETURN(
      X509Ptr cert, NewCert(key.get(), issue.subject, options.validity));
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(ca.cert.get())) !=
      1) {
    return Status::IOError("cannot set the issuer: " + OpensslError());
  }
  BLOOMROUTE_RETURN_IF_ERROR(AddExtensions(
      cert.get(), ca.cert.get(),
      {{NID_basic_constraints, "critical,CA:FALSE"},
       // EC keys sign; keyEncipherment is for RSA key transport (RFC 5480).
       {NID_key_usage, "critical,digitalSignature"},
       {NID_ext_key_usage, issue.extended_key_usage},
       {NID_subject_key_identifier, "hash"},
       {NID_authority_key_identifier, "keyid:always"}}));
  if (!issue.hosts.empty()) {
    BLOOMROUTE_RETURN_IF_ERROR(AddAltNames(cert.get(), issue.hosts));
  }
  BLOOMROUTE_RETURN_IF_ERROR(Sign(cert.get(), ca.key.get()));
  return WriteCertAndKey(cert.get(), key.get(), cert_path, key_path,
                         options.overwrite);
}

}  // namespace

CertValidity CertValidity::For(std::chrono::hours lifetime) {
  const CertClock::time_point now = CertClock::now();
  return {now - std::chrono::hours(1), now + lifetime};
}

Status CertValidity::Validate() const {
  if (not_before < not_after) return Status::OK();
  return Status::InvalidArgument(
      "a certificate's not-after must be later than its not-before "
      "(--lifetime must be positive)");
}

std::string CertOptions::CaKeyPath() const {
  return ca_key.empty() ? PathIn(certs_dir, kCaKeyFile) : ca_key;
}

std::string CertOptions::CaCertPath() const {
  return PathIn(certs_dir, kCaCertFile);
}

std::string ClientCertFile(std::string_view user) {
  return "client." + std::string(user) + ".crt";
}
std::string ClientKeyFile(std::string_view user) {
  return "client." + std::string(user) + ".key";
}
std::string TokenFile(std::string_view user) {
  return "token." + std::string(user);
}

Status ValidateUserName(std::string_view user) {
  if (user.empty()) return Status::InvalidArgument("the user name is empty");
  if (user.size() > kMaxUserBytes) {
    return Status::InvalidArgument("the user name is longer than " +
                                   std::to_string(kMaxUserBytes) + " bytes");
  }
  if (user == "." || user == "..") {
    return Status::InvalidArgument("the user name cannot be . or ..");
  }
  for (char c : user) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    if (!ok) {
      return Status::InvalidArgument(
          "the user name may only have letters, digits, '.', '_' and '-' "
          "(it is part of file names)");
    }
  }
  return Status::OK();
}

StatusOr<Role> ParseClientRole(std::string_view name) {
  StatusOr<Role> role = ParseRole(name);
  if (role.ok() && IsNodeRole(*role)) {
    return Status::InvalidArgument(
        "role \"" + std::string(name) +
        "\" is not a client role (bloomroute cert create-node makes the "
        "machines' certificates); client roles: read, write, admin");
  }
  if (!role.ok()) {
    return Status::InvalidArgument("unknown role \"" + std::string(name) +
                                   "\" (client roles: read, write, admin)");
  }
  return role;
}

Status ValidateHost(std::string_view host) {
  const std::string bare = Unbracketed(host);
  const bool bracketed = bare.size() != host.size();
  unsigned char buf[sizeof(in6_addr)];
  if (inet_pton(AF_INET6, bare.c_str(), buf) == 1) return Status::OK();
  if (!bracketed && inet_pton(AF_INET, bare.c_str(), buf) == 1) {
    return Status::OK();
  }
  const std::string bad = "host \"" + std::string(host) + "\" is not ";
  if (bracketed) return Status::InvalidArgument(bad + "an IPv6 address");
  bool ok = !bare.empty() && bare.size() <= 253;
  for (size_t start = 0; ok;) {
    const size_t dot = bare.find('.', start);
    ok = IsDnsLabel(std::string_view(bare).substr(
        start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (ok) return Status::OK();
  return Status::InvalidArgument(
      bad +
      "an IP address or a DNS name (labels of letters, digits and '-', at "
      "most 63 bytes each, 253 in all)");
}

StatusOr<std::vector<std::string>> CreateCa(const CertOptions& options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.validity.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(cert_internal::EnsureDirectory(options.certs_dir));
  const std::string cert_path = options.CaCertPath();
  const std::string key_path = options.CaKeyPath();
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckAbsent({cert_path, key_path}, options.overwrite));
  BLOOMROUTE_ASSIGN_OR_RETURN(KeyPtr key, NewKey());
  BLOOMROUTE_ASSIGN_OR_RETURN(
      X509Ptr cert,
      NewCert(key.get(), Subject{"", kCaCommonName}, options.validity));
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())) !=
      1) {
    return Status::IOError("cannot set the issuer: " + OpensslError());
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      AddExtensions(cert.get(), cert.get(),
                    {{NID_basic_constraints, "critical,CA:TRUE,pathlen:0"},
                     {NID_key_usage, "critical,keyCertSign,cRLSign"},
                     {NID_subject_key_identifier, "hash"}}));
  BLOOMROUTE_RETURN_IF_ERROR(Sign(cert.get(), key.get()));
  return WriteCertAndKey(cert.get(), key.get(), cert_path, key_path,
                         options.overwrite);
}

StatusOr<std::vector<std::string>> CreateNodeCert(
    const CertOptions& options, const std::vector<std::string>& hosts,
    Role kind) {
  if (hosts.empty()) {
    return Status::InvalidArgument(
        "a node certificate needs at least one --host");
  }
  if (!IsNodeRole(kind)) {
    return Status::InvalidArgument(
        std::string("a node certificate's kind is node, router or "
                    "regionserver, not ") +
        RoleName(kind));
  }
  for (const std::string& host : hosts) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateHost(host));
  }
  const std::string name = RoleName(kind);
  // Routers are servers to clients and clients of region servers; region
  // servers are servers only (they call no one).
  return IssueCert(
      options, Issue{NodeCertFile(kind), NodeKeyFile(kind), Subject{name, name},
                     kind == Role::kRegionServer ? "serverAuth"
                                                 : "serverAuth,clientAuth",
                     hosts});
}

std::string NodeCertFile(Role kind) {
  return kind == Role::kNode ? kNodeCertFile
                             : std::string(RoleName(kind)) + ".crt";
}

std::string NodeKeyFile(Role kind) {
  return kind == Role::kNode ? kNodeKeyFile
                             : std::string(RoleName(kind)) + ".key";
}

StatusOr<std::vector<std::string>> CreateClientCert(const CertOptions& options,
                                                    std::string_view user,
                                                    Role role) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateUserName(user));
  if (role != Role::kRead && role != Role::kWrite && role != Role::kAdmin) {
    return Status::InvalidArgument(
        std::string("a client certificate's role is read, write or admin, "
                    "not ") +
        RoleName(role));
  }
  return IssueCert(options, Issue{ClientCertFile(user),
                                  ClientKeyFile(user),
                                  Subject{RoleName(role), std::string(user)},
                                  "clientAuth",
                                  {}});
}

}  // namespace bloomroute
