// Scans (scans.h): HBase filter strings parsed once, planned for the
// table's index (PlanFilter), and answered either by region server scans
// carrying the filter (ScanRegions) or from index lookups filtered on the
// router (ScanIndex); and scanners, a scan's position kept between calls,
// built on ScanPaged.
#include "router/internal/scans.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/table_attributes.h"

namespace bloomroute::router_internal {

using router::LookupResult;
using router::LookupSpec;
using router::ScannerClient;
using router::ScanSpec;

namespace {

// Predicates of one lookup, at most (LookupPlanner refuses more). A
// longer conjunction is looked up by its first ones: a superset of its
// candidates, which the filter then narrows exactly.
constexpr size_t kMaxLookupPredicates = 64;

// Lookup rounds of one ScanIndex call before it answers with what it has
// (possibly no row) and a resume_row, so that a filter dropping most
// candidates cannot hold the call for the whole table.
constexpr int kMaxIndexRounds = 8;

// Candidates of one lookup round, at most, once the filter has dropped
// some: the page starts at the rows the call needs and grows 4x per round
// that left it short, so a filter that keeps every candidate fetches
// nothing extra and one that keeps none reaches pages of 1,024 after six
// rounds: 16,000 lookup calls for 4,000 rejected candidates on 4 servers
// became 36 (RouterScanFilterTest.ACandidateFetchDoesNotDependOnTheBatchSize).
// The byte budget still bounds each page's rows.
constexpr uint32_t kMaxCandidatePage = 1024;
constexpr uint32_t kCandidatePageGrowth = 4;

// The key the lookups start after so that they return every row from
// `start` on: keys after start[:-1] + (last byte - 1) include every key >=
// start, and the few in between are dropped by the caller (exact when the
// last byte is 0). nullopt: from the first row.
std::optional<std::string> AfterRowFor(const std::string& start) {
  if (start.empty()) return std::nullopt;
  std::string after = start.substr(0, start.size() - 1);
  if (start.back() != '\0')
    after.push_back(static_cast<char>(start.back() - 1));
  if (after.empty()) return std::nullopt;
  return after;
}

// The smallest key after `key`: where a scan continues past it.
std::string Successor(const std::string& key) { return key + '\0'; }

// The scan of `region`'s part of `spec` for the rows and bytes left.
ScanRequest RegionScanRequest(const CatalogRegion& region, const ScanSpec& spec,
                              uint64_t rows_left, uint64_t bytes_left,
                              bool reversed) {
  ScanRequest request{
      region.region_id, std::max(spec.start_row, region.start_key),
      spec.stop_row,    static_cast<uint32_t>(rows_left),
      spec.columns,     bytes_left};
  request.filter = spec.filter;  // the region servers drop failing rows
  request.time_range = spec.time_range;
  request.reversed = reversed;
  return request;
}

// Adds a region's rows to `out` (their bytes to `*used`); true when the
// region stopped early and `out` now ends at its resume row.
bool TakeRegionRows(ScanResult part, ScanResult* out, uint64_t* used) {
  for (Row& row : part.rows) {
    *used += ReplyBytes(row);
    out->rows.push_back(std::move(row));
  }
  if (!part.resume_row.has_value()) return false;
  out->resume_row = std::move(part.resume_row);
  return true;
}

// The regions' unfiltered rows through `filter` in scan order; a row that
// ends the scan (a WHILE failed) drops the rest and the resume row.
void FilterAtRouter(const Filter& filter, bool reversed, ScanResult* result) {
  FilterScan scan(filter, reversed);
  std::vector<Row> kept;
  for (Row& row : result->rows) {
    FilterScan::Result r = scan.Next(row);
    if (r.row) kept.push_back(std::move(*r.row));
    if (r.ends_scan) {
      result->resume_row.reset();
      break;
    }
  }
  result->rows = std::move(kept);
}

}  // namespace

// A region server's scan reply is untrusted: its rows must be in strictly
// ascending key order within what was asked ([start, stop) of the request
// and the region), at most the limit, and a resume row must lie after them
// and after the start -- or a caller that continues from it would go round
// forever.
Status CheckScanReply(const ScanRequest& request, const std::string& end_key,
                      const ScanResult& reply) {
  std::string stop = request.stop_row;
  if (stop.empty() || (!end_key.empty() && end_key < stop)) stop = end_key;
  auto inside = [&](const std::string& key) {
    return key >= request.start_row && (stop.empty() || key < stop);
  };
  // Ascending, or descending for a reversed scan.
  auto in_order = [&](const std::string& before, const std::string& key) {
    return request.reversed ? key < before : before < key;
  };
  if (reply.rows.size() > request.limit) {
    return Status::Corruption("scan answer holds more rows than the limit");
  }
  for (size_t i = 0; i < reply.rows.size(); ++i) {
    const std::string& key = reply.rows[i].key;
    if (!inside(key) || (i > 0 && !in_order(reply.rows[i - 1].key, key))) {
      return Status::Corruption(
          "scan answer out of order or outside the range at " +
          QuoteForMessage(key));
    }
  }
  if (!reply.resume_row) return Status::OK();
  const std::string& resume = *reply.resume_row;
  if (request.reversed) {
    // The next stop_row: above the start (rows may remain below it), below
    // the stop and no greater than the last row returned.
    const bool moves_on =
        request.start_row < resume && (stop.empty() || resume < stop) &&
        (reply.rows.empty() || resume <= reply.rows.back().key);
    if (moves_on && resume.size() <= kMaxRowKeyBytes) return Status::OK();
    return Status::Corruption("reversed scan answer resumes below " +
                              QuoteForMessage(resume) +
                              ", which is not within the range below the "
                              "rows returned: it makes no progress");
  }
  const std::string& after =
      reply.rows.empty() ? request.start_row : reply.rows.back().key;
  if (!(after < resume) || !inside(resume) || resume.size() > kMaxRowKeyBytes) {
    return Status::Corruption("scan answer resumes at " +
                              QuoteForMessage(*reply.resume_row) +
                              ", which is not after " + QuoteForMessage(after) +
                              " within the range: it makes no progress");
  }
  return Status::OK();
}

StatusOr<Filter> ParseRouterFilter(std::string_view text,
                                   uint64_t max_filter_bytes) {
  if (text.size() > max_filter_bytes) {
    return Status::InvalidArgument(
        "filter text is " + std::to_string(text.size()) +
        " bytes, over the router's limit of " +
        std::to_string(max_filter_bytes) + " (--max-filter-bytes sets it)");
  }
  FilterLimits limits;
  limits.max_text_bytes = max_filter_bytes;
  StatusOr<Filter> parsed = ParseFilter(text, limits);
  if (!parsed.ok()) return parsed.status().WithContext("filter");
  return parsed;
}

Scans::Scans(const RouterContext& ctx, Hooks hooks)
    : ctx_(ctx),
      hooks_(std::move(hooks)),
      scanners_(ScannerRegistry::Limits{ctx.options->max_scanners,
                                        ctx.options->max_scanners_per_client,
                                        ctx.options->max_scanners_per_principal,
                                        ctx.options->scanner_idle_timeout_ms}) {
}

StatusOr<ScanResult> Scans::Scan(std::string_view table, const ScanSpec& spec,
                                 uint32_t limit) {
  if (limit < 1 || limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("the scan limit must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScanFilter> filter,
                              CheckScan(table, spec));
  ScanWork work;
  work.deadline = ctx_.WorkDeadline();
  return ScanPaged(table, spec, filter.get(), limit, /*returned=*/0, &work);
}

StatusOr<ScanResult> Scans::ScanAnyState(std::string_view table,
                                         const ScanSpec& spec, uint32_t limit) {
  if (limit < 1 || limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("the scan limit must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  if (!spec.filter.empty() || spec.reversed) {
    return Status::InvalidArgument(
        "a scan of any state takes no filter and runs forward");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(spec.columns));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(spec.time_range));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->FindAnyState(table));
  ScanWork work;
  work.deadline = ctx_.WorkDeadline();
  return ScanRegions(*state, spec, limit, work);
}

StatusOr<int64_t> Scans::OpenScanner(std::string_view table,
                                     const ScanSpec& spec, ScannerClient client,
                                     std::string_view principal) {
  // Parsed once: a bad filter fails here, not at the first batch.
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScanFilter> filter,
                              CheckScan(table, spec));
  auto scanner = std::make_shared<Scanner>();
  scanner->filter = std::move(filter);
  scanner->table = std::string(table);
  scanner->client = client;
  scanner->principal = std::string(principal);
  scanner->spec = spec;
  return scanners_.Add(std::move(scanner));
}

