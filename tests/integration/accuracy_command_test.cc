// `bloomroute accuracy` as a process against a router over four region
// server processes whose filters are configured loose (target FPR 0.5, first
// stage of 8 values) so that false positives occur. The test knows which
// server holds each value, recomputes the truth of every probe, repeats the
// routed lookups itself and recounts the per-server figures from them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;

constexpr int kServers = 4;
constexpr int kValuesPerRegion = 30;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lines of a CSV file without quoted fields, split at ',' (header dropped).
std::vector<std::vector<std::string>> ReadCsv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream text(ReadFile(path));
  std::string line;
  std::getline(text, line);  // header
  while (std::getline(text, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> fields;
    size_t begin = 0;
    while (true) {
      const size_t end = line.find(',', begin);
      fields.push_back(line.substr(begin, end - begin));
      if (end == std::string::npos) break;
      begin = end + 1;
    }
    rows.push_back(fields);
  }
  return rows;
}

std::set<int32_t> ParseIds(const std::string& field) {
  std::set<int32_t> ids;
  std::istringstream in(field);
  int32_t id;
  while (in >> id) ids.insert(id);
  return ids;
}

std::set<int32_t> IdsOf(const std::vector<rpc::client::TServerRef>& refs) {
  std::set<int32_t> ids;
  for (const auto& r : refs) ids.insert(r.id);
  return ids;
}

class AccuracyCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    client_ = std::make_unique<RouterClient>(cluster_.router_port());
    rpc::client::TTableInfo info;
    // Regions [,b) [b,c) [c,d) [d,): row keys start with a, b, c, d.
    (*client_)->createIndexedTable(
        info, MakeTableSpec("acc", {"d:v"}, 0, {"b", "c", "d"}));
    ASSERT_EQ(info.regions.size(), static_cast<size_t>(kServers));
    std::vector<rpc::client::TPut> puts;
    for (int i = 0; i < kServers; ++i) {
      const int32_t server = info.regions[i].server.id;
      table_servers_.insert(server);
      const std::string prefix(1, static_cast<char>('a' + i));
      for (int j = 0; j < kValuesPerRegion; ++j) {
        const std::string value =
            "s" + std::to_string(i) + "-" + std::to_string(j);
        puts.push_back(MakePut(prefix + "-" + std::to_string(j),
                               {{"d:v", value}, {"d:other", "x"}}));
        holders_[value] = {server};
      }
      puts.push_back(MakePut(prefix + "-shared", {{"d:v", "shared"}}));
      holders_["shared"].insert(server);
      if (i < 2) {
        puts.push_back(MakePut(prefix + "-pair", {{"d:v", "pair"}}));
        holders_["pair"].insert(server);
      }
    }
    (*client_)->putMultiple("acc", puts);
  }

  CommandOutput RunAccuracy(const std::string& out,
                            std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "accuracy",
        "--router",
        "127.0.0.1:" + std::to_string(cluster_.router_port()),
        "--table",
        "acc",
        "--out",
        out};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCommand(args);
  }

  // Filters that err often, so that the report has false routes to count:
  // P = 2 / 4 = 0.5 per server, r = 0.5, 8 values in stage 0.
  ProcessCluster cluster_{
      kServers,
      {},
      {"--target-false-routes", "2", "--filter-tightening-ratio", "0.5",
       "--filter-initial-capacity", "8"}};
  std::unique_ptr<RouterClient> client_;
  std::map<std::string, std::set<int32_t>> holders_;  // value -> servers
  std::set<int32_t> table_servers_;
};

