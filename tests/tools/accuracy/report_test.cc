#include "tools/accuracy/report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::accuracy {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    probes_ = {
        ProbeOutcome{"d:c", "a,b", true, {1, 2}, {}, {1}},
        ProbeOutcome{"d:c", "absent-1", false, {2}, {2}, {}},
    };
    figures_ = ComputeAccuracy(probes_,
                               {{1, "127.0.0.1:7001", 0.25, 0.125, 0.2, 1, 8},
                                {2, "127.0.0.1:7002", 0.5, 0.125, 0.2, 2, 9}});
  }
  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::vector<ProbeOutcome> probes_;
  AccuracyFigures figures_;
  testing::TempDir dir_;
};

TEST_F(ReportTest, CsvHasOneLinePerServer) {
  EXPECT_EQ(ReportCsv(figures_),
            "server_id,address,probes_tested,false_positives,measured_fpr,"
            "ci_low,ci_high,estimated_fpr,stage0_target,compounded_bound,"
            "asked_not_current,false_negatives\r\n"
            "1,127.0.0.1:7001,1,0,0,0,0.793457,0.25,0.125,0.2,0,0\r\n"
            "2,127.0.0.1:7002,1,1,1,0.206543,1,0.5,0.125,0.2,1,0\r\n");
}

TEST_F(ReportTest, ProbesCsvQuotesValuesAndListsIds) {
  EXPECT_EQ(ProbesCsv(probes_),
            "column,value,present,asked,asked_not_current,truth\r\n"
            "d:c,\"a,b\",1,1 2,,1\r\n"
            "d:c,absent-1,0,2,2,\r\n");
}

TEST_F(ReportTest, MarkdownNamesTheRunAndEveryServer) {
  RunInfo run;
  run.command_line = "bloomroute accuracy --table t";
  run.table = "t";
  run.columns = {"d:c"};
  run.seed = 42;
  const std::string md = ReportMarkdown(run, figures_);
  EXPECT_THAT(md, HasSubstr("`bloomroute accuracy --table t`"));
  EXPECT_THAT(md, HasSubstr("- seed: 42"));
  EXPECT_THAT(md, HasSubstr("no false negatives"));
  EXPECT_THAT(md, HasSubstr("| 2 | 127.0.0.1:7002 | 2 | 9 | 1 | 1 | 1 |"));
  EXPECT_THAT(md, HasSubstr("| false routes per lookup, all | 0.5 (1 in 2) |"));
  // Fanout 2 (servers 1 and 2), and 0 (server 2 asked as not current).
  EXPECT_THAT(md, HasSubstr("| fanout | probes |\n|---|---|\n| 0 | 1 |\n"
                            "| 2 | 1 |\n"));
}

TEST_F(ReportTest, PlotScriptQuotesPaths) {
  const std::string script = PlotScript("it's.dat", "out.png");
  EXPECT_THAT(script, HasSubstr("set output 'out.png'"));
  EXPECT_THAT(script, HasSubstr("plot 'it''s.dat' using"));
}

// The legend sat outside the plot on the right and took half the chart's
// width; it goes under the plot, which keeps the width.
TEST_F(ReportTest, TheLegendIsUnderThePlot) {
  const std::string script = PlotScript("a.dat", "a.png");
  EXPECT_THAT(script, HasSubstr("set key below horizontal"));
  EXPECT_THAT(script, Not(HasSubstr("outside right")));
}

TEST_F(ReportTest, GnuplotDrawsAPng) {
  if (!RunGnuplot("/dev/null").ok()) GTEST_SKIP() << "gnuplot not installed";
  const std::string dir = dir_.path() + "/a dir with 'quotes'";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteTextFile(dir + "/a.dat", PlotData(figures_)).ok());
  ASSERT_TRUE(
      WriteTextFile(dir + "/a.plt", PlotScript(dir + "/a.dat", dir + "/a.png"))
          .ok());
  Status s = RunGnuplot(dir + "/a.plt");
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Read(dir + "/a.png").substr(0, 4), "\x89PNG");
  // A script gnuplot rejects is an error, not a silent success.
  ASSERT_TRUE(WriteTextFile(dir + "/bad.plt", "plot nonsense(\n").ok());
  EXPECT_TRUE(RunGnuplot(dir + "/bad.plt").IsIOError());
}

TEST_F(ReportTest, MissingGnuplotIsNotFound) {
  const std::string path = getenv("PATH") == nullptr ? "" : getenv("PATH");
  setenv("PATH", (dir_.path() + "/empty").c_str(), 1);
  const Status s = RunGnuplot("/dev/null");
  setenv("PATH", path.c_str(), 1);
  EXPECT_TRUE(s.IsNotFound()) << s.ToString();
}

TEST_F(ReportTest, WritingIntoAMissingDirectoryFails) {
  EXPECT_TRUE(
      WriteTextFile(dir_.path() + "/missing/report.csv", "x").IsIOError());
}

}  // namespace
}  // namespace bloomroute::accuracy
