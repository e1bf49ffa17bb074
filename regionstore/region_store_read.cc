// RegionStore reads: get, scan, and index lookups. Each call reads from one
// RocksDB snapshot, so rows and index entries it sees agree (they are written
// in one batch).
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <memory>

#include "model/filter_language.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {

Status ValidateReadLimit(uint32_t limit) {
  if (limit == 0 || limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("limit " + std::to_string(limit) +
                                   " outside [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  return Status::OK();
}

Row Project(std::string_view key, std::vector<Cell> cells,
            const Projection& columns) {
  if (!columns.empty()) {
    cells.erase(std::remove_if(cells.begin(), cells.end(),
                               [&](const Cell& c) {
                                 return !Selected(columns, c.column);
                               }),
                cells.end());
  }
  return Row{std::string(key), std::move(cells)};
}

namespace {

// Project(), or nullopt when no cell is selected: a get or scan, as in
// HBase, has no result for a row without any of the requested columns.
std::optional<Row> ProjectNonEmpty(std::string_view key,
                                   std::vector<Cell> cells,
                                   const Projection& columns) {
  Row row = Project(key, std::move(cells), columns);
  if (row.cells.empty()) return std::nullopt;
  return row;
}

// The scan's filter, parsed once per call (nullopt: none). The text, not a
// parsed tree, travels in ScanRequest: the model's types stay plain values
// and the wire carries the text anyway; parsing costs microseconds against
// a scan of up to max_examined_rows rows.
StatusOr<std::optional<Filter>> ScanFilter(const std::string& text) {
  if (text.empty()) return std::optional<Filter>();
  FilterLimits limits;
  limits.max_text_bytes = kMaxFilterTextBytes;
  StatusOr<Filter> parsed = ParseFilter(text, limits);
  if (!parsed.ok()) return parsed.status().WithContext("scan filter");
  return std::optional<Filter>(std::move(parsed).value());
}

// One row a scan reached: counted against the work bound, decoded,
// projected and filtered; appended to `rows` when something of it is left.
// *ends: the filter ends the scan here (FilterScan::Result::ends_scan).
Status ExamineScanRow(std::string_view key, std::string_view value,
                      const ScanRequest& req, FilterScan* filter,
                      ReadBudget* budget, std::vector<Row>* rows, bool* ends) {
  ++budget->examined_rows;
  budget->read_bytes += value.size();
  std::vector<Cell> cells;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeRowCells(value, &cells));
  std::optional<Row> row = ProjectNonEmpty(
      key, CellsInRange(std::move(cells), req.time_range), req.columns);
  // After the projection, as HBase: unselected columns are missing.
  if (row && filter != nullptr) {
    FilterScan::Result r = filter->Next(*row);
    row = std::move(r.row);
    *ends = r.ends_scan;
  }
  if (row) {
    budget->reply_bytes += ReplyBytes(*row);
    rows->push_back(std::move(*row));
  }
  return Status::OK();
}

// What a get answer of a missing row costs in a reply (an empty TResult).
constexpr uint64_t kMissingRowReplyBytes = kReplyBytesPerCell;

}  // namespace

ReadBudget RocksRegionStore::BudgetFor(uint64_t max_bytes) const {
  ReadBudget budget;
  budget.max_reply_bytes = options_.max_result_bytes;
  if (max_bytes != 0 && max_bytes < budget.max_reply_bytes) {
    budget.max_reply_bytes = max_bytes;
  }
  budget.max_examined_rows = options_.max_examined_rows;
  budget.max_read_bytes = options_.max_examined_bytes;
  return budget;
}

StatusOr<std::optional<Row>> RocksRegionStore::ReadRow(
    const rocksdb::ReadOptions& ro, const RegionDescriptor& region,
    std::string_view row_key, const Projection& columns,
    const TimeRange& time_range, ReadBudget* budget) const {
  rocksdb::PinnableSlice value;
  rocksdb::Status s =
      db_->Get(ro, rows_cf_, RowKey(region.region_id, row_key), &value);
  if (s.IsNotFound()) return std::optional<Row>();
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
  if (budget != nullptr) budget->read_bytes += value.size();
  std::vector<Cell> cells;
  BLOOMROUTE_RETURN_IF_ERROR(DecodeRowCells(value.ToStringView(), &cells));
  return ProjectNonEmpty(row_key, CellsInRange(std::move(cells), time_range),
                         columns);
}

StatusOr<std::vector<std::optional<Row>>> RocksRegionStore::Get(
    const std::vector<GetRequest>& requests, uint64_t max_bytes) const {
  if (requests.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "more than " + std::to_string(kMaxRowsPerCall) + " gets in one call");
  }
  std::shared_lock lock(regions_mu_);
  std::vector<const RegionDescriptor*> regions;
  for (const GetRequest& g : requests) {
    BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* r,
                                OpenRegionLocked(g.region_id));
    if (g.row_key.empty()) return Status::InvalidArgument("empty row key");
    if (!r->ContainsRow(g.row_key)) {
      return Status::InvalidArgument("row " + QuoteForMessage(g.row_key) +
                                     " is outside region " +
                                     std::to_string(r->region_id));
    }
    BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(g.columns));
    if (!g.filter.empty()) {
      return Status::InvalidArgument(
          "a region server does not filter gets (the router does)");
    }
    BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(g.time_range));
    regions.push_back(r);
  }
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot.snapshot();
  // A prefix: the answer stops after the row that passes the reply budget
  // or the bytes-read bound (duplicate gets of one large row would
  // otherwise make a reply of any size).
  ReadBudget budget = BudgetFor(max_bytes);
  std::vector<std::optional<Row>> out;
  for (size_t i = 0; i < requests.size(); ++i) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::optional<Row> row,
        ReadRow(ro, *regions[i], requests[i].row_key, requests[i].columns,
                requests[i].time_range, &budget));
    budget.reply_bytes += row ? ReplyBytes(*row) : kMissingRowReplyBytes;
    out.push_back(std::move(row));
    if (budget.ReplyFull() || budget.read_bytes >= budget.max_read_bytes) {
      break;
    }
  }
  return out;
}

