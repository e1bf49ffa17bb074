// RouterClient over a list of routers: the list's parsing, calls spread over
// it, failover when a router stops, what is resent after a lost reply and
// what is not, scanners pinned to their router. Two RouterServers over one
// in-process Router stand in for two routers of a cluster (they share the
// catalog, hence the page-token key, as a cluster's routers do); a proxy in
// front of each records which requests reached it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/router/router_test_util.h"
#include "tests/thrift/router_list_test_util.h"
#include "thrift/router_client.h"
#include "thrift/router_server.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;
using testing::PutRow;
using testing::RouterListLostReply;
using testing::RouterListProxy;
using testing::WhereEq;

TEST(RouterListParseTest, ListsAreSplitAndChecked) {
  auto one = ParseRouterList("127.0.0.1:9090");
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(*one, std::vector<std::string>{"127.0.0.1:9090"});
  auto three = ParseRouterList("h1:1, h2:2,[::1]:3");
  ASSERT_TRUE(three.ok()) << three.status().ToString();
  EXPECT_EQ(*three, (std::vector<std::string>{"h1:1", "h2:2", "[::1]:3"}));

  for (const char* bad : {"", " ", "h1:1,", ",h1:1", "h1:1,,h2:2", "h1", "h1:0",
                          "h1:65536", "h1:1,h2", "h1:x"}) {
    const Status s = ParseRouterList(bad).status();
    EXPECT_TRUE(s.IsInvalidArgument()) << "'" << bad << "': " << s.ToString();
  }
  const Status twice = ParseRouterList("h1:1,H1:1").status();
  EXPECT_THAT(twice.message(), HasSubstr("'H1:1' is listed twice"));
  const Status zero = ParseRouterList("h1:1,h2:0").status();
  EXPECT_THAT(zero.message(), HasSubstr("router 'h2:0' has port 0"));

  std::string most;
  for (size_t i = 1; i <= kMaxRouters; ++i) {
    most += (i > 1 ? ",h:" : "h:") + std::to_string(i);
  }
  const std::string too_many = most + ",h:999";
  EXPECT_EQ(ParseRouterList(most)->size(), kMaxRouters);
  EXPECT_THAT(ParseRouterList(too_many).status().message(),
              HasSubstr("more than 64 routers"));
  EXPECT_TRUE(ConnectRouter("h1:1,h1:1").status().IsInvalidArgument());
  RouterListOptions backoff;
  backoff.min_backoff_ms = 10;
  backoff.max_backoff_ms = 5;
  EXPECT_TRUE(ConnectRouter("h1:1", {}, backoff).status().IsInvalidArgument());
}

class RouterListClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    for (int i = 0; i < 2; ++i) {
      RouterServerOptions options;
      options.port = 0;
      options.threads = 4;
      auto server = RouterServer::Start(router_, options);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      servers_.push_back(std::move(server).value());
      proxies_.push_back(
          std::make_unique<RouterListProxy>(servers_.back()->port()));
      ASSERT_TRUE(proxies_.back()->ok());
    }
    ASSERT_TRUE(router_
                    ->CreateTable(router::TableSpec{
                        "places", {"d:country", "d:feature"}, {"g", "n"}, 0})
                    .ok());
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  }

  // A client of `routers` ("A,B") that starts at position `start`.
  std::unique_ptr<RouterClient> Client(const std::string& routers, int start) {
    RouterListOptions list;
    list.start = start;
    auto client = ConnectRouter(routers, {}, list);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }
  std::string Proxies() const {
    return proxies_[0]->address() + "," + proxies_[1]->address();
  }

  testing::TempDir dir_;
  testing::StoreCluster cluster_{3};
  std::shared_ptr<router::Router> router_;
  std::vector<std::unique_ptr<RouterServer>> servers_;
  std::vector<std::unique_ptr<RouterListProxy>> proxies_;
};

// Clients started without a position pick one at random: 32 clients all on
// one router of two has probability 2^-31.
TEST_F(RouterListClientTest, ClientsSpreadOverTheList) {
  for (int i = 0; i < 32; ++i) {
    auto client = Client(Proxies(), RouterListOptions::kRandomStart);
    ASSERT_NE(client, nullptr);
    ASSERT_TRUE(client->ListTables().ok());
  }
  EXPECT_GT(proxies_[0]->Count("listTables"), 0u);
  EXPECT_GT(proxies_[1]->Count("listTables"), 0u);
  EXPECT_EQ(proxies_[0]->Count("listTables") + proxies_[1]->Count("listTables"),
            32u);
}

