// RegionStore::Lookup: index queries with equalities, IN lists and ranges,
// answered from one RocksDB snapshot in row-key order (model/index_query.h,
// IndexQuery, states the plan; the costs are beside each step here).
#include <rocksdb/snapshot.h>

#include <algorithm>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "regionstore/internal/keys.h"
#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/internal/rocks_status.h"

namespace bloomroute::regionstore_internal {
namespace {

// An equality or IN list: the column holds one of `values` (sorted).
struct ValueSet {
  std::string column;
  uint32_t column_id = 0;
  std::vector<std::string> values;
  std::vector<std::string> present;  // values on some row of this server
  uint64_t rows = 0;                 // rows holding them, on this server
  bool Holds(std::string_view v) const {
    return std::binary_search(values.begin(), values.end(), v);
  }
};

struct ColumnRange {
  std::string column;
  uint32_t column_id = 0;
  std::optional<std::string> lower;  // inclusive
  std::optional<std::string> upper;  // exclusive
  bool Holds(std::string_view v) const {
    return (!lower || v >= *lower) && (!upper || v < *upper);
  }
  bool Empty() const { return lower && upper && !(*lower < *upper); }
};

// A range-driven region keeps at most this many bytes of candidate row
// keys (beyond `limit` keys): past it the largest are dropped and the
// answer stops before them, still an exact prefix.
constexpr size_t kMaxCandidateKeyBytes = 16 << 20;

}  // namespace

// One Lookup: the plan, the snapshot, the budget and the answer so far.
// Regions are searched in key order; each drive offers candidate rows in
// ascending key order to Offer(), which checks every predicate and answers
// or counts the row, and says when the answer must stop.
class LookupRun {
 public:
  LookupRun(const RocksRegionStore& store, const IndexQuery& q,
            const rocksdb::ReadOptions& ro)
      : store_(store), q_(q), ro_(ro), budget_(store.BudgetFor(q.max_bytes)) {}

  // The predicates, checked against the table; `*empty` when they cannot
  // match here (an empty range, or a value on no row of this server).
  Status Plan(const TableDescriptor& table, bool* empty);
  Status Run(const std::vector<const RegionDescriptor*>& regions);
  IndexQueryResult TakeResult() { return std::move(result_); }

 private:
  StatusOr<uint32_t> ColumnId(const TableDescriptor& t,
                              const std::string& column) const;
  Status AddSet(const TableDescriptor& t, const std::string& column,
                std::vector<std::string> values);
  Status DriveBySet(const RegionDescriptor& region);
  Status DriveByRange(const RegionDescriptor& region);
  Status ScanRows(const RegionDescriptor& region);
  // Checks the row and answers (or counts) it when it matches. False when
  // the answer stops (truncated, resume_after set) before this row.
  // `stored`: the row's stored bytes when the caller read them.
  StatusOr<bool> Offer(const RegionDescriptor& region, std::string_view key,
                       const rocksdb::Slice* stored = nullptr);
  StatusOr<bool> OtherEqualitiesHold(const RegionDescriptor& region,
                                     std::string_view key) const;
  bool Matches(const Row& row) const;
  // Whether a row's index entries alone decide that it matches, so that a
  // count need not read it: the driving set's entries each hold one of its
  // values, every other set is a single value checked by an index point
  // lookup (OtherEqualitiesHold), and there is no range and no time range to
  // check against the row's cells (the index holds each cell's value
  // whatever its timestamp). Counting a value's rows then costs index reads
  // only: no row is read, decoded or copied.
  bool IndexDecides() const;
  void Stop(std::string covered) {
    result_.truncated = true;
    result_.resume_after = std::move(covered);
  }

