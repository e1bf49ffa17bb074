// NewClusterId: random version-4 UUID strings; IsClusterId: what a catalog
// accepts.
#include "router/cluster_id.h"

#include <gtest/gtest.h>

#include <set>

namespace bloomroute::router {
namespace {

TEST(ClusterIdTest, NewIdsAreVersion4UuidsAndDiffer) {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    StatusOr<std::string> id = NewClusterId();
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ASSERT_EQ(id->size(), kClusterIdBytes);
    EXPECT_TRUE(IsClusterId(*id)) << *id;
    EXPECT_EQ((*id)[14], '4') << *id;  // version
    EXPECT_NE(std::string("89ab").find((*id)[19]), std::string::npos) << *id;
    seen.insert(*id);
  }
  // 122 random bits each: a repeat in 64 would be a broken source.
  EXPECT_EQ(seen.size(), 64u);
}

TEST(ClusterIdTest, OnlyUuidStringsAreAccepted) {
  EXPECT_TRUE(IsClusterId("3F1C2A9E-7B4D-4E8F-9A01-23456789ABCD"));
  EXPECT_FALSE(IsClusterId(""));
  EXPECT_FALSE(IsClusterId("3f1c2a9e7b4d4e8f9a0123456789abcd"));
  EXPECT_FALSE(IsClusterId("3f1c2a9e-7b4d-4e8f-9a01-23456789abcg"));
  EXPECT_FALSE(IsClusterId("3f1c2a9e-7b4d-4e8f-9a01+23456789abcd"));
  EXPECT_TRUE(CheckClusterId("x").IsInvalidArgument());
}

}  // namespace
}  // namespace bloomroute::router
