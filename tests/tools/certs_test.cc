// tools/certs.h: the certificates chain to their CA (checked with OpenSSL's
// X509_verify_cert here and, independently, with the `openssl verify`
// command), carry the identity thrift/server/security.h defines, expire when
// told to, are refused by another CA; keys are 0600, nothing is overwritten
// unless asked, tokens are recorded as their hash.
#include "tools/certs.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
using X509Ptr = std::unique_ptr<X509, X509Free>;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

X509Ptr LoadCert(const std::string& path) {
  const std::string pem = ReadAll(path);
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  X509Ptr cert(PEM_read_bio_X509(bio, nullptr, nullptr, nullptr));
  BIO_free(bio);
  return cert;
}

// X509_V_OK when `cert` chains to `ca` (the only trusted certificate),
// otherwise OpenSSL's verify error.
int VerifyChain(X509* ca, X509* cert) {
  X509_STORE* store = X509_STORE_new();
  X509_STORE_add_cert(store, ca);
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  X509_STORE_CTX_init(ctx, store, cert, nullptr);
  const int ok = X509_verify_cert(ctx);
  const int error = ok == 1 ? X509_V_OK : X509_STORE_CTX_get_error(ctx);
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  return error;
}

std::string SubjectEntry(X509* cert, int nid) {
  X509_NAME* name = X509_get_subject_name(cert);
  const int i = X509_NAME_get_index_by_NID(name, nid, -1);
  if (i < 0) return "";
  const ASN1_STRING* s = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                     ASN1_STRING_length(s));
}

// "DNS:name" / "IP:address" per subjectAltName entry.
std::vector<std::string> AltNames(X509* cert) {
  std::vector<std::string> out;
  auto* names = static_cast<GENERAL_NAMES*>(
      X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; i < sk_GENERAL_NAME_num(names); ++i) {
    const GENERAL_NAME* n = sk_GENERAL_NAME_value(names, i);
    if (n->type == GEN_DNS) {
      const ASN1_STRING* s = n->d.dNSName;
      out.push_back("DNS:" + std::string(reinterpret_cast<const char*>(
                                             ASN1_STRING_get0_data(s)),
                                         ASN1_STRING_length(s)));
    } else if (n->type == GEN_IPADD) {
      const ASN1_OCTET_STRING* ip = n->d.iPAddress;
      char text[INET6_ADDRSTRLEN] = {};
      inet_ntop(ip->length == 4 ? AF_INET : AF_INET6, ip->data, text,
                sizeof(text));
      out.push_back(std::string("IP:") + text);
    }
  }
  GENERAL_NAMES_free(names);
  return out;
}

int FileMode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return -1;
  return st.st_mode & 0777;
}

// The `openssl` command on the PATH (scripts/install-deps.sh installs it).
std::string OpensslBinary() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path == nullptr ? "" : path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = dir + "/openssl";
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

class CertsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.certs_dir = dir_.path() + "/certs";
    options_.validity = CertValidity::For(kDefaultCaLifetime);
    ASSERT_TRUE(CreateCa(options_).ok());
    options_.validity = CertValidity::For(kDefaultCertLifetime);
  }
  std::string Path(const std::string& file) const {
    return options_.certs_dir + "/" + file;
  }
  // `openssl verify -CAfile ca -purpose P cert`: exit code and output.
  static testing::CommandOutput OpensslVerify(const std::string& ca,
                                              const std::string& cert) {
    const std::string openssl = OpensslBinary();
    EXPECT_FALSE(openssl.empty()) << "the openssl command is not on the PATH";
    return testing::RunProgram(openssl, {"verify", "-CAfile", ca, cert});
  }

  testing::TempDir dir_;
  CertOptions options_;
};

