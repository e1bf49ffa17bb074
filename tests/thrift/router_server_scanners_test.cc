// RouterServer's scanners over real connections: each connection owns the
// scanners it opens (ids others cannot guess or use, a cap per connection,
// closed with the connection), and a repeated getScannerRows call sequence
// number gets the same rows again (a retry after a lost reply).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/router_client.h"
#include "tests/router/router_test_util.h"
#include "tests/thrift/handler_test_util.h"
#include "thrift/router_server.h"
#include "thrift/router_service_handler.h"
#include "thrift/server/access_control.h"
#include "thrift/server/security.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::ExpectIllegal;
using ::bloomroute::testing::MakePut;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::MakeTableSpec;
using ::bloomroute::testing::RouterClient;

class RouterServerScannersTest : public ::testing::Test {
 protected:
  // Opens the router (with `options` changed by `edit`) and serves it.
  template <typename Edit>
  void Serve(Edit&& edit) {
    router::RouterOptions options = testing::RouterOptionsFor(cluster_);
    edit(options);
    auto opened = router::Router::Open(options, cluster_.Factory());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    router_ = std::move(opened).value();
    RouterServerOptions server_options;
    server_options.port = 0;
    server_options.threads = 4;
    auto server = RouterServer::Start(router_, server_options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    RouterClient c(server_->port());
    client::TTableInfo info;
    c->createIndexedTable(info,
                          MakeTableSpec("places", {"d:country"}, 0, {"m"}));
    std::vector<client::TPut> puts;
    for (char k = 'a'; k <= 'z'; ++k) {
      puts.push_back(MakePut(std::string(1, k), {{"d:country", "NO"}}));
    }
    c->putMultiple("places", puts);
  }
  void Serve() {
    Serve([](router::RouterOptions&) {});
  }
  // Opens scanners on `c` until the router refuses one (TIOError) or `most`
  // are open; returns how many it opened.
  static int OpenUntilRefused(RouterClient& c, int most) {
    for (int n = 0; n < most; ++n) {
      try {
        c->openScanner("places", MakeScan());
      } catch (const rpc::TIOError&) {
        return n;
      }
    }
    return most;
  }

  testing::StoreCluster cluster_{2};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> server_;
};

TEST_F(RouterServerScannersTest, IdsAreUnguessableAndOnlyTheOpenerUsesThem) {
  Serve();
  RouterClient mine(server_->port());
  RouterClient other(server_->port());
  const int64_t a = mine->openScanner("places", MakeScan());
  const int64_t b = mine->openScanner("places", MakeScan());
  const int64_t c = other->openScanner("places", MakeScan());
  // Random: neighbours of one id are not the next ids handed out.
  EXPECT_GT(std::llabs(b - a), 1 << 20) << a << " " << b;
  EXPECT_GT(std::llabs(c - b), 1 << 20) << b << " " << c;
  // Another connection's scanner is unknown to this one.
  std::vector<client::TResult> rows;
  ExpectIllegal([&] { other->getScannerRows(rows, a, 2, 0); }, "NotFound");
  ExpectIllegal([&] { other->closeScanner(a); }, "NotFound");
  mine->getScannerRows(rows, a, 2, 0);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].row, "a");
}

TEST_F(RouterServerScannersTest, OneConnectionCannotHoldEveryScanner) {
  Serve();  // the default caps
  RouterClient greedy(server_->port());
  const int opened = OpenUntilRefused(greedy, 1001);
  EXPECT_LT(opened, static_cast<int>(router::RouterOptions().max_scanners));
  RouterClient other(server_->port());
  EXPECT_GT(other->openScanner("places", MakeScan()), 0);
}

