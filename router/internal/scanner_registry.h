// ScannerRegistry: the scanners open on the router (OpenScanner /
// ScannerNext / CloseScanner), each a scan's position kept between calls
// and owned by the client that opened it (or, with a principal, by the
// principal: any of its clients may use it), with the caps on how many are
// open (in all, per client connection, per principal) and their idle
// expiry. See router.h for ids, caps and call sequence numbers.
//
// Locking: mu_ guards the registry's maps and each scanner's last_used;
// each scanner's mu guards its position.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_SCANNER_REGISTRY_H_
#define BLOOMROUTE_ROUTER_INTERNAL_SCANNER_REGISTRY_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "common/status.h"
#include "router/router.h"

namespace bloomroute::router_internal {

struct ScanFilter;

struct Scanner {
  std::string table;
  router::ScannerClient client = router::kLocalScannerClient;
  std::string principal;  // "": none (not counted per principal)
  std::mutex mu;
  router::ScanSpec spec;  // guarded by mu; start_row advances
  bool done = false;      // guarded by mu
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
  std::string previous_stop_row;  // a reversed scan's moves down
  bool previous_done = false;
  // Guarded by mu: the candidate page size reached (ScanWork).
  uint32_t candidate_page = 0;
  // Guarded by ScannerRegistry::mu_.
  std::chrono::steady_clock::time_point last_used;

  // Starts call `call_seq` (0: unsequenced) with mu held: a repeat of the
  // previous call goes back to where it began, a new one remembers where
  // it begins. InvalidArgument for a number out of order.
  [[nodiscard]] Status BeginCall(uint64_t call_seq);
};

class ScannerRegistry {
 public:
  // The caps and idle timeout of RouterOptions (max_scanners,
  // max_scanners_per_client, max_scanners_per_principal,
  // scanner_idle_timeout_ms).
  struct Limits {
    uint32_t max_scanners = 0;
    uint32_t max_per_client = 0;
    uint32_t max_per_principal = 0;
    int64_t idle_timeout_ms = 0;
  };
  explicit ScannerRegistry(const Limits& limits) : limits_(limits) {}
  ScannerRegistry(const ScannerRegistry&) = delete;
  ScannerRegistry& operator=(const ScannerRegistry&) = delete;

  // Registers `scanner` (its client and principal set) under a new random
  // id, after expiring idle ones; Unavailable naming the cap when one is
  // reached.
  StatusOr<int64_t> Add(std::shared_ptr<Scanner> scanner);
  // The scanner if `client` may use it -- it opened it, or `principal` is
  // not empty and opened it (from any client) -- its idle time restarted;
  // null otherwise (unknown, or another's).
  std::shared_ptr<Scanner> Find(int64_t id, router::ScannerClient client,
                                std::string_view principal = "");
  // The table of scanner `id`; "" when it is not open.
  std::string Table(int64_t id) const;
  // Forgets the scanner if `client` may use it (as Find); NotFound when it
  // is not open or another's.
  [[nodiscard]] Status Close(int64_t id, router::ScannerClient client,
                             std::string_view principal = "");
  // Forgets the scanners `client` opened without a principal (its
  // connection ended); a principal's stay until closed or idle too long.
  void CloseAll(router::ScannerClient client);
  // Forgets the scanners idle longer than the timeout.
  void Expire();

 private:
  using Map = std::map<int64_t, std::shared_ptr<Scanner>>;
  // Whether `client` as `principal` may use `scanner`.
  static bool MayUse(const Scanner& scanner, router::ScannerClient client,
                     std::string_view principal);
  // Forgets a scanner; needs mu_ held.
  void EraseLocked(Map::iterator it);
  // Unavailable naming the cap `scanner` would pass; counts it otherwise.
  // Needs mu_ held.
  [[nodiscard]] Status CountLocked(const Scanner& scanner);

  const Limits limits_;
  mutable std::mutex mu_;
  // Guarded by mu_: the open scanners by id, and how many each client and
  // each principal has open (those with none are not listed).
  Map scanners_;
  std::map<router::ScannerClient, uint32_t> per_client_;
  std::map<std::string, uint32_t, std::less<>> per_principal_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_SCANNER_REGISTRY_H_
