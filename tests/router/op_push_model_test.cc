// Invariant 1 across routers (model/op_push.h): a lookup on any router that
// starts after a write was acknowledged by any router returns the row --
// with pushes lost, leases lapsing, routers restarted under new ids and
// writes in doubt -- checked scenario by scenario and by a randomized run
// against an exact model. OpPushCluster (op_push_cluster.h) has the
// routers' write paths and global indexes over in-process stores.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tests/router/op_push_cluster.h"

namespace bloomroute::testing {
namespace {

Mutation PutCountry(const std::string& row, const std::string& country) {
  const int s = OpPushStoreOf(row);
  return PutPlace(s + 1, row, country, "PPL");
}

std::set<std::string> Found(OpPushRouterHead& head, const std::string& c,
                            int* asked = nullptr) {
  int n = 0;
  StatusOr<std::set<std::string>> rows = head.Lookup(c, &n);
  EXPECT_TRUE(rows.ok()) << rows.status().ToString();
  if (asked != nullptr) *asked = n;
  return rows.ok() ? *rows : std::set<std::string>{};
}

void MaintainAll(OpPushCluster& cluster) {
  for (int r = 0; r < cluster.routers(); ++r) cluster.head(r).Maintain();
}

// Bug (a) without subscriptions: router 1 skips the server whose new value
// only router 0's write brought back. This is what the pushes fix.
TEST(OpPushInvariantTest, WithoutSubscriptionsAnotherRouterMissesTheRow) {
  OpPushCluster cluster(2, /*subscribe=*/false);
  MaintainAll(cluster);
  ASSERT_TRUE(cluster.Write(0, {PutCountry("a1", "NO")}, false).ok());
  EXPECT_EQ(Found(cluster.head(0), "NO"), std::set<std::string>{"a1"});
  EXPECT_TRUE(Found(cluster.head(1), "NO").empty())
      << "expected the single-router design to miss it";
}

TEST(OpPushInvariantTest, ALookupOnAnotherRouterSeesAnAcknowledgedWrite) {
  OpPushCluster cluster(3);
  cluster.set_wait_step_ms(100);  // no write here waits for a lease
  MaintainAll(cluster);
  for (int r = 0; r < 3; ++r) {
    for (int s = 0; s < kOpPushStores; ++s) {
      ASSERT_TRUE(cluster.head(r).index().IsCurrent(s)) << r << "/" << s;
    }
  }
  ASSERT_TRUE(cluster.Write(0, {PutCountry("a1", "NO")}, false).ok());
  for (int r = 1; r < 3; ++r) {
    int asked = 0;
    EXPECT_EQ(Found(cluster.head(r), "NO", &asked),
              std::set<std::string>{"a1"});
    // Routed by the pushed op, not by a broadcast.
    EXPECT_LT(asked, kOpPushStores) << "router " << r;
    EXPECT_TRUE(cluster.head(r).index().IsCurrent(0));
  }
}

TEST(OpPushInvariantTest, ALostPushMakesTheRouterAskUntilItCatchesUp) {
  OpPushCluster cluster(2);
  MaintainAll(cluster);
  cluster.sinks().SetLosing(cluster.head(1).address(), true);
  ASSERT_TRUE(cluster.Write(0, {PutCountry("a1", "NO")}, false).ok());
  EXPECT_GT(cluster.clock_moves(), 0) << "acknowledged before the lease ended";
  cluster.sinks().SetLosing(cluster.head(1).address(), false);
  EXPECT_FALSE(cluster.head(1).index().IsCurrent(0));
  EXPECT_EQ(Found(cluster.head(1), "NO"), std::set<std::string>{"a1"});
  cluster.head(1).Maintain();  // renews (a new subscription), catches up
  EXPECT_TRUE(cluster.head(1).index().IsCurrent(0));
  int asked = 0;
  EXPECT_EQ(Found(cluster.head(1), "NO", &asked), std::set<std::string>{"a1"});
  EXPECT_LT(asked, kOpPushStores);
}

TEST(OpPushInvariantTest, ALapsedLeaseMakesEveryServerACandidate) {
  OpPushCluster cluster(2);
  MaintainAll(cluster);
  // The router's lease ends a margin before the server's.
  cluster.clock().Advance(kOpPushLeaseMs - LeaseMarginMs(kOpPushLeaseMs));
  int asked = 0;
  (void)Found(cluster.head(1), "XX", &asked);
  EXPECT_EQ(asked, kOpPushStores);
  EXPECT_FALSE(cluster.head(1).index().IsCurrent(0));
  cluster.head(1).Maintain();
  EXPECT_TRUE(cluster.head(1).index().IsCurrent(0));
}

// Router 2's in-doubt write and catch-up raise router 2's fence only: router
// 1's next write goes through on its first token.
TEST(OpPushInvariantTest, OneRoutersFenceDoesNotRefuseAnothersWrites) {
  OpPushCluster cluster(2);
  MaintainAll(cluster);
  ASSERT_TRUE(cluster.Write(1, {PutCountry("a1", "NO")}, true).ok());
  cluster.head(1).Maintain();  // catches up: raises router 2's fence
  const uint64_t before = cluster.head(0).index().FenceToken(0);
  ASSERT_TRUE(cluster.Write(0, {PutCountry("a2", "SE")}, false).ok());
  EXPECT_EQ(cluster.head(0).index().FenceToken(0), before);
  EXPECT_EQ(Found(cluster.head(1), "SE"), std::set<std::string>{"a2"});
}

// Pushes are untrusted: one naming no server of this router is refused
// (the server then treats the push as failed), and one past a gap leaves
// the replica not current instead of applying ops it cannot place.
TEST(OpPushInvariantTest, PushesNamingNoServerOrPastAGapAreNotApplied) {
  OpPushCluster cluster(1);
  MaintainAll(cluster);
  router::OpSubscriber subscriber(
      &cluster.head(0).index(),
      {9, "x", kOpPushLeaseMs, cluster.clock().AsFunction(), 1});
  OpPush push;
  push.tag = uint64_t{1} << 40;
  EXPECT_TRUE(subscriber.OnPush(push).IsNotFound());
  push.tag = 77;  // no such server
  EXPECT_TRUE(subscriber.OnPush(push).IsNotFound());
  push.tag = 0;
  push.result.incarnation = cluster.head(0).index().Incarnation(0);
  const FilterStatus at = cluster.stores().store(0)->GetFilterStatus();
  push.result.epoch = at.epoch;
  push.result.last_seq = at.last_seq + 5;
  FilterOp op;
  op.seq = at.last_seq + 5;  // ops before it never arrived
  push.result.ops = {op};
  EXPECT_TRUE(subscriber.OnPush(push).ok());
  EXPECT_FALSE(cluster.head(0).index().IsCurrent(0));
  int asked = 0;
  (void)Found(cluster.head(0), "XX", &asked);
  EXPECT_EQ(asked, 1) << "only the server behind is asked";
}

// The randomized run: writes (puts and deletes, some with their reply
// lost) through random routers, lookups through random routers compared
// with the exact model, lost pushes, lapsed leases, router restarts under
// new ids, maintenance at random.
class OpPushModelTest : public ::testing::TestWithParam<uint32_t> {};

constexpr int kOpPushModelOps = 5000;  // per seed; 3 seeds

TEST_P(OpPushModelTest, LookupsOnEveryRouterMatchTheModel) {
  std::mt19937 rng(GetParam());
  OpPushCluster cluster(3);
  MaintainAll(cluster);
  std::map<std::string, std::string> model;  // row -> country
  // Many values over few rows, so that most values live on one or two
  // servers and a current replica rules the others out.
  std::vector<std::string> countries;
  for (int i = 0; i < 150; ++i) countries.push_back("C" + std::to_string(i));
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  int lookups = 0, routed = 0, writes = 0;
  for (int op = 0; op < kOpPushModelOps; ++op) {
    const int r = pick(cluster.routers());
    const int dice = pick(100);
    if (dice < 45) {
      const std::string row =
          std::string(1, static_cast<char>('a' + pick(26))) +
          std::to_string(pick(5));
      const bool del = pick(10) == 0;
      const std::string c = countries[pick(countries.size())];
      Mutation m = del ? Mutation::Delete(OpPushStoreOf(row) + 1, row)
                       : PutCountry(row, c);
      const Status s = cluster.Write(r, {m}, /*lose_reply=*/pick(25) == 0);
      ASSERT_TRUE(s.ok()) << "op " << op << ": " << s.ToString();
      if (del)
        model.erase(row);
      else
        model[row] = c;
      ++writes;
    } else if (dice < 85) {
      const std::string c = countries[pick(countries.size())];
      std::set<std::string> want;
      for (const auto& [row, country] : model) {
        if (country == c) want.insert(row);
      }
      int asked = 0;
      ASSERT_EQ(Found(cluster.head(r), c, &asked), want)
          << "seed " << GetParam() << " op " << op << " router " << r
          << " country " << c;
      ++lookups;
      routed += asked < kOpPushStores;
    } else if (dice < 93) {
      cluster.head(r).Maintain();
    } else if (dice < 96) {
      // The next pushes to router r are lost until its maintenance.
      cluster.sinks().SetLosing(cluster.head(r).address(), true);
      const std::string c = countries[pick(countries.size())];
      ASSERT_TRUE(
          cluster.Write((r + 1) % 3, {PutCountry("z0", c)}, false).ok());
      model["z0"] = c;
      cluster.sinks().SetLosing(cluster.head(r).address(), false);
    } else if (dice < 98) {
      cluster.clock().Advance(kOpPushLeaseMs);  // every lease lapses
    } else {
      cluster.Restart(r);
    }
  }
  // The run must have exercised both routing and the faults.
  EXPECT_GT(lookups, kOpPushModelOps / 4);
  // About a third are routed on an idle machine; fewer when slow writes
  // make the test move the clock (leases lapse).
  EXPECT_GT(routed, lookups / 50) << "few lookups were routed by replicas";
  EXPECT_GT(writes, kOpPushModelOps / 4);
  std::printf(
      "seed %u: %d ops, %d writes, %d lookups (%d routed), "
      "%d clock moves\n",
      GetParam(), kOpPushModelOps, writes, lookups, routed,
      cluster.clock_moves());
}

INSTANTIATE_TEST_SUITE_P(Seeds, OpPushModelTest, ::testing::Values(1u, 2u, 3u));

}  // namespace
}  // namespace bloomroute::testing
