#include "thrift/router_server.h"

#include <utility>

#include "thrift/gen-cpp/RouterService.h"
#include "thrift/router_service_handler.h"
#include "thrift/server/access_control.h"
#include "thrift/server/grant_check.h"
#include "thrift/server/quota_throttle.h"

namespace bloomroute {

StatusOr<std::unique_ptr<RouterServer>> RouterServer::Start(
    std::shared_ptr<router::Router> router,
    const RouterServerOptions& options) {
  if (router == nullptr) return Status::InvalidArgument("no router to serve");
  if (!options.token_file.empty() && !options.tls.enabled()) {
    return Status::InvalidArgument(
        "--token-file needs TLS (--tls-ca, --tls-cert, --tls-key): a token "
        "must not cross the network in the clear");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::shared_ptr<thrift_internal::AccessControl> access,
      thrift_internal::AccessControl::ForRouterService(
          options.token_file,
          std::make_shared<thrift_internal::RouterGrantCheck>(
              [router] { return router->Grants(); })));
  std::unique_ptr<RouterServer> server(new RouterServer());
  if (options.tls.enabled()) {
    server->access_ = access;
    server->token_file_ = options.token_file;
  }
  // Quotas name principals, which only TLS gives.
  std::shared_ptr<thrift_internal::QuotaThrottle> throttle;
  if (options.tls.enabled()) {
    throttle = std::make_shared<thrift_internal::QuotaThrottle>(
        [router] { return router->Quotas(); },
        [router](int64_t scanner) { return router->ScannerTable(scanner); });
  }
  server->throttle_ = throttle;
  // The slow calls the server sees, for HBase's getSlowLogResponses.
  RouterServerOptions serving = options;
  if (serving.slow_calls == nullptr) {
    serving.slow_calls = std::make_shared<SlowCallLog>();
  }
  // A handler per connection: it owns the connection's scanners.
  BLOOMROUTE_RETURN_IF_ERROR(server->Serve(
      std::make_shared<rpc::client::RouterServiceProcessorFactory>(
          std::make_shared<RouterServiceHandlerFactory>(
              std::move(router),
              HandlerServices{serving.slow_calls, options.cluster_members,
                              nullptr})),
      serving, "RouterServer", std::move(access), std::move(throttle)));
  return server;
}

StatusOr<size_t> RouterServer::ReloadTokenFile() {
  if (access_ == nullptr || token_file_.empty()) return size_t{0};
  BLOOMROUTE_RETURN_IF_ERROR(access_->ReloadTokens(token_file_));
  return access_->token_count();
}

bool RouterServer::AcceptsToken(const std::string& token) const {
  if (access_ == nullptr || token.empty()) return false;
  return access_->IdentityOfToken(token).role != Role::kNone;
}

}  // namespace bloomroute
