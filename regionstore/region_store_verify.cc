// RegionStore::VerifyIndex: recomputes everything derived from the rows and
// compares it with what is stored (cf. Phoenix's IndexScrutinyTool).
#include <rocksdb/snapshot.h>

#include <set>
#include <unordered_map>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

constexpr size_t kMaxProblems = 20;

void Problem(IndexReport* report, std::string what) {
  if (report->problems.size() < kMaxProblems) {
    report->problems.push_back(std::move(what));
  }
}

bool InScope(std::optional<uint64_t> table_id, uint64_t table) {
  return !table_id.has_value() || *table_id == table;
}

// Whether the filter holds the element in `stage` itself (not merely in some
// stage: a remove would hit `stage`).
bool InStage(const ScalableSplitCountingBloomFilter& f, const ElementHash& h,
             uint32_t stage) {
  return f.HasStage(stage) && f.stage(stage).Contains(h);
}

}  // namespace

StatusOr<IndexReport> RocksRegionStore::VerifyIndex(
    std::optional<uint64_t> table_id) const {
  VerifyState state;
  BLOOMROUTE_RETURN_IF_ERROR(TakeVerifyState(&state));
  rocksdb::ReadOptions ro;
  ro.snapshot = state.snapshot->snapshot();
  IndexReport report;
  report.table_id = table_id;
  std::unordered_map<std::string, uint64_t> expected_counts;
  if (hooks_.verify_scanning) hooks_.verify_scanning();
  BLOOMROUTE_RETURN_IF_ERROR(
      VerifyRows(ro, state, table_id, &expected_counts, &report));
  BLOOMROUTE_RETURN_IF_ERROR(VerifyIndexEntries(ro, state, table_id, &report));
  BLOOMROUTE_RETURN_IF_ERROR(
      VerifyValues(state, table_id, std::move(expected_counts), &report));
  return report;
}

// Writes commit under the filter lock, so the snapshot and the filter taken
// under it are of one state; everything else is read outside the locks.
Status RocksRegionStore::TakeVerifyState(VerifyState* state) const {
  RegionFilter::SnapshotAndFilter taken;
  {
    std::shared_lock regions_lock(regions_mu_);
    state->regions = regions_;
    taken = filter_->TakeSnapshotAndFilter();
  }
  state->snapshot = std::move(taken.snapshot);
  if (state->snapshot->snapshot() == nullptr) {
    return Status::IOError("the database gave no snapshot");
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      filter_->ReadValueRecords(state->snapshot->snapshot(), &state->records));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      ScalableSplitCountingBloomFilter filter,
      ScalableSplitCountingBloomFilter::Deserialize(taken.filter));
  state->filter.emplace(std::move(filter));
  return Status::OK();
}

// 1. Rows imply index entries and value counts.
Status RocksRegionStore::VerifyRows(
    const rocksdb::ReadOptions& ro, const VerifyState& state,
    std::optional<uint64_t> table_id,
    std::unordered_map<std::string, uint64_t>* expected,
    IndexReport* report) const {
  std::unique_ptr<rocksdb::Iterator> rows(db_->NewIterator(ro, rows_cf_));
  for (rows->SeekToFirst(); rows->Valid(); rows->Next()) {
    const std::string_view key = rows->key().ToStringView();
    if (key.size() <= 8) {
      ++report->rows;
      Problem(report, "row key without a region prefix");
      continue;
    }
    const uint64_t region_id = DecodeBigEndian(key.data(), 8);
    auto r = state.regions.find(region_id);
    if (r == state.regions.end()) {
      ++report->rows;
      Problem(report, "row of unknown region " + std::to_string(region_id));
      continue;
    }
    const TableDescriptor& t = r->second.descriptor.table;
    if (!InScope(table_id, t.table_id)) continue;
    ++report->rows;
    const std::string_view row_key = key.substr(8);
    Row row;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(rows->value().ToStringView(), &row.cells));
    for (const IndexedColumn& col : t.indexed_columns) {
      const Cell* c = row.Find(col.name);
      if (!c || col.building) continue;  // its entries may be missing yet
      ++(*expected)[ValueKey(t.table_id, col.column_id, c->value)];
      std::string ignored;
      rocksdb::Status s = db_->Get(
          ro, index_cf_, IndexKey(region_id, col.column_id, c->value, row_key),
          &ignored);
      if (s.ok()) {
        ++report->index_entries_valid;
      } else if (s.IsNotFound()) {
        ++report->index_entries_missing;
        Problem(report, "missing index entry for row " +
                            QuoteForMessage(row_key) + " column " + col.name);
      } else {
        return FromRocks(s);
      }
    }
  }
  return FromRocks(rows->status());
}

