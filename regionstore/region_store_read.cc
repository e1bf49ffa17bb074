// RegionStore reads: get, scan, and index lookups. Each call reads from one
// RocksDB snapshot, so rows and index entries it sees agree (they are written
// in one batch).
#include <rocksdb/snapshot.h>

#include <algorithm>

#include "model/filter_language.h"
#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

Status ValidateLimit(uint32_t limit) {
  if (limit == 0 || limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("limit " + std::to_string(limit) +
                                   " outside [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  return Status::OK();
}

// The row with only the projected cells.
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

// Whether the row's cells hold every equality of the query.
bool MatchesEqualities(const Row& row, const IndexQuery& q) {
  for (const EqualityPredicate& p : q.equals) {
    const Cell* c = row.Find(p.column);
    if (c == nullptr || c->value != p.value) return false;
  }
  return true;
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
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLimit(req.limit));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(req.columns));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<Filter> filter,
                              ScanFilter(req.filter));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(req.time_range));
  std::shared_lock lock(regions_mu_);
  BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* r,
                              OpenRegionLocked(req.region_id));
  // Clamp [start, stop) to the region.
  const std::string& start = std::max(req.start_row, r->start_key);
  std::string stop = req.stop_row;
  if (stop.empty() || (!r->end_key.empty() && r->end_key < stop)) {
    stop = r->end_key;
  }
  const std::string prefix = RegionPrefix(r->region_id);
  const std::string upper =
      stop.empty() ? PrefixSuccessor(prefix) : RowKey(r->region_id, stop);
  rocksdb::Slice upper_slice(upper);
  rocksdb::ReadOptions ro;
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, rows_cf_));
  ScanResult out;
  ReadBudget budget = BudgetFor(req.max_bytes);
  for (it->Seek(RowKey(r->region_id, start)); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView().substr(prefix.size());
    // The work bound counts rows the projection or the filter drops too: a
    // scan for a column few rows have stops (with no row, perhaps) and
    // moves on.
    if (out.rows.size() == req.limit || budget.ReplyFull() ||
        budget.WorkDone()) {
      out.resume_row = std::string(key);
      break;
    }
    ++budget.examined_rows;
    budget.read_bytes += it->value().size();
    std::vector<Cell> cells;
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(it->value().ToStringView(), &cells));
    std::optional<Row> row = ProjectNonEmpty(
        key, CellsInRange(std::move(cells), req.time_range), req.columns);
    // After the projection, as HBase: unselected columns are missing.
    if (row && filter) row = ApplyFilter(*filter, *row);
    if (row) {
      budget.reply_bytes += ReplyBytes(*row);
      out.rows.push_back(std::move(*row));
    }
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  return out;
}

StatusOr<std::vector<const RegionDescriptor*>>
RocksRegionStore::LookupRegionsLocked(const IndexQuery& q,
                                      const TableDescriptor** table) const {
  std::vector<const RegionDescriptor*> regions;
  if (q.region_ids.empty()) {
    for (const auto& [id, r] : regions_) {
      if (r.open && r.descriptor.table.table_id == q.table_id) {
        regions.push_back(&r.descriptor);
      }
    }
    if (regions.empty()) {
      return Status::NotFound("table " + std::to_string(q.table_id) +
                              " has no open region on this server");
    }
  }
  for (uint64_t id : q.region_ids) {
    BLOOMROUTE_ASSIGN_OR_RETURN(const RegionDescriptor* r,
                                OpenRegionLocked(id));
    if (std::find(regions.begin(), regions.end(), r) != regions.end()) {
      return Status::InvalidArgument("region " + std::to_string(id) +
                                     " is listed twice");
    }
    if (r->table.table_id != q.table_id) {
      return Status::InvalidArgument("region " + std::to_string(id) +
                                     " is not a region of table " +
                                     std::to_string(q.table_id));
    }
    regions.push_back(r);
  }
  // Key order: with an equality driving, the answer is then in row-key order
  // across regions (they do not overlap), so a truncated answer is a prefix
  // of the full one and the router can merge servers' answers exactly.
  std::sort(regions.begin(), regions.end(),
            [](const RegionDescriptor* a, const RegionDescriptor* b) {
              return a->start_key < b->start_key;
            });
  *table = &regions.front()->table;
  return regions;
}

