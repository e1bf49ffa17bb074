#include "thrift/internal/checked_conversion.h"

namespace bloomroute::thrift_internal {

std::string At(const std::string& prefix, size_t i) {
  return prefix + "[" + std::to_string(i) + "]";
}

Status Require(bool isset, FailFn fail, const std::string& field) {
  return isset ? Status::OK() : fail(field + " is missing");
}

Status RequireAll(FailFn fail, const std::string& f,
                  std::initializer_list<std::pair<bool, const char*>> fields) {
  for (const auto& [isset, name] : fields) {
    if (!isset) return fail(f + name + " is missing");
  }
  return Status::OK();
}

}  // namespace bloomroute::thrift_internal
