// Conversions of op subscriptions and pushes (model/op_push.h) to and from
// the Thrift structs of region_service.thrift (TOpSubscribeRequest,
// TOpSubscribeGrant) and op_push_service.thrift (TOpPush), with the checks
// of region_conversion.h: a request that fails one is InvalidArgument
// naming the field, a reply Corruption. A push is a request to the router
// (the region server sends it), so a malformed one is InvalidArgument.
// Ids and lease lengths are range-checked here; what they mean is checked
// by the store (OpSubscriptions) and the router (OpSubscriber).
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_OP_PUSH_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_OP_PUSH_CONVERSION_H_

#include "common/status.h"
#include "model/op_push.h"
#include "thrift/gen-cpp/op_push_service_types.h"
#include "thrift/gen-cpp/region_service_types.h"

namespace bloomroute {

// The router's request (client side) and the server's reading of it.
Status ToThrift(const OpSubscribeRequest& in, rpc::TOpSubscribeRequest* out);
Status FromThrift(const rpc::TOpSubscribeRequest& in, OpSubscribeRequest* out);

// The server's grant and the router's reading of it.
Status ToThrift(const OpSubscribeGrant& in, rpc::TOpSubscribeGrant* out);
Status FromThrift(const rpc::TOpSubscribeGrant& in, OpSubscribeGrant* out);

// A push: the region server's side and the router's.
Status ToThrift(const OpPush& in, rpc::TOpPush* out);
Status FromThrift(const rpc::TOpPush& in, OpPush* out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_CONVERSION_OP_PUSH_CONVERSION_H_