std::string Scans::ScannerTable(int64_t id) const {
  return scanners_.Table(id);
}

StatusOr<std::vector<Row>> Scans::ScannerNext(int64_t id, uint32_t max_rows,
                                              uint64_t call_seq,
                                              ScannerClient client,
                                              std::string_view principal) {
  if (max_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("the number of rows must be in [0, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  std::shared_ptr<Scanner> scanner = scanners_.Find(id, client, principal);
  if (scanner == nullptr) {
    return Status::NotFound("scanner " + std::to_string(id) +
                            " is not open (closed, expired or never opened)");
  }
  std::lock_guard<std::mutex> lock(scanner->mu);
  BLOOMROUTE_RETURN_IF_ERROR(scanner->BeginCall(call_seq));
  std::vector<Row> rows;
  if (max_rows == 0) return rows;  // HBase's ResultScanner.next(0)
  ScanWork work;
  work.candidate_page = scanner->candidate_page;
  work.deadline = ctx_.WorkDeadline();
  while (rows.empty() && !scanner->done) {
    StatusOr<ScanResult> paged =
        ScanPaged(scanner->table, scanner->spec, scanner->filter.get(),
                  max_rows, scanner->returned, &work);
    scanner->candidate_page = work.candidate_page;
    BLOOMROUTE_ASSIGN_OR_RETURN(ScanResult part, std::move(paged));
    rows = std::move(part.rows);
    scanner->returned += rows.size();
    if (part.resume_row.has_value()) {
      // Reversed, the rows still to come are those below resume_row.
      std::string& bound = scanner->spec.reversed ? scanner->spec.stop_row
                                                  : scanner->spec.start_row;
      bound = std::move(*part.resume_row);
    } else {
      scanner->done = true;
    }
  }
  return rows;
}

Status Scans::CloseScanner(int64_t id, ScannerClient client,
                           std::string_view principal) {
  return scanners_.Close(id, client, principal);
}

void Scans::CloseScanners(ScannerClient client) { scanners_.CloseAll(client); }

void Scans::ExpireScanners() { scanners_.Expire(); }

StatusOr<std::shared_ptr<const ScanFilter>> Scans::CheckScan(
    std::string_view table_name, const ScanSpec& spec) const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(spec.columns));
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(spec.time_range));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->Find(table_name));
  const TableDescriptor& table = state->record.descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(CheckProjectionFamilies(table, spec.columns));
  if (spec.filter.empty()) return std::shared_ptr<const ScanFilter>();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      Filter filter,
      ParseRouterFilter(spec.filter, ctx_.options->max_filter_bytes));
  auto out = std::make_shared<ScanFilter>();
  // A column still building has no entries for some rows yet: the plan
  // does not use it (the scan reads the regions instead).
  out->plan = PlanFilter(filter, [&](std::string_view column) {
    const IndexedColumn* c = table.FindIndexed(column);
    return c != nullptr && !c->building;
  });
  out->at_router = FilterEndsScans(filter);
  out->filter = std::move(filter);
  return std::shared_ptr<const ScanFilter>(std::move(out));
}

