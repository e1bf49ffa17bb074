// Router::Lookup (paged by after_row with small limits) and Router::Count
// for every predicate kind and random AND-combinations, against an exact
// in-memory model: 2,000 rows over 3 in-process stores and 6 regions,
// values of 1..3 bytes over {'a', 'b', 0x00, 0xFF} so that prefixes are
// shared and the successor edges (v + 0x00, a prefix ending in 0xFF) are
// hit. The stores' work bound is small (200 entries), so range-alone
// lookups take both plans (the bounded heap and the row scan) and answers
// stop at the work bound. Seeds 1 and 2 (fixed); about a second each.
//
// Then the same queries page while a second thread writes other rows: each
// row that matches throughout (never written during the paging) appears
// exactly once, and keys strictly increase across pages.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/index_predicate.h"
#include "router/router.h"
#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using router::LookupResult;
using router::LookupSpec;
using router::Router;
using router::TableSpec;
using testing::StoreCluster;

constexpr int kRows = 2000;
const char* const kColumns[] = {"d:country", "d:feature"};

// Whether `v` satisfies the predicate, stated directly (not through
// AddToQuery), so that the [lower, upper) translation is checked too.
bool Holds(const IndexPredicate& p, const std::string& v) {
  const std::vector<std::string>& x = p.values;
  switch (p.op) {
    case IndexOp::kEqual:
      return v == x[0];
    case IndexOp::kIn:
      return std::find(x.begin(), x.end(), v) != x.end();
    case IndexOp::kLess:
      return v < x[0];
    case IndexOp::kLessOrEqual:
      return v <= x[0];
    case IndexOp::kGreater:
      return v > x[0];
    case IndexOp::kGreaterOrEqual:
      return v >= x[0];
    case IndexOp::kPrefix:
      return v.compare(0, x[0].size(), x[0]) == 0;
    case IndexOp::kBetween:
      return v >= x[0] && v <= x[1];
  }
  return false;
}

using Model = std::map<std::string, std::map<std::string, std::string>>;

class RouterQueryModelTest : public ::testing::TestWithParam<uint64_t> {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    TableSpec s;
    s.name = "t";
    s.indexed_columns = {kColumns[0], kColumns[1]};
    s.split_keys = {"k03", "k06", "k09", "k12", "k15"};  // 6 regions
    ASSERT_TRUE(router_->CreateTable(s).ok());
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
    rng_.seed(GetParam());
  }
  static RegionStoreOptions StoreOptions() {
    RegionStoreOptions o;
    o.max_examined_rows = 200;
    return o;
  }

  std::string Value(std::mt19937_64& rng) {
    static const char kBytes[] = {'a', 'b', '\0', '\xff'};
    std::string v;
    for (int i = 0, n = 1 + static_cast<int>(rng() % 3); i < n; ++i) {
      v.push_back(kBytes[rng() % (i == 0 ? 2 : 4)]);
    }
    return v;
  }
  Mutation RandomPut(std::mt19937_64& rng, const std::string& key,
                     Model* model) {
    std::vector<Cell> cells;
    auto& row = (*model)[key];
    row.clear();
    for (const char* column : kColumns) {
      if (rng() % 8 == 0) continue;  // some rows lack a column
      cells.push_back({column, Value(rng)});
      row[column] = cells.back().value;
    }
    cells.push_back({"d:name", "x"});
    return Mutation::Put(0, key, std::move(cells));
  }
  static std::string Key(int i) {
    char key[16];
    snprintf(key, sizeof(key), "k%05d", i * 9);  // k00000 .. k17991
    return key;
  }
  IndexPredicate RandomPredicate() {
    IndexPredicate p;
    p.column = kColumns[rng_() % 2];
    p.op = static_cast<IndexOp>(rng_() % kIndexOpCount);
    const size_t n = p.op == IndexOp::kIn        ? 1 + rng_() % 4
                     : p.op == IndexOp::kBetween ? 2
                                                 : 1;
    while (p.values.size() < n) {
      std::string v = Value(rng_);
      if (p.op == IndexOp::kIn &&
          std::count(p.values.begin(), p.values.end(), v) != 0) {
        continue;
      }
      p.values.push_back(std::move(v));
    }
    return p;
  }
  // 1 to 3 predicates: one of each kind in turn, then random ANDs.
  LookupSpec RandomSpec(int i) {
    LookupSpec spec;
    if (i < kIndexOpCount) {
      spec.where.push_back(RandomPredicate());
      spec.where.back().op = static_cast<IndexOp>(i);
      spec.where.back().values.resize(
          spec.where.back().op == IndexOp::kBetween ? 2 : 1, "a");
      return spec;
    }
    for (int n = 1 + static_cast<int>(rng_() % 3); n > 0; --n) {
      spec.where.push_back(RandomPredicate());
    }
    spec.limit = 1 + static_cast<uint32_t>(rng_() % 7);
    return spec;
  }
  static bool Matches(const LookupSpec& spec,
                      const std::map<std::string, std::string>& row) {
    for (const IndexPredicate& p : spec.where) {
      auto it = row.find(p.column);
      if (it == row.end() || !Holds(p, it->second)) return false;
    }
    return true;
  }
  static std::vector<std::string> Want(const LookupSpec& spec,
                                       const Model& model) {
    std::vector<std::string> keys;
    for (const auto& [key, row] : model) {
      if (Matches(spec, row)) keys.push_back(key);
    }
    return keys;
  }
  // Every page of the lookup; fails on an error, a repeated key or one out
  // of order.
  std::vector<std::string> Drain(LookupSpec spec) {
    std::vector<std::string> keys;
    for (int call = 0; call < 100000; ++call) {
      StatusOr<LookupResult> r = router_->Lookup("t", spec);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      if (!r.ok()) break;
      for (const Row& row : r->rows) {
        EXPECT_TRUE(keys.empty() || keys.back() < row.key)
            << "out of order: " << row.key;
        keys.push_back(row.key);
      }
      if (!r->truncated) break;
      spec.after_row = r->resume_after;
    }
    return keys;
  }
  void Load(Model* model) {
    std::vector<Mutation> batch;
    for (int i = 0; i < kRows; ++i) {
      batch.push_back(RandomPut(rng_, Key(i), model));
      if (batch.size() == 500) {
        ASSERT_TRUE(router_->Mutate("t", std::exchange(batch, {})).ok());
      }
    }
    if (!batch.empty()) {
      ASSERT_TRUE(router_->Mutate("t", batch).ok());
    }
  }

  StoreCluster cluster_{3, StoreOptions()};
  std::unique_ptr<Router> router_;
  std::mt19937_64 rng_;
};

