#include "thrift/server/quota_throttle.h"

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "thrift/conversion/hbase_conversion.h"

namespace bloomroute::thrift_internal {
namespace {

namespace at = apache::thrift;

// A method name longer than this is no call of ours; a table longer than
// the longest a quota may name matches no quota.
constexpr int32_t kMaxPeekStringBytes = 4096;

// String-first calls whose field 1 is no table.
bool NamesNoTable(std::string_view method) {
  return method == "authenticate" || method == "addServer";
}

// Calls whose field 1 is a scanner id.
bool IsScannerCall(std::string_view method) {
  return method == "getScannerRows" || method == "closeScanner";
}

std::string Describe(const router::QuotaLimit& limit, const char* unit) {
  return std::to_string(limit.amount) + " " + unit + " per " +
         std::to_string(limit.seconds) + " s";
}

}  // namespace

// One quota's buckets. Balances are in requests and bytes; `bytes` may be
// negative (a reply larger than what was left).
struct QuotaThrottle::Bucket {
  router::Quota quota;
  double requests = 0;
  double bytes = 0;
  Clock::time_point refilled;

  static double Rate(const router::QuotaLimit& limit) {
    return static_cast<double>(limit.amount) / limit.seconds;
  }

  // How long until the bucket holds a request of `request_bytes` (0: it
  // does now), with `*refusal` naming the limit that waits longest ("{}"
  // standing for the wait).
  double Shortfall(size_t request_bytes, std::string* refusal) const;