StatusOr<IndexQueryResult> RocksRegionStore::Lookup(const IndexQuery& q) const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLimit(q.limit));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(q.columns));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(q.time_range));
  if (q.equals.empty() && !q.range) {
    return Status::InvalidArgument("index query has no predicate");
  }
  if (q.after_row && q.equals.empty()) {
    return Status::InvalidArgument(
        "a lookup resumed after a row needs an equality predicate");
  }
  if (q.after_row && q.after_row->size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("the row to resume after is longer than " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  std::shared_lock lock(regions_mu_);
  const TableDescriptor* table = nullptr;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<const RegionDescriptor*> regions,
                              LookupRegionsLocked(q, &table));
  auto check_indexed = [&](const std::string& column) -> Status {
    const IndexedColumn* indexed = table->FindIndexed(column);
    if (indexed && indexed->building) {
      return Status::InvalidArgument(
          "column " + QuoteForMessage(column) + " of table " +
          QuoteForMessage(table->name) +
          " is building its index; lookups on it start when it is complete");
    }
    if (indexed) return Status::OK();
    return Status::InvalidArgument("column " + QuoteForMessage(column) +
                                   " of table " + QuoteForMessage(table->name) +
                                   " is not indexed");
  };
  for (const auto& p : q.equals)
    BLOOMROUTE_RETURN_IF_ERROR(check_indexed(p.column));
  if (q.range) BLOOMROUTE_RETURN_IF_ERROR(check_indexed(q.range->column));

  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot.snapshot();
  // Drive from the most selective equality: the fewest rows on this server.
  size_t driver = q.equals.size();  // = the range predicate
  uint64_t fewest = UINT64_MAX;
  for (size_t i = 0; i < q.equals.size(); ++i) {
    const IndexedColumn* col = table->FindIndexed(q.equals[i].column);
    std::string bytes;
    rocksdb::Status s = db_->Get(
        ro, values_cf_,
        ValueKey(table->table_id, col->column_id, q.equals[i].value), &bytes);
    ValueRecord rec;
    if (!s.IsNotFound()) {
      BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
      BLOOMROUTE_RETURN_IF_ERROR(DecodeValueRecord(bytes, &rec));
    }
    if (rec.count < fewest) {
      fewest = rec.count;
      driver = i;
    }
  }
  IndexQueryResult result;
  ReadBudget budget = BudgetFor(q.max_bytes);
  if (fewest == 0) return result;  // some value is on no row here
  for (const RegionDescriptor* r : regions) {
    BLOOMROUTE_RETURN_IF_ERROR(
        LookupInRegion(ro, *r, q, driver, &result, &budget));
    if (result.truncated) break;
  }
  return result;
}

Status RocksRegionStore::LookupInRegion(const rocksdb::ReadOptions& snap_ro,
                                        const RegionDescriptor& region,
                                        const IndexQuery& q, size_t driver,
                                        IndexQueryResult* result,
                                        ReadBudget* budget) const {
  const TableDescriptor& table = region.table;
  // The driver's index range: one value's rows, or a range of values.
  std::string lower, upper;
  if (driver < q.equals.size()) {
    const auto& p = q.equals[driver];
    const uint32_t column = table.FindIndexed(p.column)->column_id;
    lower = IndexValuePrefix(region.region_id, column, p.value);
    upper = PrefixSuccessor(lower);
    // A value's entries are in row order: start at the row resumed after.
    if (q.after_row) {
      lower = IndexKey(region.region_id, column, p.value, *q.after_row);
    }
  } else {
    const std::string col = IndexColumnPrefix(
        region.region_id, table.FindIndexed(q.range->column)->column_id);
    lower = col;
    if (q.range->lower) AppendEscaped(&lower, *q.range->lower);
    upper = col;
    if (q.range->upper) {
      AppendEscaped(&upper, *q.range->upper);
    } else {
      upper = PrefixSuccessor(col);
    }
  }
  rocksdb::ReadOptions ro = snap_ro;
  rocksdb::Slice upper_slice(upper);
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, index_cf_));
  const bool by_row = driver < q.equals.size();  // entries in row order
  for (it->Seek(lower); it->Valid(); it->Next()) {
    IndexKeyParts entry;
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexKey(it->key().ToStringView(), &entry));
    if (q.after_row && entry.row <= *q.after_row) continue;
    // The work bound: entries the other predicates reject count too, so a
    // conjunction that matches little stops and says how far it got.
    if (budget->WorkDone()) {
      result->truncated = true;
      if (by_row) result->resume_after = std::move(budget->last_examined);
      return Status::OK();
    }
    ++budget->examined_rows;
    if (by_row) budget->last_examined = entry.row;
    // The other equalities: an exact index point lookup each.
    bool match = true;
    for (size_t i = 0; i < q.equals.size() && match; ++i) {
      if (i == driver) continue;
      const auto& p = q.equals[i];
      std::string ignored;
      rocksdb::Status s = db_->Get(
          snap_ro, index_cf_,
          IndexKey(region.region_id, table.FindIndexed(p.column)->column_id,
                   p.value, entry.row),
          &ignored);
      if (!s.IsNotFound()) BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
      match = s.ok();
    }
    if (!match) continue;
    // One read serves the range check (the range column's value comes from
    // the row when an equality drives), the time range and the result.
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::optional<Row> row,
        ReadRow(snap_ro, region, entry.row, {}, TimeRange(), budget));
    if (!row) {
      return Status::Corruption("index entry for missing row " +
                                QuoteForMessage(entry.row));
    }
    if (!q.time_range.IsAllTime()) {
      // The index holds each cell's value whatever its timestamp: a row
      // matches only through cells in the time range.
      row->cells = CellsInRange(std::move(row->cells), q.time_range);
      if (!MatchesEqualities(*row, q)) continue;
    }
    if ((driver < q.equals.size() || !q.time_range.IsAllTime()) && q.range) {
      const Cell* c = row->Find(q.range->column);
      if (!c || (q.range->lower && c->value < *q.range->lower) ||
          (q.range->upper && !(c->value < *q.range->upper))) {
        continue;
      }
    }
    if (result->rows.size() == q.limit || budget->ReplyFull()) {
      result->truncated = true;
      if (by_row) result->resume_after = result->rows.back().key;
      return Status::OK();
    }
    // A matching row is in the answer even with none of the projected
    // cells: the lookup's question is which rows match.
    Row projected = Project(row->key, std::move(row->cells), q.columns);
    budget->reply_bytes += ReplyBytes(projected);
    result->rows.push_back(std::move(projected));
  }
  return FromRocks(it->status());
}

}  // namespace bloomroute::regionstore_internal
