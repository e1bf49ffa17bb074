// The HBase Thrift2 calls end to end -- a generated client, the router's
// Thrift server, the real Router and in-process region stores -- against an
// in-test model of HBase's semantics for a family with VERSIONS => 1: cell
// timestamps (given or the server's clock), the delete types, time ranges,
// checkAndPut / checkAndDelete, increment, append, mutateRow, filtered scans
// (index-served and full) and index lookups. Fixed seeds; every read is
// compared with the model, cell by cell with timestamps.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "model/atomic_ops.h"
#include "tests/integration/router_client.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"
#include "thrift/router_server.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;

constexpr int64_t kStart = 1700000000000;

// A cell of the model: its value and timestamp.
struct ModelCell {
  std::string value;
  int64_t ts = 0;
};
// row -> qualifier (family "d") -> cell.
using ModelTable = std::map<std::string, std::map<std::string, ModelCell>>;

// What an HBase reader with VERSIONS => 1 sees after each call, as HBase's
// documentation states the rules (TPut, TDelete, TDeleteType, TTimeRange,
// checkAndPut, Increment, Append).
class HBaseModel {
 public:
  // A put's cell: kept unless older than the stored one.
  void Put(const std::string& row, const std::string& q,
           const std::string& value, int64_t ts) {
    auto& cells = rows_[row];
    auto it = cells.find(q);
    if (it != cells.end() && ts < it->second.ts) return;
    cells[q] = {value, ts};
  }
  // Cells with ts <= upto.
  void DeleteRow(const std::string& row, int64_t upto) {
    auto r = rows_.find(row);
    if (r == rows_.end()) return;
    for (auto it = r->second.begin(); it != r->second.end();) {
      it = it->second.ts <= upto ? r->second.erase(it) : std::next(it);
    }
    if (r->second.empty()) rows_.erase(r);
  }
  // DELETE_COLUMN: exactly `ts` (nullopt: the cell whatever its ts);
  // DELETE_COLUMNS: ts <= upto.
  void DeleteColumn(const std::string& row, const std::string& q,
                    std::optional<int64_t> exactly,
                    std::optional<int64_t> upto) {
    auto r = rows_.find(row);
    if (r == rows_.end()) return;
    auto c = r->second.find(q);
    if (c == r->second.end()) return;
    if (exactly && c->second.ts != *exactly) return;
    if (upto && c->second.ts > *upto) return;
    r->second.erase(c);
    if (r->second.empty()) rows_.erase(r);
  }
  // HBase's Increment / Append stamp: the clock, or one more than the old
  // cell's timestamp when that is not older.
  int64_t Stamp(const std::string& row, const std::string& q,
                int64_t now) const {
    const ModelCell* c = Find(row, q);
    return c != nullptr && c->ts >= now ? c->ts + 1 : now;
  }
  const ModelCell* Find(const std::string& row, const std::string& q) const {
    auto r = rows_.find(row);
    if (r == rows_.end()) return nullptr;
    auto c = r->second.find(q);
    return c == r->second.end() ? nullptr : &c->second;
  }
  const ModelTable& rows() const { return rows_; }

 private:
  ModelTable rows_;
};

// A TResult as the model says it must be: cells in [min, max), by
// qualifier; nullopt when none is left.
std::optional<client::TResult> Expected(
    const std::string& row, const std::map<std::string, ModelCell>& cells,
    int64_t min, int64_t max) {
  client::TResult out;
  for (const auto& [q, c] : cells) {
    if (c.ts < min || c.ts >= max) continue;
    client::TColumnValue cv;
    cv.__set_family("d");
    cv.__set_qualifier(q);
    cv.__set_value(c.value);
    cv.__set_timestamp(c.ts);
    out.columnValues.push_back(cv);
  }
  if (out.columnValues.empty()) return std::nullopt;
  out.__set_row(row);
  return out;
}

std::string Show(const client::TResult& r) {
  std::string s = r.__isset.row ? r.row : "<no row>";
  s += ":";
  for (const auto& c : r.columnValues) {
    s += " " + c.family + ":" + c.qualifier + "=" + c.value + "@" +
         (c.__isset.timestamp ? std::to_string(c.timestamp) : "?");
  }
  return s;
}
std::string Show(const std::vector<client::TResult>& rows) {
  std::string s;
  for (const auto& r : rows) s += "[" + Show(r) + "] ";
  return s;
}

class HBaseApiModelTest : public ::testing::TestWithParam<uint32_t> {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    RouterServerOptions options;
    options.port = 0;
    options.threads = 4;
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    client_ = std::make_unique<testing::RouterClient>(server_->port());

