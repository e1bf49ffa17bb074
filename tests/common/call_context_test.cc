#include "common/call_context.h"

#include <gtest/gtest.h>

#include <thread>

namespace bloomroute {
namespace {

TEST(ScopedCallContextTest, NestsAndIsPerThread) {
  EXPECT_EQ(CurrentCall(), nullptr);
  CallContext outer;
  {
    ScopedCallContext a(&outer);
    EXPECT_EQ(CurrentCall(), &outer);
    CallContext inner;
    {
      ScopedCallContext b(&inner);
      EXPECT_EQ(CurrentCall(), &inner);
      std::thread([] { EXPECT_EQ(CurrentCall(), nullptr); }).join();
    }
    EXPECT_EQ(CurrentCall(), &outer);
  }
  EXPECT_EQ(CurrentCall(), nullptr);
}

}  // namespace
}  // namespace bloomroute
