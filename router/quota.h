// Quotas: how much one principal may ask of the router per unit of time, as
// HBase's RPC throttles (`set_quota TYPE => THROTTLE, USER => 'u', LIMIT =>
// '1000req/sec'`). An admin sets them (Router::SetQuota, `bloomroute admin
// quota set`); the router keeps them in its catalog, so they survive a
// restart; the router's Thrift server enforces them on every call
// (thrift/server/quota_throttle.h), before the call's arguments are
// decoded. None are set by default, and then nothing is throttled.
//
// A principal is the user of a token or the name of a client certificate
// (thrift/server/security.h): a router without TLS knows no principals and
// throttles nobody. A quota with a table counts only the calls that name
// that table (or one of its scanners); one without counts every call of the
// user. Both apply to a call that names the table: it must fit each.
#ifndef BLOOMROUTE_ROUTER_QUOTA_H_
#define BLOOMROUTE_ROUTER_QUOTA_H_

#include <cstdint>
#include <string>

#include "common/status.h"

namespace bloomroute::router {

// `amount` per `seconds`; amount 0 is no limit.
struct QuotaLimit {
  uint64_t amount = 0;
  uint32_t seconds = 1;

  bool none() const { return amount == 0; }
  friend bool operator==(const QuotaLimit& a, const QuotaLimit& b) {
    return a.amount == b.amount && (a.none() || a.seconds == b.seconds);
  }
};

struct Quota {
  // Bounds of what SetQuota accepts.
  static constexpr size_t kMaxUserBytes = 1024;
  static constexpr size_t kMaxTableBytes = 1024;
  static constexpr uint32_t kMaxSeconds = 24 * 3600;  // HBase's largest unit
  static constexpr uint64_t kMaxAmount = uint64_t{1} << 50;
  // Quotas a catalog holds at most.
  static constexpr size_t kMaxQuotas = 10000;

  std::string user;   // not empty
  std::string table;  // "" for every call of the user
  // Calls: each call counts 1.
  QuotaLimit requests;
  // Bytes: each call counts its request's frame and its reply's.
  QuotaLimit bytes;

  // No limit at all: SetQuota of it removes the quota.
  bool none() const { return requests.none() && bytes.none(); }
  friend bool operator==(const Quota& a, const Quota& b) {
    return a.user == b.user && a.table == b.table && a.requests == b.requests &&
           a.bytes == b.bytes;
  }
};

// InvalidArgument naming the field out of range: an empty user, a user or
// table over its bound, an amount over kMaxAmount or seconds outside
// [1, kMaxSeconds] of a limit that is set.
Status ValidateQuota(const Quota& quota);

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_QUOTA_H_
