#include "tools/bench/ycsb_workload.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace bloomroute::ycsb {
namespace {

class YcsbWorkloadTest : public ::testing::Test {};

TEST_F(YcsbWorkloadTest, EveryWorkloadsProportionsSumToOne) {
  for (const char* name : {"a", "b", "c", "d", "e", "f", "i", "A"}) {
    StatusOr<WorkloadSpec> w = FindWorkload(name);
    ASSERT_TRUE(w.ok()) << name;
    EXPECT_NEAR(w->read + w->update + w->insert + w->scan +
                    w->read_modify_write + w->lookup,
                1.0, 1e-12)
        << name;
  }
  EXPECT_EQ(FindWorkload("d")->distribution, Distribution::kLatest);
  EXPECT_EQ(FindWorkload("e")->scan, 0.95);
  EXPECT_EQ(FindWorkload("B")->name, 'b');
  EXPECT_TRUE(FindWorkload("i")->indexed_field0);
  EXPECT_FALSE(FindWorkload("a")->indexed_field0);
}

TEST_F(YcsbWorkloadTest, UnknownNamesAreInvalidArguments) {
  for (const char* name : {"g", "", "ab", "1"}) {
    StatusOr<WorkloadSpec> w = FindWorkload(name);
    ASSERT_TRUE(w.status().IsInvalidArgument()) << name;
    EXPECT_NE(w.status().message().find("give a, b, c, d, e, f or i"),
              std::string::npos);
  }
  EXPECT_TRUE(ParseDistribution("hotspot").status().IsInvalidArgument());
  EXPECT_EQ(*ParseDistribution("uniform"), Distribution::kUniform);
}

TEST_F(YcsbWorkloadTest, RecordsHaveEveryFieldOfTheirLength) {
  Options options;
  options.field_count = 3;
  options.field_length = 25;
  options.workload = *FindWorkload("a");
  Rng rng(1);
  std::vector<Cell> cells = NewRecord(options, rng, 7);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[2].column, "family:field2");
  for (const Cell& c : cells) {
    EXPECT_EQ(c.value.size(), 25u);
    for (char ch : c.value) EXPECT_TRUE(ch >= '!' && ch <= '~') << int(ch);
  }
  options.workload = *FindWorkload("i");
  cells = NewRecord(options, rng, 7);
  EXPECT_EQ(cells[0].value, "v7");
  EXPECT_EQ(cells[1].value.size(), 25u);
  // Random values differ.
  std::set<std::string> values;
  for (int i = 0; i < 100; ++i) values.insert(RandomValue(rng, 16));
  EXPECT_EQ(values.size(), 100u);
}

}  // namespace
}  // namespace bloomroute::ycsb