TEST_F(CertsTest, CaIsASelfSignedCaWithTheClusterName) {
  X509Ptr ca = LoadCert(Path("ca.crt"));
  ASSERT_NE(ca, nullptr);
  EXPECT_EQ(SubjectEntry(ca.get(), NID_organizationName), "bloomroute");
  EXPECT_EQ(SubjectEntry(ca.get(), NID_commonName), "bloomroute CA");
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_EQ(X509_get_pathlen(ca.get()), 0);
  EXPECT_TRUE(X509_get_key_usage(ca.get()) & KU_KEY_CERT_SIGN);
  EXPECT_TRUE(X509_get_key_usage(ca.get()) & KU_CRL_SIGN);
  EXPECT_NE(X509_get0_subject_key_id(ca.get()), nullptr);
  int crit = -1;
  BASIC_CONSTRAINTS_free(static_cast<BASIC_CONSTRAINTS*>(
      X509_get_ext_d2i(ca.get(), NID_basic_constraints, &crit, nullptr)));
  EXPECT_EQ(crit, 1);
  EXPECT_EQ(VerifyChain(ca.get(), ca.get()), X509_V_OK);
  EXPECT_EQ(FileMode(Path("ca.key")), 0600);
  EXPECT_EQ(FileMode(Path("ca.crt")), 0644);
}

