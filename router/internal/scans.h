// Scans: the router's scans and scanners. A scan's filter (an HBase filter
// string) is parsed once and planned over the table's indexed columns
// (PlanFilter); the scan is then answered either by region server scans
// carrying the filter (ScanRegions) or from index lookups filtered on the
// router (ScanIndex). Both give ApplyFilter over the projected rows of the
// range, in key order. Scanners keep a scan's position between calls
// (OpenScanner / ScannerNext / CloseScanner); ScannerRegistry
// (internal/scanner_registry.h) keeps them, their caps and their expiry.
//
// Thread-safe: the tables are snapshots (TableDirectory), the scanners lock
// themselves (ScannerRegistry; each scanner's mu is held for its call).
#ifndef BLOOMROUTE_ROUTER_INTERNAL_SCANS_H_
#define BLOOMROUTE_ROUTER_INTERNAL_SCANS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/filter_language.h"
#include "model/region_protocol.h"
#include "router/internal/router_context.h"
#include "router/internal/scanner_registry.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// The work one call of a scan may do. A scan whose filter drops most
// candidates asks the index for pages of candidates that grow
// (candidate_page; kept by a scanner across its calls, so that a later
// batch starts where the earlier ones' growth ended, and shrunk when a page
// held enough rows) instead of pages of the caller's batch size. Past
// `deadline` a call that has rows answers with them (fewer than asked;
// HBase's scanners go on until an empty batch). One with none yet goes on:
// an empty batch ends an HBase scan, and HBase's own Thrift server holds
// its worker the same way.
struct ScanWork {
  uint32_t candidate_page = 0;  // 0: the rows the call still needs
  std::chrono::steady_clock::time_point deadline =
      std::chrono::steady_clock::time_point::max();
};

// A scan's filter, parsed once, and its plan for the table's indexed
// columns. Immutable; a scanner keeps it while open.
struct ScanFilter {
  Filter filter;
  FilterPlan plan;
  // The filter holds a WHILE (FilterEndsScans): it ends the whole scan at
  // the first row it fails, which no region server sees, so the regions
  // return their rows unfiltered and the router runs the filter over them
  // in scan order.
  bool at_router = false;
};

// Checks a region server's scan reply to `request` of a region ending at
// `end_key` as untrusted input: at most the limit, keys ascending
// (descending for a reversed scan) inside the range, and a resume row of a
// row key's size that moves on: after the last row and inside the range;
// reversed, no greater than the last row, above the start and below the
// stop. Corruption otherwise.
Status CheckScanReply(const ScanRequest& request, const std::string& end_key,
                      const ScanResult& reply);

// `text` parsed (a scan's or a get's filter): InvalidArgument naming
// --max-filter-bytes when it is longer than `max_filter_bytes`, else
// ParseFilter's errors.
StatusOr<Filter> ParseRouterFilter(std::string_view text,
                                   uint64_t max_filter_bytes);

class Scans {
 public:
  // What the scans ask of the rest of the router.
  struct Hooks {
    // An index lookup (Router::Lookup): routed through the global index,
    // its answer checked.
    std::function<StatusOr<router::LookupResult>(std::string_view table,
                                                 const router::LookupSpec&)>
        lookup;
  };

  // `ctx` outlives the scans; the scanner caps and idle timeout are its
  // options'.
  Scans(const RouterContext& ctx, Hooks hooks);
  Scans(const Scans&) = delete;
  Scans& operator=(const Scans&) = delete;

