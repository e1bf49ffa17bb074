// tools/local_cluster.h with `secure`: the certificates are made in
// DIR/certs on the first start, kept on a restart, and the node certificate
// is what every server and the router's region server client are given.
#include "tools/local_cluster.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "tests/regionstore/region_store_test_util.h"
#include "tools/certs.h"

namespace bloomroute {
namespace {

using ::testing::SizeIs;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// TlsOptions has no operator==: its three files.
std::string Files(const TlsOptions& tls) {
  return tls.ca_file + " " + tls.cert_file + " " + tls.key_file;
}

class LocalClusterTest : public ::testing::Test {
 protected:
  LocalClusterOptions Options(bool secure) const {
    LocalClusterOptions options;
    options.data_dir = dir_.path() + "/data";
    options.servers = 2;
    options.router_port = 0;
    options.secure = secure;
    return options;
  }

  testing::TempDir dir_;
};

TEST_F(LocalClusterTest, SecureMakesCertificatesOnceAndUsesTheNodeOne) {
  const std::string certs = dir_.path() + "/data/certs";
  std::string ca_bytes;
  {
    StatusOr<std::unique_ptr<LocalCluster>> cluster =
        LocalCluster::Start(Options(true));
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    EXPECT_GT((*cluster)->router_port(), 0);
    EXPECT_EQ((*cluster)->certs_dir(), certs);
    EXPECT_THAT((*cluster)->certs_written(), SizeIs(6));
    const TlsOptions& node = (*cluster)->node_tls();
    EXPECT_EQ(node.ca_file, certs + "/ca.crt");
    EXPECT_EQ(node.cert_file, certs + "/node.crt");
    EXPECT_EQ(node.key_file, certs + "/node.key");
    EXPECT_TRUE(node.ValidateForServer().ok());
    EXPECT_TRUE(
        CheckCertAndKey(node.ca_file, node.cert_file, node.key_file).ok());
    const TlsOptions& client = (*cluster)->client_tls();
    EXPECT_EQ(client.ca_file, certs + "/ca.crt");
    EXPECT_EQ(client.cert_file, certs + "/client.root.crt");
    EXPECT_EQ(client.key_file, certs + "/client.root.key");
    EXPECT_TRUE(
        CheckCertAndKey(client.ca_file, client.cert_file, client.key_file)
            .ok());
    // What each server and the router's client to the region servers got.
    EXPECT_EQ(Files((*cluster)->region_server_tls()), Files(node));
    EXPECT_EQ(Files((*cluster)->router_server_tls()), Files(node));
    EXPECT_EQ(Files((*cluster)->region_client_tls()), Files(node));
    ca_bytes = ReadAll(certs + "/ca.crt");
    (*cluster)->Stop();
  }
  StatusOr<std::unique_ptr<LocalCluster>> again =
      LocalCluster::Start(Options(true));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE((*again)->certs_written().empty());
  EXPECT_EQ(ReadAll(certs + "/ca.crt"), ca_bytes);
  EXPECT_TRUE((*again)->node_tls().enabled());
}

TEST_F(LocalClusterTest, PlainMakesNoCertificates) {
  StatusOr<std::unique_ptr<LocalCluster>> cluster =
      LocalCluster::Start(Options(false));
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  EXPECT_FALSE((*cluster)->node_tls().enabled());
  EXPECT_FALSE((*cluster)->region_server_tls().enabled());
  EXPECT_FALSE((*cluster)->router_server_tls().enabled());
  EXPECT_FALSE((*cluster)->region_client_tls().enabled());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/data/certs"));
}

TEST_F(LocalClusterTest, SecureRefusesACaItCannotUse) {
  const std::string certs = dir_.path() + "/data/certs";
  std::filesystem::create_directories(certs);
  std::ofstream(certs + "/ca.crt") << "not a certificate\n";
  StatusOr<std::unique_ptr<LocalCluster>> cluster =
      LocalCluster::Start(Options(true));
  ASSERT_FALSE(cluster.ok());
  EXPECT_THAT(cluster.status().ToString(), ::testing::HasSubstr("ca.crt"));
  EXPECT_EQ(ReadAll(certs + "/ca.crt"), "not a certificate\n");
}

}  // namespace
}  // namespace bloomroute
