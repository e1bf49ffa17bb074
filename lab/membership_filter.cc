#include "lab/membership_filter.h"

#include <string>

namespace bloomroute {

Status MembershipFilter::Remove(const ElementHash&) {
  return Status::InvalidArgument(std::string(name()) +
                                 " does not support remove");
}

}  // namespace bloomroute