TEST_F(RouterServerScannersTest, ClosingAConnectionClosesItsScanners) {
  Serve([](router::RouterOptions& o) { o.max_scanners = 3; });
  auto first = std::make_unique<RouterClient>(server_->port());
  ASSERT_EQ(OpenUntilRefused(*first, 10), 3);
  RouterClient second(server_->port());
  EXPECT_EQ(OpenUntilRefused(second, 1), 0);  // the global cap
  first.reset();  // the connection closes: its scanners go with it
  // The server notices the closed connection when it next reads from it.
  int opened = 0;
  for (int i = 0; i < 200 && opened == 0; ++i) {
    opened = OpenUntilRefused(second, 1);
    if (opened == 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(opened, 1);
}

// A reply lost on the way (the client times out and asks again) must not
// skip rows: the retry carries the lost call's sequence number.
TEST_F(RouterServerScannersTest, ARepeatedCallSequenceGetsTheSameRowsAgain) {
  Serve();
  RouterClient c(server_->port());
  const int64_t id = c->openScanner("places", MakeScan());
  std::vector<client::TResult> rows;
  c->getScannerRows(rows, id, 2, 1);
  EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"a", "b"}));
  c->getScannerRows(rows, id, 2, 2);  // this reply is "lost"
  c->getScannerRows(rows, id, 2, 2);  // the retry
  EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"c", "d"}))
      << "the retry skipped the lost reply's rows";
  c->getScannerRows(rows, id, 2, 3);
  EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"e", "f"}));
  ExpectIllegal([&] { c->getScannerRows(rows, id, 2, 5); },
                "the next call is 4");
  ExpectIllegal([&] { c->getScannerRows(rows, id, 2, 1); },
                "the next call is 4");
  // Unsequenced calls go on from where the scanner is.
  c->getScannerRows(rows, id, 2, 0);
  EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"g", "h"}));
}

// The last batch of a region repeated across the region boundary, and the
// end of the scan repeated: still the same rows, then the empty answer.
TEST_F(RouterServerScannersTest, RepeatsAcrossRegionsAndAtTheEnd) {
  Serve();
  RouterClient c(server_->port());
  const int64_t id = c->openScanner("places", MakeScan("k"));
  std::vector<client::TResult> rows;
  c->getScannerRows(rows, id, 4, 1);
  EXPECT_EQ(testing::RowKeys(rows),
            (std::vector<std::string>{"k", "l", "m", "n"}));
  c->getScannerRows(rows, id, 4, 1);
  EXPECT_EQ(testing::RowKeys(rows),
            (std::vector<std::string>{"k", "l", "m", "n"}));
  std::vector<std::string> rest;
  uint64_t seq = 2;
  for (;; ++seq) {
    c->getScannerRows(rows, id, 100, static_cast<int64_t>(seq));
    if (rows.empty()) break;
    for (const std::string& k : testing::RowKeys(rows)) rest.push_back(k);
  }
  EXPECT_EQ(rest.size(), 12u);                                  // o..z
  c->getScannerRows(rows, id, 100, static_cast<int64_t>(seq));  // again
  EXPECT_TRUE(rows.empty());
}

// Under TLS a scanner is its principal's, as HBase's scanner ids are not
// tied to a connection: another connection of the same user reads and
// closes it (its limit kept), and it outlives the connection that opened
// it. Another user's connection, or a plaintext one, does not see it.
TEST_F(RouterServerScannersTest, APrincipalsScannerServesEachOfItsConnections) {
  Serve();
  RouterServiceHandlerFactory factory(router_);
  const apache::thrift::TConnectionInfo info;
  auto open = [&] {
    return dynamic_cast<RouterServiceHandler*>(factory.getHandler(info));
  };
  const Identity alice{"alice", Role::kRead};
  const Identity bob{"bob", Role::kRead};
  RouterServiceHandler* first = open();
  RouterServiceHandler* second = open();
  client::TScan scan = MakeScan();
  scan.__set_limit(5);
  int32_t id = 0;
  {
    thrift_internal::ScopedCaller as(&alice);
    id = first->openScanner("places", scan);
    std::vector<client::TResult> rows;
    first->getScannerRows(rows, id, 2, 0);
    EXPECT_EQ(testing::RowKeys(rows), (std::vector<std::string>{"a", "b"}));
  }
  factory.releaseHandler(first);  // its connection closes; alice's stays
  std::vector<client::TResult> rows;
  {
    thrift_internal::ScopedCaller as(&bob);
    ExpectIllegal([&] { second->getScannerRows(rows, id, 2, 0); }, "NotFound");
  }
  ExpectIllegal([&] { second->getScannerRows(rows, id, 2, 0); }, "NotFound");
  thrift_internal::ScopedCaller as(&alice);
  second->getScannerRows(rows, id, 10, 0);
  EXPECT_EQ(testing::RowKeys(rows),
            (std::vector<std::string>{"c", "d", "e"}));  // limit 5
  second->closeScanner(id);
  ExpectIllegal([&] { second->closeScanner(id); }, "NotFound");
  factory.releaseHandler(second);
}

}  // namespace
}  // namespace bloomroute
