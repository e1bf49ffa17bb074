// Paging index lookups with page tokens (LookupSpec::page_token,
// LookupResult::next_page_token) over in-process region stores: pages cover
// the answer exactly once, tokens are bound to their query and table, and
// they survive a router restart.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "router/page_token.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute::router {
namespace {

using testing::Keys;
using testing::PutRow;
using testing::StoreCluster;
using testing::WhereEq;

class RouterPagingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    CreatePlaces();
  }
  void CreatePlaces() {
    TableSpec s;
    s.name = "places";
    s.indexed_columns = {"d:country", "d:feature"};
    s.split_keys = {"k025", "k050", "k075"};
    StatusOr<TableInfo> t = router_->CreateTable(s);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    table_ = *t;
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  }
  // Rows k000..k<n-1>, every third in country SE, the rest NO.
  std::vector<std::string> Fill(int n) {
    std::vector<Mutation> m;
    std::vector<std::string> se;
    for (int i = 0; i < n; ++i) {
      char key[16];
      snprintf(key, sizeof(key), "k%03d", i);
      const bool is_se = i % 3 == 0;
      m.push_back(PutRow(key, is_se ? "SE" : "NO", "PPL"));
      if (is_se) se.push_back(key);
    }
    EXPECT_TRUE(router_->Mutate("places", m).ok());
    return se;
  }
  // Every page of `spec` with page size `limit`; fails the test on an error.
  std::vector<std::string> AllPages(LookupSpec spec, uint32_t limit,
                                    int* pages = nullptr) {
    std::vector<std::string> keys;
    spec.limit = limit;
    for (int page = 1; page <= 1000; ++page) {
      StatusOr<LookupResult> r = router_->Lookup("places", spec);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      EXPECT_EQ(r->next_page_token.has_value(), r->truncated);
      for (std::string& k : Keys(r->rows)) keys.push_back(std::move(k));
      if (pages != nullptr) *pages = page;
      if (!r->next_page_token) break;
      spec.page_token = r->next_page_token;
    }
    return keys;
  }
  // The message of a lookup that must fail with InvalidArgument.
  std::string LookupError(const LookupSpec& spec) {
    StatusOr<LookupResult> r = router_->Lookup("places", spec);
    EXPECT_TRUE(r.status().IsInvalidArgument()) << r.status().ToString();
    return r.status().message();
  }
  // The token of the first page of `spec` (limit 2).
  std::string FirstToken(LookupSpec spec) {
    spec.limit = 2;
    StatusOr<LookupResult> r = router_->Lookup("places", spec);
    EXPECT_TRUE(r.ok() && r->next_page_token) << r.status().ToString();
    return r.ok() && r->next_page_token ? *r->next_page_token : "";
  }

  // The cluster node of the server holding `row`.
  int NodeOf(const std::string& row) const {
    ServerId id = 0;
    for (const RegionLocation& r : table_.regions) {
      if (r.region.ContainsRow(row)) id = r.server.id;
    }
    const std::vector<ServerRef> s = router_->Servers();
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i].id == id) return static_cast<int>(i);
    }
    return -1;
  }

  StoreCluster cluster_{4};
  std::unique_ptr<Router> router_;
  TableInfo table_;
};

TEST_F(RouterPagingTest, PagesReturnEveryRowOnceInKeyOrder) {
  const std::vector<std::string> se = Fill(100);
  for (uint32_t size : {1u, 7u, 33u, 34u, 1000u}) {
    int pages = 0;
    EXPECT_EQ(AllPages(WhereEq({{"d:country", "SE"}}), size, &pages), se)
        << size;
    EXPECT_GE(pages, static_cast<int>((se.size() + size - 1) / size));
  }
}