  void Refill(Clock::time_point now) {
    if (now <= refilled) return;
    const double elapsed =
        std::chrono::duration<double>(now - refilled).count();
    refilled = now;
    if (!quota.requests.none()) {
      requests = std::min<double>(static_cast<double>(quota.requests.amount),
                                  requests + elapsed * Rate(quota.requests));
    }
    if (!quota.bytes.none()) {
      bytes = std::min<double>(static_cast<double>(quota.bytes.amount),
                               bytes + elapsed * Rate(quota.bytes));
    }
  }
};

class QuotaThrottle::Charge final : public CallThrottle::Ticket {
 public:
  std::vector<std::shared_ptr<Bucket>> buckets;
};

QuotaThrottle::QuotaThrottle(std::function<Quotas()> source,
                             std::function<std::string(int64_t)> scanner_table,
                             std::function<Clock::time_point()> now)
    : source_(std::move(source)),
      scanner_table_(std::move(scanner_table)),
      now_(std::move(now)) {}

bool QuotaThrottle::PeekCall(const uint8_t* frame, size_t size,
                             std::string* method, std::string* table,
                             bool* oneway, int32_t* seqid) const {
  const auto in = RequestFrameProtocol(frame, size, kMaxPeekStringBytes);
  table->clear();
  CallHeader call;
  if (!ReadCallHeader(in.get(), &call)) return false;
  *method = call.method;
  *seqid = call.seqid;
  *oneway = call.type == at::protocol::T_ONEWAY;
  // Every top-level field is read (others skipped in place, without a
  // copy): a generated reader takes fields in any order and keeps the last
  // of a field sent twice, so the table is the last field 1, wherever it
  // comes. The frame bounds the work.
  std::string raw;
  bool named = false;
  try {
    std::string ignored;
    in->readStructBegin(ignored);
    for (;;) {
      at::protocol::TType type = at::protocol::T_STOP;
      int16_t id = 0;
      in->readFieldBegin(ignored, type, id);
      if (type == at::protocol::T_STOP) break;
      if (id == 1 && type == at::protocol::T_STRING && !NamesNoTable(*method)) {
        in->readBinary(raw);
        named = true;
      } else if (id == 1 && type == at::protocol::T_I32 &&
                 IsScannerCall(*method)) {
        int32_t scanner = 0;
        in->readI32(scanner);
        raw = scanner_table_(scanner);
        named = true;
      } else {
        SkipInPlace(in.get(), type);
      }
      in->readFieldEnd();
    }
  } catch (const at::TException&) {
    // Bytes that do not decode: the processor refuses the call, nothing
    // runs. A table name over kMaxPeekStringBytes matches no quota.
  }
  // As the handlers read it ("default:t" is "t"); another namespace is
  // refused by the handler, so nothing runs.
  if (named && !TableFromThrift(raw, table).ok()) table->clear();
  return true;
}

void QuotaThrottle::RefreshLocked(const Quotas& quotas) {
  if (quotas == seen_) return;
  std::map<Key, std::shared_ptr<Bucket>> next;
  const Clock::time_point now = now_();
  for (const router::Quota& q : *quotas) {
    Key key(q.user, q.table);
    auto old = buckets_.find(key);
    if (old != buckets_.end() && old->second->quota == q) {
      next.emplace(std::move(key), old->second);
      continue;
    }
    auto bucket = std::make_shared<Bucket>();
    bucket->quota = q;
    bucket->requests = static_cast<double>(q.requests.amount);
    bucket->bytes = static_cast<double>(q.bytes.amount);
    bucket->refilled = now;
    next.emplace(std::move(key), std::move(bucket));
  }
  buckets_.swap(next);
  seen_ = quotas;
}

double QuotaThrottle::Bucket::Shortfall(size_t request_bytes,
                                        std::string* refusal) const {
  const std::string scope =
      "quota of user " + quota.user +
      (quota.table.empty() ? std::string() : " on table " + quota.table);
  double wait_seconds = 0;
  if (!quota.requests.none() && requests < 1) {
    wait_seconds = (1 - requests) / Rate(quota.requests);
    *refusal = "number of requests exceeded - wait {} (" + scope + ": " +
               Describe(quota.requests, "requests") + ")";
  }
  // A request larger than the whole bucket passes once it is full.
  const double need = std::min<double>(static_cast<double>(request_bytes),
                                       static_cast<double>(quota.bytes.amount));
  if (!quota.bytes.none() && bytes < need) {
    const double wait = (need - bytes) / Rate(quota.bytes);
    if (wait > wait_seconds) {
      wait_seconds = wait;
      *refusal = "request size limit exceeded - wait {} (" + scope + ": " +
                 Describe(quota.bytes, "bytes") + ")";
    }
  }
  return wait_seconds;
}

std::string QuotaThrottle::Take(const std::string& user,
                                const std::string& table, size_t size,
                                Charge* charge) {
  std::lock_guard<std::mutex> lock(mu_);
  // Read under mu_, so that the buckets never go back to an older
  // snapshot than one another call already took.
  const Quotas quotas = source_();
  if (quotas == nullptr) return "";
  RefreshLocked(quotas);
  // The user's quota, and the user's on the table the call names.
  auto add = [&](const std::string& t) {
    auto it = buckets_.find(Key(user, t));
    if (it != buckets_.end()) charge->buckets.push_back(it->second);
  };
  add(std::string());  // a quota without a table counts every call
  if (!table.empty()) add(table);
  const Clock::time_point now = now_();
  double wait_seconds = 0;
  std::string refusal;
  for (const std::shared_ptr<Bucket>& b : charge->buckets) {
    b->Refill(now);
    std::string why;
    const double wait = b->Shortfall(size, &why);
    if (wait > wait_seconds) {
      wait_seconds = wait;
      refusal = std::move(why);
    }
  }
  if (refusal.empty()) {
    for (const std::shared_ptr<Bucket>& b : charge->buckets) {
      if (!b->quota.requests.none()) b->requests -= 1;
      if (!b->quota.bytes.none()) b->bytes -= static_cast<double>(size);
    }
    return "";
  }
  // At most a day: a debt far beyond the rate (a huge reply on a limit
  // of bytes per day) is not worth a number that overflows.
  const auto wait_ms = static_cast<uint64_t>(
      std::ceil(std::min(wait_seconds, 86400.0) * 1000.0));
  refusal.replace(refusal.find("{}"), 2, std::to_string(wait_ms) + "ms");
  return refusal;
}

AccessControl::Verdict QuotaThrottle::Admit(const uint8_t* frame, size_t size,
                                            const Identity& caller,
                                            at::protocol::TProtocol* out,
                                            std::unique_ptr<Ticket>* ticket) {
  ticket->reset();
  if (caller.user.empty()) return AccessControl::Verdict::kPass;
  {
    const Quotas quotas = source_();
    if (quotas == nullptr || quotas->empty()) {
      return AccessControl::Verdict::kPass;
    }
  }
  std::string method, table;
  bool oneway = false;
  int32_t seqid = 0;
  if (!PeekCall(frame, size, &method, &table, &oneway, &seqid)) {
    return AccessControl::Verdict::kPass;  // the processor refuses it
  }
  auto charge = std::make_unique<Charge>();
  const std::string refusal = Take(caller.user, table, size, charge.get());
  if (refusal.empty()) {
    // Without a quota for the call there is nothing to settle.
    if (!charge->buckets.empty()) *ticket = std::move(charge);
    return AccessControl::Verdict::kPass;
  }
  if (oneway) return AccessControl::Verdict::kClose;
  WriteIOErrorReply(out, method, seqid, "RpcThrottlingException: " + refusal,
                    /*can_retry=*/true);
  return AccessControl::Verdict::kAnswered;
}

void QuotaThrottle::Settle(Ticket& ticket, uint64_t reply_bytes) {
  auto& charge = static_cast<Charge&>(ticket);
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::shared_ptr<Bucket>& b : charge.buckets) {
    if (!b->quota.bytes.none()) b->bytes -= static_cast<double>(reply_bytes);
  }
}

}  // namespace bloomroute::thrift_internal
