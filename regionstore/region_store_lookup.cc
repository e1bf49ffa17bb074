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

// Candidate rows are read kRowsPerRead at a time with one MultiGet under the
// lookup's snapshot, instead of one Get each (issue 33: RocksRegionStore::
// ReadRow was ~22 % of a loaded cluster's CPU, DBImpl::Get ~17 %): a Get
// pays for its own superversion reference and memtable and table lookups,
// a MultiGet of sorted keys shares them over the batch (32 is RocksDB's
// own, MultiGetContext::MAX_BATCH_SIZE). Measured with
// build/benchmarks/regionstore/count_benchmark, BM_Count/rows (1,000 rows
// read a count), one Get a row against MultiGet, runs alternated: 7.3 and
// 7.5 ms of CPU a count against 6.0 and 5.9 ms (-18 %). In
// build/benchmarks/router/lookup_benchmark (8 servers, rows in memtables)
// BM_LookupRows/1000/0 went from 20.4-21.8 to 19.3-20.4 ms of process CPU
// a lookup; 4 and 64 rows within the noise.
constexpr size_t kRowsPerRead = 32;
// Candidates gathered for one read, those another equality rejects
// included: bounds the keys held when few pass.
constexpr size_t kMaxBatchCandidates = 256;

struct ValueStream;  // one value's index entries in a region

// A region's candidate rows in key order, gathered for one MultiGet
// (LookupRun::Gather) and then offered one by one in key order
// (LookupRun::OfferBatch), each exactly as if it were read alone: the
// budget is charged and an error returned only when its turn comes, so a
// stop within the batch leaves the rest unread as far as the answer goes.
struct CandidateBatch {
  struct Candidate {
    std::string key;
    Status check;        // OtherEqualitiesHold's error
    bool holds = false;  // every other equality holds
    size_t read = 0;     // into row_keys, when it holds
  };
  std::vector<Candidate> candidates;
  std::vector<std::string> row_keys;  // RowKey()s, in key order
  size_t max_candidates = 0;
  size_t max_reads = 0;
  bool Full() const {
    return candidates.size() >= max_candidates ||
           row_keys.size() >= max_reads ||
           (!candidates.empty() && !candidates.back().check.ok());
  }
};

}  // namespace

// One Lookup: the plan, the snapshot, the budget and the answer so far.
// Regions are searched in key order; each drive offers candidate rows in
// ascending key order (the index-driven ones gathered in batches, each
// batch's rows read by one MultiGet), and Answer() checks every predicate,
// answers or counts the row, and says when the answer must stop.
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
  Status OpenStreams(const RegionDescriptor& region,
                     std::vector<std::unique_ptr<ValueStream>>* streams);
  Status DriveBySet(const RegionDescriptor& region);
  Status DriveByRange(const RegionDescriptor& region);
  Status ScanRows(const RegionDescriptor& region);
  // Empties batch_ and sizes it by what the limit and the work bound allow.
  void StartBatch();
  // Adds the next candidate (in key order) to batch_, checking the other
  // equalities on the index; or, when no row is read (counts_by_index_),
  // counts it at once. False when the answer stops before it.
  StatusOr<bool> Gather(const RegionDescriptor& region, std::string key);
  // Reads batch_'s rows with one MultiGet and offers its candidates in key
  // order. False when the answer stops (truncated, resume_after set).
  StatusOr<bool> OfferBatch();
  // Gathers and offers `keys` (in key order), batch after batch.
  StatusOr<bool> OfferAll(const RegionDescriptor& region,
                          std::vector<std::string> keys);
  // Counts the row against the work bound; false when the bound was
  // already reached (the answer then stops before this row).
  bool Examine(std::string_view key);
  // A candidate row read from the index's entry: Corruption when missing.
  StatusOr<bool> OfferRead(std::string_view key, const rocksdb::Status& read,
                           const rocksdb::PinnableSlice& stored);
  // A row a scan read, with its stored bytes.
  StatusOr<bool> OfferStored(std::string_view key,
                             const rocksdb::Slice& stored);
  // Answers (or counts) the examined row when it matches. False when the
  // answer stops (truncated, resume_after set) before this row.
  StatusOr<bool> Answer(Row row);
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
  bool counts_by_index_ = false;  // count_only && IndexDecides()
  CandidateBatch batch_;
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
  counts_by_index_ = q_.count_only && IndexDecides();
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