    client::TTableDescriptor desc;
    desc.tableName.__set_qualifier("t");
    client::TColumnFamilyDescriptor family;
    family.__set_name("d");
    desc.__set_columns({family});
    desc.__set_attributes({{"bloomroute.index", "d:a,d:b"}});
    (*client_)->createTable(desc, {"r3", "r6"});
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
  }

  // The stores' clock, which the test moves.
  static RegionStoreOptions ClockedOptions(std::atomic<int64_t>* now) {
    RegionStoreOptions o;
    o.clock_ms = [now] { return now->load(); };
    return o;
  }

  std::string RandomRow() { return "r" + std::to_string(Pick(9)); }
  std::string RandomValue() { return "v" + std::to_string(Pick(2)); }
  // "" is HBase's empty qualifier: the column "d:".
  std::string RandomQualifier() {
    static const char* const kQualifiers[] = {"a", "b", "c", ""};
    return kQualifiers[Pick(3)];
  }
  int Pick(int max) { return std::uniform_int_distribution<int>(0, max)(rng_); }
  // A timestamp near the clock, or nullopt for "now".
  std::optional<int64_t> MaybeTimestamp() {
    if (Pick(2) == 0) return std::nullopt;
    return now_.load() + Pick(10) - 5;
  }

  void RandomPut(HBaseModel* model);
  void RandomDelete(HBaseModel* model);
  void RandomCheckAndPut(HBaseModel* model);
  void RandomIncrementOrAppend(HBaseModel* model);
  void CheckGet(const HBaseModel& model);
  void CheckScan(const HBaseModel& model);
  void CheckLookup(const HBaseModel& model);

  std::atomic<int64_t> now_{kStart};
  testing::StoreCluster cluster_{3, ClockedOptions(&now_)};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> server_;
  std::unique_ptr<testing::RouterClient> client_;
  std::mt19937 rng_{GetParam()};
  // What the run exercised, so that a generator change that stops reaching a
  // case fails the test.
  struct Mix {
    int checks_held = 0, checks_failed = 0, rows_read = 0, scan_rows = 0,
        lookup_rows = 0;
  } mix_;
};

void HBaseApiModelTest::RandomPut(HBaseModel* model) {
  client::TPut put;
  put.__set_row(RandomRow());
  const std::optional<int64_t> put_ts = MaybeTimestamp();
  if (put_ts) put.__set_timestamp(*put_ts);
  std::map<std::string, bool> seen;
  for (int i = 0, n = 1 + Pick(2); i < n; ++i) {
    const std::string q = RandomQualifier();
    if (seen[q]) continue;
    seen[q] = true;
    client::TColumnValue cv;
    cv.__set_family("d");
    cv.__set_qualifier(q);
    cv.__set_value(RandomValue());
    const std::optional<int64_t> ts = MaybeTimestamp();
    if (ts) cv.__set_timestamp(*ts);
    put.columnValues.push_back(cv);
    model->Put(put.row, q, cv.value, ts ? *ts : put_ts ? *put_ts : now_.load());
  }
  if (Pick(3) == 0) {
    // The same put through mutateRow: applied the same way.
    client::TRowMutations rm;
    rm.__set_row(put.row);
    client::TMutation m;
    m.__set_put(put);
    rm.mutations.push_back(m);
    (*client_)->mutateRow("t", rm);
  } else {
    (*client_)->put("default:t", put);
  }
}

void HBaseApiModelTest::RandomDelete(HBaseModel* model) {
  client::TDelete del;
  del.__set_row(RandomRow());
  const std::optional<int64_t> del_ts = MaybeTimestamp();
  if (del_ts) del.__set_timestamp(*del_ts);
  const int64_t now = now_.load();
  switch (Pick(3)) {
    case 0:  // the whole row: cells <= the delete's timestamp (else now)
      model->DeleteRow(del.row, del_ts ? *del_ts : now);
      break;
    case 1: {  // one column, DELETE_COLUMN or DELETE_COLUMNS
      client::TColumn col;
      col.__set_family("d");
      // A TColumn without qualifier is the column with the empty one
      // (HBase 2.x's ThriftUtilities.deleteFromThrift: addColumn(family,
      // null) and addColumns(family, null)), not the family.
      const std::string q = Pick(3) == 0 ? "" : RandomQualifier();
      if (!q.empty() || Pick(1) == 0) col.__set_qualifier(q);
      const std::optional<int64_t> col_ts = MaybeTimestamp();
      if (col_ts) col.__set_timestamp(*col_ts);
      const std::optional<int64_t> given = col_ts ? col_ts : del_ts;
      del.__set_columns({col});
      if (Pick(1) == 0) {
        del.__set_deleteType(client::TDeleteType::DELETE_COLUMN);
        model->DeleteColumn(del.row, q, given, std::nullopt);
      } else {
        // DELETE_COLUMNS, set or left to its default.
        if (Pick(1) == 0) {
          del.__set_deleteType(client::TDeleteType::DELETE_COLUMNS);
        }
        model->DeleteColumn(del.row, q, std::nullopt, given ? *given : now);
      }
      break;
    }
    default: {  // DELETE_FAMILY: every cell <= the timestamp (else now)
      client::TColumn col;
      col.__set_family("d");
      del.__set_columns({col});
      del.__set_deleteType(client::TDeleteType::DELETE_FAMILY);
      model->DeleteRow(del.row, del_ts ? *del_ts : now);
      break;
    }
  }
  (*client_)->deleteSingle("t", del);
}

