#include "model/region_protocol.h"

namespace bloomroute {

const char* RegionStateName(RegionState state) {
  switch (state) {
    case RegionState::kOpen:
      return "open";
    case RegionState::kClosed:
      return "closed";
    case RegionState::kDropping:
      return "dropping";
    case RegionState::kStaged:
      return "staged";
  }
  return "unknown";
}

}  // namespace bloomroute
