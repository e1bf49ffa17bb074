// ClaimMemberId: distinct ids for live sessions, the lowest free one, freed
// with the session, and a bound.
#include "coord/member_id.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "coord/fake_znode_store.h"

namespace bloomroute::coord {
namespace {

class MemberIdTest : public ::testing::Test {
 protected:
  ZnodeStore* NewSession() {
    sessions_.push_back(std::move(*zk_.Connect("/bloomroute/c1")));
    return sessions_.back().get();
  }

  FakeEnsemble zk_;
  std::vector<std::unique_ptr<ZnodeStore>> sessions_;
};

TEST_F(MemberIdTest, LiveSessionsGetTheLowestDistinctIds) {
  std::set<uint32_t> ids;
  for (int i = 0; i < 5; ++i) {
    StatusOr<uint32_t> id = ClaimMemberId(NewSession(), "/routers/ids", 100,
                                          "r" + std::to_string(i));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    ids.insert(*id);
  }
  EXPECT_EQ(ids, (std::set<uint32_t>{1, 2, 3, 4, 5}));
  // The node holds the claimant's data and is the session's.
  StatusOr<ZnodeData> node = sessions_[2]->Get("/routers/ids/3");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->data, "r2");
  EXPECT_EQ(node->ephemeral_owner, sessions_[2]->SessionId());
}

TEST_F(MemberIdTest, AnIdIsFreeAgainOnceItsSessionEnds) {
  ZnodeStore* a = NewSession();
  ZnodeStore* b = NewSession();
  ASSERT_EQ(ClaimMemberId(a, "/routers/ids", 100, "a").value(), 1u);
  ASSERT_EQ(ClaimMemberId(b, "/routers/ids", 100, "b").value(), 2u);
  zk_.ExpireSession(a->SessionId());
  zk_.DrainEvents();
  EXPECT_EQ(ClaimMemberId(NewSession(), "/routers/ids", 100, "c").value(), 1u);
  EXPECT_EQ(ClaimMemberId(NewSession(), "/routers/ids", 100, "d").value(), 3u);
}

TEST_F(MemberIdTest, OtherNamesAreIgnoredAndTheBoundIsKept) {
  ZnodeStore* s = NewSession();
  ASSERT_TRUE(MakePath(s, "/routers/ids").ok());
  ASSERT_TRUE(s->Create("/routers/ids/x1", "").ok());
  ASSERT_TRUE(s->Create("/routers/ids/0", "").ok());
  EXPECT_EQ(ClaimMemberId(s, "/routers/ids", 2, "a").value(), 1u);
  EXPECT_EQ(ClaimMemberId(NewSession(), "/routers/ids", 2, "b").value(), 2u);
  StatusOr<uint32_t> third =
      ClaimMemberId(NewSession(), "/routers/ids", 2, "c");
  EXPECT_TRUE(third.status().IsUnavailable()) << third.status().ToString();
  EXPECT_TRUE(ClaimMemberId(s, "/", 2, "a").status().IsInvalidArgument());
  EXPECT_TRUE(ClaimMemberId(s, "/r", 0, "a").status().IsInvalidArgument());
}

TEST_F(MemberIdTest, AnEnsembleThatIsDownIsTheError) {
  ZnodeStore* s = NewSession();
  zk_.Stop();
  StatusOr<uint32_t> id = ClaimMemberId(s, "/routers/ids", 10, "a");
  EXPECT_FALSE(id.ok());
  zk_.Start();
}

}  // namespace
}  // namespace bloomroute::coord