void HBaseApiModelTest::RandomCheckAndPut(HBaseModel* model) {
  const std::string row = RandomRow();
  const std::string q = RandomQualifier();
  // Absent (an empty expected value) or one of the values.
  const std::string expected = Pick(2) == 0 ? "" : RandomValue();
  const ModelCell* cell = model->Find(row, q);
  const bool holds = expected.empty()
                         ? cell == nullptr || cell->value.empty()
                         : cell != nullptr && cell->value == expected;
  ++(holds ? mix_.checks_held : mix_.checks_failed);
  if (Pick(1) == 0) {
    client::TPut put;
    put.__set_row(row);
    client::TColumnValue cv;
    cv.__set_family("d");
    cv.__set_qualifier(RandomQualifier());
    cv.__set_value(RandomValue());
    put.__set_columnValues({cv});
    EXPECT_EQ((*client_)->checkAndPut("t", row, "d", q, expected, put), holds)
        << row << " d:" << q << " expected '" << expected << "'";
    if (holds) model->Put(row, cv.qualifier, cv.value, now_.load());
  } else {
    client::TDelete del;
    del.__set_row(row);
    EXPECT_EQ((*client_)->checkAndDelete("t", row, "d", q, expected, del),
              holds)
        << row << " d:" << q << " expected '" << expected << "'";
    if (holds) model->DeleteRow(row, now_.load());
  }
}

void HBaseApiModelTest::RandomIncrementOrAppend(HBaseModel* model) {
  const std::string row = RandomRow();
  const int64_t now = now_.load();
  client::TResult result;
  if (Pick(1) == 0) {
    // Counters live in d:n, which nothing else writes.
    const int64_t amount = Pick(20) - 10;
    const ModelCell* old = model->Find(row, "n");
    StatusOr<int64_t> before =
        old != nullptr ? DecodeLong(old->value) : StatusOr<int64_t>(0);
    ASSERT_TRUE(before.ok());
    const int64_t ts = model->Stamp(row, "n", now);
    const std::string value = EncodeLong(*before + amount);
    client::TIncrement inc;
    inc.__set_row(row);
    client::TColumnIncrement ci;
    ci.__set_family("d");
    ci.__set_qualifier("n");
    ci.__set_amount(amount);
    inc.__set_columns({ci});
    (*client_)->increment(result, "t", inc);
    model->Put(row, "n", value, ts);
    ASSERT_EQ(result.columnValues.size(), 1u) << Show(result);
    EXPECT_EQ(result.columnValues[0].value, value);
    EXPECT_EQ(result.columnValues[0].timestamp, ts);
  } else {
    const std::string q = RandomQualifier();
    const ModelCell* old = model->Find(row, q);
    const std::string value = (old != nullptr ? old->value : "") + "+";
    const int64_t ts = model->Stamp(row, q, now);
    client::TAppend app;
    app.__set_row(row);
    client::TColumnValue cv;
    cv.__set_family("d");
    cv.__set_qualifier(q);
    cv.__set_value("+");
    app.__set_columns({cv});
    (*client_)->append(result, "t", app);
    model->Put(row, q, value, ts);
    ASSERT_EQ(result.columnValues.size(), 1u) << Show(result);
    EXPECT_EQ(result.columnValues[0].value, value);
    EXPECT_EQ(result.columnValues[0].timestamp, ts);
  }
}