  const RocksRegionStore& store_;
  const IndexQuery& q_;
  const rocksdb::ReadOptions& ro_;
  ReadBudget budget_;
  IndexQueryResult result_;
  std::vector<ValueSet> sets_;
  std::vector<ColumnRange> ranges_;
  size_t driver_ = 0;  // into sets_; ranges_[0] drives when sets_ is empty
};

StatusOr<uint32_t> LookupRun::ColumnId(const TableDescriptor& t,
                                       const std::string& column) const {
  const IndexedColumn* c = t.FindIndexed(column);
  if (c != nullptr && c->building) {
    return Status::InvalidArgument(
        "column " + QuoteForMessage(column) + " of table " +
        QuoteForMessage(t.name) +
        " is building its index; lookups on it start when it is complete");
  }
  if (c != nullptr) return c->column_id;
  return Status::InvalidArgument("column " + QuoteForMessage(column) +
                                 " of table " + QuoteForMessage(t.name) +
                                 " is not indexed");
}

// Reads each value's row count: one point read per value (at most
// kMaxIndexPredicateValues in a query), with the count journal's newer
// count (region_filter.h, "Counts"): a record alone lags by every count
// journaled since the last fold, up to an import's last 2^17, and an AND
// then drove from the wrong value (the 8-row AND of `make compare` went
// from 4.3x to 10.6x PostgreSQL's p50).
Status LookupRun::AddSet(const TableDescriptor& t, const std::string& column,
                         std::vector<std::string> values) {
  ValueSet set;
  set.column = column;
  BLOOMROUTE_ASSIGN_OR_RETURN(set.column_id, ColumnId(t, column));
  std::sort(values.begin(), values.end());
  set.values = std::move(values);
  for (const std::string& v : set.values) {
    std::string bytes;
    const std::string key = ValueKey(t.table_id, set.column_id, v);
    rocksdb::Status s = store_.db_->Get(ro_, store_.values_cf_, key, &bytes);
    if (s.IsNotFound()) continue;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
    ValueRecord rec;
    BLOOMROUTE_RETURN_IF_ERROR(DecodeValueRecord(bytes, &rec));
    if (rec.count == 0) continue;
    // Whether a row holds the value is the snapshot's answer (a record);
    // the journal only sizes it.
    set.rows +=
        std::max<uint64_t>(1, store_.filter_->PlanningCount(key, rec.count));
    set.present.push_back(v);
  }
  sets_.push_back(std::move(set));
  return Status::OK();
}

Status LookupRun::Plan(const TableDescriptor& table, bool* empty) {
  for (const EqualityPredicate& p : q_.equals) {
    BLOOMROUTE_RETURN_IF_ERROR(AddSet(table, p.column, {p.value}));
  }
  for (const InPredicate& p : q_.in) {
    BLOOMROUTE_RETURN_IF_ERROR(AddSet(table, p.column, p.values));
  }
  std::vector<RangePredicate> ranges = q_.ranges;
  if (q_.range) ranges.insert(ranges.begin(), *q_.range);
  for (RangePredicate& r : ranges) {
    BLOOMROUTE_ASSIGN_OR_RETURN(uint32_t id, ColumnId(table, r.column));
    ranges_.push_back(ColumnRange{std::move(r.column), id, std::move(r.lower),
                                  std::move(r.upper)});
  }
  *empty = false;
  for (const ColumnRange& r : ranges_) *empty |= r.Empty();
  // Drive from the set with the fewest rows on this server.
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (sets_[i].rows < sets_[driver_].rows) driver_ = i;
  }
  if (!sets_.empty() && sets_[driver_].rows == 0) *empty = true;
  return Status::OK();
}

Status LookupRun::Run(const std::vector<const RegionDescriptor*>& regions) {
  for (const RegionDescriptor* r : regions) {
    if (sets_.empty()) {
      BLOOMROUTE_RETURN_IF_ERROR(DriveByRange(*r));
    } else {
      BLOOMROUTE_RETURN_IF_ERROR(DriveBySet(*r));
    }
    if (result_.truncated) break;
  }
  return Status::OK();
}

