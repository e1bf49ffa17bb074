// `bloomroute verify` end to end: two region server processes and a router;
// the data directories of stopped region servers are damaged the way only a
// bug or a disk fault could, and verify must name each damage and exit 1.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"
#include "tests/regionstore/store_surgery.h"

namespace bloomroute::testing {
namespace {

testing::CommandOutput RunVerify(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"verify"};
  all.insert(all.end(), args.begin(), args.end());
  return testing::RunCommand(all);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class VerifyCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    RouterClient client(cluster_.router_port());
    rpc::client::TTableInfo info;
    client->createIndexedTable(
        info, MakeTableSpec("places", {"d:country"}, 0, {"n"}));
    ASSERT_EQ(info.regions.size(), 2u);
    table_id_ = static_cast<uint64_t>(info.descriptor.tableId);
    for (int r = 0; r < 2; ++r) {
      for (int i = 0; i < cluster_.region_servers(); ++i) {
        if (info.regions[r].server.address ==
            cluster_.region_server_address(i)) {
          node_of_region_[r] = i;
        }
      }
    }
    client->putMultiple("places", {MakePut("apple", {{"d:country", "NO"}}),
                                   MakePut("berry", {{"d:country", "SE"}}),
                                   MakePut("pear", {{"d:country", "DK"}}),
                                   MakePut("zebra", {{"d:country", "NO"}})});
  }
  testing::CommandOutput Verify(const std::string& table = "places") {
    return RunVerify({"--router",
                      "127.0.0.1:" + std::to_string(cluster_.router_port()),
                      "--table", table});
  }
  // Stops region server `i`, lets `edit` change its database, restarts it
  // on its port.
  template <typename Fn>
  void Damage(int i, Fn&& edit) {
    ASSERT_TRUE(cluster_.StopRegionServer(i));
    {
      auto surgery = StoreSurgery::Open(cluster_.dir() + "/regionserver-" +
                                        std::to_string(i));
      ASSERT_TRUE(surgery.ok()) << surgery.status().ToString();
      edit(**surgery);
    }
    ASSERT_TRUE(cluster_.StartRegionServer(i)) << cluster_.error();
  }

  ProcessCluster cluster_{2};
  uint64_t table_id_ = 0;
  int node_of_region_[2] = {-1, -1};
};

TEST_F(VerifyCommandTest, CleanAfterWritesExitsZero) {
  const testing::CommandOutput o = Verify();
  EXPECT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out,
                  "total: rows 4, values 4, valid 4, missing 0, "
                  "extra 0, invalid 0"))
      << o.out;
  EXPECT_TRUE(Has(o.out, "filters equal to a rebuild 2/2")) << o.out;
  EXPECT_TRUE(Has(o.out, "ok: ")) << o.out;
}

TEST_F(VerifyCommandTest,
       NamesAMissingAnExtraEntryAndAValueMissingFromAFilter) {
  ASSERT_NE(node_of_region_[0], node_of_region_[1]);
  Damage(node_of_region_[0], [](StoreSurgery& s) {  // apple, berry
    ASSERT_TRUE(s.DropFirstIndexEntry().ok());
  });
  Damage(node_of_region_[1], [&](StoreSurgery& s) {  // pear, zebra
    ASSERT_TRUE(s.AddIndexEntryForRow("ghost").ok());
    ASSERT_TRUE(s.DropFromFilter(table_id_, 1, "DK").ok());
  });
  const testing::CommandOutput o = Verify();
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.out,
                  "valid 3, missing 1, extra 1, invalid 1 "
                  "(counts wrong 0, not in filter 1)"))
      << o.out;
  EXPECT_TRUE(Has(o.out, "filters equal to a rebuild 1/2")) << o.out;
  EXPECT_TRUE(Has(o.out, "problem: missing index entry")) << o.out;
  EXPECT_TRUE(Has(o.out, "'ghost'")) << o.out;
  EXPECT_TRUE(Has(o.out, "'DK' not in the filter")) << o.out;
  EXPECT_TRUE(Has(o.err, "disagrees")) << o.err;
}

// A server that cannot be asked (down, or its check timed out) leaves the
// table unverified: that is not a finding that the index disagrees.
TEST_F(VerifyCommandTest, AServerThatDoesNotAnswerIsCouldNotVerify) {
  ASSERT_TRUE(cluster_.StopRegionServer(node_of_region_[0]));
  const testing::CommandOutput o = Verify();
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "FAILED: Unavailable: region server 127.0.0.1:"))
      << o.out;
  EXPECT_FALSE(Has(o.err, "disagrees")) << o.err;
  EXPECT_TRUE(Has(o.err, "could not verify")) << o.err;
}

TEST_F(VerifyCommandTest, FailuresAndBadUsage) {
  // Nothing was checked: not verified (3), not a disagreement (1).
  testing::CommandOutput o = Verify("nope");
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "could not verify")) << o.err;
  EXPECT_TRUE(Has(o.err, "nope")) << o.err;

  ASSERT_TRUE(cluster_.StopRouter());
  o = Verify();
  EXPECT_EQ(o.code, 3) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "the router at 127.0.0.1:")) << o.err;

  EXPECT_EQ(RunVerify({"--router", "127.0.0.1:1"}).code, 2);
  EXPECT_EQ(RunVerify({"--router", "nohostport", "--table", "t"}).code, 2);
}

}  // namespace
}  // namespace bloomroute::testing
