// The routers a RouterClient may call, and which one a call goes to: the
// list's failover policy, kept apart from Thrift so that it reads (and tests)
// as a policy.
//
// A client sticks to one router, its current one, which starts at a position
// chosen at random (RouterListOptions::start), so that many clients given the
// same list spread over it. A call goes to the current router; when that
// router does not answer (Unavailable without a reply) the call moves on to
// the next one in list order, and the router that failed is skipped by later
// calls for a backoff (RouterListOptions: doubling from min_backoff_ms to
// max_backoff_ms with each failure in a row; cleared by an answer). A router
// in its backoff is still tried, last, when every other one failed.
//
// What may be resent is the caller's to say (Resend): a request that never
// left (the connection could not be made) may go to the next router whatever
// it is; one that was sent and whose reply was lost goes again only when the
// call is idempotent.
//
// Thread-safety: every method may be called concurrently.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_ROUTER_LIST_H_
#define BLOOMROUTE_THRIFT_INTERNAL_ROUTER_LIST_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"
#include "thrift/router_client.h"

namespace bloomroute::thrift_internal {

// How far one attempt of a call got.
enum class Reach {
  kNotSent,   // no connection was made (or it failed before the request)
  kSent,      // the request may have reached the router; no reply came
  kAnswered,  // the router replied (a result or a declared error)
};

// What a call whose request was sent but whose reply was lost may do.
struct Resend {
  bool idempotent = true;
  // For a call that is not: what the caller should look at before trying
  // again ("read the row"), said in the error.
  const char* check = nullptr;
};

class RouterList {
 public:
  // `addresses` as ParseRouterList gives them (1 to kMaxRouters, distinct).
  RouterList(std::vector<std::string> addresses,
             const RouterListOptions& options);
  RouterList(const RouterList&) = delete;
  RouterList& operator=(const RouterList&) = delete;

  size_t size() const { return addresses_.size(); }
  const std::string& address(size_t router) const { return addresses_[router]; }
  // The router calls go to now (for tests and messages).
  size_t current() const;

  // One attempt of a call on router `router`: its Status, and in `reach` how
  // far it got (it starts as kNotSent).
  using Attempt = std::function<Status(size_t router, Reach* reach)>;

  // Runs `attempt` on the current router, then on the next ones while the
  // failure allows it (see the file comment). Returns the first success or
  // answer (a declared error is the router's answer: not resent); for a call
  // that is not idempotent and was sent, Unavailable "router A: M: the
  // connection was lost after the request was sent; it may have been
  // applied: CHECK before retrying (CAUSE)"; when every router failed, the
  // one failure of a list of one as it is, or Unavailable "no router
  // answered M (tried A, B): CAUSE; CAUSE".
  Status Run(const char* method, const Resend& resend, const Attempt& attempt);

  // Records the outcome of a call made outside Run on one router (a
  // scanner's): a failure that got no answer starts its backoff, an answer
  // clears it.
  void Record(size_t router, const Status& status, Reach reach);
  // Whether `router` failed recently and is skipped (its backoff runs).
  bool InBackoff(size_t router) const;

 private:
  using Clock = std::chrono::steady_clock;

  // The routers in the order a call tries them now.
  std::vector<size_t> Order() const;
  void Failed(size_t router);
  void Answered(size_t router);

  const std::vector<std::string> addresses_;
  const RouterListOptions options_;
  mutable std::mutex mutex_;
  size_t current_;                             // guarded by mutex_
  std::vector<int> failures_;                  // in a row; guarded by mutex_
  std::vector<Clock::time_point> skip_until_;  // guarded by mutex_
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_ROUTER_LIST_H_
