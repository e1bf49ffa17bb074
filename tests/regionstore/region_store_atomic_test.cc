// Atomic row operations of RegionStore::Apply: conditions, increments,
// appends and several mutations of one row, checked against an in-test model
// (which implements HBase's rules on its own, not through model/atomic_ops),
// with the index verified exact.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <random>
#include <thread>

#include "model/atomic_ops.h"
#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::OpenStoreWithRegions;
using testing::PlacesRegion;
using testing::TempDir;
using testing::Where;

using ModelRow = std::map<std::string, std::string>;  // column -> value
using Model = std::map<std::string, ModelRow>;        // row -> cells

class RegionStoreAtomicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = OpenStoreWithRegions(dir_.path(), RegionStoreOptions(),
                                  {PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
  }
  std::optional<Row> GetRow(const std::string& key) {
    auto rows = store_->Get({GetRequest{1, key, {}}});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? (*rows)[0] : std::nullopt;
  }
  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
};

// ---- the in-test model of HBase's rules ----

bool ModelHolds(const RowCondition& c, const ModelRow& row) {
  auto it = row.find(c.column);
  if (!c.value || c.value->empty()) {
    const bool absent_or_empty = it == row.end() || it->second.empty();
    return c.op == CompareOp::kNotEqual ? !absent_or_empty : absent_or_empty;
  }
  if (it == row.end()) return false;
  // Given against cell, unsigned bytes (std::string compares char_traits
  // <char> with memcmp-like unsigned order).
  const int r = c.value->compare(it->second);
  switch (c.op) {
    case CompareOp::kLess:
      return r < 0;
    case CompareOp::kLessOrEqual:
      return r <= 0;
    case CompareOp::kEqual:
      return r == 0;
    case CompareOp::kNotEqual:
      return r != 0;
    case CompareOp::kGreaterOrEqual:
      return r >= 0;
    case CompareOp::kGreater:
      return r > 0;
  }
  return false;
}

std::string ModelLong(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 7; i >= 0; --i, v >>= 8) s[i] = static_cast<char>(v & 0xff);
  return s;
}

// Applies m to row; false when the mutation fails (the batch is refused).
bool ModelApply(const Mutation& m, ModelRow* row) {
  switch (m.kind) {
    case Mutation::Kind::kPut:
      for (const Cell& c : m.cells) (*row)[c.column] = c.value;
      return true;
    case Mutation::Kind::kDelete:
      if (m.columns.empty()) row->clear();
      for (const std::string& c : m.columns) row->erase(c);
      return true;
    case Mutation::Kind::kAppend:
      for (const Cell& c : m.cells) (*row)[c.column] += c.value;
      return true;
    case Mutation::Kind::kIncrement:
      for (const ColumnIncrement& inc : m.increments) {
        uint64_t n = 0;
        auto it = row->find(inc.column);
        if (it != row->end()) {
          if (it->second.size() != 8) return false;
          for (unsigned char b : it->second) n = (n << 8) | b;
        }
        (*row)[inc.column] = ModelLong(n + static_cast<uint64_t>(inc.amount));
      }
      return true;
  }
  return false;
}

const char* const kColumns[] = {"d:country", "d:feature", "d:n", "d:name"};

std::string RandomValue(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return "";
    case 1:
      return ModelLong(rng() % 3);
    default:
      return std::string(1, "abc"[rng() % 3]);
  }
}

Mutation RandomMutation(std::mt19937_64& rng, const std::string& key) {
  const std::string col = kColumns[rng() % 4];
  switch (rng() % 5) {
    case 0:
      return Mutation::Put(1, key, {{col, RandomValue(rng)}});
    case 1:
      return rng() % 4 == 0 ? Mutation::Delete(1, key)
                            : Mutation::Delete(1, key, {col});
    case 2: {
      // Mostly near the edge of int64, so that sums wrap.
      const int64_t amount = rng() % 3 == 0
                                 ? std::numeric_limits<int64_t>::max()
                                 : static_cast<int64_t>(rng() % 5) - 2;
      return Mutation::Increment(1, key, {{col, amount}});
    }
    case 3:
      return Mutation::Append(1, key, {{col, RandomValue(rng)}});
    default:
      return Mutation::Put(1, key, {{col, RandomValue(rng)}, {"d:name", "x"}});
  }
}