namespace {

// One value's index entries in a region, in row order, from after_row.
struct ValueStream {
  std::string upper;
  rocksdb::Slice upper_slice;
  rocksdb::ReadOptions ro;
  std::unique_ptr<rocksdb::Iterator> it;
  std::string row;  // the current entry's row, when it->Valid()
};

// Moves to the next entry after `after` (when set); false at the end.
StatusOr<bool> Advance(ValueStream* s, const std::optional<std::string>& after,
                       bool first) {
  for (first ? void() : s->it->Next(); s->it->Valid(); s->it->Next()) {
    IndexKeyParts entry;
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseIndexKey(s->it->key().ToStringView(), &entry));
    if (after && entry.row <= *after) continue;
    s->row = std::string(entry.row);
    return true;
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s->it->status()));
  return false;
}

}  // namespace

// A k-way merge of the driving set's values' index streams (each in row
// order): O(log k) per entry, one iterator per value present on this server.
// A row holds one value per column, so no row comes from two streams.
Status LookupRun::DriveBySet(const RegionDescriptor& region) {
  const ValueSet& set = sets_[driver_];
  std::vector<std::unique_ptr<ValueStream>> streams;
  auto later = [&](size_t a, size_t b) {
    return streams[a]->row > streams[b]->row;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> next(later);
  for (const std::string& v : set.present) {
    auto s = std::make_unique<ValueStream>();
    const std::string prefix =
        IndexValuePrefix(region.region_id, set.column_id, v);
    s->upper = PrefixSuccessor(prefix);
    s->upper_slice = rocksdb::Slice(s->upper);
    s->ro = ro_;
    s->ro.iterate_upper_bound = &s->upper_slice;
    s->it.reset(store_.db_->NewIterator(s->ro, store_.index_cf_));
    s->it->Seek(q_.after_row ? IndexKey(region.region_id, set.column_id, v,
                                        *q_.after_row)
                             : prefix);
    BLOOMROUTE_ASSIGN_OR_RETURN(bool valid, Advance(s.get(), q_.after_row,
                                                    /*first=*/true));
    streams.push_back(std::move(s));
    if (valid) next.push(streams.size() - 1);
  }
  while (!next.empty()) {
    const size_t i = next.top();
    next.pop();
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, Offer(region, streams[i]->row));
    if (!go_on) return Status::OK();
    BLOOMROUTE_ASSIGN_OR_RETURN(bool valid,
                                Advance(streams[i].get(), std::nullopt, false));
    if (valid) next.push(i);
  }
  return Status::OK();
}