  // Router::Scan: up to `limit` rows of `spec`'s range and a resume row
  // when more may follow. InvalidArgument for a limit outside [1,
  // kMaxRowsPerCall] and what CheckScan refuses.
  StatusOr<ScanResult> Scan(std::string_view table,
                            const router::ScanSpec& spec, uint32_t limit);
  // Scan of `table` whether it is enabled or not (a disabled table's
  // regions stay open): what schema changes read to check that a family
  // holds no cell. Projection and time range only (no filter); the same
  // limits and resume row as Scan.
  StatusOr<ScanResult> ScanAnyState(std::string_view table,
                                    const router::ScanSpec& spec,
                                    uint32_t limit);
  // Router::OpenScanner: the spec checked (a bad filter fails here, not at
  // the first batch) and registered; Unavailable naming a cap reached.
  StatusOr<int64_t> OpenScanner(std::string_view table,
                                const router::ScanSpec& spec,
                                router::ScannerClient client,
                                std::string_view principal);
  // Router::ScannerNext: up to `max_rows` rows from where the scanner is
  // (none once it is done). NotFound for a scanner not open (closed,
  // expired, never opened, another client's or principal's);
  // InvalidArgument for `max_rows` outside [1, kMaxRowsPerCall] or
  // `call_seq` out of order.
  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner, uint32_t max_rows,
                                         uint64_t call_seq,
                                         router::ScannerClient client,
                                         std::string_view principal = "");
  // Router::CloseScanner: NotFound when the client (or principal) has no
  // such scanner.
  [[nodiscard]] Status CloseScanner(int64_t scanner,
                                    router::ScannerClient client,
                                    std::string_view principal = "");
  // Closes the scanners `client` opened without a principal (its
  // connection ended).
  void CloseScanners(router::ScannerClient client);
  // The table of scanner `scanner`; "" when it is not open.
  std::string ScannerTable(int64_t scanner) const;
  // Forgets the scanners idle past RouterOptions::scanner_idle_timeout_ms
  // (a maintenance pass).
  void ExpireScanners();

 private:
  // Every check a scan of `table` needs before it starts (projection, time
  // range, the table enabled, its families, the filter), shared by Scan and
  // OpenScanner: the spec's filter parsed and planned, null for none.
  StatusOr<std::shared_ptr<const ScanFilter>> CheckScan(
      std::string_view table, const router::ScanSpec& spec) const;
  // Scan of a validated spec, its filter parsed (null: none), `returned`
  // rows of the whole scan already returned (PageFilter counts them): up
  // to `limit` rows, no resume_row once the filter's row_limit is reached.
  // `work` carries the candidate page size across a scanner's calls and
  // the call's deadline: past it, an answer that has rows returns them.
  StatusOr<ScanResult> ScanPaged(std::string_view table,
                                 const router::ScanSpec& spec,
                                 const ScanFilter* filter, uint32_t limit,
                                 uint64_t returned, ScanWork* work);
  // The full-scan path: the region servers scan [start, stop) in key order
  // with the filter text.
  StatusOr<ScanResult> ScanRegions(const TableState& state,
                                   const router::ScanSpec& spec, uint32_t limit,
                                   const ScanWork& work);
  // ScanRegions' reversed twin: the regions from the one holding the last
  // key below stop_row down to the one holding start_row, each scanned in
  // descending key order; the resume_row is the next stop_row.
  StatusOr<ScanResult> ScanRegionsReversed(const TableState& state,
                                           const router::ScanSpec& spec,
                                           uint32_t limit,
                                           const ScanWork& work);
  // One region server scan of `region`, retried while the region reopens,
  // its reply checked (CheckScanReply); errors name the server.
  StatusOr<ScanResult> ScanOneRegion(const CatalogRegion& region,
                                     const ScanRequest& request);
  // The index path: candidates from the plan's lookups (each routed through
  // the global index), merged in key order without duplicates, restricted
  // to [start, stop) and filtered on the router.
  StatusOr<ScanResult> ScanIndex(std::string_view table,
                                 const router::ScanSpec& spec,
                                 const ScanFilter& filter, uint32_t limit,
                                 ScanWork* work);
  // One round of ScanIndex: the candidates after `after` (nullopt: from the
  // first row) in key order, duplicates removed, and the last key they
  // cover completely (nullopt: every candidate is there).
  StatusOr<std::vector<Row>> IndexCandidates(
      std::string_view table, const router::ScanSpec& spec,
      const ScanFilter& filter, const std::optional<std::string>& after,
      uint32_t limit, uint64_t budget, std::optional<std::string>* covered);

  const RouterContext& ctx_;
  const Hooks hooks_;
  // The open scanners.
  ScannerRegistry scanners_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_SCANS_H_
