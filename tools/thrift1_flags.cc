#include "tools/thrift1_flags.h"

#include <utility>

#include "thrift/server/security.h"

namespace bloomroute {

void Thrift1Flags::Add(OptionTable* table) {
  table
      ->String("thrift1-listen", &listen_,
               "also serve HBase's Thrift1 API (happybase's) on HOST:PORT, "
               "with --listen's limits and TLS; port 0 picks a free port; "
               "off when absent")
      .ValueName("HOST:PORT");
}

Status Thrift1Flags::Validate(const ServerOptions& router_port, bool insecure) {
  if (!enabled()) return Status::OK();
  options_ = router_port;
  BLOOMROUTE_RETURN_IF_ERROR(
      ParseListenAddress(listen_, &options_.host, &options_.port)
          .WithContext("--thrift1-listen"));
  if (!options_.tls.enabled() && !insecure && !IsLoopbackHost(options_.host)) {
    return Status::InvalidArgument(
        "--thrift1-listen " + listen_ +
        " is not a loopback address: give --tls-ca, --tls-cert and --tls-key "
        "to serve TLS, or --insecure to serve in the clear");
  }
  return Status::OK();
}

StatusOr<std::unique_ptr<Hbase1Server>> Thrift1Flags::Start(
    std::shared_ptr<router::Router> router,
    const RouterServer& router_port) const {
  if (!enabled()) return std::unique_ptr<Hbase1Server>();
  return Hbase1Server::Start(std::move(router), options_,
                             router_port.throttle());
}

}  // namespace bloomroute