// A client keeps to its router while it answers.
TEST_F(RouterListClientTest, AClientStaysWithARouterThatAnswers) {
  auto client = Client(Proxies(), 1);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client->ListTables().ok());
  EXPECT_EQ(proxies_[0]->Count("listTables"), 0u);
  EXPECT_EQ(proxies_[1]->Count("listTables"), 5u);
}

TEST_F(RouterListClientTest, AStoppedRouterIsPassedOverAndNoWriteIsLost) {
  auto client = Client(Proxies(), 0);
  for (int i = 0; i < 40; ++i) {
    if (i == 20) proxies_[0]->Stop();
    const Status put =
        client->Mutate("places", {PutRow("r" + std::to_string(i), "NO", "A")});
    ASSERT_TRUE(put.ok()) << i << ": " << put.ToString();
  }
  EXPECT_EQ(proxies_[0]->Count("putMultiple"), 20u);
  EXPECT_EQ(proxies_[1]->Count("putMultiple"), 20u);
  auto found = client->Lookup("places", WhereEq({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->rows.size(), 40u);
}

// Writers in four threads while their router stops under them: writes in
// flight are resent to the other router (puts are idempotent); none fails,
// none is lost.
TEST_F(RouterListClientTest, ConcurrentWritesSurviveTheirRouterStopping) {
  auto client = Client(Proxies(), 0);
  std::atomic<int> written{0};
  std::vector<Status> failures(4);
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50 && failures[t].ok(); ++i) {
        const std::string row =
            "c" + std::to_string(t) + "-" + std::to_string(i);
        failures[t] = client->Mutate("places", {PutRow(row, "DK", "Z")});
        ++written;
      }
    });
  }
  for (int i = 0; i < 2000 && written < 60; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  proxies_[0]->Stop();
  for (std::thread& w : writers) w.join();
  for (const Status& s : failures) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_GT(proxies_[1]->Count("putMultiple"), 0u);
  auto found = client->Lookup("places", WhereEq({{"d:country", "DK"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->rows.size(), 200u);
}

TEST_F(RouterListClientTest, EveryRouterDownIsUnavailableNamingEach) {
  auto client = Client(Proxies(), 0);
  proxies_[0]->Stop();
  proxies_[1]->Stop();
  const Status s = client->ListTables().status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("no router answered listTables (tried " +
                                     proxies_[0]->address() + ", " +
                                     proxies_[1]->address() + ")"));
  EXPECT_THAT(s.message(),
              HasSubstr("cannot connect to the router at " +
                        proxies_[1]->address() + ": connection refused"));
}

// The reply of an increment is lost after the request reached the first
// router: it may have been applied, so it is not sent to the second.
TEST_F(RouterListClientTest, ALostIncrementIsNotResent) {
  RouterListLostReply lost;
  ASSERT_TRUE(lost.ok());
  auto client = Client(lost.address() + "," + proxies_[1]->address(), 0);
  const Status s =
      client->Increment("places", "counter", {{"d:hits", 1}}).status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(),
              HasSubstr("router " + lost.address() +
                        ": increment: the connection was lost after the "
                        "request was sent; it may have been applied: read "
                        "the row before retrying"));
  EXPECT_EQ(lost.Count("increment"), 1u);
  EXPECT_EQ(proxies_[1]->Count("increment"), 0u);
  // The next call goes to the second router (the first is in its backoff).
  auto row = client->Increment("places", "counter", {{"d:hits", 1}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(proxies_[1]->Count("increment"), 1u);
}

TEST_F(RouterListClientTest, ALostTableCreationIsNotResent) {
  RouterListLostReply lost;
  ASSERT_TRUE(lost.ok());
  auto client = Client(lost.address() + "," + proxies_[1]->address(), 0);
  const Status s =
      client->CreateTable(router::TableSpec{"t2", {}, {}, 1}).status();
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("describe the table before retrying"));
  EXPECT_EQ(proxies_[1]->Count("createIndexedTable"), 0u);
}

// A read and a put whose replies are lost are sent again to the next router.
TEST_F(RouterListClientTest, ALostIdempotentCallIsResent) {
  ASSERT_TRUE(router_->Mutate("places", {PutRow("oslo", "NO", "B")}).ok());
  {
    RouterListLostReply lost;
    ASSERT_TRUE(lost.ok());
    auto client = Client(lost.address() + "," + proxies_[1]->address(), 0);
    auto rows = client->Get("places", {{0, "oslo", {}}});
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    ASSERT_TRUE((*rows)[0].has_value());
    EXPECT_EQ((*rows)[0]->key, "oslo");
    EXPECT_EQ(lost.Count("getMultiple"), 1u);
    EXPECT_EQ(proxies_[1]->Count("getMultiple"), 1u);
  }
  RouterListLostReply lost;
  auto client = Client(lost.address() + "," + proxies_[1]->address(), 0);
  ASSERT_TRUE(client->Mutate("places", {PutRow("bergen", "NO", "A")}).ok());
  EXPECT_EQ(lost.Count("putMultiple"), 1u);
  EXPECT_EQ(proxies_[1]->Count("putMultiple"), 1u);
  auto found = router_->Get("places", {{0, "bergen", {}}});
  ASSERT_TRUE(found.ok());
  EXPECT_TRUE((*found)[0].has_value());
}

// A request that never left (connection refused) goes to the next router,
// even when it is not idempotent.
TEST_F(RouterListClientTest, ARequestThatNeverLeftGoesToTheNextRouter) {
  int port = 0;
  const int fd = testing::RouterListListen(&port);
  ASSERT_GE(fd, 0);
  close(fd);  // nothing listens there now
  auto client =
      Client("127.0.0.1:" + std::to_string(port) + "," + Proxies(), 0);
  auto row = client->Increment("places", "counter", {{"d:hits", 2}});
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(proxies_[0]->Count("increment"), 1u);
}

// A router's answer is its word: a refusal is not asked of another router.
TEST_F(RouterListClientTest, ADeclaredErrorIsNotSentElsewhere) {
  auto client = Client(Proxies(), 0);
  EXPECT_TRUE(client->DescribeTable("nope").status().IsNotFound());
  EXPECT_EQ(proxies_[0]->Count("describeTable"), 1u);
  EXPECT_EQ(proxies_[1]->Count("describeTable"), 0u);
}

TEST_F(RouterListClientTest, AScannerStaysWithTheRouterThatOpenedIt) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        router_->Mutate("places", {PutRow("k" + std::to_string(i), "NO", "A")})
            .ok());
  }
  auto client = Client(Proxies(), 1);
  auto scanner = client->OpenScanner("places", router::ScanSpec{});
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  auto rows = client->ScannerNext(*scanner, 3);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 3u);
  EXPECT_EQ(proxies_[1]->Count("getScannerRows"), 1u);
  EXPECT_FALSE(client->ScannerLost(*scanner));
  proxies_[1]->Stop();
  // Its router is gone, and the scanner with it: not asked of another.
  EXPECT_TRUE(client->ScannerNext(*scanner, 3).status().IsUnavailable());
  EXPECT_TRUE(client->ScannerLost(*scanner));
  EXPECT_EQ(proxies_[0]->Count("getScannerRows"), 0u);
  EXPECT_TRUE(client->CloseScanner(*scanner).ok());
  EXPECT_EQ(proxies_[0]->Count("closeScanner"), 0u);
  // A handle that names no router of the list is refused without a call.
  EXPECT_TRUE(client->ScannerNext(int64_t{7} << 32, 1).status().IsNotFound());
  EXPECT_TRUE(client->ScannerNext(-1, 1).status().IsNotFound());
}

// A page token is the cluster's, not a router's: the next page may be asked
// of another router of the list.
TEST_F(RouterListClientTest, APageTokenPagesOnAnotherRouter) {
  for (const char* row : {"a1", "a2", "a3"}) {
    ASSERT_TRUE(router_->Mutate("places", {PutRow(row, "DK", "A")}).ok());
  }
  auto first = Client(Proxies(), 0);
  auto second = Client(Proxies(), 1);
  router::LookupSpec spec = WhereEq({{"d:country", "DK"}}, 2);
  auto page = first->Lookup("places", spec);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_TRUE(page->next_page_token.has_value());
  spec.page_token = page->next_page_token;
  auto next = second->Lookup("places", spec);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  EXPECT_EQ(page->rows.size() + next->rows.size(), 3u);
  EXPECT_EQ(proxies_[0]->Count("getByIndex"), 1u);
  EXPECT_EQ(proxies_[1]->Count("getByIndex"), 1u);
}

}  // namespace
}  // namespace bloomroute
