// RegionStore::VerifyIndex: recomputes everything derived from the rows and
// compares it with what is stored (cf. Phoenix's IndexScrutinyTool).
#include <rocksdb/snapshot.h>

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

}  // namespace

StatusOr<IndexReport> RocksRegionStore::VerifyIndex() const {
  // Writes commit under filter_mu_; holding it gives one consistent state.
  std::shared_lock regions_lock(regions_mu_);
  std::lock_guard filter_lock(filter_mu_);
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot.snapshot();
  IndexReport report;

  // 1. Rows imply index entries and value counts.
  std::unordered_map<std::string, uint64_t> expected_counts;
  std::unique_ptr<rocksdb::Iterator> rows(db_->NewIterator(ro, rows_cf_));
  for (rows->SeekToFirst(); rows->Valid(); rows->Next()) {
    const std::string_view key = rows->key().ToStringView();
    ++report.rows;
    if (key.size() <= 8) {
      Problem(&report, "row key without a region prefix");
      continue;
    }
    const uint64_t region_id = DecodeBigEndian(key.data(), 8);
    auto r = regions_.find(region_id);
    if (r == regions_.end()) {
      Problem(&report, "row of unknown region " + std::to_string(region_id));
      continue;
    }
    const std::string_view row_key = key.substr(8);
    Row row;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(rows->value().ToStringView(), &row.cells));
    const TableDescriptor& t = r->second.descriptor.table;
    for (const IndexedColumn& col : t.indexed_columns) {
      const Cell* c = row.Find(col.name);
      if (!c) continue;
      ++expected_counts[ValueKey(t.table_id, col.column_id, c->value)];
      std::string ignored;
      rocksdb::Status s = db_->Get(
          ro, index_cf_, IndexKey(region_id, col.column_id, c->value, row_key),
          &ignored);
      if (s.ok()) {
        ++report.index_entries_valid;
      } else if (s.IsNotFound()) {
        ++report.index_entries_missing;
        Problem(&report, "missing index entry for row " +
                             QuoteForMessage(row_key) + " column " + col.name);
      } else {
        return FromRocks(s);
      }
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(rows->status()));

  // 2. Every index entry is implied by its row.
  std::unique_ptr<rocksdb::Iterator> index(db_->NewIterator(ro, index_cf_));
  for (index->SeekToFirst(); index->Valid(); index->Next()) {
    IndexKeyParts e;
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexKey(index->key().ToStringView(), &e));
    bool implied = false;
    auto r = regions_.find(e.region_id);
    if (r != regions_.end()) {
      const TableDescriptor& t = r->second.descriptor.table;
      const IndexedColumn* col = nullptr;
      for (const auto& c : t.indexed_columns) {
        if (c.column_id == e.column_id) col = &c;
      }
      BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<Row> row,
                                  ReadRow(ro, r->second.descriptor, e.row, {}));
      const Cell* cell = row && col ? row->Find(col->name) : nullptr;
      implied = cell && cell->value == e.value;
    }
    if (!implied) {
      ++report.index_entries_extra;
      Problem(&report,
              "index entry not implied by row " + QuoteForMessage(e.row));
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(index->status()));

  // 3. Value counts are exact.
  std::vector<std::pair<std::string, ValueRecord>> records;
  BLOOMROUTE_RETURN_IF_ERROR(ReadValueRecords(snapshot.snapshot(), &records));
  report.values = records.size();
  for (const auto& [key, rec] : records) {
    auto it = expected_counts.find(key);
    const uint64_t expected = it == expected_counts.end() ? 0 : it->second;
    if (rec.count != expected) {
      ++report.value_counts_wrong;
      ValueKeyParts v;
      BLOOMROUTE_RETURN_IF_ERROR(ParseValueKey(key, &v));
      Problem(&report, "value " + QuoteForMessage(v.value) + " counted " +
                           std::to_string(rec.count) + ", rows hold it " +
                           std::to_string(expected));
    }
    if (it != expected_counts.end()) expected_counts.erase(it);
  }
  report.value_counts_wrong += expected_counts.size();
  if (!expected_counts.empty())
    Problem(&report, "values held by rows but not counted");

  // 4. The filter equals a rebuild from the records at their stages.
  auto rebuilt = RebuildAtRecordedStages(filter_->filter().config(), records);
  report.filter_matches_rebuild =
      rebuilt.ok() && rebuilt->EquivalentTo(filter_->filter());
  if (!report.filter_matches_rebuild) {
    Problem(&report, rebuilt.ok() ? "filter differs from its rebuild"
                                  : rebuilt.status().ToString());
  }
  return report;
}

}  // namespace bloomroute::regionstore_internal