TEST_F(AccuracyCommandTest, ReportMatchesAnIndependentRecount) {
  const std::string out = cluster_.dir() + "/report";
  CommandOutput r =
      RunAccuracy(out, {"--column", "v", "--present", "500", "--absent", "100",
                        "--seed", "7", "--sample-rows", "1000"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("false negatives: 0\n"));
  EXPECT_THAT(r.out, HasSubstr("report: " + out + "/report.md"));

  // Every probe's truth is what the test put there; its routing is what the
  // router answers the test (filters are deterministic, the table static).
  std::map<int32_t, uint64_t> tested, false_positives;
  size_t present = 0, absent = 0;
  for (const auto& p : ReadCsv(out + "/probes.csv")) {
    ASSERT_EQ(p.size(), 6u);
    SCOPED_TRACE(p[1]);
    EXPECT_EQ(p[0], "d:v");
    const bool is_present = p[2] == "1";
    (is_present ? present : absent)++;
    EXPECT_EQ(holders_.count(p[1]) == 1, is_present);
    const std::set<int32_t> truth =
        is_present ? holders_[p[1]] : std::set<int32_t>{};
    EXPECT_EQ(ParseIds(p[5]), truth);
    rpc::client::TIndexResult routed;
    (*client_)->getByIndex(routed, "acc", MakeQuery({{"d:v", p[1]}}, 1));
    const std::set<int32_t> asked = IdsOf(routed.routing.serversAsked);
    EXPECT_EQ(ParseIds(p[3]), asked);
    EXPECT_EQ(p[4], "");  // every replica is current
    for (int32_t s : truth) EXPECT_EQ(asked.count(s), 1u);  // no false negative
    for (int32_t s : table_servers_) {
      if (truth.count(s)) continue;
      ++tested[s];
      false_positives[s] += asked.count(s);
    }
  }
  EXPECT_EQ(present, holders_.size());  // fewer values than --present
  EXPECT_EQ(absent, 100u);

  std::vector<rpc::client::TServerIndexStats> stats;
  (*client_)->getIndexStats(stats);
  std::map<int32_t, rpc::client::TServerIndexStats> stats_by_id;
  for (const auto& s : stats) stats_by_id[s.server.id] = s;
  const auto report = ReadCsv(out + "/report.csv");
  ASSERT_EQ(report.size(), static_cast<size_t>(kServers));
  uint64_t all_false_positives = 0;
  for (const auto& line : report) {
    ASSERT_EQ(line.size(), 12u);
    const int32_t id = std::stoi(line[0]);
    SCOPED_TRACE(id);
    EXPECT_EQ(line[1], stats_by_id.at(id).server.address);
    EXPECT_EQ(std::stoull(line[2]), tested[id]);
    EXPECT_EQ(std::stoull(line[3]), false_positives[id]);
    EXPECT_NEAR(std::stod(line[4]),
                static_cast<double>(false_positives[id]) /
                    static_cast<double>(tested[id]),
                1e-5);
    EXPECT_LE(std::stod(line[5]), std::stod(line[4]));
    EXPECT_GE(std::stod(line[6]), std::stod(line[4]));
    const auto& st = stats_by_id.at(id);
    EXPECT_NEAR(std::stod(line[7]), st.estimatedFpr, 1e-5);
    ASSERT_FALSE(st.stageStats.empty());
    EXPECT_NEAR(std::stod(line[8]), st.stageStats[0].targetFpr, 1e-9);
    EXPECT_NEAR(std::stod(line[8]), 0.25, 1e-9);  // P0 = P (1 - r)
    EXPECT_NEAR(std::stod(line[9]), st.compoundedBound, 1e-5);
    EXPECT_EQ(line[10], "0");  // asked because not current
    EXPECT_EQ(line[11], "0");  // false negatives
    all_false_positives += false_positives[id];
  }
  // Filters this loose route some probes in vain (deterministic: the data,
  // the seed and the hash seed are fixed).
  EXPECT_GT(all_false_positives, 0u);
  EXPECT_THAT(ReadFile(out + "/report.md"),
              HasSubstr("| probes | " + std::to_string(present + absent)));
  if (RunProgram("/bin/sh", {"-c", "command -v gnuplot"}).code == 0) {
    EXPECT_EQ(ReadFile(out + "/accuracy.png").substr(0, 4), "\x89PNG");
  }
}

TEST_F(AccuracyCommandTest, TheSameSeedRepeatsTheRun) {
  const std::string a = cluster_.dir() + "/a", b = cluster_.dir() + "/b",
                    c = cluster_.dir() + "/c";
  const std::vector<std::string> opts = {"--present", "20", "--absent", "20"};
  ASSERT_EQ(RunAccuracy(a, opts).code, 0);
  ASSERT_EQ(RunAccuracy(b, opts).code, 0);
  std::vector<std::string> other = opts;
  other.insert(other.end(), {"--seed", "99"});
  ASSERT_EQ(RunAccuracy(c, other).code, 0);
  const std::string probes = ReadFile(a + "/probes.csv");
  EXPECT_EQ(std::count(probes.begin(), probes.end(), '\n'), 41);
  EXPECT_EQ(probes, ReadFile(b + "/probes.csv"));
  EXPECT_NE(probes, ReadFile(c + "/probes.csv"));
}

TEST_F(AccuracyCommandTest, WithoutGnuplotTheReportIsWrittenWithAWarning) {
  const std::string out = cluster_.dir() + "/no-plot";
  const std::string path = getenv("PATH") == nullptr ? "" : getenv("PATH");
  setenv("PATH", (cluster_.dir() + "/empty").c_str(), 1);
  CommandOutput r = RunAccuracy(out, {"--present", "5", "--absent", "5"});
  setenv("PATH", path.c_str(), 1);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("warning: no accuracy.png"));
  EXPECT_TRUE(std::filesystem::exists(out + "/report.md"));
  EXPECT_TRUE(std::filesystem::exists(out + "/report.csv"));
  EXPECT_FALSE(std::filesystem::exists(out + "/accuracy.png"));
}

TEST_F(AccuracyCommandTest, BadUsageAndUnknownColumns) {
  const std::string out = cluster_.dir() + "/x";
  EXPECT_EQ(RunAccuracy(out, {"--present", "-1"}).code, 2);
  EXPECT_EQ(RunAccuracy(out, {"--present", "0", "--absent", "0"}).code, 2);
  EXPECT_EQ(RunAccuracy(out, {"--seed", "-3"}).code, 2);
  EXPECT_EQ(RunAccuracy(out, {"--sample-rows", "0"}).code, 2);
  CommandOutput r = RunAccuracy(out, {"--column", "other"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("'d:other' is not indexed"));
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace bloomroute::testing
