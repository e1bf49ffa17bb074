#include "thrift/region_server.h"

#include <utility>

#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_service_handler.h"
#include "thrift/server/access_control.h"

namespace bloomroute {

StatusOr<std::unique_ptr<RegionServer>> RegionServer::Start(
    std::shared_ptr<RegionStore> store, const RegionServerOptions& options) {
  if (store == nullptr) return Status::InvalidArgument("no store to serve");
  std::unique_ptr<RegionServer> server(new RegionServer());
  BLOOMROUTE_RETURN_IF_ERROR(server->Serve(
      std::make_shared<rpc::RegionServiceProcessor>(
          std::make_shared<RegionServiceHandler>(std::move(store))),
      options, "RegionServer",
      thrift_internal::AccessControl::ForRegionService()));
  return server;
}

}  // namespace bloomroute
