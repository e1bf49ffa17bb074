#include "router/quota.h"

namespace bloomroute::router {
namespace {

Status ValidateLimit(const QuotaLimit& limit, const char* what) {
  if (limit.none()) return Status::OK();
  if (limit.amount > Quota::kMaxAmount) {
    return Status::InvalidArgument(
        std::string("quota: ") + what + " " + std::to_string(limit.amount) +
        " is over the limit of " + std::to_string(Quota::kMaxAmount));
  }
  if (limit.seconds < 1 || limit.seconds > Quota::kMaxSeconds) {
    return Status::InvalidArgument(std::string("quota: the period of ") + what +
                                   " is " + std::to_string(limit.seconds) +
                                   " s, not in [1, " +
                                   std::to_string(Quota::kMaxSeconds) + "]");
  }
  return Status::OK();
}

}  // namespace

Status ValidateQuota(const Quota& quota) {
  if (quota.user.empty()) {
    return Status::InvalidArgument("quota: the user is empty");
  }
  if (quota.user.size() > Quota::kMaxUserBytes) {
    return Status::InvalidArgument("quota: the user is over " +
                                   std::to_string(Quota::kMaxUserBytes) +
                                   " bytes");
  }
  if (quota.table.size() > Quota::kMaxTableBytes) {
    return Status::InvalidArgument("quota: the table is over " +
                                   std::to_string(Quota::kMaxTableBytes) +
                                   " bytes");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLimit(quota.requests, "requests"));
  return ValidateLimit(quota.bytes, "bytes");
}

}  // namespace bloomroute::router
