#include "router/op_subscriber.h"

#include <limits>
#include <random>
#include <string>
#include <utility>

namespace bloomroute::router {

namespace {
constexpr uint64_t kMaxServerTag = std::numeric_limits<ServerId>::max();
}  // namespace

OpSubscriber::OpSubscriber(GlobalIndex* index, Options options)
    : index_(index), options_(std::move(options)) {
  if (options_.session == 0) {
    std::random_device rd;
    options_.session = (uint64_t{rd()} << 32 | rd()) | 1;
  }
}

Status OpSubscriber::Renew(ServerId server, RegionClient& client) {
  OpSubscribeRequest request;
  request.router_id = options_.router_id;
  request.session = options_.session;
  request.address = options_.push_address;
  request.lease_ms = options_.lease_ms;
  request.tag = server;
  // Before the request leaves: the server's lease starts later.
  const int64_t sent = options_.clock();
  StatusOr<OpSubscribeGrant> grant = client.SubscribeOps(request);
  if (!grant.ok()) return grant.status();
  if (grant->lease_ms != options_.lease_ms) {
    return Status::Corruption(
        "the server granted a lease of " + std::to_string(grant->lease_ms) +
        " ms; asked for " + std::to_string(options_.lease_ms));
  }
  if (!grant->renewed) {
    // Ops may have been missed before this grant: current again only
    // after a catch-up that starts after it. Stale first, lease second,
    // so that no lookup sees a valid lease on a replica that missed ops.
    BLOOMROUTE_RETURN_IF_ERROR(index_->MarkStale(server));
  }
  index_->SetLease(server,
                   sent + options_.lease_ms - LeaseMarginMs(options_.lease_ms));
  std::lock_guard<std::mutex> lock(mu_);
  granted_at_[server] = sent;
  return Status::OK();
}

bool OpSubscriber::RenewalDue(ServerId server) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = granted_at_.find(server);
  return it == granted_at_.end() ||
         options_.clock() - it->second >= options_.lease_ms / 3;
}

Status OpSubscriber::OnPush(const OpPush& push) {
  if (push.result.ops.size() > kMaxOpsPerPush) {
    return Status::InvalidArgument(
        "a push of " + std::to_string(push.result.ops.size()) +
        " ops; at most " + std::to_string(kMaxOpsPerPush));
  }
  if (push.tag > kMaxServerTag) {
    return Status::NotFound("push for unknown server tag " +
                            std::to_string(push.tag));
  }
  StatusOr<bool> applied =
      index_->ApplyWriteResult(static_cast<ServerId>(push.tag), push.result);
  if (!applied.ok()) return applied.status();
  return Status::OK();
}

}  // namespace bloomroute::router
