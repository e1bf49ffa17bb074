// tools/certs.h: tokens, listing and checking certificates, and the
// certificates of `bloomroute local --secure`.
#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <sstream>

#include "tools/certs.h"
#include "tools/internal/cert_files.h"

namespace bloomroute {
namespace {

using cert_internal::KeyPtr;
using cert_internal::OpensslError;
using cert_internal::ReadBoundedFile;
using cert_internal::ReadCertFile;
using cert_internal::ReadKeyFile;
using cert_internal::WriteFileAtomically;
using cert_internal::X509Ptr;

std::string PathIn(const std::string& dir, std::string_view file) {
  return dir + "/" + std::string(file);
}

StatusOr<std::string> NewToken() {
  unsigned char bytes[kTokenBytes];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) {
    return Status::IOError("no random bytes for a token: " + OpensslError());
  }
  std::string hex;
  for (unsigned char b : bytes) {
    char digits[3];
    std::snprintf(digits, sizeof(digits), "%02x", b);
    hex += digits;
  }
  OPENSSL_cleanse(bytes, sizeof(bytes));
  return hex;
}

// `tokens` without the lines of `user` (the token file format of
// thrift/server/security.h: "<hash> <role> <user>").
std::string WithoutUser(const std::string& tokens, std::string_view user) {
  std::istringstream in(tokens);
  std::string out, line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string hash, role, name;
    fields >> hash >> role >> name;
    if (!hash.empty() && hash[0] != '#' && name == user) continue;
    out += line + "\n";
  }
  return out;
}

// The current tokens file, "" when there is none.
StatusOr<std::string> ReadTokens(const std::string& path) {
  StatusOr<std::string> tokens =
      ReadBoundedFile(path, kMaxTokenFileBytes, "kMaxTokenFileBytes");
  if (tokens.status().IsNotFound()) return std::string();
  if (tokens.ok() && !tokens->empty() && tokens->back() != '\n') {
    *tokens += "\n";
  }
  return tokens;
}

std::string NameText(X509_NAME* name) {
  std::string out;
  for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
    X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, i);
    const ASN1_STRING* value = X509_NAME_ENTRY_get_data(entry);
    if (!out.empty()) out += ", ";
    out += OBJ_nid2sn(OBJ_obj2nid(X509_NAME_ENTRY_get_object(entry)));
    out += "=";
    out.append(reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
               static_cast<size_t>(ASN1_STRING_length(value)));
  }
  return out;
}

std::string NameEntry(X509_NAME* name, int nid) {
  const int i = X509_NAME_get_index_by_NID(name, nid, -1);
  if (i < 0) return "";
  const ASN1_STRING* value =
      X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
  return std::string(
      reinterpret_cast<const char*>(ASN1_STRING_get0_data(value)),
      static_cast<size_t>(ASN1_STRING_length(value)));
}

std::vector<std::string> AltNames(X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(names, i);
    if (name->type == GEN_DNS) {
      const ASN1_STRING* s = name->d.dNSName;
      out.push_back(
          "DNS:" +
          std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                      static_cast<size_t>(ASN1_STRING_length(s))));
    } else if (name->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = name->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      const int family = ip->length == 4 ? AF_INET : AF_INET6;
      if ((ip->length == 4 || ip->length == 16) &&
          inet_ntop(family, ip->data, text, sizeof(text)) != nullptr) {
        out.push_back(std::string("IP:") + text);
      }
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

CertInfo Describe(const std::string& dir, const std::string& file, X509* ca) {
  CertInfo info;
  info.file = file;
  StatusOr<X509Ptr> cert = ReadCertFile(PathIn(dir, file));
  if (!cert.ok()) {
    info.error = cert.status().message();
    return info;
  }
  X509* x = cert->get();
  info.subject = NameText(X509_get_subject_name(x));
  info.role = NameEntry(X509_get_subject_name(x), NID_organizationalUnitName);
  info.hosts = AltNames(x);
  struct tm tm {};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) == 1) {
    info.not_after = CertClock::from_time_t(timegm(&tm));
  }
  info.expired = X509_cmp_current_time(X509_get0_notAfter(x)) < 0;
  if (ca != nullptr) {
    EVP_PKEY* ca_key = X509_get0_pubkey(ca);
    info.signed_by_ca = X509_check_issued(ca, x) == X509_V_OK &&
                        ca_key != nullptr && X509_verify(x, ca_key) == 1;
  }
  OpensslError();  // clear what a failed check left
  return info;
}

bool UsableCert(const TlsOptions& files) {
  return CheckCertAndKey(files.ca_file, files.cert_file, files.key_file).ok();
}

}  // namespace