std::optional<RowCondition> RandomCondition(std::mt19937_64& rng) {
  if (rng() % 2) return std::nullopt;
  RowCondition c;
  c.column = kColumns[rng() % 4];
  c.op = static_cast<CompareOp>(rng() % kCompareOpCount);
  if (rng() % 3) c.value = RandomValue(rng);
  return c;
}

// Batches per seed: 1500, or BLOOMROUTE_ATOMIC_STEPS for a longer soak run.
int Steps() {
  const char* env = std::getenv("BLOOMROUTE_ATOMIC_STEPS");
  return env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 1500;
}

// Thousands of random batches over a few rows: each batch is one row's
// mutations, all under one condition or none (checkAndMutate / mutateRow),
// and the store must answer, store and index exactly what the model says.
TEST_F(RegionStoreAtomicTest, RandomAtomicOpsMatchTheModel) {
  for (uint64_t seed : {1u, 2u, 3u}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    TempDir dir;
    store_ = OpenStoreWithRegions(dir.path(), RegionStoreOptions(),
                                  {PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
    std::mt19937_64 rng(seed);
    Model model;
    int held = 0, failed_checks = 0, refused = 0;  // the mix was exercised
    for (int step = 0; step < Steps(); ++step) {
      const std::string key = "r" + std::to_string(rng() % 4);
      const std::optional<RowCondition> cond = RandomCondition(rng);
      std::vector<Mutation> batch(1 + rng() % 3);
      for (Mutation& m : batch) {
        m = RandomMutation(rng, key);
        m.condition = cond;
      }
      ModelRow row = model[key];
      const bool holds = !cond || ModelHolds(*cond, row);
      if (cond) ++(holds ? held : failed_checks);
      bool ok = true;
      if (holds) {
        for (const Mutation& m : batch) ok = ok && ModelApply(m, &row);
      }
      StatusOr<WriteResult> w = store_->Apply(batch);
      ASSERT_EQ(w.ok(), ok) << "step " << step << ": " << w.status().ToString();
      if (!ok) {
        ++refused;
        EXPECT_TRUE(w.status().IsInvalidArgument());
        continue;
      }
      if (row.empty()) {
        model.erase(key);
      } else {
        model[key] = row;
      }
      const bool plain =
          !cond &&
          std::all_of(batch.begin(), batch.end(), [](const Mutation& m) {
            return m.kind == Mutation::Kind::kPut ||
                   m.kind == Mutation::Kind::kDelete;
          });
      if (plain) {
        EXPECT_TRUE(w->outcomes.empty());
        continue;
      }
      ASSERT_EQ(w->outcomes.size(), batch.size()) << "step " << step;
      for (size_t i = 0; i < batch.size(); ++i) {
        EXPECT_EQ(w->outcomes[i].applied, holds) << "step " << step;
      }
      // The last increment / append returns the row's final cells.
      const Mutation& last = batch.back();
      if (holds && (last.kind == Mutation::Kind::kIncrement ||
                    last.kind == Mutation::Kind::kAppend)) {
        const std::string& col = last.kind == Mutation::Kind::kIncrement
                                     ? last.increments[0].column
                                     : last.cells[0].column;
        ASSERT_EQ(w->outcomes.back().cells.size(), 1u);
        EXPECT_EQ(w->outcomes.back().cells[0], (Cell{col, model[key].at(col)}))
            << "step " << step;
      }
    }
    EXPECT_GT(held, 100);
    EXPECT_GT(failed_checks, 100);
    EXPECT_GT(refused, 20);
    // The rows, the index and the filter equal the model.
    for (int r = 0; r < 4; ++r) {
      const std::string key = "r" + std::to_string(r);
      std::optional<Row> got = GetRow(key);
      auto it = model.find(key);
      ASSERT_EQ(got.has_value(), it != model.end()) << key;
      if (!got) continue;
      std::vector<Cell> want;
      for (const auto& [c, v] : it->second) want.push_back({c, v});
      EXPECT_EQ(got->cells, want) << key;
    }
    for (const char* column : {"d:country", "d:feature"}) {
      std::map<std::string, std::vector<std::string>> by_value;
      for (const auto& [key, row] : model) {
        auto c = row.find(column);
        if (c != row.end()) by_value[c->second].push_back(key);
      }
      by_value["never"];
      for (const auto& [value, keys] : by_value) {
        auto found = store_->Lookup(Where({{column, value}}));
        ASSERT_TRUE(found.ok()) << found.status().ToString();
        std::vector<std::string> got;
        for (const Row& row : found->rows) got.push_back(row.key);
        EXPECT_EQ(got, keys) << column << "=" << QuoteForMessage(value);
      }
    }
    StatusOr<IndexReport> report = store_->VerifyIndex(std::nullopt);
    ASSERT_TRUE(report.ok());
    EXPECT_TRUE(report->ok())
        << (report->problems.empty() ? "" : report->problems.front());
  }
}

TEST_F(RegionStoreAtomicTest, ConcurrentIncrementsAllCount) {
  constexpr int kThreads = 8;
  constexpr int kPerThread = 200;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kPerThread; ++i) {
        auto w = store_->Apply(
            {Mutation::Increment(1, "counter", {{"d:country", 1}})});
        if (!w.ok()) ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  std::optional<Row> row = GetRow("counter");
  ASSERT_TRUE(row.has_value());
  ASSERT_EQ(row->cells.size(), 1u);
  EXPECT_EQ(*DecodeLong(row->cells[0].value), kThreads * kPerThread);
  auto found =
      store_->Lookup(Where({{"d:country", EncodeLong(kThreads * kPerThread)}}));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->rows.size(), 1u);
  auto report = store_->VerifyIndex(std::nullopt);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok());
}