void HBaseApiModelTest::CheckGet(const HBaseModel& model) {
  client::TGet get;
  get.__set_row(RandomRow());
  int64_t min = 0, max = INT64_MAX;
  if (Pick(2) == 0) {
    min = now_.load() - Pick(20);
    max = min + 1 + Pick(20);
    client::TTimeRange range;
    range.__set_minStamp(min);
    range.__set_maxStamp(max);
    get.__set_timeRange(range);
  }
  client::TResult got;
  (*client_)->get(got, "t", get);
  auto row = model.rows().find(get.row);
  std::optional<client::TResult> want =
      row == model.rows().end() ? std::nullopt
                                : Expected(get.row, row->second, min, max);
  mix_.rows_read += want.has_value();
  EXPECT_EQ(Show(got), want ? Show(*want) : "<no row>:")
      << "get " << get.row << " in [" << min << ", " << max << ")";
}

void HBaseApiModelTest::CheckScan(const HBaseModel& model) {
  client::TScan scan;
  const std::string column = Pick(1) == 0 ? "a" : "c";  // indexed or not
  const std::string value = RandomValue();
  const bool if_missing = column == "a" ? Pick(3) != 0 : Pick(1) == 0;
  scan.__set_filterString("SingleColumnValueFilter('d', '" + column +
                          "', =, 'binary:" + value + "', " +
                          (if_missing ? "true" : "false") + ", true)");
  // Half the scans reversed: the same rows, last key first.
  const bool reversed = Pick(1) == 0;
  if (reversed) scan.__set_reversed(true);
  std::vector<client::TResult> got;
  (*client_)->getScannerResults(got, "t", scan, 1000);
  std::vector<client::TResult> want;
  for (const auto& [key, cells] : model.rows()) {
    auto c = cells.find(column);
    const bool passes =
        c == cells.end() ? !if_missing : c->second.value == value;
    if (!passes) continue;
    if (auto r = Expected(key, cells, 0, INT64_MAX)) want.push_back(*r);
  }
  if (reversed) std::reverse(want.begin(), want.end());
  mix_.scan_rows += static_cast<int>(want.size());
  EXPECT_EQ(Show(got), Show(want))
      << scan.filterString << (reversed ? " reversed" : "");
}

void HBaseApiModelTest::CheckLookup(const HBaseModel& model) {
  client::TIndexQuery query;
  client::TEqualityPredicate p;
  p.__set_family("d");
  p.__set_qualifier(Pick(1) == 0 ? "a" : "b");
  p.__set_value(RandomValue());
  query.__set_predicates({p});
  client::TIndexResult got;
  (*client_)->getByIndex(got, "t", query);
  std::vector<client::TResult> want;
  for (const auto& [key, cells] : model.rows()) {
    auto c = cells.find(p.qualifier);
    if (c == cells.end() || c->second.value != p.value) continue;
    if (auto r = Expected(key, cells, 0, INT64_MAX)) want.push_back(*r);
  }
  mix_.lookup_rows += static_cast<int>(want.size());
  EXPECT_EQ(Show(got.rows), Show(want))
      << "d:" << p.qualifier << " = " << p.value;
}

TEST_P(HBaseApiModelTest, EveryCallAgreesWithTheModel) {
  HBaseModel model;
  const int steps = 1500;
  for (int step = 0; step < steps && !HasFailure(); ++step) {
    SCOPED_TRACE("seed " + std::to_string(GetParam()) + " step " +
                 std::to_string(step));
    if (Pick(1) == 0) now_ += 1;  // writes in one millisecond share it
    switch (Pick(9)) {
      case 0:
      case 1:
      case 2:
        RandomPut(&model);
        break;
      case 3:
        RandomDelete(&model);
        break;
      case 4:
        RandomCheckAndPut(&model);
        break;
      case 5:
        RandomIncrementOrAppend(&model);
        break;
      case 6:
        CheckGet(model);
        break;
      case 7:
        CheckScan(model);
        break;
      default:
        CheckLookup(model);
        break;
    }
  }
  EXPECT_GT(mix_.checks_held, 20);
  EXPECT_GT(mix_.checks_failed, 20);
  EXPECT_GT(mix_.rows_read, 20);
  EXPECT_GT(mix_.scan_rows, 50);
  EXPECT_GT(mix_.lookup_rows, 50);
  // The index is exact at the end.
  client::TVerifyReport report;
  (*client_)->verifyIndex(report, "t");
  EXPECT_TRUE(report.ok);
}

INSTANTIATE_TEST_SUITE_P(Seeds, HBaseApiModelTest,
                         ::testing::Values(16u, 1616u, 20261124u));

}  // namespace
}  // namespace bloomroute
