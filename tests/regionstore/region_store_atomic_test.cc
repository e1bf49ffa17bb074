// Atomic row operations of RegionStore::Apply: conditions, increments,
// appends and several mutations of one row, checked against an in-test model
// (which implements HBase's rules on its own, not through model/atomic_ops),
// with the index verified exact.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <iterator>
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

// A cell of the model: its value and the timestamp the store must give it.
struct ModelCell {
  std::string value;
  int64_t timestamp = 0;
};
using ModelRow = std::map<std::string, ModelCell>;  // column -> cell
using Model = std::map<std::string, ModelRow>;      // row -> cells

// The stores' clock at the start of each test; tests may move now_.
constexpr int64_t kNow = 1700000000000;

class RegionStoreAtomicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ =
        OpenStoreWithRegions(dir_.path(), Options(), {PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
  }
  // Options whose clock reads now_ (set it only while no write runs).
  RegionStoreOptions Options() {
    RegionStoreOptions options;
    options.clock_ms = [this] { return now_; };
    return options;
  }
  std::optional<Row> GetRow(const std::string& key) {
    auto rows = store_->Get({GetRequest{1, key, {}}});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? (*rows)[0] : std::nullopt;
  }
  int64_t now_ = kNow;
  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
};

// ---- the in-test model of HBase's rules ----