StatusOr<std::vector<std::string>> CreateToken(const CertOptions& options,
                                               std::string_view user,
                                               Role role) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateUserName(user));
  BLOOMROUTE_ASSIGN_OR_RETURN(Role client_role,
                              ParseClientRole(RoleName(role)));
  BLOOMROUTE_RETURN_IF_ERROR(cert_internal::EnsureDirectory(options.certs_dir));
  const std::string token_path = PathIn(options.certs_dir, TokenFile(user));
  const std::string tokens_path = PathIn(options.certs_dir, kTokensFile);
  BLOOMROUTE_RETURN_IF_ERROR(
      cert_internal::CheckAbsent({token_path}, options.overwrite));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string tokens, ReadTokens(tokens_path));
  // A new token for a user replaces (revokes) the old one.
  if (options.overwrite) tokens = WithoutUser(tokens, user);
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string token, NewToken());
  tokens += TokenHash(token) + " " + RoleName(client_role) + " " +
            std::string(user) + "\n";
  if (tokens.size() > kMaxTokenFileBytes) {
    return Status::IOError(tokens_path + " would be larger than " +
                           std::to_string(kMaxTokenFileBytes) +
                           " bytes (kMaxTokenFileBytes, the most the router "
                           "reads); remove the lines of unused tokens");
  }
  Status s =
      WriteFileAtomically({token_path, token + "\n", 0600}, options.overwrite);
  OPENSSL_cleanse(token.data(), token.size());
  BLOOMROUTE_RETURN_IF_ERROR(s);
  s = WriteFileAtomically({tokens_path, tokens, 0600}, /*overwrite=*/true);
  if (!s.ok()) {
    unlink(token_path.c_str());  // a token the router would not know
    return s;
  }
  return std::vector<std::string>{token_path, tokens_path};
}

StatusOr<std::vector<CertInfo>> ListCerts(const std::string& certs_dir) {
  std::error_code error;
  if (!std::filesystem::is_directory(certs_dir, error)) {
    return Status::NotFound(certs_dir + " is not a directory");
  }
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(certs_dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file(error) && name.size() > 4 &&
        name.compare(name.size() - 4, 4, ".crt") == 0) {
      files.push_back(name);
    }
  }
  if (error) {
    return Status::IOError("cannot list " + certs_dir + ": " + error.message());
  }
  std::sort(files.begin(), files.end());
  StatusOr<X509Ptr> ca = ReadCertFile(PathIn(certs_dir, kCaCertFile));
  std::vector<CertInfo> out;
  for (const std::string& file : files) {
    out.push_back(Describe(certs_dir, file, ca.ok() ? ca->get() : nullptr));
  }
  return out;
}

Status CheckCertAndKey(const std::string& ca_file, const std::string& cert_file,
                       const std::string& key_file) {
  BLOOMROUTE_ASSIGN_OR_RETURN(X509Ptr ca, ReadCertFile(ca_file));
  BLOOMROUTE_ASSIGN_OR_RETURN(X509Ptr cert, ReadCertFile(cert_file));
  BLOOMROUTE_ASSIGN_OR_RETURN(KeyPtr key, ReadKeyFile(key_file));
  X509_STORE* store = X509_STORE_new();
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  int result = store != nullptr && ctx != nullptr &&
                       X509_STORE_add_cert(store, ca.get()) == 1 &&
                       X509_STORE_CTX_init(ctx, store, cert.get(), nullptr) == 1
                   ? X509_verify_cert(ctx)
                   : -1;
  const int error = ctx != nullptr ? X509_STORE_CTX_get_error(ctx) : 0;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  if (result != 1) {
    OpensslError();
    return Status::Corruption(cert_file + " does not verify against " +
                              ca_file + ": " +
                              X509_verify_cert_error_string(error));
  }
  if (X509_check_private_key(cert.get(), key.get()) != 1) {
    OpensslError();
    return Status::Corruption(key_file + " is not the key of " + cert_file);
  }
  return Status::OK();
}

StatusOr<LocalCerts> EnsureLocalCerts(const std::string& certs_dir) {
  BLOOMROUTE_RETURN_IF_ERROR(cert_internal::EnsureDirectory(certs_dir));
  CertOptions options;
  options.certs_dir = certs_dir;
  LocalCerts local;
  const std::string ca = options.CaCertPath();
  local.node = {ca, PathIn(certs_dir, kNodeCertFile),
                PathIn(certs_dir, kNodeKeyFile)};
  local.client = {ca, PathIn(certs_dir, ClientCertFile(LocalCerts::kUser)),
                  PathIn(certs_dir, ClientKeyFile(LocalCerts::kUser))};
  std::error_code error;
  if (!std::filesystem::exists(ca, error) &&
      !std::filesystem::exists(options.CaKeyPath(), error)) {
    options.validity = CertValidity::For(kDefaultCaLifetime);
    BLOOMROUTE_ASSIGN_OR_RETURN(local.written, CreateCa(options));
  } else if (Status s = CheckCertAndKey(ca, ca, options.CaKeyPath()); !s.ok()) {
    return s.WithContext("the CA in " + certs_dir +
                         " cannot be used (it is never replaced: move the "
                         "directory away to make a new one)");
  }
  // A certificate that does not check out (expired, half-written) is made
  // again under the same CA.
  options.validity = CertValidity::For(kDefaultCertLifetime);
  options.overwrite = true;
  std::vector<std::string> written;
  if (!UsableCert(local.node)) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        written, CreateNodeCert(options, {"127.0.0.1", "localhost", "::1"}));
    local.written.insert(local.written.end(), written.begin(), written.end());
  }
  if (!UsableCert(local.client)) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        written, CreateClientCert(options, LocalCerts::kUser, Role::kAdmin));
    local.written.insert(local.written.end(), written.begin(), written.end());
  }
  return local;
}

}  // namespace bloomroute
