// Scanners: a scan's position kept by the router between calls
// (OpenScanner / ScannerNext / CloseScanner), built on RouterImpl::Scan.
// Each belongs to the client that opened it; see router.h for ids, caps and
// call sequence numbers.
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <random>
#include <utility>

#include "router/internal/router_impl.h"

namespace bloomroute {
namespace router {

ScannerClient NewScannerClient() {
  static std::atomic<ScannerClient> next{1};
  return next.fetch_add(1);
}

}  // namespace router

namespace router_internal {

using router::ScannerClient;
using router::ScanSpec;

struct Scanner {
  std::string table;
  ScannerClient client = router::kLocalScannerClient;
  std::string principal;  // "": none (not counted per principal)
  std::mutex mu;
  ScanSpec spec;      // guarded by mu; start_row advances
  bool done = false;  // guarded by mu
  // The spec's filter, parsed and planned at open; null: none.
  std::shared_ptr<const ScanFilter> filter;
  // Guarded by mu: rows returned so far (PageFilter's count), and before
  // the previous call.
  uint64_t returned = 0;
  uint64_t previous_returned = 0;
  // Guarded by mu: the number the next sequenced call carries, and where
  // the previous call began (a repeat of it starts there again).
  uint64_t next_seq = 1;
  std::string previous_start_row;
  bool previous_done = false;
  // Guarded by mu: the candidate page size reached (ScanWork).
  uint32_t candidate_page = 0;
  // Guarded by RouterImpl::scanners_mu_.
  std::chrono::steady_clock::time_point last_used;
};

namespace {

// 31 bits from the operating system's random source (std::random_device
// reads it on Linux): positive, so that clients that treat a negative id
// as an error do not trip, fitting HBase's i32 scanner ids, and no id says
// anything about another.
int64_t DrawScannerId() {
  std::random_device device;
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(device() >> 1);
  return id;
}

}  // namespace

StatusOr<int64_t> RouterImpl::OpenScanner(std::string_view table,
                                          const ScanSpec& spec,
                                          ScannerClient client,
                                          std::string_view principal) {
  // Parsed once: a bad filter fails here, not at the first batch.
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const ScanFilter> filter,
                              CheckScan(table, spec));
  ExpireScanners();
  auto scanner = std::make_shared<Scanner>();
  scanner->filter = std::move(filter);
  scanner->table = std::string(table);
  scanner->client = client;
  scanner->principal = std::string(principal);
  scanner->spec = spec;
  scanner->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(scanners_mu_);
  if (scanners_.size() >= options_.max_scanners) {
    return Status::Unavailable("too many open scanners: max_scanners is " +
                               std::to_string(options_.max_scanners) +
                               "; close some or wait for idle ones to expire");
  }
  uint32_t& mine = scanners_per_client_[client];
  if (mine >= options_.max_scanners_per_client) {
    return Status::Unavailable(
        "too many open scanners on this connection: "
        "max_scanners_per_client is " +
        std::to_string(options_.max_scanners_per_client) +
        "; close some or wait for idle ones to expire");
  }
  uint32_t* theirs = nullptr;
  if (!principal.empty()) {
    auto it = scanners_per_principal_.find(principal);
    if (it == scanners_per_principal_.end()) {
      it = scanners_per_principal_.emplace(std::string(principal), 0).first;
    }
    theirs = &it->second;
    if (*theirs >= options_.max_scanners_per_principal) {
      if (mine == 0) scanners_per_client_.erase(client);
      if (*theirs == 0) scanners_per_principal_.erase(it);
      return Status::Unavailable(
          "too many open scanners of user " + QuoteForMessage(principal) +
          " (over all its connections): max_scanners_per_principal is " +
          std::to_string(options_.max_scanners_per_principal) +
          "; close some or wait for idle ones to expire");
    }
  }
  int64_t id = DrawScannerId();
  while (scanners_.count(id) != 0) id = DrawScannerId();
  scanners_.emplace(id, std::move(scanner));
  ++mine;
  if (theirs != nullptr) ++*theirs;
  return id;
}

std::shared_ptr<Scanner> RouterImpl::FindScanner(int64_t id,
                                                 ScannerClient client) {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end() || it->second->client != client) return nullptr;
  it->second->last_used = std::chrono::steady_clock::now();
  return it->second;
}

std::string RouterImpl::ScannerTable(int64_t id) const {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  auto it = scanners_.find(id);
  return it == scanners_.end() ? std::string() : it->second->table;
}

StatusOr<std::vector<Row>> RouterImpl::ScannerNext(int64_t id,
                                                   uint32_t max_rows,
                                                   uint64_t call_seq,
                                                   ScannerClient client) {
  if (max_rows < 1 || max_rows > kMaxRowsPerCall) {
    return Status::InvalidArgument("the number of rows must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  std::shared_ptr<Scanner> scanner = FindScanner(id, client);
  if (scanner == nullptr) {
    return Status::NotFound("scanner " + std::to_string(id) +
                            " is not open (closed, expired or never opened)");
  }
  std::lock_guard<std::mutex> lock(scanner->mu);
  const bool repeat = call_seq != 0 && call_seq + 1 == scanner->next_seq;
  if (call_seq != 0 && !repeat && call_seq != scanner->next_seq) {
    return Status::InvalidArgument(
        "scanner call sequence " + std::to_string(call_seq) +
        " is out of order: the next call is " +
        std::to_string(scanner->next_seq) + " (or " +
        std::to_string(scanner->next_seq - 1) + " to repeat the last)");
  }
  if (repeat) {
    scanner->spec.start_row = scanner->previous_start_row;
    scanner->done = scanner->previous_done;
    scanner->returned = scanner->previous_returned;
  } else {
    scanner->previous_start_row = scanner->spec.start_row;
    scanner->previous_done = scanner->done;
    scanner->previous_returned = scanner->returned;
    ++scanner->next_seq;
  }
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

void RouterImpl::EraseScannerLocked(
    std::map<int64_t, std::shared_ptr<Scanner>>::iterator it) {
  auto count = scanners_per_client_.find(it->second->client);
  if (count != scanners_per_client_.end() && --count->second == 0) {
    scanners_per_client_.erase(count);
  }
  auto of_principal = scanners_per_principal_.find(it->second->principal);
  if (of_principal != scanners_per_principal_.end() &&
      --of_principal->second == 0) {
    scanners_per_principal_.erase(of_principal);
  }
  scanners_.erase(it);
}

Status RouterImpl::CloseScanner(int64_t id, ScannerClient client) {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end() || it->second->client != client) {
    return Status::NotFound("scanner " + std::to_string(id) + " is not open");
  }
  EraseScannerLocked(it);
  return Status::OK();
}

void RouterImpl::CloseScanners(ScannerClient client) {
  std::lock_guard<std::mutex> lock(scanners_mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    auto next = std::next(it);
    if (it->second->client == client) EraseScannerLocked(it);
    it = next;
  }
}

void RouterImpl::ExpireScanners() {
  const auto deadline =
      std::chrono::steady_clock::now() -
      std::chrono::milliseconds(options_.scanner_idle_timeout_ms);
  std::lock_guard<std::mutex> lock(scanners_mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    auto next = std::next(it);
    if (it->second->last_used < deadline) EraseScannerLocked(it);
    it = next;
  }
}

}  // namespace router_internal
}  // namespace bloomroute