StatusOr<ScanResult> Scans::ScanPaged(std::string_view table,
                                      const ScanSpec& spec,
                                      const ScanFilter* filter, uint32_t limit,
                                      uint64_t returned, ScanWork* work) {
  std::optional<uint64_t> row_limit;
  if (filter != nullptr) row_limit = filter->plan.row_limit;
  if (row_limit) {
    if (returned >= *row_limit) return ScanResult();
    limit =
        static_cast<uint32_t>(std::min<uint64_t>(limit, *row_limit - returned));
  }
  StatusOr<ScanResult> result = Status::OK();
  // A reversed scan reads the regions even for a filter with an indexed
  // pin: the lookups page candidates in ascending key order only, and
  // reversing them would mean reading every candidate of the range before
  // the first batch (ScanSpec::reversed).
  if (filter != nullptr && filter->plan.uses_index() && !spec.reversed) {
    result = ScanIndex(table, spec, *filter, limit, work);
  } else {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                                ctx_.tables->Find(table));
    const bool here = filter != nullptr && filter->at_router;
    ScanSpec unfiltered;
    if (here) {
      unfiltered = spec;
      unfiltered.filter.clear();
    }
    const ScanSpec& sent = here ? unfiltered : spec;
    result = spec.reversed ? ScanRegionsReversed(*state, sent, limit, *work)
                           : ScanRegions(*state, sent, limit, *work);
    if (here && result.ok()) {
      FilterAtRouter(filter->filter, spec.reversed, &*result);
    }
  }
  if (result.ok() && row_limit &&
      returned + result->rows.size() >= *row_limit) {
    result->resume_row.reset();  // the page is full: the scan is done
  }
  return result;
}

