// ValueRecordCache's contract (regionstore/internal/value_record_cache.h):
// it answers what was put, forgets nothing it was not told to, and stays
// within its size by evicting.
#include "regionstore/internal/value_record_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::regionstore_internal {
namespace {

TEST(ValueRecordCacheTest, AnswersTheLastRecordPutAndNullForTheRest) {
  ValueRecordCache cache(8);
  EXPECT_EQ(cache.Find("NO"), nullptr);
  cache.Put("NO", ValueRecord{3, 1});
  cache.Put("NO", ValueRecord{4, 1});
  cache.Put("SE", ValueRecord{0, 0});  // known to have no record
  ASSERT_NE(cache.Find("NO"), nullptr);
  EXPECT_EQ(cache.Find("NO")->count, 4u);
  EXPECT_EQ(cache.Find("NO")->stage, 1u);
  ASSERT_NE(cache.Find("SE"), nullptr);
  EXPECT_EQ(cache.Find("SE")->count, 0u);
  EXPECT_EQ(cache.Find("DK"), nullptr);
  cache.Clear();
  EXPECT_EQ(cache.Find("NO"), nullptr);
  EXPECT_EQ(cache.size(), 0u);
}

TEST(ValueRecordCacheTest, StaysWithinItsSizeAndKeepsTheNewestRecord) {
  ValueRecordCache cache(4);
  for (int i = 0; i < 100; ++i) {
    const std::string key = "v" + std::to_string(i);
    cache.Put(key, ValueRecord{static_cast<uint64_t>(i), 0});
    EXPECT_LE(cache.size(), 4u);
    ASSERT_NE(cache.Find(key), nullptr);  // the record just put is kept
    EXPECT_EQ(cache.Find(key)->count, static_cast<uint64_t>(i));
  }
  // What it still holds is what was put, never another value's record.
  for (int i = 0; i < 100; ++i) {
    const ValueRecord* rec = cache.Find("v" + std::to_string(i));
    if (rec) {
      EXPECT_EQ(rec->count, static_cast<uint64_t>(i));
    }
  }
}

TEST(ValueRecordCacheTest, ASizeOfZeroCachesNothing) {
  ValueRecordCache cache(0);
  cache.Put("NO", ValueRecord{1, 0});
  EXPECT_EQ(cache.Find("NO"), nullptr);
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
