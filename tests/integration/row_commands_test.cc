// `bloomroute query`, `get` and `scan` as processes against a router over
// four region server processes on loopback.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RowCommandsTest : public ::testing::Test {
 protected:
  // One cluster for the whole suite: the commands only read.
  static void SetUpTestSuite() {
    cluster_ = new ProcessCluster(4);
    ASSERT_TRUE(cluster_->ok()) << cluster_->error();
    RouterClient client(cluster_->router_port());
    rpc::client::TTableInfo info;
    // Regions [,g) [g,n) [n,t) [t,): one per server.
    client->createIndexedTable(
        info, MakeTableSpec("geo", {"d:cc"}, 0, {"g", "n", "t"}));
    client->putMultiple(
        "geo", {MakePut("apple", {{"d:cc", "NO"}, {"d:name", "Apple"}}),
                MakePut("house", {{"d:cc", "SE"}, {"d:name", "Ho, \"use\""}}),
                MakePut("pear", {{"d:cc", "SE"}, {"d:name", "line\nbreak"}}),
                MakePut("zebra", {{"d:cc", "DK"}, {"e:x", "\xff"}})});
  }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(cluster_ != nullptr && cluster_->ok()); }

  static CommandOutput Run(const std::string& command,
                           std::vector<std::string> args) {
    std::vector<std::string> all = {
        command, "--router",
        "127.0.0.1:" + std::to_string(cluster_->router_port()), "--table",
        "geo"};
    all.insert(all.end(), args.begin(), args.end());
    return RunCommand(all);
  }

  static ProcessCluster* cluster_;
};

ProcessCluster* RowCommandsTest::cluster_ = nullptr;

