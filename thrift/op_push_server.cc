#include "thrift/op_push_server.h"

#include <utility>

#include "model/op_push.h"
#include "thrift/conversion/op_push_conversion.h"
#include "thrift/gen-cpp/OpPushService.h"
#include "thrift/internal/serve_call.h"
#include "thrift/server/access_control.h"

namespace bloomroute {
namespace {

class OpPushHandler final : public rpc::OpPushServiceIf {
 public:
  explicit OpPushHandler(OpPushServer::Apply apply)
      : apply_(std::move(apply)) {}

  void pushOps(const rpc::TOpPush& wire) override {
    thrift_internal::ServeCall("pushOps", [&]() -> Status {
      OpPush push;
      BLOOMROUTE_RETURN_IF_ERROR(FromThrift(wire, &push));
      return apply_(push);
    });
  }

 private:
  const OpPushServer::Apply apply_;
};

}  // namespace

StatusOr<std::unique_ptr<OpPushServer>> OpPushServer::Start(
    Apply apply, const ServerOptions& options) {
  if (!apply) return Status::InvalidArgument("no router to push to");
  std::unique_ptr<OpPushServer> server(new OpPushServer());
  // Region servers push: the role their RegionService calls need.
  BLOOMROUTE_RETURN_IF_ERROR(
      server->Serve(std::make_shared<rpc::OpPushServiceProcessor>(
                        std::make_shared<OpPushHandler>(std::move(apply))),
                    options, "OpPushServer",
                    thrift_internal::AccessControl::ForRegionService()));
  return server;
}

}  // namespace bloomroute