TEST_F(RegionStoreAtomicTest, ConcurrentCheckAndPutHasOneWinner) {
  for (int round = 0; round < 20; ++round) {
    const std::string key = "lock" + std::to_string(round);
    constexpr int kThreads = 8;
    std::atomic<int> winners{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        Mutation m =
            Mutation::Put(1, key, {{"d:country", "owner" + std::to_string(t)}});
        m.condition = RowCondition{"d:country", CompareOp::kEqual, {}};
        auto w = store_->Apply({m});
        if (w.ok() && w->outcomes.size() == 1 && w->outcomes[0].applied) {
          ++winners;
        }
      });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(winners.load(), 1) << key;
  }
  auto report = store_->VerifyIndex(std::nullopt);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok());
}

TEST_F(RegionStoreAtomicTest, ARefusedBatchWritesNothing) {
  ASSERT_TRUE(
      store_->Apply({Mutation::Put(1, "r", {{"d:country", "abc"}})}).ok());
  // The put would apply, the increment of a 3-byte cell cannot: nothing is
  // written.
  StatusOr<WriteResult> w =
      store_->Apply({Mutation::Put(1, "r", {{"d:feature", "f"}}),
                     Mutation::Increment(1, "r", {{"d:country", 1}})});
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsInvalidArgument());
  EXPECT_NE(w.status().message().find("Field is not a long, it's 3 bytes"),
            std::string::npos)
      << w.status().ToString();
  EXPECT_EQ(GetRow("r")->cells, (std::vector<Cell>{{"d:country", "abc"}}));
}

TEST_F(RegionStoreAtomicTest, AnAppendPastTheValueLimitNamesIt) {
  RegionStoreOptions options;
  options.max_value_bytes = 4;
  TempDir dir;
  auto store =
      OpenStoreWithRegions(dir.path(), options, {PlacesRegion(1, "", "")});
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(
      store->Apply({Mutation::Append(1, "r", {{"d:name", "abc"}})}).ok());
  auto w = store->Apply({Mutation::Append(1, "r", {{"d:name", "de"}})});
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsInvalidArgument());
  EXPECT_NE(w.status().message().find("max_value_bytes"), std::string::npos)
      << w.status().ToString();
}

TEST_F(RegionStoreAtomicTest, BadConditionsAndIncrementsAreRefused) {
  Mutation no_columns = Mutation::Increment(1, "r", {});
  EXPECT_TRUE(store_->Apply({no_columns}).status().IsInvalidArgument());
  Mutation bad_column = Mutation::Increment(1, "r", {{"nocolon", 1}});
  EXPECT_TRUE(store_->Apply({bad_column}).status().IsInvalidArgument());
  Mutation bad_condition = Mutation::Put(1, "r", {{"d:a", "v"}});
  bad_condition.condition = RowCondition{"", CompareOp::kEqual, "v"};
  EXPECT_TRUE(store_->Apply({bad_condition}).status().IsInvalidArgument());
  Mutation bad_op = Mutation::Put(1, "r", {{"d:a", "v"}});
  bad_op.condition = RowCondition{
      "d:a", static_cast<CompareOp>(kCompareOpCount + 3), std::string("v")};
  EXPECT_TRUE(store_->Apply({bad_op}).status().IsInvalidArgument());
  EXPECT_FALSE(GetRow("r").has_value());
}

}  // namespace
}  // namespace bloomroute
