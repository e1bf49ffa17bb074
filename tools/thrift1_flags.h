// The router's Thrift1 port: HBase's older Thrift API (service Hbase, what
// happybase speaks; thrift/hbase1_server.h), served beside the router's own
// port over the same router.
//
//   --thrift1-listen HOST:PORT  serve it there (port 0 picks a free port);
//                               not served when absent (the default)
//
// The port takes the router's --listen settings (threads, frame and decoded
// bounds, timeouts, connection limits, TLS); off loopback it needs TLS or
// --insecure, as --listen does.
#ifndef BLOOMROUTE_TOOLS_THRIFT1_FLAGS_H_
#define BLOOMROUTE_TOOLS_THRIFT1_FLAGS_H_

#include <memory>
#include <string>

#include "common/statusor.h"
#include "router/router.h"
#include "thrift/hbase1_server.h"
#include "thrift/router_server.h"
#include "tools/option_table.h"

namespace bloomroute {

class Thrift1Flags {
 public:
  void Add(OptionTable* table);
  // The Thrift1 port's options from the router port's (`router_port`, its
  // TLS already set) and --insecure: InvalidArgument for an address that
  // does not parse, or one off loopback without TLS or --insecure.
  [[nodiscard]] Status Validate(const ServerOptions& router_port,
                                bool insecure);
  bool enabled() const { return !listen_.empty(); }
  // Serves `router`, its quotas counted in `router_port`'s buckets; null
  // when not enabled().
  StatusOr<std::unique_ptr<Hbase1Server>> Start(
      std::shared_ptr<router::Router> router,
      const RouterServer& router_port) const;

 private:
  std::string listen_;
  ServerOptions options_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_THRIFT1_FLAGS_H_
