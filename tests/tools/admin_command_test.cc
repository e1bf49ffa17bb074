// `bloomroute admin`: its output formats and the parsing of its subcommands
// (the router calls run end to end in tests/integration).
#include "tools/admin_command.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tools/admin_format.h"

namespace bloomroute {
namespace {

std::vector<router::ServerSummary> TwoServers() {
  router::ServerSummary up;
  up.server = {1, "127.0.0.1:9091"};
  up.reachable = true;
  up.regions = 2;
  up.rows = 4000;
  up.bytes = 524288;
  up.replica_current = true;
  router::ServerSummary down;
  down.server = {2, "127.0.0.1:9092"};
  down.regions = 1;
  down.error = "Unavailable: refused";
  return {up, down};
}

std::vector<router::RegionSummary> TwoRegions() {
  router::RegionSummary a;
  a.region_id = 5;
  a.end_key = std::string("m\x01", 2);
  a.server = {1, "127.0.0.1:9091"};
  a.serving = router::RegionServing::kOpen;
  a.rows = 2000;
  a.row_bytes = 262144;
  a.index_bytes = 65536;
  router::RegionSummary b;
  b.region_id = 6;
  b.start_key = a.end_key;
  b.server = {2, "127.0.0.1:9092"};
  b.serving = router::RegionServing::kUnreachable;
  return {a, b};
}

TEST(AdminFormatTest, ServersTableAlignsAndTotals) {
  const std::string out = FormatServersTable(TwoServers());
  EXPECT_EQ(out,
            "ID  ADDRESS         REACHABLE  REGIONS  NOT-SERVED  ROWS  BYTES   "
            "REPLICA\n"
            "1   127.0.0.1:9091  yes        2        0           4000  524288  "
            "current\n"
            "2   127.0.0.1:9092  NO         1        0           ?     ?       "
            "behind\n"
            "server 2: Unavailable: refused\n"
            "(2 servers, 3 regions, 4000 rows, about 524288 bytes)\n");
}

TEST(AdminFormatTest, ServersJson) {
  EXPECT_EQ(FormatServersJson(TwoServers()),
            "{\"servers\":[{\"id\":1,\"address\":\"127.0.0.1:9091\","
            "\"reachable\":true,\"regions\":2,\"regions_not_served\":0,"
            "\"rows\":4000,\"bytes\":524288,\"replica_current\":true},"
            "{\"id\":2,\"address\":\"127.0.0.1:9092\",\"reachable\":false,"
            "\"error\":\"Unavailable: refused\",\"regions\":1,"
            "\"regions_not_served\":0,\"rows\":0,\"bytes\":0,"
            "\"replica_current\":false}],"
            "\"total\":{\"servers\":2,\"regions\":3,\"rows\":4000,"
            "\"bytes\":524288}}\n");
}

TEST(AdminFormatTest, RegionsTableEscapesKeysAndMarksOpenEnds) {
  const std::string out = FormatRegionsTable("geo", TwoRegions());
  EXPECT_EQ(out,
            "REGION  START  END    SERVER            STATE        ROWS  "
            "ROW-BYTES  INDEX-BYTES\n"
            "5       -      m\\x01  1 127.0.0.1:9091  open         2000  "
            "262144     65536\n"
            "6       m\\x01  -      2 127.0.0.1:9092  unreachable  ?     ?"
            "          ?\n"
            "(table geo: 2 regions, 2000 rows, about 327680 bytes)\n");
}

TEST(AdminFormatTest, RegionsJson) {
  EXPECT_EQ(FormatRegionsJson("geo", TwoRegions()),
            "{\"table\":\"geo\",\"regions\":[{\"id\":5,\"start\":\"\","
            "\"end\":\"m\\u0001\",\"server_id\":1,\"server\":"
            "\"127.0.0.1:9091\",\"state\":\"open\",\"rows\":2000,"
            "\"row_bytes\":262144,\"index_bytes\":65536},{\"id\":6,"
            "\"start\":\"m\\u0001\",\"end\":\"\",\"server_id\":2,"
            "\"server\":\"127.0.0.1:9092\",\"state\":\"unreachable\","
            "\"rows\":0,\"row_bytes\":0,\"index_bytes\":0}],"
            "\"total\":{\"regions\":2,\"rows\":2000,\"bytes\":327680}}\n");
}

router::RegionOpResult SplitResult() {
  router::RegionOpResult r;
  r.regions = {{RegionDescriptor{7, {}, "", "g"},
                router::ServerRef{1, "127.0.0.1:9091"}},
               {RegionDescriptor{8, {}, "g", "m"},
                router::ServerRef{1, "127.0.0.1:9091"}}};
  r.rows_copied = 300;
  r.bytes_copied = 51000;
  r.catch_up_rounds = 2;
  r.switch_micros = 1234;
  r.switched_micros = 90000;
  r.total_micros = 120000;
  return r;
}

TEST(AdminFormatTest, ARegionOperationIsOneLineOrOneObject) {
  EXPECT_EQ(FormatRegionOpText("split", {5}, SplitResult()),
            "split: region 5 -> 7 [-, g) and 8 [g, m) on server 1 "
            "127.0.0.1:9091; 300 rows (51000 bytes) copied, switched after "
            "0.090 s, done in 0.120 s, writes waited 1.2 ms at the switch (2 "
            "catch-up rounds)\n");
  EXPECT_EQ(FormatRegionOpJson("merge", {5, 6}, SplitResult()),
            "{\"operation\":\"merge\",\"from\":[5,6],\"regions\":[{\"id\":7,"
            "\"start\":\"\",\"end\":\"g\",\"server_id\":1,\"server\":"
            "\"127.0.0.1:9091\"},{\"id\":8,\"start\":\"g\",\"end\":\"m\","
            "\"server_id\":1,\"server\":\"127.0.0.1:9091\"}],"
            "\"rows_copied\":300,\"bytes_copied\":51000,\"catch_up_rounds\":2,"
            "\"switch_micros\":1234,\"switched_micros\":90000,"
            "\"total_micros\":120000}");
}

TEST(AdminFormatTest, ABalancerRunListsItsStepsThenHowItEnded) {
  router::BalanceReport report;
  router::BalanceReport::Step step;
  step.kind = router::BalanceReport::Step::Kind::kMove;
  step.region_id = 5;
  step.result = SplitResult();
  step.result.regions.pop_back();
  report.steps = {step};
  report.stopped = "the limit of 1 operations per run was reached";
  EXPECT_EQ(FormatBalanceText(report),
            "move: region 5 -> 7 [-, g) on server 1 127.0.0.1:9091; 300 rows "
            "(51000 bytes) copied, switched after 0.090 s, done in 0.120 s, "
            "writes waited 1.2 ms at the switch (2 catch-up rounds)\n"
            "stopped: the limit of 1 operations per run was reached\n");
  report.steps.clear();
  report.balanced = true;
  report.stopped.clear();
  EXPECT_EQ(FormatBalanceJson(report),
            "{\"balanced\":true,\"failed\":false,\"stopped\":\"\","
            "\"steps\":[],\"failures\":[]}\n");
  report.failures = {"splitting region 3 failed: x; skipped for 60 s"};
  report.failed = true;
  EXPECT_EQ(FormatBalanceText(report),
            "failed: splitting region 3 failed: x; skipped for 60 s\n"
            "balanced: no region past its split size, region counts at most "
            "one apart\n");
}

TEST(AdminFormatTest, QuotaRatesReadAndPrintAsHBaseShellWritesThem) {
  struct Case {
    std::string text;
    bool bytes;
    uint64_t amount;
    uint32_t seconds;
    std::string printed;
  };
  for (const Case& c : std::vector<Case>{
           {"1000req/sec", false, 1000, 1, "1000req/sec"},
           {"1000/s", false, 1000, 1, "1000req/sec"},
           {"10req/min", false, 10, 60, "10req/min"},
           {"5/hour", false, 5, 3600, "5req/hour"},
           {"50M/sec", true, 50ull << 20, 1, "50M/sec"},
           {"50MB/sec", true, 50ull << 20, 1, "50M/sec"},
           {"1536K/m", true, 1536ull << 10, 60, "1536K/min"},
           {"1G/d", true, 1ull << 30, 86400, "1G/day"},
           {"100B/sec", true, 100, 1, "100B/sec"},
           {"100/sec", true, 100, 1, "100B/sec"},
           {"none", true, 0, 1, "-"},
       }) {
    StatusOr<router::QuotaLimit> limit = ParseQuotaRate(c.text, c.bytes);
    ASSERT_TRUE(limit.ok()) << c.text << ": " << limit.status().ToString();
    EXPECT_EQ(limit->amount, c.amount) << c.text;
    if (c.amount != 0) {
      EXPECT_EQ(limit->seconds, c.seconds) << c.text;
    }
    EXPECT_EQ(FormatQuotaRate(*limit, c.bytes), c.printed) << c.text;
  }
  EXPECT_EQ(FormatQuotaRate({7, 90}, false), "7req/90sec");
  for (const char* bad : {"", "/sec", "10", "10/", "10/week", "x/sec",
                          "10K/sec", "-1/sec", "0/sec", "1.5/sec"}) {
    EXPECT_TRUE(ParseQuotaRate(bad, false).status().IsInvalidArgument()) << bad;
  }
  for (const char* bad : {"10X/sec", "10KK/sec", "10b/sec", "2048P/sec"}) {
    EXPECT_TRUE(ParseQuotaRate(bad, true).status().IsInvalidArgument()) << bad;
  }
}

TEST(AdminFormatTest, QuotasTableAndJson) {
  router::Quota a;
  a.user = "alice";
  a.requests = {1000, 1};
  router::Quota b;
  b.user = "bob";
  b.table = "geo";
  b.bytes = {50ull << 20, 60};
  EXPECT_EQ(FormatQuotasTable({a, b}),
            "USER   TABLE  REQUESTS     BYTES\n"
            "alice  -      1000req/sec  -\n"
            "bob    geo    -            50M/min\n"
            "(2 quotas)\n");
  EXPECT_EQ(FormatQuotasJson({a, b}),
            "{\"quotas\":[{\"user\":\"alice\",\"table\":\"\",\"requests\":"
            "{\"amount\":1000,\"seconds\":1},\"bytes\":null},{\"user\":"
            "\"bob\",\"table\":\"geo\",\"requests\":null,\"bytes\":{"
            "\"amount\":52428800,\"seconds\":60}}]}\n");
}

// Bad usage is refused before any connection (exit code 2).
TEST(AdminCommandTest, RefusesBadUsage) {
  const std::vector<std::vector<std::string>> bad = {
      {},                                              // no subcommand
      {"bogus"},                                       // unknown
      {"regions"},                                     // needs --table
      {"servers", "--table", "t"},                     // takes none
      {"servers", "--format", "xml"},                  // unknown format
      {"regions", "--table", "t", "--frmat", "json"},  // unknown option
      {"move", "--region", "5"},                       // needs --to
      {"move", "--to", "2"},                           // needs --region
      {"move", "--region", "5", "--to", "0"},          // not an id
      {"move", "--region", "5", "--to", "host"},       // not HOST:PORT
      {"move", "--region", "0", "--to", "2"},          // ids are >= 1
      {"move", "--region", "5", "--region", "6", "--to", "2"},  // twice
      {"split"},                                   // a region or table
      {"split", "--region", "5", "--table", "t"},  // not both
      {"split", "--region", "5", "--to", "2"},     // takes no --to
      {"merge", "--region", "5"},                  // twice
      {"merge", "--region", "5", "--region", "6", "--region", "7"},
      {"balance", "--max-operations", "0"},  // [1, 1000]
      {"balance", "--max-operations", "1001"},
      {"balance", "--table", "t"},                       // takes none
      {"decommission"},                                  // needs SERVER
      {"decommission", "--server", "2", "127.0.0.1:9"},  // not both
      {"decommission", "nohost"},                        // not HOST:PORT
      {"move", "--region", "5", "--to", "2", "--timeout", "0"},
      {"quota"},                                              // needs an action
      {"quota", "grant", "--user", "u"},                      // unknown action
      {"quota", "set", "--requests", "10/sec"},               // needs --user
      {"quota", "set", "--user", "u"},                        // needs a limit
      {"quota", "set", "--user", "u", "--requests", "none"},  // no limit
      {"quota", "set", "--user", "u", "--requests", "10"},    // no period
      {"quota", "set", "--user", "u", "--requests", "10M/sec"},
      {"quota", "set", "--user", "u", "--bytes", "10X/sec"},
      {"quota", "set", "--user", "u", "--bytes", "10M/week"},
      {"quota", "set", "--user", "u", "--bytes", "0/sec"},
      {"quota", "set", "--user", "u", "--bytes", "2048P/sec"},  // > 2^50
      {"quota", "remove", "--user", "u", "--bytes", "1M/sec"},
      {"quota", "list", "--requests", "1/sec"},
      {"quota", "set", "--user", "u", "--region", "5", "--bytes", "1K/s"},
  };
  for (const auto& args : bad) {
    AdminCommand admin;
    EXPECT_EQ(admin.Run(args), Command::kExitUsage)
        << (args.empty() ? "(none)"
                         : args[0] + " " + (args.size() > 1 ? args[1] : ""));
  }
}

}  // namespace
}  // namespace bloomroute
