// `bloomroute admin servers` and `admin regions` end to end: two region
// server processes and a router; a small file imported with `bloomroute
// import`, then the rows, regions and servers the admin command reports
// must add up to what was imported.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"

namespace bloomroute::testing {
namespace {

// Every value of `"key":N` in `json`, in order.
std::vector<uint64_t> Numbers(const std::string& json, const std::string& key) {
  std::vector<uint64_t> out;
  const std::regex re("\"" + key + "\":([0-9]+)");
  for (std::sregex_iterator it(json.begin(), json.end(), re), end; it != end;
       ++it) {
    out.push_back(std::stoull((*it)[1].str()));
  }
  return out;
}

uint64_t Sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

class AdminCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    const std::string file = cluster_.dir() + "/cities.csv";
    std::ofstream out(file);
    out << "id,name,cc\n";
    for (int i = 0; i < kRows; ++i) {
      out << 1000 + i << ",city" << i << "," << (i % 3 == 0 ? "NO" : "SE")
          << "\n";
    }
    out.close();
    const CommandOutput o =
        RunCommand({"import", "--router", Router(), "--table", "cities",
                    "--file", file, "--format", "csv", "--header", "--row-key",
                    "id", "--index", "cc", "--regions", "3"});
    ASSERT_EQ(o.code, 0) << o.out << o.err;
  }
  std::string Router() const {
    return "127.0.0.1:" + std::to_string(cluster_.router_port());
  }
  CommandOutput Admin(std::vector<std::string> args) {
    args.insert(args.begin(), {"admin"});
    args.insert(args.end(), {"--router", Router()});
    return RunCommand(args);
  }

  static constexpr int kRows = 50;
  ProcessCluster cluster_{2};
};

