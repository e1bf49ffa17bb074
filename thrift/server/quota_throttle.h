// QuotaThrottle: the router's quotas (router/quota.h) enforced on every call
// of its Thrift server, as HBase's RPC throttles are on a region server's.
//
// Each quota is a pair of token buckets (requests, bytes), each holding at
// most its limit's amount and refilled continuously at amount / seconds (a
// burst of a whole period's amount is allowed, as HBase's average-interval
// limiter does). A call is admitted when every quota it falls under (the
// user's, and the user's on the table it names) has a request left and,
// for bytes, at least its request frame's size (or a full bucket, so that a
// request larger than the limit still passes once the bucket is full); it
// then takes one request and its frame's bytes, and after it ran its reply's
// bytes, which may leave the bucket in debt: the user's next calls wait for
// it to refill. A refused call does not run and costs nothing: it is
// answered with TIOError "RpcThrottlingException: <what> exceeded - wait
// <ms>ms (<the quota>)", canRetry true (what HBase's Thrift server sends for
// its RpcThrottlingException), and the connection stays open; a refused
// oneway call, which has no reply to carry that, closes it.
//
// Before decoding. The message header and the arguments' top-level fields
// are read in place, without decoding anything else: the table a call
// names is its field 1 when that is a string (every THBaseService and
// bloomroute data call on a table has it there; the other string-first
// calls, authenticate and addServer, name none), read as the handlers read
// it ("default:t" is "t"), the last one when sent twice; a call on a
// scanner (getScannerRows, closeScanner: field 1 is its id) names the
// table the scanner reads. Calls that name a table by a TTableName struct
// (table metadata and administration) count against the user's quota
// only.
//
// Quotas are read from `source` (Router::Quotas) on every call: a pointer
// copy, and a rebuild of the buckets when the snapshot changed (buckets of
// quotas whose limits did not change keep their state). With no quota at
// all, or a caller without a principal (no TLS), a call costs that read.
//
// Per router: with several routers each enforces its quotas on the calls it
// serves, as each HBase region server does.
//
// Thread-safety: Admit and Settle from any thread (one mutex over the
// buckets, held for a few arithmetic operations).
#ifndef BLOOMROUTE_THRIFT_SERVER_QUOTA_THROTTLE_H_
#define BLOOMROUTE_THRIFT_SERVER_QUOTA_THROTTLE_H_

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "router/quota.h"
#include "thrift/server/call_throttle.h"

namespace bloomroute::thrift_internal {

class QuotaThrottle final : public CallThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  using Quotas = std::shared_ptr<const std::vector<router::Quota>>;

  // `source` gives the quotas in force (never null); `scanner_table` the
  // table an open scanner reads ("" for none: Router::ScannerTable); `now`
  // the time (tests step it).
  QuotaThrottle(std::function<Quotas()> source,
                std::function<std::string(int64_t)> scanner_table,
                std::function<Clock::time_point()> now = Clock::now);

  AccessControl::Verdict Admit(const uint8_t* frame, size_t size,
                               const Identity& caller,
                               apache::thrift::protocol::TProtocol* out,
                               std::unique_ptr<Ticket>* ticket) override;
  void Settle(Ticket& ticket, uint64_t reply_bytes) override;

  // The table a request frame names (its arguments' field 1 when a string,
  // or the table of the scanner field 1 names), its method, and whether it
  // is oneway; false for bytes that are no message. Exposed for tests.
  bool PeekCall(const uint8_t* frame, size_t size, std::string* method,
                std::string* table, bool* oneway, int32_t* seqid) const;

 private:
  struct Bucket;
  class Charge;
  using Key = std::pair<std::string, std::string>;  // user, table

  // Rebuilds buckets_ when the quotas changed; needs mu_.
  void RefreshLocked(const Quotas& quotas);
  // Under mu_: adds the buckets of `user`'s quotas a call on `table` ("":
  // none) falls under to `charge` and, when each has room for a request of
  // `size` bytes, takes it from them and returns ""; otherwise takes
  // nothing and returns the refusal, naming the longest wait.
  std::string Take(const std::string& user, const std::string& table,
                   size_t size, Charge* charge);

  const std::function<Quotas()> source_;
  const std::function<std::string(int64_t)> scanner_table_;
  const std::function<Clock::time_point()> now_;
  std::mutex mu_;
  Quotas seen_;                                     // guarded by mu_
  std::map<Key, std::shared_ptr<Bucket>> buckets_;  // guarded by mu_
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_QUOTA_THROTTLE_H_