TEST_F(CertsTest, NodeCertChainsToTheCaAndNamesItsHosts) {
  StatusOr<std::vector<std::string>> written = CreateNodeCert(
      options_, {"127.0.0.1", "localhost", "::1", "[fe80::1]", "rs1.example"});
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_THAT(*written, ElementsAre(Path("node.crt"), Path("node.key")));
  X509Ptr ca = LoadCert(Path("ca.crt"));
  X509Ptr node = LoadCert(Path("node.crt"));
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(VerifyChain(ca.get(), node.get()), X509_V_OK);
  testing::CommandOutput verified =
      OpensslVerify(Path("ca.crt"), Path("node.crt"));
  EXPECT_EQ(verified.code, 0) << verified.out << verified.err;
  EXPECT_THAT(verified.out, HasSubstr(": OK"));

  EXPECT_EQ(SubjectEntry(node.get(), NID_organizationName), "bloomroute");
  EXPECT_EQ(SubjectEntry(node.get(), NID_organizationalUnitName), "node");
  EXPECT_EQ(SubjectEntry(node.get(), NID_commonName), "node");
  EXPECT_THAT(AltNames(node.get()),
              ElementsAre("IP:127.0.0.1", "DNS:localhost", "IP:::1",
                          "IP:fe80::1", "DNS:rs1.example"));
  EXPECT_EQ(X509_get_extended_key_usage(node.get()),
            XKU_SSL_SERVER | XKU_SSL_CLIENT);
  EXPECT_EQ(X509_get_key_usage(node.get()),
            static_cast<uint32_t>(KU_DIGITAL_SIGNATURE));
  EXPECT_EQ(X509_check_ca(node.get()), 0);
  EXPECT_EQ(X509_check_host(node.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_ip_asc(node.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(node.get(), "10.0.0.1", 0), 0);
  // The authority key id is the CA's subject key id.
  EXPECT_EQ(ASN1_OCTET_STRING_cmp(X509_get0_authority_key_id(node.get()),
                                  X509_get0_subject_key_id(ca.get())),
            0);
  EXPECT_EQ(X509_get_signature_nid(node.get()), NID_ecdsa_with_SHA256);
  EXPECT_EQ(FileMode(Path("node.key")), 0600);
  EXPECT_EQ(FileMode(Path("node.crt")), 0644);
  EXPECT_TRUE(
      CheckCertAndKey(Path("ca.crt"), Path("node.crt"), Path("node.key")).ok());
}

TEST_F(CertsTest, ClientCertCarriesUserAndRole) {
  StatusOr<std::vector<std::string>> written =
      CreateClientCert(options_, "alice.b-2_x", Role::kWrite);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_THAT(*written, ElementsAre(Path("client.alice.b-2_x.crt"),
                                    Path("client.alice.b-2_x.key")));
  X509Ptr ca = LoadCert(Path("ca.crt"));
  X509Ptr client = LoadCert(Path("client.alice.b-2_x.crt"));
  ASSERT_NE(client, nullptr);
  EXPECT_EQ(VerifyChain(ca.get(), client.get()), X509_V_OK);
  EXPECT_EQ(OpensslVerify(Path("ca.crt"), Path("client.alice.b-2_x.crt")).code,
            0);
  EXPECT_EQ(SubjectEntry(client.get(), NID_organizationName), "bloomroute");
  EXPECT_EQ(SubjectEntry(client.get(), NID_organizationalUnitName), "write");
  EXPECT_EQ(SubjectEntry(client.get(), NID_commonName), "alice.b-2_x");
  EXPECT_EQ(X509_get_extended_key_usage(client.get()),
            static_cast<uint32_t>(XKU_SSL_CLIENT));
  EXPECT_TRUE(AltNames(client.get()).empty());
  EXPECT_EQ(FileMode(Path("client.alice.b-2_x.key")), 0600);
}

TEST_F(CertsTest, SerialNumbersAreRandomAndPositive) {
  ASSERT_TRUE(CreateClientCert(options_, "a", Role::kRead).ok());
  ASSERT_TRUE(CreateClientCert(options_, "b", Role::kRead).ok());
  X509Ptr a = LoadCert(Path("client.a.crt"));
  X509Ptr b = LoadCert(Path("client.b.crt"));
  const ASN1_INTEGER* sa = X509_get0_serialNumber(a.get());
  EXPECT_NE(ASN1_INTEGER_cmp(sa, X509_get0_serialNumber(b.get())), 0);
  BIGNUM* bn = ASN1_INTEGER_to_BN(sa, nullptr);
  EXPECT_FALSE(BN_is_negative(bn));
  EXPECT_LE(BN_num_bits(bn), 159);
  // A random 159-bit number has fewer than 100 bits with chance 2^-59.
  EXPECT_GT(BN_num_bits(bn), 100);
  BN_free(bn);
}

TEST_F(CertsTest, ExpiredCertIsExpired) {
  const auto now = CertClock::now();
  options_.validity = {now - std::chrono::hours(48),
                       now - std::chrono::hours(24)};
  ASSERT_TRUE(CreateClientCert(options_, "old", Role::kRead).ok());
  X509Ptr ca = LoadCert(Path("ca.crt"));
  X509Ptr old = LoadCert(Path("client.old.crt"));
  EXPECT_EQ(VerifyChain(ca.get(), old.get()), X509_V_ERR_CERT_HAS_EXPIRED);
  testing::CommandOutput verified =
      OpensslVerify(Path("ca.crt"), Path("client.old.crt"));
  EXPECT_NE(verified.code, 0);
  EXPECT_THAT(verified.out + verified.err, HasSubstr("expired"));
  Status checked = CheckCertAndKey(Path("ca.crt"), Path("client.old.crt"),
                                   Path("client.old.key"));
  EXPECT_THAT(checked.ToString(), HasSubstr("expired"));
  EXPECT_THAT(checked.ToString(), HasSubstr("client.old.crt"));
}

TEST_F(CertsTest, CertOfAnotherCaDoesNotVerify) {
  CertOptions other = options_;
  other.certs_dir = dir_.path() + "/other";
  other.validity = CertValidity::For(kDefaultCaLifetime);
  ASSERT_TRUE(CreateCa(other).ok());
  ASSERT_TRUE(CreateNodeCert(other, {"127.0.0.1"}).ok());
  X509Ptr ca = LoadCert(Path("ca.crt"));
  X509Ptr foreign = LoadCert(other.certs_dir + "/node.crt");
  EXPECT_EQ(VerifyChain(ca.get(), foreign.get()),
            X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY);
  EXPECT_NE(OpensslVerify(Path("ca.crt"), other.certs_dir + "/node.crt").code,
            0);
  EXPECT_FALSE(CheckCertAndKey(Path("ca.crt"), other.certs_dir + "/node.crt",
                               other.certs_dir + "/node.key")
                   .ok());
  // A key of one CA with the certificate of the other is refused.
  other.ca_key = Path("ca.key");
  Status mixed = CreateClientCert(other, "x", Role::kRead).status();
  EXPECT_TRUE(mixed.IsCorruption()) << mixed.ToString();
  EXPECT_THAT(mixed.ToString(), HasSubstr("ca.key"));
}

// Certificates could not be revoked. RevokeCert keeps the CA's list in
// crl.pem; `openssl verify -crl_check` (OpenSSL's own reading of it) then
// refuses the revoked certificate and accepts the others.
TEST_F(CertsTest, RevokedCertificatesFailVerificationWithTheList) {
  ASSERT_TRUE(CreateClientCert(options_, "alice", Role::kRead).ok());
  ASSERT_TRUE(CreateClientCert(options_, "bob", Role::kRead).ok());
  auto verify = [&](const std::string& user) {
    return testing::RunProgram(
               OpensslBinary(),
               {"verify", "-CAfile", Path("ca.crt"), "-crl_check", "-CRLfile",
                Path(kCrlFile), Path(ClientCertFile(user))})
        .code;
  };
  StatusOr<std::vector<std::string>> written =
      RevokeCert(options_, ClientCertFile("alice"));
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(*written, std::vector<std::string>{Path(kCrlFile)});
  EXPECT_EQ(FileMode(Path(kCrlFile)), 0644);
  EXPECT_NE(verify("alice"), 0);
  EXPECT_EQ(verify("bob"), 0);
  // Again, and bob too: the list grows by one, alice stays on it.
  ASSERT_TRUE(RevokeCert(options_, ClientCertFile("alice")).ok());
  ASSERT_TRUE(RevokeCert(options_, Path(ClientCertFile("bob"))).ok());
  EXPECT_NE(verify("alice"), 0);
  EXPECT_NE(verify("bob"), 0);
  // Renewing it without a certificate keeps both.
  ASSERT_TRUE(RevokeCert(options_, "").ok());
  EXPECT_NE(verify("alice"), 0);
  // Not the CA's own certificate, nor one of another CA.
  Status own = RevokeCert(options_, "ca.crt").status();
  EXPECT_TRUE(own.IsInvalidArgument()) << own.ToString();
  CertOptions other = options_;
  other.certs_dir = dir_.path() + "/other";
  other.validity = CertValidity::For(kDefaultCaLifetime);
  ASSERT_TRUE(CreateCa(other).ok());
  ASSERT_TRUE(CreateNodeCert(other, {"127.0.0.1"}).ok());
  Status foreign = RevokeCert(options_, other.certs_dir + "/node.crt").status();
  EXPECT_TRUE(foreign.IsInvalidArgument()) << foreign.ToString();
  EXPECT_THAT(foreign.ToString(), HasSubstr("was not signed by"));
  // A list another CA signed is not extended.
  ASSERT_TRUE(RevokeCert(other, "node.crt").ok());
  std::filesystem::copy_file(other.certs_dir + "/" + kCrlFile, Path(kCrlFile),
                             std::filesystem::copy_options::overwrite_existing);
  Status mixed = RevokeCert(options_, ClientCertFile("bob")).status();
  EXPECT_TRUE(mixed.IsCorruption()) << mixed.ToString();
}

TEST_F(CertsTest, CaKeyMayLiveElsewhere) {
  CertOptions split;
  split.certs_dir = dir_.path() + "/split";
  split.ca_key = dir_.path() + "/safe.key";
  split.validity = CertValidity::For(kDefaultCaLifetime);
  ASSERT_TRUE(CreateCa(split).ok());
  EXPECT_FALSE(std::filesystem::exists(split.certs_dir + "/ca.key"));
  EXPECT_EQ(FileMode(split.ca_key), 0600);
  ASSERT_TRUE(CreateNodeCert(split, {"localhost"}).ok());
  split.ca_key.clear();  // the default place has no key
  split.overwrite = true;
  Status missing = CreateNodeCert(split, {"localhost"}).status();
  EXPECT_THAT(missing.ToString(), HasSubstr("ca.key"));
}

TEST_F(CertsTest, NothingIsOverwrittenUnlessAsked) {
  ASSERT_TRUE(CreateNodeCert(options_, {"localhost"}).ok());
  const std::string key = ReadAll(Path("node.key"));
  const std::string cert = ReadAll(Path("node.crt"));
  Status again = CreateNodeCert(options_, {"127.0.0.1"}).status();
  EXPECT_TRUE(again.IsIOError()) << again.ToString();
  EXPECT_THAT(again.ToString(), HasSubstr("node.crt"));
  EXPECT_THAT(again.ToString(), HasSubstr("--overwrite"));
  EXPECT_EQ(ReadAll(Path("node.key")), key);
  EXPECT_EQ(ReadAll(Path("node.crt")), cert);
  // Only the key left: still refused, and the key is kept.
  std::filesystem::remove(Path("node.crt"));
  EXPECT_THAT(CreateNodeCert(options_, {"x"}).status().ToString(),
              HasSubstr("node.key"));
  EXPECT_EQ(ReadAll(Path("node.key")), key);
  EXPECT_FALSE(std::filesystem::exists(Path("node.crt")));
  options_.validity = CertValidity::For(kDefaultCaLifetime);
  EXPECT_THAT(CreateCa(options_).status().ToString(), HasSubstr("ca.crt"));

  options_.overwrite = true;
  ASSERT_TRUE(CreateNodeCert(options_, {"127.0.0.1"}).ok());
  EXPECT_NE(ReadAll(Path("node.key")), key);
  EXPECT_EQ(FileMode(Path("node.key")), 0600);
  EXPECT_EQ(FileMode(Path("node.crt")), 0644);
  // No temporary file is left behind.
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(options_.certs_dir))
    names.push_back(e.path().filename().string());
  EXPECT_THAT(names,
              UnorderedElementsAre("ca.crt", "ca.key", "node.crt", "node.key"));
}

TEST_F(CertsTest, TokenFileHoldsOnlyTheHash) {
  StatusOr<std::vector<std::string>> written =
      CreateToken(options_, "bob", Role::kRead);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_THAT(*written, ElementsAre(Path("token.bob"), Path("tokens")));
  const std::string token_line = ReadAll(Path("token.bob"));
  ASSERT_EQ(token_line.size(), 2 * kTokenBytes + 1);
  EXPECT_EQ(token_line.back(), '\n');
  const std::string token = token_line.substr(0, 2 * kTokenBytes);
  EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(ReadAll(Path("tokens")), TokenHash(token) + " read bob\n");
  EXPECT_EQ(FileMode(Path("token.bob")), 0600);
  EXPECT_EQ(FileMode(Path("tokens")), 0600);

  ASSERT_TRUE(CreateToken(options_, "carol", Role::kAdmin).ok());
  const std::string carol = ReadAll(Path("token.carol")).substr(0, 64);
  EXPECT_NE(carol, token);
  EXPECT_EQ(ReadAll(Path("tokens")), TokenHash(token) + " read bob\n" +
                                         TokenHash(carol) + " admin carol\n");
  // A second token for bob needs --overwrite, which revokes the first.
  EXPECT_THAT(CreateToken(options_, "bob", Role::kWrite).status().ToString(),
              HasSubstr("token.bob"));
  options_.overwrite = true;
  ASSERT_TRUE(CreateToken(options_, "bob", Role::kWrite).ok());
  const std::string bob2 = ReadAll(Path("token.bob")).substr(0, 64);
  EXPECT_EQ(ReadAll(Path("tokens")), TokenHash(carol) + " admin carol\n" +
                                         TokenHash(bob2) + " write bob\n");
}

TEST_F(CertsTest, TokensFileIsBounded) {
  std::ofstream(Path("tokens"))
      << std::string(kMaxTokenFileBytes - 10, '#') << "\n";
  Status s = CreateToken(options_, "dan", Role::kRead).status();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("kMaxTokenFileBytes"));
  EXPECT_FALSE(std::filesystem::exists(Path("token.dan")));
}

