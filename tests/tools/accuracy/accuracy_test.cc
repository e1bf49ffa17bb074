#include "tools/accuracy/accuracy.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace bloomroute::accuracy {
namespace {

class AccuracyTest : public ::testing::Test {
 protected:
  static ProbeOutcome Probe(bool present, std::vector<ServerId> asked,
                            std::vector<ServerId> not_current,
                            std::vector<ServerId> truth) {
    return ProbeOutcome{"d:c", "v", present, asked, not_current, truth};
  }

  std::vector<ServerFilter> servers_ = {{1, "a:1", 0.01, 0.005, 0.005, 1, 10},
                                        {2, "a:2", 0.02, 0.005, 0.0075, 2, 20},
                                        {3, "a:3", 0.03, 0.005, 0.005, 1, 30}};
};

// Five probes whose figures are counted by hand (see each line).
TEST_F(AccuracyTest, CountsFalsePositivesNegativesAndFanoutByHand) {
  const std::vector<ProbeOutcome> probes = {
      Probe(true, {1, 2}, {}, {1}),      // s2 false positive
      Probe(true, {1, 2, 3}, {3}, {2}),  // s1 false positive; s3 not current
      Probe(false, {}, {}, {}),          // nothing asked
      Probe(false, {3}, {}, {}),         // s3 false positive
      Probe(true, {1}, {}, {1, 3}),      // s3 false negative
  };
  const AccuracyFigures f = ComputeAccuracy(probes, servers_);
  EXPECT_EQ(f.probes, 5u);
  EXPECT_EQ(f.all.false_routes, 3u);
  EXPECT_DOUBLE_EQ(f.all.mean, 0.6);
  EXPECT_EQ(f.present.probes, 3u);
  EXPECT_EQ(f.present.false_routes, 2u);
  EXPECT_EQ(f.absent.probes, 2u);
  EXPECT_DOUBLE_EQ(f.absent.mean, 0.5);
  EXPECT_EQ(f.false_negatives, 1u);
  EXPECT_EQ(f.probes_with_false_negatives, 1u);
  EXPECT_EQ(f.asked_not_current, 1u);
  EXPECT_EQ(f.fanout, (std::map<uint32_t, uint64_t>{{0, 1}, {1, 2}, {2, 2}}));
  EXPECT_DOUBLE_EQ(f.mean_fanout, 1.2);

  ASSERT_EQ(f.servers.size(), 3u);
  // s1 filter-tested by probes 2, 3, 4; s2 by 1, 3, 4, 5; s3 by 1, 3, 4.
  const uint64_t tested[] = {3, 4, 3};
  for (size_t i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    const ServerAccuracy& s = f.servers[i];
    EXPECT_EQ(s.filter.id, servers_[i].id);
    EXPECT_EQ(s.filter.estimated_fpr, servers_[i].estimated_fpr);
    EXPECT_EQ(s.probes_tested, tested[i]);
    EXPECT_EQ(s.false_positives, 1u);
    EXPECT_DOUBLE_EQ(s.measured_fpr, 1.0 / static_cast<double>(tested[i]));
    EXPECT_LT(s.ci_low, s.measured_fpr);
    EXPECT_GT(s.ci_high, s.measured_fpr);
  }
  EXPECT_EQ(f.servers[2].false_negatives, 1u);
  EXPECT_EQ(f.servers[2].asked_not_current, 1u);
  EXPECT_EQ(f.servers[0].false_negatives + f.servers[1].false_negatives, 0u);
}

TEST_F(AccuracyTest, NoProbesGivesZerosAndServersAreKept) {
  const AccuracyFigures f = ComputeAccuracy({}, servers_);
  EXPECT_EQ(f.probes, 0u);
  EXPECT_EQ(f.all.mean, 0);
  EXPECT_EQ(f.mean_fanout, 0);
  EXPECT_TRUE(f.fanout.empty());
  ASSERT_EQ(f.servers.size(), 3u);
  EXPECT_EQ(f.servers[0].measured_fpr, 0);
  EXPECT_EQ(f.servers[0].ci_high, 1);
}

TEST_F(AccuracyTest, ServersOutsideTheTableAreIgnored) {
  const AccuracyFigures f =
      ComputeAccuracy({Probe(false, {1, 9}, {}, {})}, servers_);
  EXPECT_EQ(f.all.false_routes, 1u);
  EXPECT_EQ(f.fanout, (std::map<uint32_t, uint64_t>{{1, 1}}));
}

// Random outcomes, each server's counts recomputed with sets per server.
TEST_F(AccuracyTest, AgreesWithAPerServerRecountOnRandomOutcomes) {
  std::mt19937 rng(7);  // fixed seed: the test is deterministic
  std::vector<ProbeOutcome> probes;
  for (int i = 0; i < 500; ++i) {
    ProbeOutcome p = Probe(i % 2 == 0, {}, {}, {});
    for (ServerId id = 1; id <= 3; ++id) {
      const int roll = static_cast<int>(rng() % 6);
      if (roll == 0) p.truth.push_back(id);
      if (roll <= 1 || roll == 5) p.asked.push_back(id);
      if (roll == 5 && rng() % 2 == 0) p.asked_not_current.push_back(id);
    }
    probes.push_back(p);
  }
  const AccuracyFigures f = ComputeAccuracy(probes, servers_);
  uint64_t fp_sum = 0;
  for (const ServerAccuracy& s : f.servers) {
    uint64_t tested = 0, fp = 0;
    for (const ProbeOutcome& p : probes) {
      const std::set<ServerId> truth(p.truth.begin(), p.truth.end());
      const std::set<ServerId> nc(p.asked_not_current.begin(),
                                  p.asked_not_current.end());
      const std::set<ServerId> asked(p.asked.begin(), p.asked.end());
      if (truth.count(s.filter.id) || nc.count(s.filter.id)) continue;
      ++tested;
      fp += asked.count(s.filter.id);
    }
    EXPECT_EQ(s.probes_tested, tested);
    EXPECT_EQ(s.false_positives, fp);
    EXPECT_GT(fp, 0u);
    fp_sum += fp;
  }
  EXPECT_EQ(f.all.false_routes, fp_sum);
  EXPECT_EQ(f.false_negatives, 0u);  // truth is always asked above
  uint64_t histogram = 0;
  for (const auto& [fanout, n] : f.fanout) histogram += n;
  EXPECT_EQ(histogram, probes.size());
}

TEST_F(AccuracyTest, WilsonIntervalMatchesKnownValues) {
  auto [low, high] = WilsonInterval(0, 10);
  EXPECT_EQ(low, 0);
  EXPECT_NEAR(high, 0.2775, 1e-4);
  std::tie(low, high) = WilsonInterval(5, 10);
  EXPECT_NEAR(low, 0.2366, 1e-4);
  EXPECT_NEAR(high, 0.7634, 1e-4);
  std::tie(low, high) = WilsonInterval(10, 10);
  EXPECT_NEAR(low, 0.7225, 1e-4);
  EXPECT_EQ(high, 1);
  std::tie(low, high) = WilsonInterval(0, 0);
  EXPECT_EQ(low, 0);
  EXPECT_EQ(high, 1);
}

}  // namespace
}  // namespace bloomroute::accuracy