// One stream per value of the driving set present on this server, each at
// its first entry after after_row; streams with no such entry are left out.
Status LookupRun::OpenStreams(
    const RegionDescriptor& region,
    std::vector<std::unique_ptr<ValueStream>>* streams) {
  const ValueSet& set = sets_[driver_];
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
    if (valid) streams->push_back(std::move(s));
  }
  return Status::OK();
}

// A k-way merge of the driving set's values' index streams (each in row
// order): O(log k) per entry, one iterator per value present on this server.
// A row holds one value per column, so no row comes from two streams. The
// merge gathers a batch of candidates, then offers them (OfferBatch); an
// index error met while gathering is returned after the candidates before
// it, as when each was offered before the next entry was read.
Status LookupRun::DriveBySet(const RegionDescriptor& region) {
  std::vector<std::unique_ptr<ValueStream>> streams;
  BLOOMROUTE_RETURN_IF_ERROR(OpenStreams(region, &streams));
  auto later = [&](size_t a, size_t b) {
    return streams[a]->row > streams[b]->row;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> next(later);
  for (size_t i = 0; i < streams.size(); ++i) next.push(i);
  while (!next.empty()) {
    Status index_error;
    for (StartBatch(); !next.empty() && !batch_.Full();) {
      const size_t i = next.top();
      next.pop();
      // Advance() sets row again before the stream is next used.
      BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on,
                                  Gather(region, std::move(streams[i]->row)));
      if (!go_on) return Status::OK();
      StatusOr<bool> valid = Advance(streams[i].get(), std::nullopt, false);
      if (!valid.ok()) {
        index_error = valid.status();
        break;
      }
      if (*valid) next.push(i);
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, OfferBatch());
    if (!go_on) return Status::OK();
    BLOOMROUTE_RETURN_IF_ERROR(index_error);
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
  std::string last = dropped ? rows.back() : std::string();
  BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, OfferAll(region, std::move(rows)));
  // Entries after the last candidate were dropped: the answer covers the
  // rows up to it, and the rest sort after it.
  if (go_on && dropped) Stop(std::move(last));
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
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, OfferStored(key, value));
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

// The work bound counts rows the predicates reject too, so a conjunction
// that matches little stops and says how far it got.
bool LookupRun::Examine(std::string_view key) {
  if (budget_.WorkDone() && !budget_.last_examined.empty()) {
    Stop(std::move(budget_.last_examined));
    return false;
  }
  ++budget_.examined_rows;
  budget_.last_examined = std::string(key);
  return true;
}

void LookupRun::StartBatch() {
  batch_.candidates.clear();
  batch_.row_keys.clear();
  // Examine() takes at least one candidate, then at most the work left.
  const uint64_t work_left =
      budget_.max_examined_rows -
      std::min(budget_.examined_rows, budget_.max_examined_rows);
  batch_.max_candidates = static_cast<size_t>(
      std::clamp<uint64_t>(work_left, 1, kMaxBatchCandidates));
  // An answer with rows reads at most the rows the limit still allows and
  // the one after them, which stops it if it matches.
  batch_.max_reads = kRowsPerRead;
  if (!q_.count_only) {
    const size_t rows_left =
        q_.limit - std::min<size_t>(q_.limit, result_.rows.size());
    batch_.max_reads = std::min(batch_.max_reads, rows_left + 1);
  }
}