TEST_F(RouterPagingTest, ThePageSizeMayChangeBetweenPages) {
  const std::vector<std::string> se = Fill(100);
  LookupSpec spec = WhereEq({{"d:country", "SE"}}, 5);
  StatusOr<LookupResult> first = router_->Lookup("places", spec);
  ASSERT_TRUE(first.ok() && first->next_page_token);
  spec.page_token = first->next_page_token;
  spec.limit = 100;
  StatusOr<LookupResult> rest = router_->Lookup("places", spec);
  ASSERT_TRUE(rest.ok()) << rest.status().ToString();
  std::vector<std::string> keys = Keys(first->rows);
  for (const std::string& k : Keys(rest->rows)) keys.push_back(k);
  EXPECT_EQ(keys, se);
  EXPECT_FALSE(rest->truncated);
  EXPECT_FALSE(rest->next_page_token.has_value());
}

TEST_F(RouterPagingTest, ATokenAndAfterRowTogetherAreRefused) {
  Fill(30);
  LookupSpec spec = WhereEq({{"d:country", "SE"}});
  spec.page_token = FirstToken(spec);
  spec.after_row = "k001";
  EXPECT_NE(LookupError(spec).find("page_token and after_row"),
            std::string::npos);
}

TEST_F(RouterPagingTest, HostileTokensAreRefusedAsForged) {
  Fill(30);
  LookupSpec spec = WhereEq({{"d:country", "SE"}});
  const std::string token = FirstToken(spec);
  for (const std::string& bad :
       {std::string(), std::string("junk"),
        std::string(kMaxPageTokenBytes + 1, 'x'),
        token.substr(0, token.size() - 1), token + "x"}) {
    spec.page_token = bad;
    EXPECT_NE(
        LookupError(spec).find("page token is not valid (forged or corrupted)"),
        std::string::npos);
  }
}

TEST_F(RouterPagingTest, ATokenOfAnotherQueryIsRefused) {
  Fill(30);
  LookupSpec se = WhereEq({{"d:country", "SE"}});
  LookupSpec no = WhereEq({{"d:country", "NO"}});
  no.page_token = FirstToken(se);
  EXPECT_NE(LookupError(no).find("issued for a different query"),
            std::string::npos);
}

TEST_F(RouterPagingTest, ATokenOfADeletedTableIsStale) {
  Fill(30);
  LookupSpec spec = WhereEq({{"d:country", "SE"}});
  spec.page_token = FirstToken(spec);
  ASSERT_TRUE(router_->DeleteTable("places").ok());
  CreatePlaces();
  Fill(30);
  const std::string error = LookupError(spec);
  EXPECT_NE(error.find("page token is stale"), std::string::npos) << error;
  EXPECT_NE(error.find("start again"), std::string::npos) << error;
}

TEST_F(RouterPagingTest, EachLookupOfAMultipleCallPagesOnItsOwn) {
  const std::vector<std::string> se = Fill(60);
  std::vector<LookupSpec> specs = {WhereEq({{"d:country", "SE"}}, 4),
                                   WhereEq({{"d:feature", "PPL"}}, 6)};
  std::vector<std::vector<std::string>> keys(2);
  std::vector<size_t> active = {0, 1};  // lookups with pages left
  for (int call = 0; call < 100 && !active.empty(); ++call) {
    std::vector<LookupSpec> asked;
    for (size_t i : active) asked.push_back(specs[i]);
    StatusOr<std::vector<LookupResult>> r =
        router_->LookupMultiple("places", asked);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->size(), active.size());
    std::vector<size_t> next;
    for (size_t a = 0; a < active.size(); ++a) {
      const LookupResult& page = (*r)[a];
      const size_t i = active[a];
      for (const std::string& k : Keys(page.rows)) keys[i].push_back(k);
      EXPECT_EQ(page.next_page_token.has_value(), page.truncated);
      if (!page.next_page_token) continue;
      specs[i].page_token = page.next_page_token;
      next.push_back(i);
    }
    active = next;
  }
  EXPECT_TRUE(active.empty());
  EXPECT_EQ(keys[0], se);
  EXPECT_EQ(keys[1].size(), 60u);
  EXPECT_TRUE(std::is_sorted(keys[1].begin(), keys[1].end()));
}