// A range alone. Its index entries are by (value, row), so to answer by
// row the region's entries in the range are read once, keeping the K
// smallest row keys after after_row in a max-heap (K = the rows the limit
// still allows; O(n log K) for n entries, at most K keys and
// kMaxCandidateKeyBytes held). When the range holds more entries than half
// the work left, the region's rows are scanned in key order instead
// (ScanRows), checking the columns on each row: a wide range costs about
// what a scan does. Both give an exact prefix by row key.
Status LookupRun::DriveByRange(const RegionDescriptor& region) {
  const ColumnRange& range = ranges_.front();
  const std::string col = IndexColumnPrefix(region.region_id, range.column_id);
  std::string lower = col, upper = col;
  if (range.lower) AppendEscaped(&lower, *range.lower);
  if (range.upper) {
    AppendEscaped(&upper, *range.upper);
  } else {
    upper = PrefixSuccessor(col);
  }
  rocksdb::ReadOptions ro = ro_;
  rocksdb::Slice upper_slice(upper);
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      store_.db_->NewIterator(ro, store_.index_cf_));
  const uint64_t work_left =
      budget_.max_examined_rows -
      std::min(budget_.examined_rows, budget_.max_examined_rows);
  const uint64_t probe_cap = std::max<uint64_t>(1, work_left / 2);
  const size_t keep = q_.count_only
                          ? kMaxRowsPerCall
                          : std::max<size_t>(1, q_.limit - result_.rows.size());
  std::priority_queue<std::string> candidates;  // the largest on top
  size_t key_bytes = 0;
  uint64_t probed = 0;
  bool dropped = false;
  for (it->Seek(lower); it->Valid(); it->Next()) {
    IndexKeyParts entry;
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexKey(it->key().ToStringView(), &entry));
    if (q_.after_row && entry.row <= *q_.after_row) continue;
    if (++probed > probe_cap) break;
    if (candidates.size() == keep || key_bytes > kMaxCandidateKeyBytes) {
      dropped = true;
      if (!(entry.row < candidates.top())) continue;
      key_bytes -= candidates.top().size();
      candidates.pop();
    }
    key_bytes += entry.row.size();
    candidates.emplace(entry.row);
  }
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(it->status()));
  budget_.examined_rows += std::min(probed, probe_cap);
  if (probed > probe_cap) return ScanRows(region);
  std::vector<std::string> rows;
  for (; !candidates.empty(); candidates.pop())
    rows.push_back(candidates.top());
  std::reverse(rows.begin(), rows.end());
  for (const std::string& key : rows) {
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, Offer(region, key));
    if (!go_on) return Status::OK();
  }
  // Entries after the last candidate were dropped: the answer covers the
  // rows up to it, and the rest sort after it.
  if (dropped) Stop(rows.back());
  return Status::OK();
}

// The region's rows in key order from after_row: one row read per row.
Status LookupRun::ScanRows(const RegionDescriptor& region) {
  const std::string prefix = RegionPrefix(region.region_id);
  const std::string upper = region.end_key.empty()
                                ? PrefixSuccessor(prefix)
                                : RowKey(region.region_id, region.end_key);
  rocksdb::ReadOptions ro = ro_;
  rocksdb::Slice upper_slice(upper);
  ro.iterate_upper_bound = &upper_slice;
  std::unique_ptr<rocksdb::Iterator> it(
      store_.db_->NewIterator(ro, store_.rows_cf_));
  std::string start = region.start_key;
  if (q_.after_row && *q_.after_row > start) start = *q_.after_row;
  for (it->Seek(RowKey(region.region_id, start)); it->Valid(); it->Next()) {
    const std::string_view key = it->key().ToStringView().substr(prefix.size());
    if (q_.after_row && key <= *q_.after_row) continue;
    const rocksdb::Slice value = it->value();
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, Offer(region, key, &value));
    if (!go_on) return Status::OK();
  }
  return FromRocks(it->status());
}

// The other single-value sets: an exact index point lookup each, cheaper
// than reading the row for the rows they reject.
StatusOr<bool> LookupRun::OtherEqualitiesHold(const RegionDescriptor& region,
                                              std::string_view key) const {
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (i == driver_ || sets_[i].values.size() != 1) continue;
    std::string ignored;
    rocksdb::Status s = store_.db_->Get(
        ro_, store_.index_cf_,
        IndexKey(region.region_id, sets_[i].column_id, sets_[i].values[0], key),
        &ignored);
    if (s.IsNotFound()) return false;
    BLOOMROUTE_RETURN_IF_ERROR(FromRocks(s));
  }
  return true;
}

bool LookupRun::IndexDecides() const {
  if (sets_.empty() || !ranges_.empty() || !q_.time_range.IsAllTime()) {
    return false;
  }
  for (size_t i = 0; i < sets_.size(); ++i) {
    if (i != driver_ && sets_[i].values.size() != 1) return false;
  }
  return true;
}

bool LookupRun::Matches(const Row& row) const {
  for (const ValueSet& set : sets_) {
    const Cell* c = row.Find(set.column);
    if (c == nullptr || !set.Holds(c->value)) return false;
  }
  for (const ColumnRange& range : ranges_) {
    const Cell* c = row.Find(range.column);
    if (c == nullptr || !range.Holds(c->value)) return false;
  }
  return true;
}