TEST_F(CertsTest, BadUserRoleAndHostAreRefused) {
  for (const char* user : {"", ".", "..", "a/b", "a b", "é", "../x", "a\nb"}) {
    Status s = CreateClientCert(options_, user, Role::kRead).status();
    EXPECT_TRUE(s.IsInvalidArgument()) << user << ": " << s.ToString();
    EXPECT_TRUE(
        CreateToken(options_, user, Role::kRead).status().IsInvalidArgument());
  }
  EXPECT_TRUE(ValidateUserName(std::string(kMaxUserBytes, 'u')).ok());
  EXPECT_THAT(ValidateUserName(std::string(kMaxUserBytes + 1, 'u')).ToString(),
              HasSubstr("64"));
  EXPECT_TRUE(CreateClientCert(options_, "n", Role::kNode)
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(CreateClientCert(options_, "n", Role::kNone)
                  .status()
                  .IsInvalidArgument());
  EXPECT_THAT(ParseClientRole("node").status().ToString(),
              HasSubstr("create-node"));
  EXPECT_TRUE(ParseClientRole("root").status().IsInvalidArgument());
  EXPECT_EQ(*ParseClientRole("admin"), Role::kAdmin);
  for (const char* host : {"", "a b", "-a.com", "a-.com", "a..b",
                           "x,IP:1.2.3.4", "*.example", "[1.2.3.4]", "[::1"}) {
    Status s = CreateNodeCert(options_, {host}).status();
    EXPECT_TRUE(s.IsInvalidArgument()) << host << ": " << s.ToString();
  }
  EXPECT_TRUE(CreateNodeCert(options_, {}).status().IsInvalidArgument());
  EXPECT_FALSE(ValidateHost(std::string(64, 'a') + ".com").ok());
  EXPECT_TRUE(ValidateHost(std::string(63, 'a') + ".com").ok());
  EXPECT_FALSE(std::filesystem::exists(Path("node.crt")));
  const auto now = CertClock::now();
  options_.validity = {now, now - std::chrono::hours(1)};
  EXPECT_TRUE(
      CreateNodeCert(options_, {"localhost"}).status().IsInvalidArgument());
}

TEST_F(CertsTest, OversizedOrGarbageFilesAreNamed) {
  std::ofstream(Path("ca.crt"), std::ios::trunc)
      << std::string(kMaxPemFileBytes + 1, 'x');
  Status big = CreateNodeCert(options_, {"localhost"}).status();
  EXPECT_THAT(big.ToString(), HasSubstr("ca.crt"));
  EXPECT_THAT(big.ToString(), HasSubstr("kMaxPemFileBytes"));
  std::ofstream(Path("ca.crt"), std::ios::trunc) << "not a certificate\n";
  Status garbage = CreateNodeCert(options_, {"localhost"}).status();
  EXPECT_TRUE(garbage.IsCorruption()) << garbage.ToString();
  EXPECT_THAT(garbage.ToString(), HasSubstr("ca.crt"));
}

TEST_F(CertsTest, ListShowsSubjectsHostsAndExpiry) {
  ASSERT_TRUE(CreateNodeCert(options_, {"10.1.2.3", "db.example"}).ok());
  const auto now = CertClock::now();
  options_.validity = {now - std::chrono::hours(48),
                       now - std::chrono::hours(24)};
  ASSERT_TRUE(CreateClientCert(options_, "old", Role::kAdmin).ok());
  std::ofstream(Path("broken.crt")) << "nope\n";
  StatusOr<std::vector<CertInfo>> listed = ListCerts(options_.certs_dir);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 4u);
  const CertInfo& broken = (*listed)[0];
  const CertInfo& ca = (*listed)[1];
  const CertInfo& old = (*listed)[2];
  const CertInfo& node = (*listed)[3];
  EXPECT_EQ(broken.file, "broken.crt");
  EXPECT_FALSE(broken.error.empty());
  EXPECT_EQ(ca.subject, "O=bloomroute, CN=bloomroute CA");
  EXPECT_TRUE(ca.signed_by_ca);
  EXPECT_EQ(old.file, "client.old.crt");
  EXPECT_EQ(old.role, "admin");
  EXPECT_TRUE(old.expired);
  EXPECT_TRUE(old.signed_by_ca);
  EXPECT_EQ(node.subject, "O=bloomroute, OU=node, CN=node");
  EXPECT_EQ(node.role, "node");
  EXPECT_THAT(node.hosts, ElementsAre("IP:10.1.2.3", "DNS:db.example"));
  EXPECT_FALSE(node.expired);
  EXPECT_GT(node.not_after, now + std::chrono::hours(24 * 365 * 4));
  EXPECT_TRUE(ListCerts(dir_.path() + "/none").status().IsNotFound());
}

