// The router's replies are bounded in bytes and say where they stopped
// (router/internal/row_calls.cc, scans.cc and lookup_planner.cc), and
// region servers' scan replies that make no progress are refused.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "router/router.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router {
namespace {

using testing::StoreCluster;
using testing::StoreRegionClient;

constexpr size_t kValueBytes = 1000000;  // within max_value_bytes
// The default reply budget, and what one reply may hold at most: the budget,
// passed by the one row that crossed it.
constexpr size_t kBudget = 32 << 20;
constexpr size_t kReplyBound = kBudget + kValueBytes + 4096;

size_t Bytes(const Row& row) {
  size_t n = row.key.size();
  for (const Cell& c : row.cells) n += c.column.size() + c.value.size();
  return n;
}

Mutation BigRow(const std::string& key) {
  return Mutation::Put(0, key, {{"d:blob", std::string(kValueBytes, 'x')}});
}

class RouterReplyBudgetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    TableSpec spec;
    spec.name = "big";
    spec.split_keys = {"b", "c"};  // three regions
    ASSERT_TRUE(router_->CreateTable(spec).ok());
  }

  StoreCluster cluster_{1};
  std::unique_ptr<Router> router_;
};

// 80 gets of one 1 MB row: the answer is a prefix of the requests within the
// budget, and asking again for the rest gets every row.
TEST_F(RouterReplyBudgetTest, GetOfOneLargeRowManyTimesIsCutToTheBudget) {
  ASSERT_TRUE(router_->Mutate("big", {BigRow("a1")}).ok());
  constexpr size_t kGets = 80;
  std::vector<GetRequest> gets(kGets, GetRequest{0, "a1", {}});
  size_t answered = 0;
  int calls = 0;
  while (answered < kGets) {
    std::vector<GetRequest> rest(gets.begin() + answered, gets.end());
    StatusOr<std::vector<std::optional<Row>>> got =
        router_->Get("big", std::move(rest));
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ++calls;
    ASSERT_FALSE(got->empty()) << "no progress at " << answered;
    size_t bytes = 0;
    for (const std::optional<Row>& row : *got) {
      ASSERT_TRUE(row.has_value());
      EXPECT_EQ(row->key, "a1");
      bytes += Bytes(*row);
    }
    EXPECT_LE(bytes, kReplyBound)
        << got->size() << " rows in one reply, from request " << answered;
    answered += got->size();
  }
  EXPECT_EQ(answered, kGets);
  EXPECT_GE(calls, 3);  // 80 MB in replies of at most about 33 MB
}

// 72 rows of 1 MB in three regions: no region passes a region server's own
// budget, yet together they pass the router's; the scan stops after the row
// that crossed it, says where to resume, and resuming gets every row.
TEST_F(RouterReplyBudgetTest, ScanAcrossRegionsIsCutToTheBudget) {
  std::vector<std::string> keys;
  for (char region : {'a', 'b', 'c'}) {
    for (int i = 10; i < 34; ++i) {
      keys.push_back(std::string(1, region) + std::to_string(i));
      ASSERT_TRUE(router_->Mutate("big", {BigRow(keys.back())}).ok());
    }
  }
  ScanSpec spec;
  std::vector<std::string> scanned;
  int calls = 0;
  for (;;) {
    StatusOr<ScanResult> part = router_->Scan("big", spec, 1000);
    ASSERT_TRUE(part.ok()) << part.status().ToString();
    ++calls;
    size_t bytes = 0;
    for (const Row& row : part->rows) {
      bytes += Bytes(row);
      scanned.push_back(row.key);
    }
    EXPECT_LE(bytes, kReplyBound) << part->rows.size() << " rows in one reply";
    if (!part->resume_row) break;
    ASSERT_GT(*part->resume_row, spec.start_row);
    spec.start_row = *part->resume_row;
    ASSERT_LT(calls, 20);
  }
  EXPECT_EQ(scanned, keys);
  EXPECT_GE(calls, 3);
}

// A region server whose scan replies a test rewrites.
class ScanRewritingClient : public StoreRegionClient {
 public:
  using Rewrite = std::function<void(const ScanRequest&, ScanResult*)>;
  ScanRewritingClient(std::shared_ptr<StoreCluster::Node> node,
                      std::shared_ptr<Rewrite> rewrite)
      : StoreRegionClient(std::move(node)), rewrite_(std::move(rewrite)) {}
  StatusOr<ScanResult> Scan(const ScanRequest& request) override {
    StatusOr<ScanResult> result = StoreRegionClient::Scan(request);
    if (result.ok() && *rewrite_) (*rewrite_)(request, &*result);
    return result;
  }

 private:
  std::shared_ptr<Rewrite> rewrite_;
};

class RouterScanReplyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    class Factory : public RegionClientFactory {
     public:
      Factory(StoreCluster* cluster,
              std::shared_ptr<ScanRewritingClient::Rewrite> rewrite)
          : cluster_(cluster), rewrite_(std::move(rewrite)) {}
      StatusOr<std::unique_ptr<RegionClient>> Connect(
          ServerId, const std::string&) override {
        return std::unique_ptr<RegionClient>(
            std::make_unique<ScanRewritingClient>(cluster_->shared_node(0),
                                                  rewrite_));
      }

