// `bloomroute bench ycsb` end to end: a router over two region server
// processes, the load and run phases of workloads A and I, the report
// parsed line by line and its counts checked against what was asked.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;

// phase -> "[OP]" -> measurement -> value, from the report lines
// "[OP], Measurement, value" after each "# bloomroute bench ycsb: PHASE
// phase, ..." line. Any other line fails the test.
using Report =
    std::map<std::string,
             std::map<std::string, std::map<std::string, std::string>>>;

Report ParseReport(const std::string& out) {
  Report report;
  std::istringstream lines(out);
  std::string line;
  std::string phase;
  const std::string header = "# bloomroute bench ycsb: ";
  while (std::getline(lines, line)) {
    if (line.rfind(header, 0) == 0) {
      phase = line.substr(header.size(),
                          line.find(' ', header.size()) - header.size());
      continue;
    }
    const size_t first = line.find(", ");
    const size_t second = line.find(", ", first + 2);
    EXPECT_TRUE(!phase.empty() && line[0] == '[' && second != std::string::npos)
        << "not a report line: " << line;
    if (second == std::string::npos) continue;
    report[phase][line.substr(0, first)][line.substr(
        first + 2, second - first - 2)] = line.substr(second + 2);
  }
  return report;
}

uint64_t Count(const std::map<std::string, std::string>& op,
               const std::string& name) {
  auto it = op.find(name);
  return it == op.end() ? 0 : std::stoull(it->second);
}

// Every operation type's lines are there and consistent: Return=OK equals
// Operations, min <= p95 <= p99 <= max, min <= average <= max. The sum of
// Operations over the types.
uint64_t CheckOperations(
    const std::map<std::string, std::map<std::string, std::string>>& phase) {
  uint64_t operations = 0;
  for (const auto& [op, m] : phase) {
    SCOPED_TRACE(op);
    if (op == "[OVERALL]") {
      EXPECT_GT(std::stod(m.at("Throughput(ops/sec)")), 0.0);
      EXPECT_GE(std::stoll(m.at("RunTime(ms)")), 0);
      continue;
    }
    const uint64_t n = Count(m, "Operations");
    EXPECT_GT(n, 0u);
    EXPECT_EQ(Count(m, "Return=OK"), n);
    EXPECT_EQ(m.count("Return=ERROR"), 0u);
    const uint64_t min = Count(m, "MinLatency(us)");
    const uint64_t max = Count(m, "MaxLatency(us)");
    EXPECT_LE(min, Count(m, "95thPercentileLatency(us)"));
    EXPECT_LE(Count(m, "95thPercentileLatency(us)"),
              Count(m, "99thPercentileLatency(us)"));
    EXPECT_LE(Count(m, "99thPercentileLatency(us)"), max);
    const double average = std::stod(m.at("AverageLatency(us)"));
    EXPECT_LE(static_cast<double>(min), average);
    EXPECT_LE(average, static_cast<double>(max));
    operations += n;
  }
  return operations;
}

class BenchCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(cluster_.ok()) << cluster_.error(); }

  CommandOutput Bench(std::vector<std::string> args) {
    args.insert(args.begin(),
                {"bench", "ycsb", "--router",
                 "127.0.0.1:" + std::to_string(cluster_.router_port())});
    return RunCommand(args);
  }
  // Loads 200 records and runs 500 operations of `workload` on `table`.
  Report LoadAndRun(const std::string& workload, const std::string& table) {
    const CommandOutput r =
        Bench({"--workload", workload, "--table", table, "--recordcount", "200",
               "--operationcount", "500", "--threads", "2"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_THAT(r.err, HasSubstr("created table " + table + " with 2 regions"));
    Report report = ParseReport(r.out);
    EXPECT_EQ(CheckOperations(report["load"]), 200u);
    EXPECT_EQ(Count(report["load"]["[INSERT]"], "Operations"), 200u);
    EXPECT_EQ(CheckOperations(report["run"]), 500u);
    return report;
  }

  ProcessCluster cluster_{2};
};

TEST_F(BenchCommandTest, WorkloadALoadsThenReadsAndUpdates) {
  Report report = LoadAndRun("a", "usertable");
  EXPECT_EQ(report["run"].size(), 3u);  // OVERALL, READ, UPDATE
  EXPECT_GT(Count(report["run"]["[READ]"], "Operations"), 0u);
  EXPECT_GT(Count(report["run"]["[UPDATE]"], "Operations"), 0u);
}

TEST_F(BenchCommandTest, WorkloadILooksUpByTheIndexedField) {
  Report report = LoadAndRun("i", "indexed");
  EXPECT_EQ(report["run"].size(), 3u);  // OVERALL, LOOKUP, UPDATE
  EXPECT_GT(Count(report["run"]["[LOOKUP]"], "Operations"),
            Count(report["run"]["[UPDATE]"], "Operations"));
  // Workload I needs its index: a table without it is refused.
  ASSERT_EQ(Bench({"--workload", "a", "--phase", "load", "--recordcount", "10",
                   "--table", "plain"})
                .code,
            0);
  const CommandOutput r =
      Bench({"--workload", "i", "--phase", "run", "--table", "plain"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("without an index on family:field0"));
}

// Records the load never wrote are read as NOT_FOUND: the report says so
// and the command fails.
TEST_F(BenchCommandTest, OperationsThatFailMakeTheCommandFail) {
  ASSERT_EQ(Bench({"--phase", "load", "--recordcount", "10"}).code, 0);
  const CommandOutput r =
      Bench({"--workload", "c", "--phase", "run", "--recordcount", "1000",
             "--operationcount", "100"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("operations did not end OK"));
  Report report = ParseReport(r.out);
  const auto& read = report["run"]["[READ]"];
  EXPECT_EQ(Count(read, "Operations"), 100u);
  EXPECT_GT(Count(read, "Return=NOT_FOUND"), 0u);
  EXPECT_EQ(Count(read, "Return=OK") + Count(read, "Return=NOT_FOUND"), 100u);
}

TEST_F(BenchCommandTest, BadArgumentsAreUsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--workload", "g"}, "--workload must be a, b, c, d, e, f or i, not g"},
      {{"--threads", "0"}, "--threads must be in [1, 1024], not 0"},
      {{"--recordcount", "0"}, "--recordcount must be at least 1, not 0"},
      {{"--requestdistribution", "hot"}, "--requestdistribution must be"},
      {{"--family", "a:b"}, "--family 'a:b' is empty or holds ':'"}};
  for (const auto& [args, want] : cases) {
    const CommandOutput r = Bench(args);
    EXPECT_EQ(r.code, 2) << args[0];
    EXPECT_THAT(r.err, HasSubstr(want));
  }
}

}  // namespace
}  // namespace bloomroute::testing
