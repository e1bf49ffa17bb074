// The region server's side of op pushes over RPC: an OpPushSinkFactory
// (regionstore/op_subscriptions.h) whose sinks call a router's
// OpPushService (op_push_service.thrift) at the address the router
// subscribed with.
//
// A sink connects lazily (Connect only parses the address: it runs under
// the subscriptions' lock) and keeps one connection (pushes to one router
// are one at a time). Each push waits at most
// ThriftClientOptions::call_timeout_ms to send and to be answered: a
// router that does not answer in time fails the push, and the writers
// waiting for it wait only for its lease to end (the store's contract).
// With client TLS options the connection is TLS and the router checks the
// server's certificate role as for any region-service peer.
//
// Thread-safety: the factory may be used concurrently; a sink by one
// thread at a time.
#ifndef BLOOMROUTE_THRIFT_OP_PUSH_SINK_H_
#define BLOOMROUTE_THRIFT_OP_PUSH_SINK_H_

#include <memory>

#include "regionstore/op_subscriptions.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {

// InvalidArgument (from Connect) for an address that is not "host:port"
// with a nonzero port.
std::shared_ptr<OpPushSinkFactory> NewThriftOpPushSinkFactory(
    const ThriftClientOptions& options);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_OP_PUSH_SINK_H_
