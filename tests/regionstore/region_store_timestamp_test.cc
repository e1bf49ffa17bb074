// RegionStore cell timestamps against a small model of HBase's VERSIONS => 1
// semantics: puts with explicit or "now" timestamps (a lower timestamp than
// the stored cell's is ignored), the delete kinds (row, DELETE_COLUMN,
// DELETE_COLUMNS, DELETE_FAMILY, with and without timestamps), and gets,
// scans and lookups with random time ranges. The index must follow exactly
// what a reader sees: VerifyIndex stays clean and lookups equal the model.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/regionstore/store_surgery.h"

namespace bloomroute {
namespace {

using testing::OpenStoreWithRegions;
using testing::TempDir;

constexpr uint64_t kTableId = 9;
const char* const kColumns[] = {"d:a", "d:x", "e:b", "e:y"};
const char* const kRows[] = {"r0", "r1", "r2", "r3", "r4"};
const char* const kValues[] = {"v0", "v1", "v2"};

RegionDescriptor TimedRegion() {
  TableDescriptor t;
  t.table_id = kTableId;
  t.name = "timed";
  t.indexed_columns = {{1, "d:a"}, {2, "e:b"}};
  return RegionDescriptor{1, t, "", ""};
}

// HBase with VERSIONS => 1, as the store should behave. `now` is the
// store's clock during the mutation.
class Model {
 public:
  using Cells = std::map<std::string, Cell>;  // by column

  void Apply(const Mutation& m, int64_t now) {
    Cells& row = rows_[m.row_key];
    if (m.kind == Mutation::Kind::kPut) {
      for (const Cell& c : m.cells) {
        Cell stored = c;
        if (stored.timestamp == kLatestTimestamp)
          stored.timestamp = m.timestamp;
        if (stored.timestamp == kLatestTimestamp) stored.timestamp = now;
        auto it = row.find(c.column);
        if (it != row.end() && it->second.timestamp > stored.timestamp) {
          continue;
        }
        row[c.column] = stored;
      }
    } else {
      ApplyDelete(m, now, &row);
    }
    if (row.empty()) rows_.erase(m.row_key);
  }

  // The row's cells in `range` and selected by `columns`.
  std::optional<Row> Get(const std::string& key, const TimeRange& range,
                         const Projection& columns = {}) const {
    auto it = rows_.find(key);
    if (it == rows_.end()) return std::nullopt;
    Row row{key, {}};
    for (const auto& [col, cell] : it->second) {
      if (range.Contains(cell.timestamp) && Selected(columns, col)) {
        row.cells.push_back(cell);
      }
    }
    if (row.cells.empty()) return std::nullopt;
    return row;
  }

  std::vector<Row> Scan(const TimeRange& range) const {
    std::vector<Row> out;
    for (const auto& [key, cells] : rows_) {
      if (auto row = Get(key, range)) out.push_back(*row);
    }
    return out;
  }

  // Rows whose cells in `range` have column == value (and, with
  // range_column, range_column's value in [lo, hi)); in key order.
  std::vector<Row> Lookup(const std::string& column, const std::string& value,
                          const TimeRange& range,
                          const std::string& range_column,
                          const std::string& lo, const std::string& hi) const {
    std::vector<Row> out;
    for (const Row& row : Scan(range)) {
      const Cell* c = row.Find(column);
      if (c == nullptr || c->value != value) continue;
      if (!range_column.empty()) {
        const Cell* r = row.Find(range_column);
        if (r == nullptr || r->value < lo || !(r->value < hi)) continue;
      }
      out.push_back(row);
    }
    return out;
  }

 private:
  static void ApplyDelete(const Mutation& m, int64_t now, Cells* row) {
    auto erase_if = [&](auto pred) {
      for (auto it = row->begin(); it != row->end();) {
        it = pred(it->second) ? row->erase(it) : std::next(it);
      }
    };
    if (m.columns.empty() && m.deletes.empty()) {
      const int64_t t = m.timestamp == kLatestTimestamp ? now : m.timestamp;
      erase_if([&](const Cell& c) { return c.timestamp <= t; });
      return;
    }
    for (const std::string& col : m.columns) row->erase(col);
    for (const DeleteSpec& d : m.deletes) {
      const int64_t given =
          d.timestamp != kLatestTimestamp ? d.timestamp : m.timestamp;
      const int64_t t = given == kLatestTimestamp ? now : given;
      switch (d.kind) {
        case DeleteSpec::Kind::kColumn:
          erase_if([&](const Cell& c) {
            return c.column == d.column &&
                   (given == kLatestTimestamp || c.timestamp == given);
          });
          break;
        case DeleteSpec::Kind::kColumns:
          erase_if([&](const Cell& c) {
            return c.column == d.column && c.timestamp <= t;
          });
          break;
        case DeleteSpec::Kind::kFamily:
          erase_if([&](const Cell& c) {
            return c.column.substr(0, c.column.find(':')) == d.column &&
                   c.timestamp <= t;
          });
          break;
      }
    }
  }