// 2. Every index entry is implied by its row.
Status RocksRegionStore::VerifyIndexEntries(const rocksdb::ReadOptions& ro,
                                            const VerifyState& state,
                                            std::optional<uint64_t> table_id,
                                            IndexReport* report) const {
  std::unique_ptr<rocksdb::Iterator> index(db_->NewIterator(ro, index_cf_));
  for (index->SeekToFirst(); index->Valid(); index->Next()) {
    IndexKeyParts e;
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexKey(index->key().ToStringView(), &e));
    bool implied = false;
    auto r = state.regions.find(e.region_id);
    if (r != state.regions.end()) {
      const TableDescriptor& t = r->second.descriptor.table;
      if (!InScope(table_id, t.table_id)) continue;
      const IndexedColumn* col = nullptr;
      for (const auto& c : t.indexed_columns) {
        if (c.column_id == e.column_id) col = &c;
      }
      BLOOMROUTE_ASSIGN_OR_RETURN(
          std::optional<Row> row,
          ReadRow(ro, r->second.descriptor, e.row, {}, TimeRange()));
      const Cell* cell = row && col ? row->Find(col->name) : nullptr;
      implied = cell && cell->value == e.value;
    }
    if (!implied) {
      ++report->index_entries_extra;
      Problem(report,
              "index entry not implied by row " + QuoteForMessage(e.row));
    }
  }
  return FromRocks(index->status());
}

// 3. Value counts are exact, each value is in the filter at its recorded
// stage, and the filter equals a rebuild from the records at their stages.
Status RocksRegionStore::VerifyValues(
    const VerifyState& state, std::optional<uint64_t> table_id,
    std::unordered_map<std::string, uint64_t> expected,
    IndexReport* report) const {
  const ScalableSplitCountingBloomFilter& filter = *state.filter;
  // Building columns count their entries, not yet their rows.
  std::set<std::pair<uint64_t, uint32_t>> building;
  for (const auto& [id, r] : state.regions) {
    const TableDescriptor& t = r.descriptor.table;
    if (!InScope(table_id, t.table_id)) continue;
    for (const IndexedColumn& c : t.indexed_columns) {
      if (c.building) building.emplace(t.table_id, c.column_id);
    }
  }
  report->building_columns = building.size();
  for (const auto& [key, rec] : state.records) {
    ValueKeyParts v;
    BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
    if (!InScope(table_id, v.table_id)) continue;
    ++report->values;
    auto it = expected.find(key);
    const uint64_t rows = it == expected.end() ? 0 : it->second;
    if (it != expected.end()) expected.erase(it);
    if (rec.count != rows && building.count({v.table_id, v.column_id}) == 0) {
      ++report->value_counts_wrong;
      Problem(report, "value " + QuoteForMessage(v.value) + " counted " +
                          std::to_string(rec.count) + ", rows hold it " +
                          std::to_string(rows));
    }
    if (!InStage(filter, HashElement(v.table_id, v.column_id, v.value),
                 rec.stage)) {
      ++report->values_not_in_filter;
      Problem(report, "value " + QuoteForMessage(v.value) +
                          " not in the filter at its stage " +
                          std::to_string(rec.stage));
    }
  }
  report->value_counts_wrong += expected.size();
  if (!expected.empty()) Problem(report, "values held by rows but not counted");

  auto rebuilt = RegionFilter::RebuildAtRecordedStages(
      filter.config(), filter.first_stage(), state.records);
  report->filter_matches_rebuild =
      rebuilt.ok() && rebuilt->EquivalentTo(filter);
  if (!report->filter_matches_rebuild) {
    Problem(report, rebuilt.ok() ? "filter differs from its rebuild"
                                 : rebuilt.status().ToString());
  }
  return Status::OK();
}

}  // namespace bloomroute::regionstore_internal
