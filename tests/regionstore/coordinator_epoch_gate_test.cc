#include "regionstore/internal/coordinator_epoch_gate.h"

#include <gtest/gtest.h>

#include <vector>

#include "model/region_protocol.h"

namespace bloomroute::regionstore_internal {
namespace {

// The gate stores each raise once, in order, before the call runs; a raise
// it cannot store runs nothing and changes nothing.
TEST(CoordinatorEpochGateTest, StoresEachRaiseBeforeTheCallAndOnlyThen) {
  std::vector<uint64_t> stored;
  bool fail = false;
  CoordinatorEpochGate gate(3, [&](uint64_t epoch) {
    if (fail) return Status::IOError("disk full");
    stored.push_back(epoch);
    return Status::OK();
  });
  std::vector<uint64_t> ran;
  auto run = [&](uint64_t epoch) {
    return gate.Run(epoch, [&] {
      // Stored before the call of a new epoch runs.
      EXPECT_TRUE(epoch == 0 || epoch <= gate.seen());
      ran.push_back(epoch);
      return Status::OK();
    });
  };
  EXPECT_TRUE(run(3).ok());  // equal: nothing to store
  EXPECT_TRUE(run(5).ok());
  EXPECT_TRUE(run(5).ok());
  EXPECT_TRUE(run(0).ok());  // not a coordinator: stores nothing
  EXPECT_TRUE(IsCoordinatorEpochRefused(run(4)));
  fail = true;
  const Status s = run(9);
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_NE(s.message().find("storing coordinator epoch 9"), std::string::npos);
  EXPECT_EQ(gate.seen(), 5u);
  EXPECT_EQ(stored, (std::vector<uint64_t>{5}));
  EXPECT_EQ(ran, (std::vector<uint64_t>{3, 5, 5, 0}));
  // The call's own status is returned.
  fail = false;
  EXPECT_TRUE(
      gate.Run(5, [] { return Status::NotFound("region 1"); }).IsNotFound());
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