StatusOr<bool> LookupRun::Offer(const RegionDescriptor& region,
                                std::string_view key,
                                const rocksdb::Slice* stored) {
  // The work bound counts rows the predicates reject too, so a conjunction
  // that matches little stops and says how far it got.
  if (budget_.WorkDone() && !budget_.last_examined.empty()) {
    Stop(std::move(budget_.last_examined));
    return false;
  }
  ++budget_.examined_rows;
  budget_.last_examined = std::string(key);
  std::optional<Row> row;
  if (stored != nullptr) {
    budget_.read_bytes += stored->size();
    row.emplace(Row{std::string(key), {}});
    BLOOMROUTE_RETURN_IF_ERROR(
        DecodeRowCells(stored->ToStringView(), &row->cells));
  } else {
    BLOOMROUTE_ASSIGN_OR_RETURN(bool maybe, OtherEqualitiesHold(region, key));
    if (!maybe) return true;
    if (q_.count_only && IndexDecides()) {
      ++result_.count;
      return true;
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        row, store_.ReadRow(ro_, region, key, {}, TimeRange(), &budget_));
    if (!row) {
      return Status::Corruption("index entry for missing row " +
                                QuoteForMessage(key));
    }
  }
  // The index holds each cell's value whatever its timestamp: a row matches
  // only through cells in the time range.
  row->cells = CellsInRange(std::move(row->cells), q_.time_range);
  if (!Matches(*row)) return true;
  if (q_.count_only) {
    ++result_.count;
    return true;
  }
  if (result_.rows.size() >= q_.limit || budget_.ReplyFull()) {
    Stop(result_.rows.back().key);
    return false;
  }
  // A matching row is in the answer even with none of the projected cells:
  // the lookup's question is which rows match.
  Row projected = Project(row->key, std::move(row->cells), q_.columns);
  budget_.reply_bytes += ReplyBytes(projected);
  result_.rows.push_back(std::move(projected));
  return true;
}

StatusOr<std::vector<const RegionDescriptor*>>
RocksRegionStore::LookupRegionsLocked(const IndexQuery& q,
                                      const TableDescriptor** table) const {
  std::vector<const RegionDescriptor*> regions;
  if (q.region_ids.empty()) {
    for (const auto& [id, r] : regions_) {
      // Staged regions answer only when named: a copy being filled would
      // double the answer of the region it copies.
      if (r.open && !r.staging && r.descriptor.table.table_id == q.table_id) {
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
  // Key order: the answer is then in row-key order across regions (they do
  // not overlap), so a truncated answer is a prefix of the full one and the
  // router can merge servers' answers exactly.
  std::sort(regions.begin(), regions.end(),
            [](const RegionDescriptor* a, const RegionDescriptor* b) {
              return a->start_key < b->start_key;
            });
  *table = &regions.front()->table;
  return regions;
}

StatusOr<IndexQueryResult> RocksRegionStore::Lookup(const IndexQuery& q) const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateReadLimit(q.limit));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(q.columns));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(q.time_range));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateIndexPredicates(q));
  if (q.after_row && q.after_row->size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("the row to resume after is longer than " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  std::shared_lock lock(regions_mu_);
  const TableDescriptor* table = nullptr;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<const RegionDescriptor*> regions,
                              LookupRegionsLocked(q, &table));
  rocksdb::ManagedSnapshot snapshot(db_.get());
  rocksdb::ReadOptions ro;
  ro.snapshot = snapshot.snapshot();
  LookupRun run(*this, q, ro);
  bool empty = false;
  BLOOMROUTE_RETURN_IF_ERROR(run.Plan(*table, &empty));
  if (!empty) BLOOMROUTE_RETURN_IF_ERROR(run.Run(regions));
  return run.TakeResult();
}

}  // namespace bloomroute::regionstore_internal