StatusOr<ScanResult> Scans::ScanRegions(const TableState& state,
                                        const ScanSpec& spec, uint32_t limit,
                                        const ScanWork& work) {
  ScanResult out;
  if (!spec.stop_row.empty() && spec.start_row >= spec.stop_row) return out;
  // The limit counts rows, the budget bytes across regions: each region
  // server is asked for what is left of both.
  const uint64_t budget = ctx_.options->max_reply_bytes;
  uint64_t used = 0;
  const std::vector<CatalogRegion>& regions = state.record.regions;
  for (size_t r = state.RegionFor(spec.start_row); r < regions.size(); ++r) {
    const CatalogRegion& region = regions[r];
    if (!spec.stop_row.empty() && !region.start_key.empty() &&
        region.start_key >= spec.stop_row) {
      break;
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScanResult part,
        ScanOneRegion(region,
                      RegionScanRequest(region, spec, limit - out.rows.size(),
                                        budget - used, false)));
    if (TakeRegionRows(std::move(part), &out, &used)) return out;
    if (region.end_key.empty()) break;
    // Past the call's deadline, rows in hand go back (ScanWork).
    if (out.rows.size() >= limit || used >= budget ||
        (!out.rows.empty() &&
         std::chrono::steady_clock::now() > work.deadline)) {
      if (spec.stop_row.empty() || region.end_key < spec.stop_row) {
        out.resume_row = region.end_key;  // later regions may hold rows
      }
      return out;
    }
  }
  return out;
}

StatusOr<ScanResult> Scans::ScanOneRegion(const CatalogRegion& region,
                                          const ScanRequest& request) {
  const ServerEntry& server = ctx_.servers->Get(region.server);
  StatusOr<ScanResult> part = ctx_.write_path->RetryIfRegionsClosed(
      server, [&] { return server.client->Scan(request); });
  if (!part.ok()) return WritePath::Named(server, part.status());
  Status checked = CheckScanReply(request, region.end_key, *part);
  if (!checked.ok()) return WritePath::Named(server, checked);
  return part;
}

StatusOr<ScanResult> Scans::ScanRegionsReversed(const TableState& state,
                                                const ScanSpec& spec,
                                                uint32_t limit,
                                                const ScanWork& work) {
  ScanResult out;
  if (!spec.stop_row.empty() && spec.start_row >= spec.stop_row) return out;
  const uint64_t budget = ctx_.options->max_reply_bytes;
  uint64_t used = 0;
  const std::vector<CatalogRegion>& regions = state.record.regions;
  // From the region holding the last key below stop_row: the last region,
  // or the stop's own unless the stop is its first key.
  size_t r = regions.size() - 1;
  if (!spec.stop_row.empty()) {
    r = state.RegionFor(spec.stop_row);
    if (r > 0 && regions[r].start_key >= spec.stop_row) --r;
  }
  for (;; --r) {
    const CatalogRegion& region = regions[r];
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ScanResult part,
        ScanOneRegion(region,
                      RegionScanRequest(region, spec, limit - out.rows.size(),
                                        budget - used, true)));
    if (TakeRegionRows(std::move(part), &out, &used)) return out;
    // Region r's start is above the range's start: region r - 1 is next.
    if (region.start_key.empty() || region.start_key <= spec.start_row) break;
    if (out.rows.size() >= limit || used >= budget ||
        (!out.rows.empty() &&
         std::chrono::steady_clock::now() > work.deadline)) {
      out.resume_row = region.start_key;  // earlier regions may hold rows
      return out;
    }
  }
  return out;
}