StatusOr<bool> LookupRun::Gather(const RegionDescriptor& region,
                                 std::string key) {
  if (counts_by_index_) {  // nothing to read: the entries are counted
    if (!Examine(key)) return false;
    BLOOMROUTE_ASSIGN_OR_RETURN(bool holds, OtherEqualitiesHold(region, key));
    result_.count += holds ? 1 : 0;
    return true;
  }
  CandidateBatch::Candidate c;
  StatusOr<bool> holds = OtherEqualitiesHold(region, key);
  if (holds.ok()) {
    c.holds = *holds;
  } else {
    c.check = holds.status();
  }
  if (c.holds) {
    c.read = batch_.row_keys.size();
    batch_.row_keys.push_back(RowKey(region.region_id, key));
  }
  c.key = std::move(key);
  batch_.candidates.push_back(std::move(c));
  return true;
}

// The rows are read before any is offered; a stop within the batch wastes
// the reads after it (at most kRowsPerRead, and no more than the limit's
// rows and one), never changes the answer.
StatusOr<bool> LookupRun::OfferBatch() {
  const size_t n = batch_.row_keys.size();
  std::vector<rocksdb::Slice> keys(batch_.row_keys.begin(),
                                   batch_.row_keys.end());
  std::vector<rocksdb::PinnableSlice> values(n);
  std::vector<rocksdb::Status> statuses(n);
  if (n > 0) {
    // Row keys of one region in row order: sorted as RowKey() encodes.
    store_.db_->MultiGet(ro_, store_.rows_cf_, n, keys.data(), values.data(),
                         statuses.data(), /*sorted_input=*/true);
  }
  for (const CandidateBatch::Candidate& c : batch_.candidates) {
    if (!Examine(c.key)) return false;
    if (!c.check.ok()) return c.check;
    if (!c.holds) continue;
    BLOOMROUTE_ASSIGN_OR_RETURN(
        bool go_on, OfferRead(c.key, statuses[c.read], values[c.read]));
    if (!go_on) return false;
  }
  return true;
}

StatusOr<bool> LookupRun::OfferAll(const RegionDescriptor& region,
                                   std::vector<std::string> keys) {
  for (size_t i = 0; i < keys.size();) {
    StartBatch();
    for (; i < keys.size() && !batch_.Full(); ++i) {
      BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on,
                                  Gather(region, std::move(keys[i])));
      if (!go_on) return false;
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(bool go_on, OfferBatch());
    if (!go_on) return false;
  }
  return true;
}

// What RocksRegionStore::ReadRow did for each candidate before the reads
// were batched: the stored bytes count against the work bound, and a row
// with no cell is no row.
StatusOr<bool> LookupRun::OfferRead(std::string_view key,
                                    const rocksdb::Status& read,
                                    const rocksdb::PinnableSlice& stored) {
  auto missing = [&] {
    return Status::Corruption("index entry for missing row " +
                              QuoteForMessage(key));
  };
  if (read.IsNotFound()) return missing();
  BLOOMROUTE_RETURN_IF_ERROR(FromRocks(read));
  budget_.read_bytes += stored.size();
  Row row{std::string(key), {}};
  BLOOMROUTE_RETURN_IF_ERROR(DecodeRowCells(stored.ToStringView(), &row.cells));
  if (row.cells.empty()) return missing();
  return Answer(std::move(row));
}

StatusOr<bool> LookupRun::OfferStored(std::string_view key,
                                      const rocksdb::Slice& stored) {
  if (!Examine(key)) return false;
  budget_.read_bytes += stored.size();
  Row row{std::string(key), {}};
  BLOOMROUTE_RETURN_IF_ERROR(DecodeRowCells(stored.ToStringView(), &row.cells));
  return Answer(std::move(row));
}

StatusOr<bool> LookupRun::Answer(Row row) {
  // The index holds each cell's value whatever its timestamp: a row matches
  // only through cells in the time range.
  row.cells = CellsInRange(std::move(row.cells), q_.time_range);
  if (!Matches(row)) return true;
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
  Row projected = Project(row.key, std::move(row.cells), q_.columns);
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
