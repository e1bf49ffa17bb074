#include "tools/op_push_flags.h"

#include <algorithm>
#include <utility>

#include "model/op_push.h"
#include "thrift/op_push_sink.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {

void RegionServerOpPushFlags::Add(OptionTable* table) {
  table->Switch("op-push", &enabled_,
                "accept op subscriptions from routers (several routers "
                "over one cluster): push each the filter ops this server "
                "commits, and acknowledge a write only once every router "
                "with a live lease holds them");
  table
      ->Integer("max-op-lease", &max_lease_ms_,
                RegionStoreOptions().max_op_lease_ms,
                "the longest op subscription lease granted; with --op-push, "
                "writes wait this long plus a tenth after a start before "
                "they are acknowledged (a router may still trust a lease "
                "the previous run granted)")
      .Unit(OptionUnit::kMilliseconds)
      .Range(OpSubscribeRequest::kMinLeaseMs, OpSubscribeRequest::kMaxLeaseMs);
}

Status RegionServerOpPushFlags::Apply(const ServerOptions& server,
                                      RegionStoreOptions* store) const {
  store->max_op_lease_ms = max_lease_ms_;
  if (!enabled_) return Status::OK();
  ThriftClientOptions client;
  client.max_frame_bytes = server.max_frame_bytes;
  client.max_decoded_bytes = server.max_decoded_bytes;
  client.tls = server.tls;
  // A push that takes longer than a lease is pointless: the writers it
  // holds are released when the lease ends anyway.
  client.call_timeout_ms = static_cast<int>(max_lease_ms_);
  client.connect_timeout_ms = static_cast<int>(
      std::min<int64_t>(client.connect_timeout_ms, max_lease_ms_));
  BLOOMROUTE_RETURN_IF_ERROR(client.Validate());
  store->op_push_sinks = NewThriftOpPushSinkFactory(client);
  return Status::OK();
}

void OpPushTarget::Set(std::shared_ptr<router::Router> router) {
  std::lock_guard<std::mutex> lock(mu_);
  router_ = std::move(router);
}

Status OpPushTarget::Apply(const OpPush& push) {
  std::shared_ptr<router::Router> router;
  {
    std::lock_guard<std::mutex> lock(mu_);
    router = router_;
  }
  if (router == nullptr) {
    return Status::Unavailable("the router is not serving yet");
  }
  return router->ApplyOpPush(push);
}

void RouterOpPushFlags::Add(OptionTable* table) {
  using R = router::RouterOptions;
  table
      ->String("op-push-listen", &listen_,
               "serve op pushes here and subscribe to every region server "
               "(several routers over one cluster; the region servers run "
               "with --op-push); off: one router, whose replicas follow its "
               "own writes")
      .ValueName("HOST:PORT");
  table
      ->String("op-push-advertise", &advertise_,
               "the address region servers push to (default: "
               "--op-push-listen's, required when its host is a wildcard)")
      .ValueName("HOST:PORT");
  table
      ->Integer("op-lease", &lease_ms_, R().op_lease_ms,
                "the op subscription lease asked for; within every region "
                "server's --max-op-lease")
      .Unit(OptionUnit::kMilliseconds)
      .Range(R::kOpLeaseMsRange.min, R::kOpLeaseMsRange.max);
  table
      ->Integer("router-id", &router_id_, 0,
                "this router's id in its write fence tokens, distinct per "
                "live router; 0: 1 alone, claimed in ZooKeeper with "
                "--zookeeper")
      .Range(0, R::kRouterIdRange.max);
}

namespace {

bool WildcardHost(const std::string& host) {
  return host == "0.0.0.0" || host == "::" || host.empty();
}

}  // namespace

Status RouterOpPushFlags::Validate(router::RouterOptions* options) const {
  options->op_lease_ms = static_cast<uint32_t>(lease_ms_);
  if (router_id_ != 0) options->router_id = router_id_;
  if (listen_.empty()) {
    if (!advertise_.empty()) {
      return Status::InvalidArgument(
          "--op-push-advertise needs --op-push-listen");
    }
    return Status::OK();
  }
  // Leases are renewed by maintenance once a third of one has passed:
  // it runs at least four times a lease.
  options->maintenance_interval_ms = static_cast<int>(
      std::min<int64_t>(options->maintenance_interval_ms, lease_ms_ / 4));
  std::string host;
  int port = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(listen_, &host, &port)
                                 .WithContext("--op-push-listen"));
  if (!advertise_.empty()) {
    std::string ahost;
    int aport = 0;
    BLOOMROUTE_RETURN_IF_ERROR(ParseListenAddress(advertise_, &ahost, &aport)
                                   .WithContext("--op-push-advertise"));
    if (aport == 0 || WildcardHost(ahost)) {
      return Status::InvalidArgument(
          "--op-push-advertise " + advertise_ +
          ": region servers need a host and a port to push to");
    }
  } else if (WildcardHost(host)) {
    return Status::InvalidArgument(
        "--op-push-listen " + listen_ +
        " listens on every address: say which one region servers push to "
        "with --op-push-advertise");
  }
  return Status::OK();
}

StatusOr<std::unique_ptr<OpPushServer>> RouterOpPushFlags::Start(
    const ServerOptions& server, OpPushServer::Apply apply,
    router::RouterOptions* options) const {
  ServerOptions push = server;
  BLOOMROUTE_RETURN_IF_ERROR(
      ParseListenAddress(listen_, &push.host, &push.port));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<OpPushServer> started,
                              OpPushServer::Start(std::move(apply), push));
  options->op_push_address =
      advertise_.empty() ? FormatHostPort(started->host(), started->port())
                         : advertise_;
  return started;
}

}  // namespace bloomroute