  std::map<std::string, Cells> rows_;
};

std::string Describe(const std::optional<Row>& row) {
  if (!row) return "(none)";
  std::string s = row->key + ":";
  for (const Cell& c : row->cells) {
    s += " " + c.column + "=" + c.value + "@" + std::to_string(c.timestamp);
  }
  return s;
}

std::string Describe(const std::vector<Row>& rows) {
  std::string s;
  for (const Row& r : rows) s += "[" + Describe(std::optional<Row>(r)) + "] ";
  return s;
}

class RegionStoreTimestampTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegionStoreOptions options;
    options.clock_ms = [this] { return now_; };
    store_ =
        OpenStoreWithRegions(dir_.path() + "/db", options, {TimedRegion()});
    ASSERT_NE(store_, nullptr);
  }

  StatusOr<WriteResult> Apply(const Mutation& m) {
    Mutation routed = m;
    routed.region_id = 1;
    return store_->Apply({routed});
  }

  std::optional<Row> GetRow(const std::string& key, const TimeRange& range) {
    GetRequest g;
    g.region_id = 1;
    g.row_key = key;
    g.time_range = range;
    auto rows = store_->Get({g});
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok() || rows->empty()) return std::nullopt;
    return (*rows)[0];
  }

  TempDir dir_;
  int64_t now_ = 1000;
  std::unique_ptr<RegionStore> store_;
};

TEST_F(RegionStoreTimestampTest, NowIsTheServersClockAndOlderPutsAreIgnored) {
  ASSERT_TRUE(Apply(Mutation::Put(1, "r", {{"d:a", "v0"}})).ok());
  EXPECT_EQ(GetRow("r", {}), (Row{"r", {{"d:a", "v0", 1000}}}));
  // Older: what a VERSIONS => 1 reader sees does not change.
  ASSERT_TRUE(Apply(Mutation::Put(1, "r", {{"d:a", "v1", 999}})).ok());
  EXPECT_EQ(GetRow("r", {}), (Row{"r", {{"d:a", "v0", 1000}}}));
  // Equal replaces; the put's own timestamp applies to cells without one.
  Mutation put = Mutation::Put(1, "r", {{"d:a", "v2"}});
  put.timestamp = 1000;
  ASSERT_TRUE(Apply(put).ok());
  EXPECT_EQ(GetRow("r", {}), (Row{"r", {{"d:a", "v2", 1000}}}));
  EXPECT_EQ(GetRow("r", {0, 1000}), std::nullopt);
  EXPECT_EQ(GetRow("r", {1000, 1001}), (Row{"r", {{"d:a", "v2", 1000}}}));
}

TEST_F(RegionStoreTimestampTest, NegativeTimestampsAreRejected) {
  auto put = Apply(Mutation::Put(1, "r", {{"d:a", "v0", -1}}));
  EXPECT_TRUE(put.status().IsInvalidArgument()) << put.status().ToString();
  Mutation del = Mutation::Delete(1, "r");
  del.timestamp = -5;
  EXPECT_TRUE(Apply(del).status().IsInvalidArgument());
  GetRequest g;
  g.region_id = 1;
  g.row_key = "r";
  g.time_range = {-1, 5};
  EXPECT_TRUE(store_->Get({g}).status().IsInvalidArgument());
  g.time_range = {5, 4};
  EXPECT_TRUE(store_->Get({g}).status().IsInvalidArgument());
}

TEST_F(RegionStoreTimestampTest, RowsStoredBeforeTimestampsReadAsTimestamp0) {
  ASSERT_TRUE(Apply(Mutation::Put(1, "r", {{"d:a", "v0"}, {"e:y", "w"}})).ok());
  store_.reset();
  {
    auto surgery = testing::StoreSurgery::Open(dir_.path() + "/db");
    ASSERT_TRUE(surgery.ok()) << surgery.status().ToString();
    auto rewritten = (*surgery)->RewriteRowsWithoutTimestamps();
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    EXPECT_EQ(*rewritten, 1u);
  }
  RegionStoreOptions options;
  options.clock_ms = [this] { return now_; };
  store_ = OpenStoreWithRegions(dir_.path() + "/db", options, {TimedRegion()});
  ASSERT_NE(store_, nullptr);
  EXPECT_EQ(Describe(GetRow("r", {})), "r: d:a=v0@0 e:y=w@0");
  // Any timestamp a client gives replaces them; the index follows.
  ASSERT_TRUE(Apply(Mutation::Put(1, "r", {{"d:a", "v1", 0}})).ok());
  EXPECT_EQ(Describe(GetRow("r", {})), "r: d:a=v1@0 e:y=w@0");
  IndexQuery q;
  q.table_id = kTableId;
  q.limit = 10;
  q.equals = {{"d:a", "v1"}};
  auto found = store_->Lookup(q);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->rows.size(), 1u);
  auto report = store_->VerifyIndex(kTableId);
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(report->ok());
}