TEST(LocalCertsTest, MadeOnceThenReusedAndRepaired) {
  testing::TempDir dir;
  const std::string certs = dir.path() + "/certs";
  StatusOr<LocalCerts> made = EnsureLocalCerts(certs);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(made->written.size(), 6u);
  EXPECT_EQ(made->node.ca_file, certs + "/ca.crt");
  EXPECT_EQ(made->node.cert_file, certs + "/node.crt");
  EXPECT_EQ(made->node.key_file, certs + "/node.key");
  EXPECT_EQ(made->client.ca_file, certs + "/ca.crt");
  EXPECT_EQ(made->client.cert_file, certs + "/client.root.crt");
  EXPECT_EQ(made->client.key_file, certs + "/client.root.key");
  X509Ptr node = LoadCert(made->node.cert_file);
  EXPECT_THAT(AltNames(node.get()),
              ElementsAre("IP:127.0.0.1", "DNS:localhost", "IP:::1"));
  X509Ptr client = LoadCert(made->client.cert_file);
  EXPECT_EQ(SubjectEntry(client.get(), NID_organizationalUnitName), "admin");
  EXPECT_EQ(SubjectEntry(client.get(), NID_commonName), "root");
  const std::string ca_bytes = ReadAll(certs + "/ca.crt");

  StatusOr<LocalCerts> reused = EnsureLocalCerts(certs);
  ASSERT_TRUE(reused.ok()) << reused.status().ToString();
  EXPECT_TRUE(reused->written.empty());
  EXPECT_EQ(ReadAll(certs + "/ca.crt"), ca_bytes);

  // An expired client certificate is made again under the same CA.
  CertOptions expired;
  expired.certs_dir = certs;
  expired.overwrite = true;
  const auto now = CertClock::now();
  expired.validity = {now - std::chrono::hours(48),
                      now - std::chrono::hours(24)};
  ASSERT_TRUE(CreateClientCert(expired, "root", Role::kAdmin).ok());
  StatusOr<LocalCerts> repaired = EnsureLocalCerts(certs);
  ASSERT_TRUE(repaired.ok()) << repaired.status().ToString();
  EXPECT_THAT(repaired->written, ElementsAre(certs + "/client.root.crt",
                                             certs + "/client.root.key"));
  EXPECT_TRUE(CheckCertAndKey(certs + "/ca.crt", certs + "/client.root.crt",
                              certs + "/client.root.key")
                  .ok());
  EXPECT_EQ(ReadAll(certs + "/ca.crt"), ca_bytes);

  // A CA without its key is not replaced.
  std::filesystem::remove(certs + "/ca.key");
  std::filesystem::remove(certs + "/node.crt");
  Status no_key = EnsureLocalCerts(certs).status();
  EXPECT_THAT(no_key.ToString(), HasSubstr("ca.key"));
  EXPECT_EQ(ReadAll(certs + "/ca.crt"), ca_bytes);
}

}  // namespace
}  // namespace bloomroute