TEST_F(AdminCommandTest, ServersAndRegionsAddUpToTheImport) {
  const CommandOutput servers = Admin({"servers", "--format", "json"});
  ASSERT_EQ(servers.code, 0) << servers.out << servers.err;
  const std::vector<uint64_t> server_rows = Numbers(servers.out, "rows");
  // Two servers, then the total.
  ASSERT_EQ(server_rows.size(), 3u) << servers.out;
  EXPECT_EQ(server_rows[0] + server_rows[1], uint64_t{kRows});
  EXPECT_EQ(server_rows[2], uint64_t{kRows});
  EXPECT_EQ(Numbers(servers.out, "regions").back(), 3u) << servers.out;
  EXPECT_EQ(servers.out.find("\"reachable\":false"), std::string::npos);

  const CommandOutput regions =
      Admin({"regions", "--table", "cities", "--format", "json"});
  ASSERT_EQ(regions.code, 0) << regions.out << regions.err;
  std::vector<uint64_t> region_rows = Numbers(regions.out, "rows");
  ASSERT_EQ(region_rows.size(), 4u) << regions.out;  // 3 regions, the total
  EXPECT_EQ(region_rows.back(), uint64_t{kRows});
  region_rows.pop_back();
  EXPECT_EQ(Sum(region_rows), uint64_t{kRows});
  // Sampled split keys: every region holds some of the rows.
  for (uint64_t n : region_rows) EXPECT_GT(n, 0u) << regions.out;
  // Bytes are approximate, but the same estimate both ways.
  EXPECT_EQ(Numbers(regions.out, "bytes").back(),
            Numbers(servers.out, "bytes").back());
  const std::regex open("\"state\":\"open\"");
  EXPECT_EQ(std::distance(std::sregex_iterator(regions.out.begin(),
                                               regions.out.end(), open),
                          std::sregex_iterator()),
            3)
      << regions.out;

  const CommandOutput table = Admin({"regions", "--table", "cities"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("(table cities: 3 regions, 50 rows"),
            std::string::npos)
      << table.out;
}

TEST_F(AdminCommandTest, AStoppedServerIsReportedAndAnUnknownTableFails) {
  ASSERT_TRUE(cluster_.StopRegionServer(1));
  const CommandOutput servers = Admin({"servers"});
  EXPECT_EQ(servers.code, 0) << servers.err;
  EXPECT_NE(servers.out.find("server 2: "), std::string::npos) << servers.out;
  EXPECT_NE(servers.out.find(" NO "), std::string::npos) << servers.out;
  const CommandOutput unknown = Admin({"regions", "--table", "nope"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("nope"), std::string::npos) << unknown.err;
}

// admin routers lists a ZooKeeper cluster's members
// (router_zookeeper_test.cc); a router with --data has none and says so.
TEST_F(AdminCommandTest, RoutersOfARouterWithItsOwnCatalogAreRefused) {
  const CommandOutput routers = Admin({"routers"});
  EXPECT_EQ(routers.code, 1) << routers.out;
  EXPECT_NE(routers.err.find("keeps its catalog alone"), std::string::npos)
      << routers.err;
}

// add-server, set-address and remove-server: usage checked before the
// router is asked; the router's refusals reach the user.
TEST_F(AdminCommandTest, MembershipSubcommandsCheckUsageAndReportRefusals) {
  EXPECT_EQ(Admin({"add-server", "no-port"}).code, 2);
  EXPECT_EQ(Admin({"add-server"}).code, 2);
  EXPECT_EQ(Admin({"set-address", "127.0.0.1:9"}).code, 2);  // no --server
  EXPECT_EQ(Admin({"remove-server"}).code, 2);
  EXPECT_EQ(Admin({"remove-server", "--server", "1", "127.0.0.1:9"}).code, 2);
  EXPECT_EQ(Admin({"servers", "127.0.0.1:9"}).code, 2);

  const CommandOutput refused = Admin({"remove-server", "--server", "1"});
  EXPECT_EQ(refused.code, 1);
  EXPECT_NE(refused.err.find("move them"), std::string::npos) << refused.err;
  const CommandOutput taken = Admin(
      {"set-address", "--server", "1", cluster_.region_server_address(1)});
  EXPECT_EQ(taken.code, 1);
  EXPECT_NE(taken.err.find("belongs to region server 2"), std::string::npos)
      << taken.err;
  const CommandOutput unknown = Admin({"remove-server", "--server", "9"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("no region server 9"), std::string::npos)
      << unknown.err;
  // A member's address: that member.
  const CommandOutput again = Admin(
      {"add-server", cluster_.region_server_address(1), "--format", "json"});
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_NE(again.out.find("\"id\":2"), std::string::npos) << again.out;
}

// The region operations from the command line: split every region, move
// one by the target's address, merge two back, balance onto a server added
// meanwhile, decommission one by address; the rows and a lookup stay the
// same throughout.
TEST_F(AdminCommandTest, RegionOperationsFromTheCommandLine) {
  auto region_ids = [&] {
    const CommandOutput r =
        Admin({"regions", "--table", "cities", "--format", "json"});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(Numbers(r.out, "rows").back(), uint64_t{kRows}) << r.out;
    return Numbers(r.out, "id");
  };
  auto expect_lookup = [&] {
    const CommandOutput q =
        RunCommand({"query", "--router", Router(), "--table", "cities",
                    "--where", "cc=NO", "--count"});
    ASSERT_EQ(q.code, 0) << q.err;
    EXPECT_NE(q.out.find("17"), std::string::npos) << q.out;  // i % 3 == 0
  };
  ASSERT_EQ(region_ids().size(), 3u);
  const CommandOutput split = Admin({"split", "--table", "cities"});
  ASSERT_EQ(split.code, 0) << split.out << split.err;
  EXPECT_NE(split.out.find("split: region "), std::string::npos) << split.out;
  std::vector<uint64_t> ids = region_ids();
  ASSERT_EQ(ids.size(), 6u);
  expect_lookup();

  // A split at a given row, of the region holding it.
  const CommandOutput at = Admin(
      {"split", "--table", "cities", "--row", "1049", "--format", "json"});
  ASSERT_EQ(at.code, 0) << at.err;
  EXPECT_NE(at.out.find("\"start\":\"1049\""), std::string::npos) << at.out;
  ids = region_ids();
  ASSERT_EQ(ids.size(), 7u);

  const int added = cluster_.AddRegionServer();
  ASSERT_GE(added, 0);
  const std::string address = cluster_.region_server_address(added);
  ASSERT_EQ(Admin({"add-server", address}).code, 0);
  const CommandOutput moved =
      Admin({"move", "--region", std::to_string(ids[0]), "--to", address});
  ASSERT_EQ(moved.code, 0) << moved.err;
  EXPECT_NE(moved.out.find("on server 3 " + address), std::string::npos)
      << moved.out;
  ids = region_ids();
  const CommandOutput merged =
      Admin({"merge", "--region", std::to_string(ids[1]), "--region",
             std::to_string(ids[2])});
  ASSERT_EQ(merged.code, 0) << merged.err;
  EXPECT_NE(merged.out.find("merge: regions "), std::string::npos)
      << merged.out;
  ASSERT_EQ(region_ids().size(), 6u);
  expect_lookup();

  const CommandOutput balanced = Admin({"balance", "--format", "json"});
  ASSERT_EQ(balanced.code, 0) << balanced.out << balanced.err;
  EXPECT_NE(balanced.out.find("\"balanced\":true"), std::string::npos)
      << balanced.out;
  const CommandOutput drained =
      Admin({"decommission", cluster_.region_server_address(0)});
  ASSERT_EQ(drained.code, 0) << drained.out << drained.err;
  EXPECT_NE(drained.out.find("region server 1 is drained"), std::string::npos)
      << drained.out;
  const CommandOutput servers = Admin({"servers", "--format", "json"});
  EXPECT_EQ(servers.out.find("\"id\":1,"), std::string::npos) << servers.out;
  ASSERT_EQ(region_ids().size(), 6u);
  expect_lookup();
  const CommandOutput verify =
      RunCommand({"verify", "--router", Router(), "--table", "cities"});
  EXPECT_EQ(verify.code, 0) << verify.out << verify.err;

  // The router's refusals: exit 1 with its reason.
  const CommandOutput unknown = Admin({"move", "--region", "999", "--to", "2"});
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("region 999"), std::string::npos) << unknown.err;
  const CommandOutput nobody = Admin(
      {"move", "--region", std::to_string(ids[0]), "--to", "127.0.0.1:1"});
  EXPECT_EQ(nobody.code, 1);
  EXPECT_NE(nobody.err.find("no member is at"), std::string::npos)
      << nobody.err;
}

// Quotas through the command: set (a limit not given is none), replaced,
// listed in both formats, removed; kept in the router's catalog.
TEST_F(AdminCommandTest, QuotasAreSetListedAndRemoved) {
  CommandOutput o = Admin({"quota", "set", "--user", "alice", "--requests",
                           "1000req/sec", "--bytes", "50M/sec"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("alice  -      1000req/sec  50M/sec"), std::string::npos)
      << o.out;
  o = Admin({"quota", "set", "--user", "alice", "--table", "cities",
             "--requests", "10/min"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  o = Admin({"quota", "set", "--user", "bob", "--bytes", "1G/day"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  o = Admin({"quota", "set", "--user", "alice", "--requests", "500/sec"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  o = Admin({"quota", "list"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("alice  -       500req/sec  -\n"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("alice  cities  10req/min   -\n"), std::string::npos)
      << o.out;
  EXPECT_NE(o.out.find("(3 quotas)"), std::string::npos) << o.out;
  o = Admin({"quota", "list", "--user", "bob", "--format", "json"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_EQ(o.out,
            "{\"quotas\":[{\"user\":\"bob\",\"table\":\"\",\"requests\":null,"
            "\"bytes\":{\"amount\":1073741824,\"seconds\":86400}}]}\n");
  o = Admin({"quota", "remove", "--user", "alice", "--table", "cities"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("quota of user alice on table cities removed"),
            std::string::npos)
      << o.out;
  o = Admin({"quota", "list", "--user", "alice"});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_NE(o.out.find("(1 quotas)"), std::string::npos) << o.out;
  // A bad rate is bad usage, with what is accepted.
  o = Admin({"quota", "set", "--user", "alice", "--requests", "5/week"});
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("sec, min, hour or day"), std::string::npos) << o.err;
}

}  // namespace
}  // namespace bloomroute::testing