int64_t RandomTimestamp(std::mt19937_64& rng, int64_t now) {
  if (rng() % 3 == 0) return kLatestTimestamp;
  return static_cast<int64_t>(rng() % (now + 6));
}

Mutation RandomMutation(std::mt19937_64& rng, int64_t now) {
  const std::string row = kRows[rng() % 5];
  if (rng() % 2 == 0) {
    std::vector<Cell> cells;
    for (int n = 1 + rng() % 3; n > 0; --n) {
      cells.push_back(Cell{kColumns[rng() % 4], kValues[rng() % 3],
                           RandomTimestamp(rng, now)});
    }
    Mutation m = Mutation::Put(1, row, cells);
    if (rng() % 4 == 0) m.timestamp = RandomTimestamp(rng, now);
    return m;
  }
  Mutation m = Mutation::Delete(1, row);
  if (rng() % 3 == 0) m.timestamp = RandomTimestamp(rng, now);
  switch (rng() % 4) {
    case 0:  // the whole row
      break;
    case 1:  // named columns, whatever their timestamps
      m.columns = {kColumns[rng() % 4]};
      break;
    default:
      for (int n = 1 + rng() % 2; n > 0; --n) {
        DeleteSpec d;
        d.kind = static_cast<DeleteSpec::Kind>(rng() % 3);
        d.column = kColumns[rng() % 4];
        if (d.kind == DeleteSpec::Kind::kFamily) d.column.resize(1);
        d.timestamp = RandomTimestamp(rng, now);
        m.deletes.push_back(d);
      }
  }
  return m;
}

TimeRange RandomRange(std::mt19937_64& rng, int64_t now) {
  if (rng() % 3 == 0) return TimeRange{};
  TimeRange r;
  r.min = static_cast<int64_t>(rng() % (now + 2));
  r.max = rng() % 4 == 0 ? kLatestTimestamp
                         : r.min + 1 + static_cast<int64_t>(rng() % 8);
  return r;
}

TEST_F(RegionStoreTimestampTest, RandomOpsMatchModelOfVersionsOne) {
  for (uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    for (const char* row : kRows) {
      ASSERT_TRUE(Apply(Mutation::Delete(1, row)).ok());
    }
    now_ = 10;
    Model model;
    std::mt19937_64 rng(seed);
    for (int op = 0; op < 1500; ++op) {
      SCOPED_TRACE("op " + std::to_string(op));
      now_ += rng() % 2;
      const Mutation m = RandomMutation(rng, now_);
      ASSERT_TRUE(Apply(m).ok());
      model.Apply(m, now_);
      const TimeRange range = RandomRange(rng, now_);
      const std::string key = kRows[rng() % 5];
      ASSERT_EQ(Describe(GetRow(key, range)), Describe(model.Get(key, range)));
      if (op % 5 == 0) {
        ScanRequest s;
        s.region_id = 1;
        s.limit = 100;
        s.time_range = range;
        auto scanned = store_->Scan(s);
        ASSERT_TRUE(scanned.ok()) << scanned.status().ToString();
        ASSERT_EQ(Describe(scanned->rows), Describe(model.Scan(range)));
      }
      IndexQuery q;
      q.table_id = kTableId;
      q.limit = 100;
      q.time_range = range;
      const std::string column = rng() % 2 ? "d:a" : "e:b";
      const std::string value = kValues[rng() % 3];
      q.equals = {{column, value}};
      std::string range_column, lo, hi;
      if (rng() % 3 == 0) {
        range_column = column == "d:a" ? "e:b" : "d:a";
        lo = "v1";
        hi = "v3";
        q.range = RangePredicate{range_column, lo, hi};
      }
      auto found = store_->Lookup(q);
      ASSERT_TRUE(found.ok()) << found.status().ToString();
      ASSERT_EQ(
          Describe(found->rows),
          Describe(model.Lookup(column, value, range, range_column, lo, hi)));
      if (op % 100 == 99) {
        auto report = store_->VerifyIndex(kTableId);
        ASSERT_TRUE(report.ok()) << report.status().ToString();
        ASSERT_TRUE(report->ok())
            << (report->problems.empty() ? "" : report->problems[0]);
      }
    }
  }
}

}  // namespace
}  // namespace bloomroute