// A partial answer pages on; the rows of the missing server before its
// resume row are not returned by the later pages either.
TEST_F(RouterPagingTest, APartialAnswerStillPages) {
  const std::vector<std::string> se = Fill(100);
  const int down = NodeOf("k000");
  cluster_.Down(down);
  LookupSpec spec = WhereEq({{"d:country", "SE"}}, 5);
  spec.allow_partial = true;
  StatusOr<LookupResult> first = router_->Lookup("places", spec);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->partial);
  ASSERT_TRUE(first->next_page_token.has_value());
  cluster_.Up(down);
  spec.allow_partial = false;
  spec.page_token = first->next_page_token;
  std::vector<std::string> keys = Keys(first->rows);
  for (const std::string& k : AllPages(spec, 5)) keys.push_back(k);
  std::vector<std::string> expected;
  for (const std::string& k : se) {
    if (NodeOf(k) != down || k > *first->resume_after) expected.push_back(k);
  }
  EXPECT_EQ(keys, expected);
  EXPECT_LT(expected.size(), se.size());
}

TEST_F(RouterPagingTest, ATokenSurvivesARouterRestart) {
  const std::vector<std::string> se = Fill(60);
  LookupSpec spec = WhereEq({{"d:country", "SE"}}, 4);
  StatusOr<LookupResult> first = router_->Lookup("places", spec);
  ASSERT_TRUE(first.ok() && first->next_page_token);
  router_.reset();  // the catalog closes with it
  router_ = testing::OpenRouter(cluster_);
  ASSERT_NE(router_, nullptr);
  ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  spec.page_token = first->next_page_token;
  std::vector<std::string> keys = Keys(first->rows);
  for (const std::string& k : AllPages(spec, 4)) keys.push_back(k);
  EXPECT_EQ(keys, se);
}

TEST_F(RouterPagingTest, ATokenOfARouterWithAnotherCatalogIsForged) {
  Fill(30);
  StoreCluster other_cluster{3};
  std::unique_ptr<Router> other = testing::OpenRouter(other_cluster);
  ASSERT_NE(other, nullptr);
  TableSpec s;
  s.name = "places";
  s.indexed_columns = {"d:country", "d:feature"};
  ASSERT_TRUE(other->CreateTable(s).ok());
  std::vector<Mutation> rows;
  for (int i = 0; i < 10; ++i) {
    rows.push_back(PutRow("k00" + std::to_string(i), "SE", "PPL"));
  }
  ASSERT_TRUE(other->Mutate("places", rows).ok());
  StatusOr<LookupResult> theirs =
      other->Lookup("places", WhereEq({{"d:country", "SE"}}, 2));
  ASSERT_TRUE(theirs.ok() && theirs->next_page_token)
      << theirs.status().ToString();
  LookupSpec spec = WhereEq({{"d:country", "SE"}}, 2);
  spec.page_token = theirs->next_page_token;
  EXPECT_NE(LookupError(spec).find("forged or corrupted"), std::string::npos);
}

// Paging under concurrent writes, against what the writer did: one thread
// pages through country=SE with random small page sizes while another puts
// (SE or NO), deletes and inserts rows among the "volatile" keys; every
// third key is "stable" (never written while paging). Bound: the pages are
// a strictly increasing key sequence (so no key twice); every stable SE row
// is in it; every key in it matched at some time (stable SE, or a volatile
// key that was SE before or by some write); every row returned holds SE.
// Page sizes (1 to 60 rows) and byte budgets vary from page to page.
class RouterPagingModelTest : public RouterPagingTest,
                              public ::testing::WithParamInterface<uint64_t> {};