StatusOr<ScanResult> RocksRegionStore::Scan(const ScanRequest& req) const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateReadLimit(req.limit));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(req.columns));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<Filter> filter,
                              ScanFilter(req.filter));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(req.time_range));
  // Built once for the scan: the filter's per-row state lives in it.
  std::unique_ptr<FilterScan> filter_scan;
  if (filter) filter_scan = std::make_unique<FilterScan>(*filter, req.reversed);
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* r,
                              OpenRegionLocked(req.region_id));
  const RowKeyRange range = RegionRowRange(
      r->region_id, r->start_key, r->end_key, req.start_row, req.stop_row);
  const size_t prefix_size = RegionPrefix(r->region_id).size();
  // Both bounds set: a reversed scan must not walk below the region's
  // first row into the region before it in the column family.
  rocksdb::Slice upper_slice(range.upper);
  rocksdb::Slice lower_slice(range.seek);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  ro.iterate_lower_bound = &lower_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  if (req.reversed) {
    // The last row below the exclusive upper bound.
    it->SeekForPrev(upper_slice);
    if (it->Valid() && it->key().compare(upper_slice) >= 0) it->Prev();
  } else {
    it->Seek(range.seek);
  }
  ScanResult out;
  ReadBudget budget = BudgetFor(req.max_bytes);
  std::string last_examined;
  for (; it->Valid(); req.reversed ? it->Prev() : it->Next()) {
    const std::string_view key = it->key().ToStringView().substr(prefix_size);
    // The work bound counts rows the projection or the filter drops too: a
    // scan for a column few rows have stops (with no row, perhaps) and
    // moves on. Reversed, the next call's (exclusive) stop_row is the last
    // row examined: every row below it is still to come.
    if (out.rows.size() == req.limit || budget.ReplyFull() ||
        budget.WorkDone()) {
      out.resume_row = req.reversed ? last_examined : std::string(key);
      break;
    }
    if (req.reversed) last_examined.assign(key);
    bool ends = false;
    BLOOMROUTE_RETURN_IF_ERROR(ExamineScanRow(key, it->value().ToStringView(),
                                              req, filter_scan.get(), &budget,
                                              &out.rows, &ends));
    // No later row of the range passes (or, for a WHILE, may be returned).
    if (ends) break;
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  return out;
}

}  // namespace bloomroute::regionstore_internal
