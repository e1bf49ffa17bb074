// OpPushService: what a router serves to the region servers it subscribed
// to (RegionService.subscribeOps): each pushes the filter ops it commits,
// in order, and acknowledges the writes that made them only once the
// router answered (model/op_push.h; router/op_subscriber.h).
//
// A push is untrusted input like any reply: a tag naming no server the
// router subscribed to is TIOError "NotFound: ...", more than 1,000,000 ops
// TIllegalArgument; ops that do not follow what the router holds are not
// applied (the router then catches up from the server).

include "errors.thrift"
include "region_service.thrift"

namespace cpp bloomroute.rpc
namespace py bloomroute.rpc.op_push_service

struct TOpPush {
  1: i64 tag       // the subscription's (TOpSubscribeRequest.tag; bits)
  2: i64 afterSeq  // the ops follow this seq of result.epoch
  // The ops (result.ops), the filter's run and epoch, and its newest op;
  // outcomes unset.
  3: region_service.TWriteResult result
}

service OpPushService {
  // OK once the router applied the push to its replica of the server's
  // filter (or recorded that the replica is behind).
  void pushOps(1: TOpPush push)
      throws (1: errors.TIOError io, 2: errors.TIllegalArgument ia)
}
