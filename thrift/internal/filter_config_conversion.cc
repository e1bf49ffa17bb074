#include "thrift/internal/filter_config_conversion.h"

#include "thrift/conversion/region_conversion.h"

namespace bloomroute {
namespace thrift_internal {

Status FilterConfigFromThrift(const rpc::TFilterConfig& in, FailFn fail,
                              const std::string& f, SscbfConfig* out) {
  const std::pair<bool, const char*> fields[] = {
      {in.__isset.targetFpr, ".targetFpr"},
      {in.__isset.tighteningRatio, ".tighteningRatio"},
      {in.__isset.growthFactor, ".growthFactor"},
      {in.__isset.initialCapacity, ".initialCapacity"},
      {in.__isset.baseBits, ".baseBits"},
      {in.__isset.fullFill, ".fullFill"}};
  for (const auto& [isset, name] : fields) {
    BLOOMROUTE_RETURN_IF_ERROR(Require(isset, fail, f + name));
  }
  SscbfConfig c;
  c.target_fpr = in.targetFpr;
  c.tightening_ratio = in.tighteningRatio;
  c.growth_factor = in.growthFactor;
  c.full_fill = in.fullFill;
  BLOOMROUTE_RETURN_IF_ERROR(Narrow(
      in.initialCapacity, fail, f + ".initialCapacity", &c.initial_capacity));
  BLOOMROUTE_RETURN_IF_ERROR(
      Narrow(in.baseBits, fail, f + ".baseBits", &c.base_bits));
  const Status valid = c.Validate();
  if (!valid.ok()) return fail(f + ": " + valid.message());
  *out = c;
  return Status::OK();
}

}  // namespace thrift_internal

Status FromThrift(const rpc::TFilterConfig& in, SscbfConfig* out) {
  return thrift_internal::FilterConfigFromThrift(
      in, thrift_internal::kBadRequest, "config", out);
}

Status ToThrift(const SscbfConfig& in, rpc::TFilterConfig* out) {
  int64_t capacity = 0;
  int32_t base_bits = 0;
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::Widen(
      in.initial_capacity, "initial_capacity", &capacity));
  BLOOMROUTE_RETURN_IF_ERROR(
      thrift_internal::Widen(in.base_bits, "base_bits", &base_bits));
  out->__set_targetFpr(in.target_fpr);
  out->__set_tighteningRatio(in.tightening_ratio);
  out->__set_growthFactor(in.growth_factor);
  out->__set_initialCapacity(capacity);
  out->__set_baseBits(base_bits);
  out->__set_fullFill(in.full_fill);
  // __set_ marks only optional fields; a receiver in this process (tests,
  // the router's own status) checks __isset as one over the wire would.
  out->__isset.targetFpr = out->__isset.tighteningRatio = true;
  out->__isset.growthFactor = out->__isset.initialCapacity = true;
  out->__isset.baseBits = out->__isset.fullFill = true;
  return Status::OK();
}

}  // namespace bloomroute
