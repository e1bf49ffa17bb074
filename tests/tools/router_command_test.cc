#include "tools/router_command.h"

#include <gtest/gtest.h>

namespace bloomroute {
namespace {

class RouterCommandTest : public ::testing::Test {};

// The router's region client presents the TLS files of its own port (its
// node certificate) and takes replies as large as its clients' requests.
TEST_F(RouterCommandTest, RegionClientsUseTheServersTlsFilesAndLimits) {
  ServerOptions server;
  server.max_frame_bytes = 1 << 20;
  server.max_decoded_bytes = 8 << 20;
  server.tls.ca_file = "ca.pem";
  server.tls.cert_file = "node.pem";
  server.tls.key_file = "node.key";
  const ThriftClientOptions client = RegionClientOptionsFor(server, 1234);
  EXPECT_EQ(client.tls.ca_file, "ca.pem");
  EXPECT_EQ(client.tls.cert_file, "node.pem");
  EXPECT_EQ(client.tls.key_file, "node.key");
  EXPECT_EQ(client.max_frame_bytes, uint32_t{1} << 20);
  EXPECT_EQ(client.max_decoded_bytes, uint64_t{8} << 20);
  EXPECT_EQ(client.long_call_timeout_ms, 1234);
  EXPECT_EQ(client.token, "");
  EXPECT_TRUE(client.Validate().ok());

  const ThriftClientOptions plain = RegionClientOptionsFor(ServerOptions(), 1);
  EXPECT_FALSE(plain.tls.enabled());
}

}  // namespace
}  // namespace bloomroute
