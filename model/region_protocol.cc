#include "model/region_protocol.h"

#include <string>

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

namespace {

// The refusal's fixed part: what IsCoordinatorEpochRefused recognizes.
constexpr std::string_view kCoordinatorEpochRefused =
    ": another router coordinates this cluster now";

}  // namespace

Status CoordinatorEpochRefused(uint64_t sent, uint64_t seen) {
  return Status::Aborted("coordinator epoch " + std::to_string(sent) +
                         " is older than " + std::to_string(seen) +
                         std::string(kCoordinatorEpochRefused));
}

bool IsCoordinatorEpochRefused(const Status& status) {
  return status.IsAborted() &&
         status.message().find(kCoordinatorEpochRefused) != std::string::npos;
}

}  // namespace bloomroute
