// `bloomroute put` and `bloomroute delete` as processes against a router
// over two region server processes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class MutateCommandsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = new ProcessCluster(2); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(cluster_->ok()) << cluster_->error(); }

  static CommandOutput Run(std::vector<std::string> args) {
    args.insert(
        args.begin() + 1,
        {"--router", "127.0.0.1:" + std::to_string(cluster_->router_port())});
    return RunCommand(args);
  }

  static ProcessCluster* cluster_;
};

ProcessCluster* MutateCommandsTest::cluster_ = nullptr;

TEST_F(MutateCommandsTest, PutWritesCellsThatLookupsFind) {
  CommandOutput r = Run({"shell", "-e",
                         "create 'm', 'd', 'e', "
                         "{INDEX => ['d:cc']}"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"put", "--table", "m", "--row", "oslo", "cc=NO", "name=Oslo",
           "e:pop=1000", "d:empty="});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "");
  r = Run({"put", "--table", "m", "--row", "bergen", "--timestamp", "5",
           "--cell", "cc=NO"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"query", "--table", "m", "--where", "cc=NO", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "row,d:cc,d:empty,d:name,e:pop\r\n"
            "bergen,NO,,,\r\n"
            "oslo,NO,,Oslo,1000\r\n");
  r = Run({"shell", "-e", "get 'm', 'bergen'"});
  EXPECT_THAT(r.out, HasSubstr("timestamp=1970-01-01T00:00:00.005Z"));

  // A family the table does not declare is refused by the router.
  r = Run({"put", "--table", "m", "--row", "x", "f:q=1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, StartsWith("bloomroute put: InvalidArgument: "));
  r = Run({"put", "--table", "m", "--row", "x", "novalue"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "bloomroute put: cell 'novalue' is not NAME=VALUE (see "
            "bloomroute put --help)\n");
  r = Run({"put", "--table", "m", "--row", "x"});
  EXPECT_EQ(r.code, 2);
  r = Run({"put", "--table", "m", "--row", "x", "cc=1", "d:cc=2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("column d:cc given twice"));
}

TEST_F(MutateCommandsTest, DeleteRemovesRowsOrColumns) {
  CommandOutput r =
      Run({"shell", "-e",
           "create 'del', 'd'; put 'del', 'a', 'd:x', '1'; "
           "put 'del', 'a', 'd:y', '2'; put 'del', 'b', 'd:x', '3'; "
           "put 'del', 'c', 'd:x', '4'"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"delete", "--table", "del", "--row", "a", "--columns", "y"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"delete", "--table", "del", "--row", "b", "--row", "c"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Run({"scan", "--table", "del", "--format", "csv"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "row,d:x\r\na,1\r\n");
  r = Run({"delete", "--table", "nope", "--row", "a"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("table 'nope' does not exist"));
}

}  // namespace
}  // namespace bloomroute::testing