bool ModelHolds(const RowCondition& c, const ModelRow& row) {
  auto it = row.find(c.column);
  if (!c.value || c.value->empty()) {
    const bool absent_or_empty = it == row.end() || it->second.value.empty();
    return c.op == CompareOp::kNotEqual ? !absent_or_empty : absent_or_empty;
  }
  if (it == row.end()) return false;
  // Given against cell, unsigned bytes (std::string compares char_traits
  // <char> with memcmp-like unsigned order).
  const int r = c.value->compare(it->second.value);
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

// How often the model met the timestamp rules' edge cases, so that the
// test can check its mix exercised them.
struct ModelTally {
  int stale_puts = 0;  // a put older than the stored cell left it as it was
  int bumped = 0;      // an increment / append stamped old + 1, not the clock
};

// The timestamp of a new increment / append cell of `column` (HBase's rule):
// the clock, or one more than the stored cell's when that is not older.
int64_t ModelStamp(const ModelRow& row, const std::string& column, int64_t now,
                   ModelTally* tally) {
  auto it = row.find(column);
  if (it == row.end() || it->second.timestamp < now) return now;
  ++tally->bumped;
  return it->second.timestamp + 1;
}

// Applies m to row at clock `now` (the random mutations carry no timestamps,
// so every put is stamped `now`); false when the mutation fails (the batch
// is refused).
bool ModelApply(const Mutation& m, int64_t now, ModelRow* row,
                ModelTally* tally) {
  switch (m.kind) {
    case Mutation::Kind::kPut:
      for (const Cell& c : m.cells) {
        auto it = row->find(c.column);
        if (it != row->end() && now < it->second.timestamp) {
          ++tally->stale_puts;
          continue;
        }
        (*row)[c.column] = {c.value, now};
      }
      return true;
    case Mutation::Kind::kDelete:
      // The whole row: the cells not newer than the clock.
      if (m.columns.empty()) {
        for (auto it = row->begin(); it != row->end();) {
          it = it->second.timestamp <= now ? row->erase(it) : std::next(it);
        }
      }
      for (const std::string& c : m.columns) row->erase(c);
      return true;
    case Mutation::Kind::kAppend:
      for (const Cell& c : m.cells) {
        const int64_t ts = ModelStamp(*row, c.column, now, tally);
        auto it = row->find(c.column);
        (*row)[c.column] = {
            (it == row->end() ? "" : it->second.value) + c.value, ts};
      }
      return true;
    case Mutation::Kind::kIncrement:
      for (const ColumnIncrement& inc : m.increments) {
        uint64_t n = 0;
        auto it = row->find(inc.column);
        if (it != row->end()) {
          if (it->second.value.size() != 8) return false;
          for (unsigned char b : it->second.value) n = (n << 8) | b;
        }
        const int64_t ts = ModelStamp(*row, inc.column, now, tally);
        (*row)[inc.column] = {ModelLong(n + static_cast<uint64_t>(inc.amount)),
                              ts};
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
    now_ = kNow;
    store_ =
        OpenStoreWithRegions(dir.path(), Options(), {PlacesRegion(1, "", "")});
    ASSERT_NE(store_, nullptr);
    std::mt19937_64 rng(seed);
    Model model;
    int held = 0, failed_checks = 0, refused = 0;  // the mix was exercised
    ModelTally tally;
    for (int step = 0; step < Steps(); ++step) {
      // A clock that ticks every other batch: cells written twice in one
      // tick meet the old + 1 rule, and puts after them are older.
      now_ = kNow + step / 2;
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
      ModelTally batch_tally;
      if (holds) {
        for (const Mutation& m : batch) {
          ok = ok && ModelApply(m, now_, &row, &batch_tally);
        }
      }
      StatusOr<WriteResult> w = store_->Apply(batch);
      ASSERT_EQ(w.ok(), ok) << "step " << step << ": " << w.status().ToString();
      if (!ok) {
        ++refused;
        EXPECT_TRUE(w.status().IsInvalidArgument());
        continue;
      }
      tally.stale_puts += batch_tally.stale_puts;
      tally.bumped += batch_tally.bumped;
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
        const ModelCell& want = model[key].at(col);
        EXPECT_EQ(w->outcomes.back().cells[0],
                  (Cell{col, want.value, want.timestamp}))
            << "step " << step;
      }
    }
    EXPECT_GT(held, 100);
    EXPECT_GT(failed_checks, 100);
    EXPECT_GT(refused, 20);
    EXPECT_GT(tally.stale_puts, 2);  // 6 to 10 with the default steps
    EXPECT_GT(tally.bumped, 30);     // 66 to 83
    // The rows, the index and the filter equal the model.
    for (int r = 0; r < 4; ++r) {
      const std::string key = "r" + std::to_string(r);
      std::optional<Row> got = GetRow(key);
      auto it = model.find(key);
      ASSERT_EQ(got.has_value(), it != model.end()) << key;
      if (!got) continue;
      std::vector<Cell> want;
      for (const auto& [c, v] : it->second) {
        want.push_back({c, v.value, v.timestamp});
      }
      EXPECT_EQ(got->cells, want) << key;
    }
    for (const char* column : {"d:country", "d:feature"}) {
      std::map<std::string, std::vector<std::string>> by_value;
      for (const auto& [key, row] : model) {
        auto c = row.find(column);
        if (c != row.end()) by_value[c->second.value].push_back(key);
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
  EXPECT_EQ(GetRow("r")->cells,
            (std::vector<Cell>{{"d:country", "abc", kNow}}));
}

// HBase's rule for the new cells of increments and appends: the clock, or
// one more than the stored cell's timestamp when that is not older, so that
// the new value always replaces the old one.
TEST_F(RegionStoreAtomicTest, IncrementsAndAppendsAreStampedAfterTheOldCell) {
  ASSERT_TRUE(
      store_
          ->Apply({Mutation::Put(1, "r",
                                 {{"d:future", EncodeLong(1), kNow + 100},
                                  {"d:past", EncodeLong(1), kNow - 100},
                                  {"d:same", "a", kNow},
                                  {"d:text", "a", kNow + 7}})})
          .ok());
  StatusOr<WriteResult> w = store_->Apply(
      {Mutation::Increment(1, "r",
                           {{"d:future", 1}, {"d:past", 1}, {"d:fresh", 5}}),
       Mutation::Append(1, "r", {{"d:same", "b"}, {"d:text", "b"}})});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->outcomes.size(), 2u);
  EXPECT_EQ(w->outcomes[0].cells,
            (std::vector<Cell>{{"d:future", EncodeLong(2), kNow + 101},
                               {"d:past", EncodeLong(2), kNow},
                               {"d:fresh", EncodeLong(5), kNow}}));
  EXPECT_EQ(w->outcomes[1].cells,
            (std::vector<Cell>{{"d:same", "ab", kNow + 1},
                               {"d:text", "ab", kNow + 8}}));
  // Stored as answered.
  EXPECT_EQ(GetRow("r")->cells,
            (std::vector<Cell>{{"d:fresh", EncodeLong(5), kNow},
                               {"d:future", EncodeLong(2), kNow + 101},
                               {"d:past", EncodeLong(2), kNow},
                               {"d:same", "ab", kNow + 1},
                               {"d:text", "ab", kNow + 8}}));
  // A second increment in the same millisecond is stamped after the first.
  w = store_->Apply({Mutation::Increment(1, "r", {{"d:fresh", 1}})});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->outcomes[0].cells,
            (std::vector<Cell>{{"d:fresh", EncodeLong(6), kNow + 1}}));
  // Once the clock has passed the stored cell, the clock again.
  now_ = kNow + 200;
  w = store_->Apply({Mutation::Increment(1, "r", {{"d:future", 1}})});
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->outcomes[0].cells,
            (std::vector<Cell>{{"d:future", EncodeLong(3), kNow + 200}}));
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
