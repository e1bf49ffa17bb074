// TFilterConfig <-> SscbfConfig, shared by the request (setFilterConfig) and
// the result (TFilterStatus.config) conversions of
// conversion/region_conversion.h.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_FILTER_CONFIG_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_FILTER_CONFIG_CONVERSION_H_

#include <string>

#include "common/status.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "thrift/gen-cpp/region_service_types.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute::thrift_internal {

// Every field present, integers in range and the config valid
// (SscbfConfig::Validate); otherwise fail(...) naming the field under `f`
// ("config.baseBits is missing") or saying why the config is invalid.
// `out` is written only on success.
Status FilterConfigFromThrift(const rpc::TFilterConfig& in, FailFn fail,
                              const std::string& f, SscbfConfig* out);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_FILTER_CONFIG_CONVERSION_H_