TEST_P(RouterQueryModelTest, LookupsAndCountsEqualTheModel) {
  Model model;
  Load(&model);
  int nonempty = 0;
  for (int i = 0; i < 60; ++i) {
    LookupSpec spec = RandomSpec(i);
    if (i < kIndexOpCount) spec.limit = 3;
    const std::vector<std::string> want = Want(spec, model);
    nonempty += !want.empty();
    ASSERT_EQ(Drain(spec), want) << "query " << i;
    StatusOr<router::CountResult> count = router_->Count("t", spec);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    EXPECT_EQ(count->count, want.size()) << "query " << i;
    const bool routed = std::any_of(
        spec.where.begin(), spec.where.end(), [](const IndexPredicate& p) {
          return p.op == IndexOp::kEqual || p.op == IndexOp::kIn;
        });
    EXPECT_EQ(count->routing.broadcast_reason.empty(), routed);
  }
  EXPECT_GT(nonempty, 20);  // the queries are not vacuous
}

TEST_P(RouterQueryModelTest, RowsMatchingThroughoutAppearOnceDuringWrites) {
  Model model;
  Load(&model);
  // Even rows stay as loaded; the writer rewrites and deletes odd ones.
  std::atomic<bool> done{false};
  std::thread writer([&] {
    std::mt19937_64 rng(GetParam() + 100);
    Model scratch;
    for (int op = 0; op < 20000 && !done; ++op) {
      const std::string key =
          Key(2 * static_cast<int>(rng() % (kRows / 2)) + 1);
      std::vector<Mutation> batch = {rng() % 4 == 0
                                         ? Mutation::Delete(0, key)
                                         : RandomPut(rng, key, &scratch)};
      EXPECT_TRUE(router_->Mutate("t", batch).ok());
    }
  });
  for (int i = 0; i < 25; ++i) {
    LookupSpec spec = RandomSpec(kIndexOpCount + i);
    std::vector<std::string> stable;
    for (const std::string& key : Want(spec, model)) {
      if ((std::stoi(key.substr(1)) / 9) % 2 == 0) stable.push_back(key);
    }
    const std::vector<std::string> got = Drain(spec);
    std::vector<std::string> got_stable;
    for (const std::string& key : got) {
      if ((std::stoi(key.substr(1)) / 9) % 2 == 0) got_stable.push_back(key);
    }
    EXPECT_EQ(got_stable, stable) << "query " << i;
    StatusOr<router::CountResult> count = router_->Count("t", spec);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    EXPECT_GE(count->count, stable.size());
    EXPECT_LE(count->count, stable.size() + kRows / 2);
  }
  done = true;
  writer.join();
}

INSTANTIATE_TEST_SUITE_P(Seeds, RouterQueryModelTest, ::testing::Values(1, 2));

}  // namespace
}  // namespace bloomroute
