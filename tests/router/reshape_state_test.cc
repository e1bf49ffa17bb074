// ReshapeState: the gate a region operation's switch closes against the
// writes to its sources, and the note of the rows those writes touched.
#include "router/internal/reshape_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::router_internal {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

TEST(ReshapeStateTest, CloseWaitsForTheWritesInsideAndHoldsNewOnes) {
  ReshapeState state;
  ASSERT_TRUE(state.gate.Enter(steady_clock::now()));
  std::atomic<bool> closed{false};
  std::thread closer([&] {
    state.gate.Close();
    closed = true;
  });
  std::this_thread::sleep_for(milliseconds(50));
  EXPECT_FALSE(closed);  // one write is still inside
  state.gate.Leave();
  closer.join();
  EXPECT_TRUE(closed);
  // Closed: a write waits until its deadline and does not enter.
  EXPECT_FALSE(state.gate.Enter(steady_clock::now() + milliseconds(20)));
  state.gate.Open();
  EXPECT_TRUE(state.gate.Enter(steady_clock::now()));
  state.gate.Leave();
}

TEST(ReshapeStateTest, CoversOnlyItsTablesSources) {
  ReshapeState state;
  state.table_id = 3;
  state.sources = {{7, "", "m", 1}};
  EXPECT_TRUE(state.Covers(3, 7));
  EXPECT_FALSE(state.Covers(3, 8));
  EXPECT_FALSE(state.Covers(4, 7));
}

TEST(ReshapeStateTest, TheNoteIsTakenOnceSortedAndKeepsItsDoubt) {
  ReshapeState state;
  state.NoteWritten("b");
  state.NoteWritten("a");
  state.NoteWritten("b");
  bool overflow = true, in_doubt = true;
  EXPECT_EQ(state.TakeWritten(&overflow, &in_doubt),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(overflow);
  EXPECT_FALSE(in_doubt);
  EXPECT_TRUE(state.TakeWritten(&overflow, &in_doubt).empty());
  state.NoteInDoubt();
  state.TakeWritten(&overflow, &in_doubt);
  EXPECT_TRUE(in_doubt);
}

TEST(ReshapeStateTest, TheNoteOverflowsPastItsBound) {
  ReshapeState state;
  const std::string big(1 << 20, 'x');
  for (int i = 0; i < 80; ++i) state.NoteWritten(big + std::to_string(i));
  bool overflow = false, in_doubt = false;
  state.TakeWritten(&overflow, &in_doubt);
  EXPECT_TRUE(overflow);  // 80 MiB of keys, over the 64 MiB bound
}

}  // namespace
}  // namespace bloomroute::router_internal
