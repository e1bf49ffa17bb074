// `bloomroute index` end to end: two region server processes and a router;
// an index is added to a table holding rows, built online, used, verified
// and dropped, through the command line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"

namespace bloomroute::testing {
namespace {

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class IndexCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    RouterClient client(cluster_.router_port());
    rpc::client::TTableInfo info;
    client->createIndexedTable(
        info, MakeTableSpec("places", {"d:country"}, 0, {"n"}));
    std::vector<rpc::client::TPut> puts;
    for (int i = 0; i < 300; ++i) {
      puts.push_back(MakePut("row" + std::to_string(1000 + i),
                             {{"d:country", i % 2 ? "NO" : "SE"},
                              {"d:feature", "f" + std::to_string(i % 7)}}));
    }
    client->putMultiple("places", puts);
  }
  CommandOutput Run(std::vector<std::string> args) {
    args.insert(args.begin(), "index");
    args.insert(
        args.end(),
        {"--router", "127.0.0.1:" + std::to_string(cluster_.router_port())});
    return RunCommand(args);
  }
  size_t Lookup(const std::string& feature) {
    RouterClient client(cluster_.router_port());
    rpc::client::TIndexResult found;
    client->getByIndex(found, "places", MakeQuery({{"d:feature", feature}}));
    return found.rows.size();
  }

  ProcessCluster cluster_{2};
};

TEST_F(IndexCommandTest, AddStatusLookupVerifyDrop) {
  CommandOutput o = Run(
      {"add", "--table", "places", "--column", "feature", "--poll-ms", "50"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "index on 'd:feature' of table places is ready"))
      << o.out;
  EXPECT_TRUE(Has(o.err, "'d:feature' ready")) << o.err;
  EXPECT_EQ(Lookup("f3"), 43u);  // rows 1003, 1010, ... (i % 7 == 3)

  o = Run({"status", "--table", "places", "--format", "json"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(Has(o.out,
                  "{\"column\":\"d:feature\",\"column_id\":2,"
                  "\"state\":\"ready\",\"regions_done\":2,"
                  "\"regions_total\":2"))
      << o.out;

  o = RunCommand({"verify", "--table", "places", "--router",
                  "127.0.0.1:" + std::to_string(cluster_.router_port())});
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "valid 600, missing 0, extra 0, invalid 0")) << o.out;

  o = Run(
      {"drop", "--table", "places", "--column", "feature", "--poll-ms", "50"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "is dropped")) << o.out;
  o = Run({"status", "--table", "places"});
  ASSERT_EQ(o.code, 0) << o.err;
  EXPECT_TRUE(Has(o.out, "table places: 1 index\n")) << o.out;
  EXPECT_FALSE(Has(o.out, "d:feature")) << o.out;
  o = RunCommand({"verify", "--table", "places", "--router",
                  "127.0.0.1:" + std::to_string(cluster_.router_port())});
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "valid 300, missing 0, extra 0, invalid 0")) << o.out;

  // The router's refusals reach the command's exit code and stderr.
  o = Run({"drop", "--table", "places", "--column", "feature"});
  EXPECT_EQ(o.code, 1);
  EXPECT_TRUE(Has(o.err, "not indexed")) << o.err;
}

}  // namespace
}  // namespace bloomroute::testing
