#include "router/cluster_filter_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace bloomroute::router {
namespace {

class ClusterFilterConfigTest : public ::testing::Test {
 protected:
  static std::string ErrorFor(const ClusterFilterOptions& o,
                              size_t servers = 4) {
    StatusOr<SscbfConfig> c = ClusterFilterConfig(o, servers);
    EXPECT_FALSE(c.ok());
    if (c.ok()) return "";
    EXPECT_TRUE(c.status().IsInvalidArgument()) << c.status().ToString();
    return c.status().message();
  }
};

TEST_F(ClusterFilterConfigTest, DefaultsAreValid) {
  const ClusterFilterOptions o;
  EXPECT_TRUE(o.Validate().ok());
  EXPECT_DOUBLE_EQ(o.target_false_routes, 0.05);
  EXPECT_DOUBLE_EQ(o.tightening_ratio, 0.8);
  EXPECT_DOUBLE_EQ(o.growth_factor, 2.0);
  EXPECT_EQ(o.initial_capacity, 16384u);
  EXPECT_DOUBLE_EQ(o.full_fill, 0.5);
}

TEST_F(ClusterFilterConfigTest, TargetIsFalseRoutesOverServersRoundedUp) {
  const ClusterFilterOptions o;
  struct Case {
    size_t servers;
    double divisor;
  };
  for (const Case& c : {Case{0, 1}, Case{1, 1}, Case{2, 2}, Case{3, 4},
                        Case{4, 4}, Case{5, 8}, Case{1000, 1024},
                        Case{1024, 1024}, Case{1025, 2048}, Case{4096, 4096}}) {
    StatusOr<SscbfConfig> config = ClusterFilterConfig(o, c.servers);
    ASSERT_TRUE(config.ok()) << config.status().ToString();
    EXPECT_DOUBLE_EQ(config->target_fpr, 0.05 / c.divisor)
        << c.servers << " servers";
    // The bound the reasoning promises: N * P <= F.
    EXPECT_LE(static_cast<double>(c.servers) * config->target_fpr,
              o.target_false_routes + 1e-15);
    EXPECT_DOUBLE_EQ(config->tightening_ratio, o.tightening_ratio);
    EXPECT_DOUBLE_EQ(config->growth_factor, o.growth_factor);
    EXPECT_EQ(config->initial_capacity, o.initial_capacity);
    EXPECT_EQ(config->base_bits, o.base_bits);
    EXPECT_DOUBLE_EQ(config->full_fill, o.full_fill);
    EXPECT_TRUE(config->Validate().ok());
  }
}

TEST_F(ClusterFilterConfigTest, ConfigChangesOnlyAtPowersOfTwo) {
  const ClusterFilterOptions o;
  for (size_t n = 513; n <= 1024; ++n) {
    EXPECT_EQ(*ClusterFilterConfig(o, n), *ClusterFilterConfig(o, 1024)) << n;
  }
  EXPECT_FALSE(*ClusterFilterConfig(o, 1025) == *ClusterFilterConfig(o, 1024));
  EXPECT_EQ(ServerCountBound(0), 1u);
  EXPECT_EQ(ServerCountBound(1), 1u);
  EXPECT_EQ(ServerCountBound(3), 4u);
  EXPECT_EQ(ServerCountBound(4096), 4096u);
}

TEST_F(ClusterFilterConfigTest, EachFieldIsValidatedNamingItsFlag) {
  struct Case {
    void (*spoil)(ClusterFilterOptions*);
    const char* names;
  };
  const Case cases[] = {
      {[](ClusterFilterOptions* o) { o->target_false_routes = 0; },
       "--target-false-routes"},
      {[](ClusterFilterOptions* o) { o->target_false_routes = -1; },
       "--target-false-routes"},
      {[](ClusterFilterOptions* o) { o->target_false_routes = 5000; },
       "--target-false-routes"},
      {[](ClusterFilterOptions* o) { o->target_false_routes = NAN; },
       "--target-false-routes"},
      {[](ClusterFilterOptions* o) { o->tightening_ratio = 0; },
       "--filter-tightening-ratio"},
      {[](ClusterFilterOptions* o) { o->tightening_ratio = 1; },
       "--filter-tightening-ratio"},
      {[](ClusterFilterOptions* o) { o->growth_factor = 0.5; },
       "--filter-growth-factor"},
      {[](ClusterFilterOptions* o) { o->growth_factor = 17; },
       "--filter-growth-factor"},
      {[](ClusterFilterOptions* o) { o->initial_capacity = 0; },
       "--filter-initial-capacity"},
      // The flag's bound (2^40) is the check's: before, Validate let
      // capacities up to 2^53 through.
      {[](ClusterFilterOptions* o) {
         o->initial_capacity = ClusterFilterOptions::kMaxInitialCapacity + 1;
       },
       "--filter-initial-capacity"},
      {[](ClusterFilterOptions* o) { o->base_bits = 0; }, "base_bits"},
      {[](ClusterFilterOptions* o) { o->base_bits = 17; }, "base_bits"},
      {[](ClusterFilterOptions* o) { o->full_fill = 0.001; }, "full_fill"},
      {[](ClusterFilterOptions* o) { o->full_fill = 1; }, "full_fill"},
  };
  for (const Case& c : cases) {
    ClusterFilterOptions o;
    c.spoil(&o);
    EXPECT_TRUE(o.Validate().IsInvalidArgument()) << c.names;
    EXPECT_NE(ErrorFor(o).find(c.names), std::string::npos)
        << c.names << ": " << ErrorFor(o);
  }
}

// The ranges as the check's messages and the flags' help state them.
TEST_F(ClusterFilterConfigTest, RangesDescribeTheirOpenAndClosedEnds) {
  using F = ClusterFilterOptions;
  EXPECT_EQ(F::kTargetFalseRoutesRange.Describe(), "(0, 4096]");
  EXPECT_EQ(F::kTighteningRatioRange.Describe(), "(0, 1)");
  EXPECT_EQ(F::kGrowthFactorRange.Describe(), "[1, 16]");
  EXPECT_EQ(F::kFullFillRange.Describe(), "[0.01, 0.99]");
  EXPECT_TRUE(F::kTargetFalseRoutesRange.Contains(4096));
  EXPECT_FALSE(F::kTargetFalseRoutesRange.Contains(0));
  EXPECT_FALSE(F::kTighteningRatioRange.Contains(NAN));
}

TEST_F(ClusterFilterConfigTest, DerivedTargetOutOfRangeNamesTheFlag) {
  ClusterFilterOptions o;
  o.target_false_routes = 2;  // P = 2 for one server: not a probability
  EXPECT_TRUE(o.Validate().ok());
  EXPECT_NE(ErrorFor(o, 1).find("--target-false-routes"), std::string::npos);
  EXPECT_TRUE(ClusterFilterConfig(o, 4).ok());  // P = 0.5
  // A target so small that stage 0 needs more than 64 slices.
  o.target_false_routes = 1e-30;
  EXPECT_NE(ErrorFor(o, 1).find("--target-false-routes"), std::string::npos);
}

}  // namespace
}  // namespace bloomroute::router
