#include "thrift/op_push_sink.h"

#include <string>
#include <utility>

#include "thrift/conversion/op_push_conversion.h"
#include "thrift/gen-cpp/OpPushService.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/client_pool.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

using Service = rpc::OpPushServiceClient;

class ThriftOpPushSink final : public OpPushSink {
 public:
  ThriftOpPushSink(std::string address, std::string host, int port,
                   const ThriftClientOptions& options)
      : where_("router " + address + ": pushOps: "),
        pool_(std::move(host), port, options) {}

  Status Push(const OpPush& push) override {
    rpc::TOpPush wire;
    BLOOMROUTE_RETURN_IF_ERROR(
        thrift_internal::Unsendable(ToThrift(push, &wire)));
    return pool_.Call(where_, [&](Service& s) { s.pushOps(wire); });
  }

 private:
  const std::string where_;
  thrift_internal::ClientPool<Service> pool_;
};

class ThriftOpPushSinkFactory final : public OpPushSinkFactory {
 public:
  explicit ThriftOpPushSinkFactory(const ThriftClientOptions& options)
      : options_(options) {}

  StatusOr<std::unique_ptr<OpPushSink>> Connect(
      uint64_t /*router_id*/, const std::string& address) override {
    BLOOMROUTE_RETURN_IF_ERROR(options_.Validate());
    std::string host;
    int port = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseDialAddress(address, "router push address", &host, &port));
    return std::unique_ptr<OpPushSink>(std::make_unique<ThriftOpPushSink>(
        address, std::move(host), port, options_));
  }

 private:
  const ThriftClientOptions options_;
};

}  // namespace

std::shared_ptr<OpPushSinkFactory> NewThriftOpPushSinkFactory(
    const ThriftClientOptions& options) {
  return std::make_shared<ThriftOpPushSinkFactory>(options);
}

}  // namespace bloomroute
