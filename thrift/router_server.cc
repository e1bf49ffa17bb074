#include "thrift/router_server.h"

#include <utility>

#include "thrift/gen-cpp/RouterService.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

StatusOr<std::unique_ptr<RouterServer>> RouterServer::Start(
    std::shared_ptr<router::Router> router,
    const RouterServerOptions& options) {
  if (router == nullptr) return Status::InvalidArgument("no router to serve");
  std::unique_ptr<RouterServer> server(new RouterServer());
  // A handler per connection: it owns the connection's scanners.
  BLOOMROUTE_RETURN_IF_ERROR(server->Serve(
      std::make_shared<rpc::client::RouterServiceProcessorFactory>(
          std::make_shared<RouterServiceHandlerFactory>(std::move(router))),
      options, "RouterServer"));
  return server;
}

}  // namespace bloomroute