     private:
      StoreCluster* cluster_;
      std::shared_ptr<ScanRewritingClient::Rewrite> rewrite_;
    };
    auto r = Router::Open(testing::RouterOptionsFor(cluster_),
                          std::make_shared<Factory>(&cluster_, rewrite_));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    router_ = std::move(r).value();
    TableSpec spec;
    spec.name = "t";
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    ASSERT_TRUE(router_
                    ->Mutate("t", {Mutation::Put(0, "k1", {{"d:a", "1"}}),
                                   Mutation::Put(0, "k2", {{"d:a", "2"}})})
                    .ok());
  }
  // The scan's status; OK when the router accepted the reply.
  Status ScanWith(ScanRewritingClient::Rewrite rewrite) {
    *rewrite_ = std::move(rewrite);
    ScanSpec spec;
    spec.start_row = "k";
    return router_->Scan("t", spec, 10).status();
  }

  StoreCluster cluster_{1};
  std::shared_ptr<ScanRewritingClient::Rewrite> rewrite_ =
      std::make_shared<ScanRewritingClient::Rewrite>();
  std::unique_ptr<Router> router_;
};

// An empty reply that resumes where it started would make every caller that
// continues from it (a scanner, a client) loop forever.
TEST_F(RouterScanReplyTest,
       AReplyThatMakesNoProgressIsCorruptionNamingTheServer) {
  ASSERT_TRUE(ScanWith(nullptr).ok());
  Status s = ScanWith([](const ScanRequest& request, ScanResult* result) {
    result->rows.clear();
    result->resume_row = request.start_row;
  });
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_NE(s.ToString().find("server-0"), std::string::npos) << s.ToString();
  // Resuming before the last row returned, rows out of order or outside the
  // range asked for are refused the same way.
  s = ScanWith([](const ScanRequest&, ScanResult* result) {
    result->resume_row = "k1";
  });
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  s = ScanWith([](const ScanRequest&, ScanResult* result) {
    std::swap(result->rows[0], result->rows[1]);
  });
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  s = ScanWith([](const ScanRequest&, ScanResult* result) {
    result->rows[0].key = "a";  // before the start row
  });
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
}

// A scanner over such a server fails instead of spinning.
TEST_F(RouterScanReplyTest, AScannerOverAServerThatMakesNoProgressFails) {
  *rewrite_ = [](const ScanRequest& request, ScanResult* result) {
    result->rows.clear();
    result->resume_row = request.start_row;
  };
  StatusOr<int64_t> scanner = router_->OpenScanner("t", ScanSpec{});
  ASSERT_TRUE(scanner.ok());
  StatusOr<std::vector<Row>> rows = router_->ScannerNext(*scanner, 10);
  EXPECT_TRUE(rows.status().IsCorruption()) << rows.status().ToString();
}

}  // namespace
}  // namespace bloomroute::router

namespace bloomroute::router {
namespace {

// Lookups share one reply budget: the answer is a prefix of the queries.
TEST_F(RouterReplyBudgetTest, LookupMultipleSharesTheBudget) {
  ASSERT_TRUE(router_->DeleteTable("big").ok());
  TableSpec spec;
  spec.name = "idx";
  spec.indexed_columns = {"d:k"};
  ASSERT_TRUE(router_->CreateTable(spec).ok());
  for (int i = 0; i < 48; ++i) {
    ASSERT_TRUE(
        router_
            ->Mutate("idx", {Mutation::Put(
                                0, "r" + std::to_string(100 + i),
                                {{"d:k", std::to_string(i % 4)},
                                 {"d:blob", std::string(kValueBytes, 'x')}})})
            .ok());
  }
  ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  std::vector<LookupSpec> specs;
  for (int v = 0; v < 4; ++v) {
    specs.push_back(testing::WhereEq({{"d:k", std::to_string(v)}}));
  }
  StatusOr<std::vector<LookupResult>> found =
      router_->LookupMultiple("idx", specs);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  size_t bytes = 0;
  for (const LookupResult& r : *found) {
    for (const Row& row : r.rows) bytes += Bytes(row);
  }
  EXPECT_LE(bytes, kReplyBound);
  EXPECT_LT(found->size(), 4u);  // 48 MB do not fit
  EXPECT_GE(found->size(), 2u);  // 12 MB each: two fit whole
}

// A region server whose work bound stops a lookup before any match: the
// router's answer is truncated with the key to resume after, and resuming
// finds every match.
TEST(RouterLookupWorkBoundTest, ResumesWhereAServersWorkBoundStopped) {
  RegionStoreOptions o;
  o.max_examined_rows = 100;
  StoreCluster cluster(1, o);
  std::unique_ptr<Router> router = testing::OpenRouter(cluster);
  TableSpec spec;
  spec.name = "t";
  spec.indexed_columns = {"d:a", "d:b"};
  ASSERT_TRUE(router->CreateTable(spec).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 500; ++i) {
    // d:a=x on every row, d:b=y on every other: the conjunction matches
    // only row 499, after 499 rows examined.
    std::string b = i == 499 ? "y" : (i % 2 ? "y" : "z");
    std::string a = i == 499 || i % 2 == 0 ? "x" : "w";
    char key[8];
    snprintf(key, sizeof(key), "k%03d", i);
    rows.push_back(Mutation::Put(0, key, {{"d:a", a}, {"d:b", b}}));
  }
  ASSERT_TRUE(router->Mutate("t", rows).ok());
  ASSERT_TRUE(testing::WaitAllCurrent(*router));
  LookupSpec q = testing::WhereEq({{"d:a", "x"}, {"d:b", "y"}});
  std::vector<std::string> keys;
  int calls = 0;
  for (;;) {
    StatusOr<LookupResult> r = router->Lookup("t", q);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ++calls;
    for (const Row& row : r->rows) keys.push_back(row.key);
    if (!r->truncated) break;
    ASSERT_TRUE(r->resume_after.has_value());
    q.after_row = r->resume_after;
    ASSERT_LT(calls, 20);
  }
  EXPECT_EQ(keys, std::vector<std::string>{"k499"});
  EXPECT_GE(calls, 3);  // 251 entries of d:a=x, 100 per call
}

}  // namespace
}  // namespace bloomroute::router
