// RouterServer over a FakeRouter: the client API end to end through a real
// Thrift connection on loopback.
#include "thrift/router_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/thrift/fake_router.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::GetRow;
using ::bloomroute::testing::PutRow;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::TableSpec;
using ::bloomroute::testing::WhereEquals;
using ::testing::HasSubstr;

class RouterServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RouterServerOptions options;
    options.port = 0;
    options.threads = 4;
    options.idle_timeout_ms = 2000;
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ASSERT_GT(server_->port(), 0);
  }

  std::shared_ptr<FakeRouter> router_ = std::make_shared<FakeRouter>();
  std::unique_ptr<RouterServer> server_;
};

TEST_F(RouterServerTest, DefaultsAndBadOptions) {
  EXPECT_EQ(RouterServerOptions().port, 9090);
  EXPECT_EQ(RouterServerOptions().host, "127.0.0.1");
  EXPECT_TRUE(RouterServerOptions().Validate().ok());
  RouterServerOptions options;
  options.threads = 0;
  EXPECT_TRUE(
      RouterServer::Start(router_, options).status().IsInvalidArgument());
  EXPECT_TRUE(RouterServer::Start(nullptr, RouterServerOptions())
                  .status()
                  .IsInvalidArgument());
}

TEST_F(RouterServerTest, ServesTheClientApiOverTheWire) {
  router_->table_info.descriptor.table_id = 1;
  router_->table_info.descriptor.name = "geo";
  router_->lookup_result.rows = {Row{"oslo", {{"d:cc", "NO"}}}};
  router_->lookup_result.routing.servers_in_cluster = 2;
  router_->lookup_result.routing.asked = {{1, "127.0.0.1:2"}};
  router_->lookup_result.routing.with_rows = {{1, "127.0.0.1:2"}};

  RouterClient client(server_->port());
  client::TTableInfo info;
  client->createTable(info, TableSpec("geo", {"d:cc"}));
  EXPECT_EQ(info.descriptor.name, "geo");
  EXPECT_EQ(router_->spec.name, "geo");

  client->putMultiple("geo", {PutRow("oslo", {{"d:cc", "NO"}}),
                              PutRow("lund", {{"d:cc", "SE"}})});
  ASSERT_EQ(router_->mutations.size(), 2u);
  EXPECT_EQ(router_->mutations[1].row_key, "lund");

  client::TIndexResult found;
  client->getByIndex(found, "geo", WhereEquals({{"d:cc", "NO"}}, 10));
  EXPECT_EQ(testing::RowKeys(found.rows), (std::vector<std::string>{"oslo"}));
  EXPECT_EQ(found.routing.serversInCluster, 2);
  EXPECT_EQ(testing::ServerIds(found.routing.serversWithRows),
            (std::vector<int32_t>{1}));
  EXPECT_EQ(router_->lookups.at(0).limit, 10u);
}

TEST_F(RouterServerTest, BadRequestsAreTIllegalArgumentOnAnOpenConnection) {
  RouterClient client(server_->port());
  // A C++ client always sends default-requiredness fields, so what it can
  // get wrong is a value: here a negative limit.
  try {
    client::TIndexResult found;
    client->getByIndex(found, "geo", WhereEquals({{"d:cc", "NO"}}, -1));
    ADD_FAILURE() << "no TIllegalArgument";
  } catch (const rpc::TIllegalArgument& e) {
    EXPECT_THAT(e.message, HasSubstr("tquery.limit is negative (-1)"));
  }
  EXPECT_EQ(router_->calls(), 0);
  router_->FailWith(Status::NotFound("table 'nope' does not exist"));
  try {
    client::TResult row;
    client->get(row, "nope", GetRow("r"));
    ADD_FAILURE() << "no TIllegalArgument";
  } catch (const rpc::TIllegalArgument& e) {
    EXPECT_EQ(e.message, "NotFound: table 'nope' does not exist");
  }
  router_->FailWith(Status::Unavailable("region server 127.0.0.1:1: down"));
  try {
    client->put("geo", PutRow("r", {{"d:a", "1"}}));
    ADD_FAILURE() << "no TIOError";
  } catch (const rpc::TIOError& e) {
    EXPECT_THAT(e.message, HasSubstr("region server 127.0.0.1:1"));
  }
  router_->FailWith(Status::OK());
  std::vector<client::TTableDescriptor> tables;
  client->listTables(tables);  // the same connection still serves
  EXPECT_TRUE(tables.empty());
}

TEST_F(RouterServerTest, BusyPortStopAndRelease) {
  RouterServerOptions options;
  options.port = server_->port();
  auto second = RouterServer::Start(router_, options);
  EXPECT_TRUE(second.status().IsIOError()) << second.status().ToString();

  const int port = server_->port();
  EXPECT_GT(router_.use_count(), 1);  // the handler shares it
  server_->Stop();
  server_->Stop();
  EXPECT_EQ(router_.use_count(), 1);
  EXPECT_THROW(RouterClient client("127.0.0.1", port, 1000),
               apache::thrift::transport::TTransportException);
}

}  // namespace
}  // namespace bloomroute
