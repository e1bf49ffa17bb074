#include "thrift/conversion/op_push_conversion.h"

#include <cstdint>
#include <string>

#include "thrift/conversion/region_conversion.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute {

using thrift_internal::kBadRequest;
using thrift_internal::kBadResult;
using thrift_internal::Narrow;
using thrift_internal::RequireAll;
using thrift_internal::Widen;

Status ToThrift(const OpSubscribeRequest& in, rpc::TOpSubscribeRequest* out) {
  int64_t router_id = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.router_id, "routerId", &router_id));
  out->__set_routerId(router_id);
  out->__set_session(static_cast<int64_t>(in.session));
  out->__set_address(in.address);
  out->__set_leaseMs(in.lease_ms);
  out->__set_tag(static_cast<int64_t>(in.tag));
  return Status::OK();
}

Status FromThrift(const rpc::TOpSubscribeRequest& in, OpSubscribeRequest* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, "request",
                                        {{in.__isset.routerId, ".routerId"},
                                         {in.__isset.session, ".session"},
                                         {in.__isset.address, ".address"},
                                         {in.__isset.leaseMs, ".leaseMs"},
                                         {in.__isset.tag, ".tag"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.routerId, kBadRequest, "request.routerId", &out->router_id));
  out->session = static_cast<uint64_t>(in.session);
  out->address = in.address;
  if (in.leaseMs < 0) {
    return Status::InvalidArgument("request.leaseMs is negative (" +
                                   std::to_string(in.leaseMs) + ")");
  }
  out->lease_ms = in.leaseMs;
  out->tag = static_cast<uint64_t>(in.tag);
  return Status::OK();
}

Status ToThrift(const OpSubscribeGrant& in, rpc::TOpSubscribeGrant* out) {
  out->__set_renewed(in.renewed);
  out->__set_incarnation(static_cast<int64_t>(in.incarnation));
  int64_t epoch = 0, last_seq = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.epoch, "epoch", &epoch));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.last_seq, "lastSeq", &last_seq));
  out->__set_epoch(epoch);
  out->__set_lastSeq(last_seq);
  out->__set_leaseMs(in.lease_ms);
  return Status::OK();
}

Status FromThrift(const rpc::TOpSubscribeGrant& in, OpSubscribeGrant* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadResult, "grant",
                 {{in.__isset.renewed, ".renewed"},
                  {in.__isset.incarnation, ".incarnation"},
                  {in.__isset.epoch, ".epoch"},
                  {in.__isset.lastSeq, ".lastSeq"},
                  {in.__isset.leaseMs, ".leaseMs"}}));
  out->renewed = in.renewed;
  out->incarnation = static_cast<uint64_t>(in.incarnation);
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.epoch, kBadResult, "grant.epoch", &out->epoch));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.lastSeq, kBadResult, "grant.lastSeq", &out->last_seq));
  if (in.leaseMs < 0) {
    return Status::Corruption("grant.leaseMs is negative (" +
                              std::to_string(in.leaseMs) + ")");
  }
  out->lease_ms = in.leaseMs;
  return Status::OK();
}

Status ToThrift(const OpPush& in, rpc::TOpPush* out) {
  out->__set_tag(static_cast<int64_t>(in.tag));
  int64_t after_seq = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.after_seq, "afterSeq", &after_seq));
  out->__set_afterSeq(after_seq);
  out->__isset.result = true;
  return ToThrift(in.result, &out->result);
}

Status FromThrift(const rpc::TOpPush& in, OpPush* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, "push",
                                        {{in.__isset.tag, ".tag"},
                                         {in.__isset.afterSeq, ".afterSeq"},
                                         {in.__isset.result, ".result"}}));
  out->tag = static_cast<uint64_t>(in.tag);
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.afterSeq, kBadRequest, "push.afterSeq", &out->after_seq));
  // The result is checked as a reply is (Corruption): here the region
  // server is the caller, so its mistakes are InvalidArgument.
  const Status result = FromThrift(in.result, &out->result);
  if (!result.ok()) return Status::InvalidArgument("push." + result.message());
  return Status::OK();
}

}  // namespace bloomroute
