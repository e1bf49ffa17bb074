// Scanners as the Router interface offers them: a scan's position kept by
// the router between calls (OpenScanner / ScannerNext / CloseScanner),
// built on RouterImpl::ScanPaged. ScannerRegistry
// (internal/scanner_registry.h) keeps them, their caps and their expiry.
#include <memory>
#include <mutex>
#include <utility>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::ScannerClient;
using router::ScanSpec;

StatusOr<int64_t> RouterImpl::OpenScanner(std::string_view table,
                                          const ScanSpec& spec,
                                          ScannerClient client,
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

std::string RouterImpl::ScannerTable(int64_t id) const {
  return scanners_.Table(id);
}

StatusOr<std::vector<Row>> RouterImpl::ScannerNext(int64_t id,
                                                   uint32_t max_rows,
                                                   uint64_t call_seq,
                                                   ScannerClient client) {
  if (max_rows < 1 || max_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("the number of rows must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  std::shared_ptr<Scanner> scanner = scanners_.Find(id, client);
  if (scanner == nullptr) {
    return Status::NotFound("scanner " + std::to_string(id) +
                            " is not open (closed, expired or never opened)");
  }
  std::lock_guard<std::mutex> lock(scanner->mu);
  BLOOMROUTE_RETURN_IF_ERROR(scanner->BeginCall(call_seq));
  std::vector<Row> rows;
  ScanWork work;
  work.candidate_page = scanner->candidate_page;
  work.deadline = WorkDeadline();
  while (rows.empty() && !scanner->done) {
    StatusOr<ScanResult> paged =
        ScanPaged(scanner->table, scanner->spec, scanner->filter.get(),
                  max_rows, scanner->returned, &work);
    scanner->candidate_page = work.candidate_page;
    BLOOMROUTE_ASSIGN_OR_RETURN(ScanResult part, std::move(paged));
    rows = std::move(part.rows);
    scanner->returned += rows.size();
    if (part.resume_row.has_value()) {
      scanner->spec.start_row = std::move(*part.resume_row);
    } else {
      scanner->done = true;
    }
  }
  return rows;
}

Status RouterImpl::CloseScanner(int64_t id, ScannerClient client) {
  return scanners_.Close(id, client);
}

void RouterImpl::CloseScanners(ScannerClient client) {
  scanners_.CloseAll(client);
}

}  // namespace bloomroute::router_internal