TEST_F(RowCommandsTest, QueryPrintsRowsAndTheRoutingLineOnStderr) {
  CommandOutput r = Run("query", {"--where", "cc=SE", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "row,d:cc,d:name\r\n"
            "house,SE,\"Ho, \"\"use\"\"\"\r\n"
            "pear,SE,\"line\nbreak\"\r\n");
  // house and pear live on two servers; a filter false positive could add
  // a third asked server, but never remove one.
  EXPECT_THAT(r.err, HasSubstr("routing: asked "));
  EXPECT_THAT(r.err, HasSubstr(" of 4 servers, 2 with rows (0 asked because "
                               "not current)"));

  r = Run("query", {"--where", "d:cc=SE", "--columns", "name", "--limit", "1",
                    "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"row\":\"house\",\"d:name\":\"Ho, \\\"use\\\"\"}\n");
  EXPECT_THAT(r.err, HasSubstr("more rows matched than the 1 printed"));

  r = Run("query", {"--where", "cc=NO"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            " row   | d:cc | d:name\n"
            "-------+------+--------\n"
            " apple | NO   | Apple\n"
            "(1 row)\n");
  r = Run("query", {"--where", "cc=XX", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_THAT(r.err, HasSubstr("0 with rows"));
}

TEST_F(RowCommandsTest, QueryErrorsAndBadUsage) {
  CommandOutput r = Run("query", {"--where", "name=Apple"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("not indexed"));
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(Run("query", {"--where", "cc"}).code, 2);
  EXPECT_EQ(Run("query", {"--where", "cc=SE", "--format", "xml"}).code, 2);
  EXPECT_EQ(Run("query", {"--where", "cc=SE", "--limit", "0"}).code, 2);
  EXPECT_EQ(Run("query", {}).code, 2);  // a predicate is required
  r = RunCommand({"query", "--router", "127.0.0.1:1", "--table", "geo",
                  "--where", "cc=SE"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("the router at 127.0.0.1:1"));
}

// A table the router does not know: the first line names the tables there
// are (client_errors_test.cc tests the connection's failures).
TEST_F(RowCommandsTest, AnUnknownTableIsToldWithTheTablesThatExist) {
  const std::string router =
      "127.0.0.1:" + std::to_string(cluster_->router_port());
  for (std::vector<std::string> args :
       {std::vector<std::string>{"query", "--where", "cc=SE"},
        {"get", "--row", "apple"},
        {"scan"}}) {
    const std::string command = args[0];
    args.insert(args.begin() + 1, {"--router", router, "--table", "nope"});
    const CommandOutput r = RunCommand(args);
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
              "bloomroute " + command +
                  ": NotFound: table 'nope' does not exist; the tables are "
                  "'geo'");
    EXPECT_EQ(r.out, "");
  }
}

// --page-size fetches every page with the router's tokens and prints them as
// one answer: the same output as one call, whatever the page size.
TEST_F(RowCommandsTest, QueryPagesPrintOneStream) {
  for (const std::string format : {"table", "csv", "json"}) {
    const CommandOutput whole =
        Run("query", {"--where", "cc=SE", "--format", format});
    ASSERT_EQ(whole.code, 0) << whole.err;
    for (const std::string size : {"1", "2", "1000"}) {
      const CommandOutput paged = Run("query", {"--where", "cc=SE", "--format",
                                                format, "--page-size", size});
      ASSERT_EQ(paged.code, 0) << paged.err;
      EXPECT_EQ(paged.out, whole.out) << format << " " << size;
      EXPECT_THAT(paged.err, HasSubstr("routing: asked "));
    }
  }
  // At least two pages of one row (a last page may be empty when a server
  // could not tell that nothing follows).
  CommandOutput r = Run("query", {"--where", "cc=SE", "--page-size", "1"});
  EXPECT_THAT(r.err, ::testing::ContainsRegex("2 rows in [23] pages"));
  // --limit caps the rows printed across pages.
  r = Run("query", {"--where", "cc=SE", "--page-size", "1", "--limit", "1",
                    "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc,d:name\r\nhouse,SE,\"Ho, \"\"use\"\"\"\r\n");
  EXPECT_THAT(r.err, HasSubstr("more rows matched than the 1 printed"));
}

TEST_F(RowCommandsTest, QueryPageSizeIsChecked) {
  for (const std::string bad : {"0", "-1", "100001"}) {
    const CommandOutput r =
        Run("query", {"--where", "cc=SE", "--page-size", bad});
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr("--page-size")) << bad;
  }
  // With pages, --limit may pass one call's maximum.
  const CommandOutput r = Run(
      "query", {"--where", "cc=SE", "--page-size", "10", "--limit", "1000000"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Run("query", {"--where", "cc=SE", "--limit", "1000000"}).code, 2);
}

TEST_F(RowCommandsTest, QueryTakesRangesInListsPrefixesAndCounts) {
  CommandOutput r = Run("query", {"--in", "cc=NO,DK,X\\,Y", "--columns", "cc",
                                  "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc\r\napple,NO\r\nzebra,DK\r\n");
  r = Run("query", {"--where", "cc>=O", "--columns", "cc", "--format", "csv",
                    "--limit", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc\r\nhouse,SE\r\n");
  EXPECT_THAT(r.err, HasSubstr("routing: asked 4 of 4 servers"));
  EXPECT_THAT(r.err, HasSubstr("a range alone cannot be routed"));
  r = Run("query", {"--where", "cc<SE", "--where", "cc>DK", "--columns", "cc",
                    "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc\r\napple,NO\r\n");
  r = Run("query", {"--prefix", "cc=S", "--count"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");
  r = Run("query", {"--in", "cc=SE,NO", "--where", "cc<=NO", "--count",
                    "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "{\"count\":1}\n");
  r = Run("query", {"--between", "cc=DK,NO", "--count"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "2\n");

  r = Run("query", {"--in", "cc=a\\x"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--in"));
  r = Run("query", {"--prefix", "cc="});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("--prefix"));
  r = Run("query", {"--in", "cc=a,a"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("twice"));
}

TEST_F(RowCommandsTest, GetPrintsFoundRowsInRequestOrder) {
  CommandOutput r = Run("get", {"--row", "zebra", "--row", "nope", "--row",
                                "apple", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"row\":\"zebra\",\"d:cc\":\"DK\",\"e:x\":\"\\u00ff\"}\n"
            "{\"row\":\"apple\",\"d:cc\":\"NO\",\"d:name\":\"Apple\"}\n");
  EXPECT_THAT(r.err, HasSubstr("1 of 3 rows not found"));
  r = Run("get", {"--row", "zebra", "--columns", "e:x"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, " row   | e:x\n-------+------\n zebra | \\xff\n(1 row)\n");
  EXPECT_EQ(Run("get", {}).code, 2);
  EXPECT_EQ(Run("get", {"--row", ""}).code, 2);
}

TEST_F(RowCommandsTest, ScanReadsAKeyRangeAcrossRegions) {
  CommandOutput r = Run("scan", {"--start", "b", "--stop", "q", "--columns",
                                 "cc", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:cc\r\nhouse,SE\r\npear,SE\r\n");
  r = Run("scan", {"--format", "csv", "--columns", "cc"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "row,d:cc\r\napple,NO\r\nhouse,SE\r\npear,SE\r\nzebra,DK\r\n");
  r = Run("scan", {"--limit", "2", "--format", "json", "--columns", "cc"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "{\"row\":\"apple\",\"d:cc\":\"NO\"}\n"
            "{\"row\":\"house\",\"d:cc\":\"SE\"}\n");
  EXPECT_THAT(r.err, HasSubstr("stopped at --limit 2"));
  EXPECT_EQ(Run("scan", {"--start", "q", "--stop", "b"}).code, 2);
  EXPECT_EQ(Run("scan", {"--limit", "-1"}).code, 2);
}

// --router takes a list: routers that do not answer (nothing listens on
// ports 1 and 2) are passed over, whichever the command starts at, and the
// output is the one router's.
TEST_F(RowCommandsTest, AListOfRoutersPassesOverThoseThatAreDown) {
  const std::string live =
      "127.0.0.1:" + std::to_string(cluster_->router_port());
  const std::string list = "127.0.0.1:1," + live + ",127.0.0.1:2";
  const std::vector<std::vector<std::string>> commands = {
      {"scan", "--format", "csv", "--columns", "cc"},
      {"query", "--where", "cc=SE", "--page-size", "1", "--format", "csv"},
      {"get", "--row", "pear", "--row", "apple", "--format", "csv"}};
  for (const std::vector<std::string>& command : commands) {
    const CommandOutput one =
        Run(command[0], {command.begin() + 1, command.end()});
    ASSERT_EQ(one.code, 0) << one.err;
    for (int run = 0; run < 3; ++run) {
      std::vector<std::string> args = command;
      args.insert(args.begin() + 1, {"--router", list, "--table", "geo"});
      const CommandOutput r = RunCommand(args);
      ASSERT_EQ(r.code, 0) << command[0] << ": " << r.err;
      EXPECT_EQ(r.out, one.out) << command[0];
    }
  }
  CommandOutput r = RunCommand(
      {"scan", "--router", "127.0.0.1:1,127.0.0.1:2", "--table", "geo"});
  EXPECT_EQ(r.code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no router answered openScanner (tried "));
  r = RunCommand({"scan", "--router", live + "," + live, "--table", "geo"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("--router: router '" + live + "' is listed twice"));
}

}  // namespace
}  // namespace bloomroute::testing
