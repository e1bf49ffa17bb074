// Scanners: a scan's position kept by the router between calls
// (OpenScanner / ScannerNext / CloseScanner), built on RouterImpl::Scan.
#include <chrono>
#include <memory>
#include <mutex>
#include <utility>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::ScanSpec;

struct Scanner {
  std::string table;
  std::mutex mu;
  ScanSpec spec;      // guarded by mu; start_row advances
  bool done = false;  // guarded by mu
  // Guarded by RouterImpl::scanners_mu_.
  std::chrono::steady_clock::time_point last_used;
};

StatusOr<int64_t> RouterImpl::OpenScanner(std::string_view table,
                                          const ScanSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(spec.columns));
  BLOOMROUTE_RETURN_IF_ERROR(FindTable(table).status());
  ExpireScanners();
  auto scanner = std::make_shared<Scanner>();
  scanner->table = std::string(table);
  scanner->spec = spec;
  scanner->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(scanners_mu_);
  if (scanners_.size() >= options_.max_scanners) {
    return Status::Unavailable("too many open scanners (" +
                               std::to_string(options_.max_scanners) +
                               "); close some or wait for idle ones to expire");
  }
  const int64_t id = next_scanner_id_++;
  scanners_.emplace(id, std::move(scanner));
  return id;
}

std::shared_ptr<Scanner> RouterImpl::FindScanner(int64_t id) {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end()) return nullptr;
  it->second->last_used = std::chrono::steady_clock::now();
  return it->second;
}

StatusOr<std::vector<Row>> RouterImpl::ScannerNext(int64_t id,
                                                   uint32_t max_rows) {
  if (max_rows < 1 || max_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("the number of rows must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  std::shared_ptr<Scanner> scanner = FindScanner(id);
  if (scanner == nullptr) {
    return Status::NotFound("scanner " + std::to_string(id) +
                            " is not open (closed, expired or never opened)");
  }
  std::lock_guard<std::mutex> lock(scanner->mu);
  std::vector<Row> rows;
  while (rows.empty() && !scanner->done) {
    BLOOMROUTE_ASSIGN_OR_RETURN(ScanResult part,
                                Scan(scanner->table, scanner->spec, max_rows));
    rows = std::move(part.rows);
    if (part.resume_row.has_value()) {
      scanner->spec.start_row = std::move(*part.resume_row);
    } else {
      scanner->done = true;
    }
  }
  return rows;
}

Status RouterImpl::CloseScanner(int64_t id) {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  if (scanners_.erase(id) == 0) {
    return Status::NotFound("scanner " + std::to_string(id) + " is not open");
  }
  return Status::OK();
}

void RouterImpl::ExpireScanners() {
  const auto deadline =
      std::chrono::steady_clock::now() -
      std::chrono::milliseconds(options_.scanner_idle_timeout_ms);
  std::lock_guard<std::mutex> lock(scanners_mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    it = it->second->last_used < deadline ? scanners_.erase(it) : ++it;
  }
}

}  // namespace bloomroute::router_internal
