// The scanners open on the router: ids, caps, idle expiry, and where each
// call of a scanner starts (a repeated call starts where the one it
// repeats did).
#include "router/internal/scanner_registry.h"

#include <atomic>
#include <iterator>
#include <random>
#include <utility>

namespace bloomroute {
namespace router {

ScannerClient NewScannerClient() {
  static std::atomic<ScannerClient> next{1};
  return next.fetch_add(1);
}

}  // namespace router

namespace router_internal {

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

Status Scanner::BeginCall(uint64_t call_seq) {
  const bool repeat = call_seq != 0 && call_seq + 1 == next_seq;
  if (call_seq != 0 && !repeat && call_seq != next_seq) {
    return Status::InvalidArgument(
        "scanner call sequence " + std::to_string(call_seq) +
        " is out of order: the next call is " + std::to_string(next_seq) +
        " (or " + std::to_string(next_seq - 1) + " to repeat the last)");
  }
  if (repeat) {
    spec.start_row = previous_start_row;
    spec.stop_row = previous_stop_row;
    done = previous_done;
    returned = previous_returned;
  } else {
    previous_start_row = spec.start_row;
    previous_stop_row = spec.stop_row;
    previous_done = done;
    previous_returned = returned;
    ++next_seq;
  }
  return Status::OK();
}

StatusOr<int64_t> ScannerRegistry::Add(std::shared_ptr<Scanner> scanner) {
  Expire();
  scanner->last_used = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (scanners_.size() >= limits_.max_scanners) {
    return Status::Unavailable("too many open scanners: max_scanners is " +
                               std::to_string(limits_.max_scanners) +
                               "; close some or wait for idle ones to expire");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CountLocked(*scanner));
  int64_t id = DrawScannerId();
  while (scanners_.count(id) != 0) id = DrawScannerId();
  scanners_.emplace(id, std::move(scanner));
  return id;
}

Status ScannerRegistry::CountLocked(const Scanner& scanner) {
  uint32_t& mine = per_client_[scanner.client];
  if (mine >= limits_.max_per_client) {
    return Status::Unavailable(
        "too many open scanners on this connection: "
        "max_scanners_per_client is " +
        std::to_string(limits_.max_per_client) +
        "; close some or wait for idle ones to expire");
  }
  uint32_t* theirs = nullptr;
  const std::string& principal = scanner.principal;
  if (!principal.empty()) {
    auto it = per_principal_.find(principal);
    if (it == per_principal_.end()) {
      it = per_principal_.emplace(principal, 0).first;
    }
    theirs = &it->second;
    if (*theirs >= limits_.max_per_principal) {
      if (mine == 0) per_client_.erase(scanner.client);
      if (*theirs == 0) per_principal_.erase(it);
      return Status::Unavailable(
          "too many open scanners of user " + QuoteForMessage(principal) +
          " (over all its connections): max_scanners_per_principal is " +
          std::to_string(limits_.max_per_principal) +
          "; close some or wait for idle ones to expire");
    }
  }
  ++mine;
  if (theirs != nullptr) ++*theirs;
  return Status::OK();
}

bool ScannerRegistry::MayUse(const Scanner& scanner,
                             router::ScannerClient client,
                             std::string_view principal) {
  // HBase's scanner ids are not tied to a connection: a principal's
  // scanner serves each of the principal's clients. A client without one
  // has nothing but its connection to show the scanner is its own.
  if (scanner.client == client) return true;
  return !scanner.principal.empty() && scanner.principal == principal;
}

std::shared_ptr<Scanner> ScannerRegistry::Find(int64_t id,
                                               router::ScannerClient client,
                                               std::string_view principal) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end() || !MayUse(*it->second, client, principal)) {
    return nullptr;
  }
  it->second->last_used = std::chrono::steady_clock::now();
  return it->second;
}

std::string ScannerRegistry::Table(int64_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  return it == scanners_.end() ? std::string() : it->second->table;
}

void ScannerRegistry::EraseLocked(Map::iterator it) {
  auto count = per_client_.find(it->second->client);
  if (count != per_client_.end() && --count->second == 0) {
    per_client_.erase(count);
  }
  auto of_principal = per_principal_.find(it->second->principal);
  if (of_principal != per_principal_.end() && --of_principal->second == 0) {
    per_principal_.erase(of_principal);
  }
  scanners_.erase(it);
}

Status ScannerRegistry::Close(int64_t id, router::ScannerClient client,
                              std::string_view principal) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(id);
  if (it == scanners_.end() || !MayUse(*it->second, client, principal)) {
    return Status::NotFound("scanner " + std::to_string(id) + " is not open");
  }
  EraseLocked(it);
  return Status::OK();
}

void ScannerRegistry::CloseAll(router::ScannerClient client) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    auto next = std::next(it);
    if (it->second->client == client && it->second->principal.empty()) {
      EraseLocked(it);
    }
    it = next;
  }
}

void ScannerRegistry::Expire() {
  const auto deadline = std::chrono::steady_clock::now() -
                        std::chrono::milliseconds(limits_.idle_timeout_ms);
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    auto next = std::next(it);
    if (it->second->last_used < deadline) EraseLocked(it);
    it = next;
  }
}

}  // namespace router_internal
}  // namespace bloomroute
