#include "thrift/internal/checked_conversion.h"

namespace bloomroute::thrift_internal {

std::string At(const std::string& prefix, size_t i) {
  return prefix + "[" + std::to_string(i) + "]";
}

Status Require(bool isset, FailFn fail, const std::string& field) {
  return isset ? Status::OK() : fail(field + " is missing");
}

}  // namespace bloomroute::thrift_internal
