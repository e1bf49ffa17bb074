// The region protocol's names, which logs and `bloomroute admin regions` print.
#include "model/region_protocol.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace bloomroute {
namespace {

TEST(RegionProtocolTest, EveryRegionStateHasItsOwnName) {
  std::set<std::string> names;
  for (int i = 0; i < kRegionStateCount; ++i) {
    names.insert(RegionStateName(static_cast<RegionState>(i)));
  }
  EXPECT_EQ(names,
            (std::set<std::string>{"open", "closed", "dropping", "staged"}));
  EXPECT_STREQ(RegionStateName(static_cast<RegionState>(kRegionStateCount)),
               "unknown");
}

}  // namespace
}  // namespace bloomroute