TEST_P(RouterPagingModelTest, RowsMatchingThroughoutComeBackExactlyOnce) {
  constexpr int kRows = 2000;
  std::mt19937_64 rng(GetParam());
  std::vector<std::string> volatile_keys;
  std::set<std::string> stable_se, ever_se;
  std::vector<Mutation> fill;
  for (int i = 0; i < kRows; ++i) {
    char key[16];
    snprintf(key, sizeof(key), "k%04d", i * 100 / kRows * 10 + i % 10);
    const std::string k = std::string(key) + std::to_string(i);
    const bool se = rng() % 2 == 0;
    fill.push_back(PutRow(k, se ? "SE" : "NO", "PPL"));
    if (i % 3 == 0) {
      if (se) stable_se.insert(k);
    } else {
      volatile_keys.push_back(k);
    }
    if (se) ever_se.insert(k);
  }
  for (size_t i = 0; i < fill.size(); i += 500) {
    std::vector<Mutation> batch(fill.begin() + i,
                                fill.begin() + std::min(fill.size(), i + 500));
    ASSERT_TRUE(router_->Mutate("places", batch).ok());
  }
  std::mutex mu;  // guards ever_se while both threads run
  std::atomic<bool> done{false};
  std::atomic<int> writes{0};
  std::atomic<bool> writer_done{false};
  std::thread writer([&] {
    std::mt19937_64 wrng(GetParam() * 7 + 1);
    for (int n = 0; n < 20000 && !done; ++n) {
      std::string k = volatile_keys[wrng() % volatile_keys.size()];
      const int op = static_cast<int>(wrng() % 4);
      if (op == 3) k += "-new";  // an insert between existing keys
      Mutation m = op == 0 ? Mutation::Delete(0, k)
                           : PutRow(k, wrng() % 2 ? "SE" : "NO", "PPL");
      if (m.cells.size() > 0 && m.cells[0].value == "SE") {
        std::lock_guard<std::mutex> lock(mu);
        ever_se.insert(k);  // before the write: a page may see it at once
      }
      EXPECT_TRUE(router_->Mutate("places", {m}).ok());
      ++writes;
    }
    writer_done = true;
  });
  std::vector<std::string> keys;
  // In a lambda, so that a failed assertion still stops the writer.
  auto page_through = [&] {
    LookupSpec spec = WhereEq({{"d:country", "SE"}});
    spec.columns = {"d:country"};
    for (int page = 0; page < 100000; ++page) {
      // Let some writes land between pages (bounded wait).
      const int before = writes;
      for (int i = 0; i < 50 && !writer_done && writes < before + 1; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      spec.limit = 1 + static_cast<uint32_t>(rng() % 60);
      // A third of the pages under a small byte budget: servers stop early,
      // each at its own row, and the merge must cut at the smallest.
      spec.max_bytes = rng() % 3 == 0 ? 1 + rng() % 2000 : 0;
      StatusOr<LookupResult> r = router_->Lookup("places", spec);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      for (const Row& row : r->rows) {
        ASSERT_TRUE(keys.empty() || keys.back() < row.key)
            << "page " << page << ": " << row.key << " after " << keys.back();
        keys.push_back(row.key);
        ASSERT_EQ(row.cells.size(), 1u) << row.key;
        EXPECT_EQ(row.cells[0].value, "SE") << row.key;
      }
      if (!r->next_page_token) break;
      spec.page_token = r->next_page_token;
    }
  };
  page_through();
  done = true;
  writer.join();
  EXPECT_GT(writes.load(), 20);  // the paging ran under writes
  std::cout << "seed " << GetParam() << ": " << keys.size() << " rows, "
            << writes.load() << " writes while paging\n";
  const std::set<std::string> returned(keys.begin(), keys.end());
  for (const std::string& k : stable_se) {
    EXPECT_EQ(returned.count(k), 1u) << "stable SE row " << k << " missing";
  }
  for (const std::string& k : keys) {
    EXPECT_EQ(ever_se.count(k), 1u) << k << " returned but never matched";
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, RouterPagingModelTest,
                         ::testing::Values(uint64_t{1}, uint64_t{2}));

}  // namespace
}  // namespace bloomroute::router