StatusOr<std::vector<Row>> Scans::IndexCandidates(
    std::string_view table, const ScanSpec& spec, const ScanFilter& filter,
    const std::optional<std::string>& after, uint32_t limit, uint64_t budget,
    std::optional<std::string>* covered) {
  const auto& lookups = filter.plan.lookups;
  // Each lookup routes itself through the global index (only servers it
  // cannot rule out are asked) and answers a share of the byte budget.
  const uint64_t share = std::max<uint64_t>(1, budget / lookups.size());
  std::vector<Row> rows;
  covered->reset();
  for (size_t i = 0; i < lookups.size(); ++i) {
    const std::vector<EqualityPredicate>& conjunction = lookups[i];
    const std::vector<IndexPredicate>& prefixes = filter.plan.prefixes[i];
    LookupSpec lookup;
    // Fewer predicates give more candidates, never fewer: any subset will do.
    const size_t n_equals = std::min(conjunction.size(), kMaxLookupPredicates);
    lookup.equals.assign(conjunction.begin(), conjunction.begin() + n_equals);
    lookup.where.assign(
        prefixes.begin(),
        prefixes.begin() +
            std::min(prefixes.size(), kMaxLookupPredicates - n_equals));
    lookup.limit = limit;
    lookup.columns = spec.columns;
    lookup.time_range = spec.time_range;
    lookup.after_row = after;
    lookup.max_bytes = share;
    BLOOMROUTE_ASSIGN_OR_RETURN(LookupResult part,
                                hooks_.lookup(table, lookup));
    if (part.truncated && (!*covered || *part.resume_after < **covered)) {
      *covered = part.resume_after;
    }
    for (Row& row : part.rows) rows.push_back(std::move(row));
  }
  // Rows past what every lookup covered may lack rows of a lookup that
  // stopped earlier: they come again in the next round.
  if (*covered) {
    rows.erase(std::remove_if(rows.begin(), rows.end(),
                              [&](const Row& r) { return **covered < r.key; }),
               rows.end());
  }
  // A row matching several lookups comes once (the first lookup's copy).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.key < b.key; });
  rows.erase(
      std::unique(rows.begin(), rows.end(),
                  [](const Row& a, const Row& b) { return a.key == b.key; }),
      rows.end());
  return rows;
}

StatusOr<ScanResult> Scans::ScanIndex(std::string_view table,
                                      const ScanSpec& spec,
                                      const ScanFilter& filter, uint32_t limit,
                                      ScanWork* work) {
  ScanResult out;
  const bool bounded = !spec.stop_row.empty();
  if (bounded && spec.start_row >= spec.stop_row) return out;
  const uint64_t budget = ctx_.options->max_reply_bytes;
  uint64_t used = 0;
  std::optional<std::string> after = AfterRowFor(spec.start_row);
  FilterScan filtered(filter.filter);  // built once; per-row state
  for (int round = 1;; ++round) {
    std::optional<std::string> covered;
    const auto needed = static_cast<uint32_t>(limit - out.rows.size());
    const uint32_t page = std::max(needed, work->candidate_page);
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<Row> rows, IndexCandidates(table, spec, filter, after, page,
                                               budget - used, &covered));
    for (Row& row : rows) {
      if (row.key < spec.start_row) continue;  // AfterRowFor's few extra
      if (bounded && row.key >= spec.stop_row) return out;
      std::optional<Row> kept = filtered.Next(row).row;
      if (!kept) continue;
      used += ReplyBytes(*kept);
      out.rows.push_back(std::move(*kept));
      if (out.rows.size() == limit || used >= budget) {
        // The page held enough: the next call starts with a smaller one,
        // so that a scan past a stretch the filter dropped does not keep
        // fetching 1,024 candidates for a batch of one.
        work->candidate_page /= kCandidatePageGrowth;
        const std::string next = Successor(out.rows.back().key);
        if (!bounded || next < spec.stop_row) out.resume_row = next;
        return out;
      }
    }
    if (!covered) return out;  // every candidate seen
    const std::string next = Successor(*covered);
    if (bounded && next >= spec.stop_row) return out;
    after = std::move(covered);
    // The page ended short of the rows needed (the filter dropped some)
    // with candidates left: the next page is larger.
    work->candidate_page = std::min(
        kMaxCandidatePage, std::max<uint32_t>(page, 1) * kCandidatePageGrowth);
    // Past the call's deadline, what it has goes back (HBase's scanners go
    // on until an empty batch).
    if (!out.rows.empty() &&
        std::chrono::steady_clock::now() > work->deadline) {
      out.resume_row = next;
      return out;
    }
    // Answer with a resume_row once enough rounds ran, if it moves on.
    if (round >= kMaxIndexRounds && spec.start_row < next) {
      out.resume_row = next;
      return out;
    }
  }
}

}  // namespace bloomroute::router_internal
