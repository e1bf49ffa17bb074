#include "thrift/hbase1_server.h"

#include <utility>

#include "thrift/gen-cpp/Hbase.h"
#include "thrift/hbase1_service_handler.h"
#include "thrift/server/access_control.h"
#include "thrift/server/grant_check.h"
#include "thrift/server/quota_throttle.h"

namespace bloomroute {

StatusOr<std::unique_ptr<Hbase1Server>> Hbase1Server::Start(
    std::shared_ptr<router::Router> router, const ServerOptions& options,
    std::shared_ptr<thrift_internal::CallThrottle> throttle) {
  if (router == nullptr) return Status::InvalidArgument("no router to serve");
  std::unique_ptr<Hbase1Server> server(new Hbase1Server());
  std::shared_ptr<const thrift_internal::AccessControl> access =
      thrift_internal::AccessControl::ForHbase1Service(
          std::make_shared<thrift_internal::RouterGrantCheck>(
              [router] { return router->Grants(); },
              thrift_internal::GrantApi::kThrift1));
  // Quotas name principals, which only TLS gives.
  if (!options.tls.enabled()) {
    throttle = nullptr;
  } else if (throttle == nullptr) {
    throttle = std::make_shared<thrift_internal::QuotaThrottle>(
        [router] { return router->Quotas(); },
        [router](int64_t scanner) { return router->ScannerTable(scanner); });
  }
  ServerOptions serving = options;
  if (serving.slow_calls == nullptr) {
    serving.slow_calls = std::make_shared<SlowCallLog>();
  }
  // A handler per connection: it owns the connection's scanners.
  BLOOMROUTE_RETURN_IF_ERROR(server->Serve(
      std::make_shared<rpc::hbase1::HbaseProcessorFactory>(
          std::make_shared<Hbase1ServiceHandlerFactory>(
              std::move(router),
              HandlerServices{serving.slow_calls, nullptr, nullptr})),
      serving, "Hbase1Server", std::move(access), std::move(throttle)));
  return server;
}

}  // namespace bloomroute
