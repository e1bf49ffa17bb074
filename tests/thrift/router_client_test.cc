// RouterClient: the tools' client API over a real RouterServer on loopback,
// in front of the real Router with in-process region stores. Every answer is
// compared with what the Router itself says.
#include "thrift/router_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "regionstore/bulk_file.h"
#include "tests/router/router_test_util.h"
#include "thrift/router_server.h"

namespace bloomroute {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Keys;
using testing::PutRow;
using testing::WhereEq;

class RouterClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    RouterServerOptions options;
    options.port = 0;
    options.threads = 8;
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    auto client = ConnectRouter("127.0.0.1:" + std::to_string(server_->port()));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    auto info = client_->CreateTable(
        router::TableSpec{"places", {"d:country", "d:feature"}, {"g", "n"}, 0});
    ASSERT_TRUE(info.ok()) << info.status().ToString();
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
    ASSERT_TRUE(
        client_
            ->Mutate("places",
                     {PutRow("bergen", "NO", "A"), PutRow("kiruna", "SE", "B"),
                      PutRow("oslo", "NO", "B"), PutRow("umea", "SE", "A")})
            .ok());
  }

  testing::TempDir dir_;
  testing::StoreCluster cluster_{3};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<RouterServer> server_;
  std::unique_ptr<RouterClient> client_;
};

TEST_F(RouterClientTest, TablesAsTheRouterHasThem) {
  auto described = client_->DescribeTable("places");
  ASSERT_TRUE(described.ok()) << described.status().ToString();
  auto truth = router_->DescribeTable("places");
  ASSERT_TRUE(truth.ok());
  EXPECT_EQ(described->descriptor, truth->descriptor);
  ASSERT_EQ(described->regions.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(described->regions[i].region, truth->regions[i].region);
    EXPECT_EQ(described->regions[i].server, truth->regions[i].server);
  }
  auto tables = client_->ListTables();
  ASSERT_TRUE(tables.ok());
  EXPECT_EQ(*tables, router_->ListTables());

  EXPECT_TRUE(client_->DescribeTable("nope").status().IsNotFound());
  EXPECT_TRUE(client_->CreateTable(router::TableSpec{"bad name", {}, {}, 2})
                  .status()
                  .IsInvalidArgument());
  // DeleteTable deletes an enabled table (HBase's deleteTable would refuse
  // it) and a disabled one.
  ASSERT_TRUE(client_->DeleteTable("places").ok());
  EXPECT_TRUE(client_->DescribeTable("places").status().IsNotFound());
  EXPECT_TRUE(client_->DeleteTable("places").IsNotFound());
  ASSERT_TRUE(client_->CreateTable(router::TableSpec{"old", {}, {}, 1}).ok());
  ASSERT_TRUE(router_->DisableTable("old").ok());
  ASSERT_TRUE(client_->DeleteTable("old").ok());
  EXPECT_TRUE(router_->DescribeTable("old").status().IsNotFound());
}

// The client dropped the timestamps the router sends with each cell, so
// every cell read through it claimed kLatestTimestamp (the shell's get
// printed timestamp=9223372036854775807).
TEST_F(RouterClientTest, CellsKeepTheirTimestamps) {
  ASSERT_TRUE(
      client_
          ->Mutate("places",
                   {Mutation::Put(0, "alta", {{"d:country", "NO", 1234}}),
                    Mutation::Put(0, "alta", {{"d:name", "Alta"}})})
          .ok());
  auto rows = client_->Get("places", {{0, "alta", {}}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_TRUE((*rows)[0].has_value());
  ASSERT_EQ((*rows)[0]->cells.size(), 2u);
  EXPECT_EQ((*rows)[0]->cells[0], (Cell{"d:country", "NO", 1234}));
  // Written without one: the region server's clock, in milliseconds.
  EXPECT_GT((*rows)[0]->cells[1].timestamp, 1'600'000'000'000);
  EXPECT_LT((*rows)[0]->cells[1].timestamp, kLatestTimestamp);
}

// A get's filter and time range reach the router: the client sent only
// the row and the columns, so `get` in the shell ignored both.
TEST_F(RouterClientTest, AGetCarriesItsFilterAndTimeRange) {
  GetRequest filtered{0, "bergen", {}};
  filtered.filter =
      "SingleColumnValueFilter('d', 'country', =, 'binary:SE', true, true)";
  GetRequest old{0, "oslo", {}};
  old.time_range = TimeRange{0, 1};
  auto rows = client_->Get("places", {filtered, old, {0, "umea", {}}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_FALSE((*rows)[0].has_value());  // bergen is NO
  EXPECT_FALSE((*rows)[1].has_value());  // no cell before 1 ms
  EXPECT_TRUE((*rows)[2].has_value());
}

// Families, and HBase's table states, through bloomroute's client.
TEST_F(RouterClientTest, TableStatesAndFamilies) {
  router::TableSpec spec{"fam", {"d:cc"}, {}, 1};
  spec.families = {"d", "e"};
  auto created = client_->CreateTable(spec);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(created->descriptor.families, (std::vector<std::string>{"d", "e"}));
  auto listed = client_->ListTables();
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(*listed, router_->ListTables());
  EXPECT_TRUE(client_->Mutate("fam", {Mutation::Put(0, "r", {{"x:y", "v"}})})
                  .IsInvalidArgument());
  ASSERT_TRUE(
      client_->Mutate("fam", {Mutation::Put(0, "r", {{"d:cc", "NO"}})}).ok());

  EXPECT_EQ(client_->IsTableEnabled("fam").value(), true);
  EXPECT_TRUE(client_->TruncateTable("fam", false).IsInvalidArgument());
  ASSERT_TRUE(client_->DisableTable("fam").ok());
  EXPECT_EQ(client_->IsTableEnabled("fam").value(), false);
  EXPECT_TRUE(client_->DisableTable("fam").IsInvalidArgument());
  ASSERT_TRUE(client_->EnableTable("fam").ok());
  EXPECT_TRUE(client_->EnableTable("fam").IsInvalidArgument());
  ASSERT_TRUE(client_->DisableTable("fam").ok());
  ASSERT_TRUE(client_->TruncateTable("fam", false).ok());
  EXPECT_EQ(client_->IsTableEnabled("fam").value(), true);
  auto rows = client_->Get("fam", {{0, "r", {}}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_FALSE((*rows)[0].has_value());
  EXPECT_TRUE(client_->IsTableEnabled("nope").status().IsNotFound());
  // HBase's deleteTable: only a disabled table.
  const Status enabled = client_->DeleteDisabledTable("fam");
  EXPECT_TRUE(enabled.IsInvalidArgument()) << enabled.ToString();
  EXPECT_THAT(enabled.message(), HasSubstr("is not disabled"));
  ASSERT_TRUE(client_->DisableTable("fam").ok());
  ASSERT_TRUE(client_->DeleteDisabledTable("fam").ok());
  EXPECT_TRUE(client_->DescribeTable("fam").status().IsNotFound());
}

TEST_F(RouterClientTest, MutationsKeepTheirOrderAcrossKinds) {
  ASSERT_TRUE(
      client_
          ->Mutate("places",
                   {PutRow("alta", "NO", "A"), Mutation::Delete(0, "alta"),
                    Mutation::Delete(0, "oslo", {"d:feature"}),
                    PutRow("alta", "NO", "C", "last")})
          .ok());
  auto rows = client_->Get(
      "places", {{0, "alta", {}}, {0, "oslo", {}}, {0, "missing", {}}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  ASSERT_TRUE((*rows)[0].has_value());
  std::vector<std::pair<std::string, std::string>> cells;
  for (const Cell& c : (*rows)[0]->cells) cells.emplace_back(c.column, c.value);
  EXPECT_THAT(
      cells,
      ElementsAre(std::pair<std::string, std::string>("d:country", "NO"),
                  std::pair<std::string, std::string>("d:feature", "C"),
                  std::pair<std::string, std::string>("d:name", "last")));
  ASSERT_TRUE((*rows)[1].has_value());
  EXPECT_EQ((*rows)[1]->cells.size(), 2u);  // d:feature deleted
  EXPECT_FALSE((*rows)[2].has_value());

  const Status bad = client_->Mutate("places", {Mutation::Put(0, "", {})});
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_TRUE(client_->Mutate("nope", {PutRow("x", "NO", "A")}).IsNotFound());
}

TEST_F(RouterClientTest, BulkLoadsReachTheRegionAndTheIndex) {
  auto info = client_->DescribeTable("places");
  ASSERT_TRUE(info.ok());
  const router::RegionLocation& first = info->regions[0];  // [, "g")
  const std::string path = dir_.path() + "/rows.sst";
  {
    auto w = BulkFileWriter::Create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add("aalborg", PutRow("", "DK", "A").cells).ok());
    ASSERT_TRUE((*w)->Add("bergen", PutRow("", "DK", "C").cells).ok());
    ASSERT_TRUE((*w)->Finish().ok());
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  const Status s = client_->BulkLoad("places", first.region.region_id, bytes);
  ASSERT_TRUE(s.ok()) << s.ToString();
  auto found = client_->Lookup("places", WhereEq({{"d:country", "DK"}}));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(Keys(found->rows), (std::vector<std::string>{"aalborg", "bergen"}));
  EXPECT_EQ(found->routing.asked.size(), 1u);
  found = client_->Lookup("places", WhereEq({{"d:country", "NO"}}));
  EXPECT_EQ(Keys(found->rows), (std::vector<std::string>{"oslo"}));

  EXPECT_TRUE(client_->BulkLoad("places", 999, bytes).IsInvalidArgument());
  EXPECT_TRUE(client_->BulkLoad("nope", 1, bytes).IsNotFound());
  const Status bad =
      client_->BulkLoad("places", first.region.region_id, bytes.substr(0, 100));
  EXPECT_TRUE(bad.IsInvalidArgument()) << bad.ToString();
  EXPECT_THAT(bad.message(), HasSubstr("bulk file"));
}

TEST_F(RouterClientTest, ScannersPageThroughEveryRegion) {
  auto scanner = client_->OpenScanner("places", router::ScanSpec{});
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<std::string> keys;
  for (;;) {
    auto page = client_->ScannerNext(*scanner, 3);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    if (page->empty()) break;
    EXPECT_LE(page->size(), 3u);
    for (const Row& r : *page) keys.push_back(r.key);
  }
  EXPECT_THAT(keys, ElementsAre("bergen", "kiruna", "oslo", "umea"));
  ASSERT_TRUE(client_->CloseScanner(*scanner).ok());
  EXPECT_TRUE(client_->ScannerNext(*scanner, 3).status().IsNotFound());
}

// A scan's filter and time range reach the router: the client dropped
// both (it sent only the range and the columns), so a filtered scan through
// the C++ client returned every row.
TEST_F(RouterClientTest, AScannerCarriesItsFilterAndTimeRange) {
  router::ScanSpec spec;
  spec.filter =
      "SingleColumnValueFilter('d', 'country', =, 'binary:SE', true, true)";
  auto scanner = client_->OpenScanner("places", spec);
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  std::vector<std::string> keys;
  for (;;) {
    auto page = client_->ScannerNext(*scanner, 10);
    ASSERT_TRUE(page.ok()) << page.status().ToString();
    if (page->empty()) break;
    for (const Row& r : *page) keys.push_back(r.key);
  }
  EXPECT_THAT(keys, ElementsAre("kiruna", "umea"));
  ASSERT_TRUE(client_->CloseScanner(*scanner).ok());
  // Cells of a time range before every write: no row.
  spec.filter.clear();
  spec.time_range = TimeRange{0, 1};
  scanner = client_->OpenScanner("places", spec);
  ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
  auto page = client_->ScannerNext(*scanner, 10);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_TRUE(page->empty());
  ASSERT_TRUE(client_->CloseScanner(*scanner).ok());
}

TEST_F(RouterClientTest, LookupsCarryTheRouting) {
  router::LookupSpec spec = WhereEq({{"d:country", "NO"}});
  auto found = client_->Lookup("places", spec);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_THAT(Keys(found->rows), ElementsAre("bergen", "oslo"));
  auto truth = router_->Lookup("places", spec);
  ASSERT_TRUE(truth.ok());
  EXPECT_EQ(found->routing.servers_in_cluster, 3u);
  EXPECT_EQ(found->routing.asked, truth->routing.asked);
  EXPECT_EQ(found->routing.with_rows, truth->routing.with_rows);

  spec.broadcast = true;
  spec.limit = 1;
  spec.columns = {"d:name"};
  auto all = client_->Lookup("places", spec);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->routing.asked.size(), 3u);
  ASSERT_EQ(all->rows.size(), 1u);
  EXPECT_TRUE(all->truncated);
  ASSERT_EQ(all->rows[0].cells.size(), 1u);
  EXPECT_EQ(all->rows[0].cells[0].column, "d:name");
  EXPECT_EQ(all->rows[0].cells[0].value, "x");

  const Status not_indexed =
      client_->Lookup("places", WhereEq({{"d:name", "x"}})).status();
  EXPECT_TRUE(not_indexed.IsInvalidArgument()) << not_indexed.ToString();
}

TEST_F(RouterClientTest, LookupsPageWithTokens) {
  router::LookupSpec spec = WhereEq({{"d:feature", "B"}});
  spec.limit = 1;
  std::vector<std::string> keys;
  for (int page = 0; page < 10; ++page) {
    auto found = client_->Lookup("places", spec);
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    for (const Row& r : found->rows) keys.push_back(r.key);
    EXPECT_EQ(found->next_page_token.has_value(), found->truncated);
    if (!found->next_page_token) break;
    spec.page_token = found->next_page_token;
  }
  EXPECT_THAT(keys, ElementsAre("kiruna", "oslo"));
  spec.page_token = "forged";
  const Status forged = client_->Lookup("places", spec).status();
  EXPECT_TRUE(forged.IsInvalidArgument()) << forged.ToString();
  EXPECT_THAT(forged.message(), HasSubstr("forged or corrupted"));
}

// getByIndex's `where` and countByIndex over the wire, against the router
// answering the same spec in process.
TEST_F(RouterClientTest, PredicatesAndCountsTravelTheWire) {
  router::LookupSpec spec;
  spec.where = {{"d:country", IndexOp::kIn, {"SE", "DK"}}};
  auto found = client_->Lookup("places", spec);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_THAT(Keys(found->rows), ElementsAre("kiruna", "umea"));
  EXPECT_TRUE(found->routing.broadcast_reason.empty());

  spec.where = {{"d:feature", IndexOp::kLessOrEqual, {"A"}}};
  spec.limit = 1;
  found = client_->Lookup("places", spec);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_THAT(Keys(found->rows), ElementsAre("bergen"));
  EXPECT_TRUE(found->truncated);
  EXPECT_EQ(found->routing.asked.size(), 3u);
  EXPECT_EQ(found->routing.broadcast_reason,
            "a range alone cannot be routed: asked every server of the table");
  spec.after_row = found->resume_after;
  found = client_->Lookup("places", spec);
  ASSERT_TRUE(found.ok());
  EXPECT_THAT(Keys(found->rows), ElementsAre("umea"));

  router::LookupSpec count_spec;
  count_spec.where = {{"d:country", IndexOp::kPrefix, {"N"}}};
  auto count = client_->Count("places", count_spec);
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(count->count, 2u);
  auto truth = router_->Count("places", count_spec);
  ASSERT_TRUE(truth.ok());
  EXPECT_EQ(count->routing.asked, truth->routing.asked);
  EXPECT_EQ(count->routing.broadcast_reason, truth->routing.broadcast_reason);
  count_spec.where = {{"d:name", IndexOp::kIn, {"x"}}};
  EXPECT_TRUE(
      client_->Count("places", count_spec).status().IsInvalidArgument());
}

TEST_F(RouterClientTest, StatsAndStatusAsTheRouterReportsThem) {
  auto stats = client_->IndexStats();
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  const auto truth = router_->IndexStats();
  ASSERT_EQ(stats->size(), truth.size());
  for (size_t i = 0; i < truth.size(); ++i) {
    EXPECT_EQ((*stats)[i].server, truth[i].server);
    EXPECT_EQ((*stats)[i].replica.current, truth[i].replica.current);
    EXPECT_EQ((*stats)[i].replica.epoch, truth[i].replica.epoch);
    EXPECT_EQ((*stats)[i].replica.filter.elements,
              truth[i].replica.filter.elements);
    EXPECT_EQ((*stats)[i].replica.filter.stages.size(),
              truth[i].replica.filter.stages.size());
    EXPECT_DOUBLE_EQ((*stats)[i].replica.filter.estimated_fpr,
                     truth[i].replica.filter.estimated_fpr);
  }
  auto status = client_->GetClusterStatus();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->tables, 1u);
  EXPECT_EQ(status->regions, 3u);
  ASSERT_EQ(status->servers.size(), 3u);
  for (const auto& s : status->servers) EXPECT_TRUE(s.reachable);
}

TEST_F(RouterClientTest, ServersAndRegionsAsTheRouterReportsThem) {
  auto servers = client_->ListServers();
  ASSERT_TRUE(servers.ok()) << servers.status().ToString();
  const std::vector<router::ServerSummary> truth = router_->ListServers();
  ASSERT_EQ(servers->size(), truth.size());
  for (size_t i = 0; i < truth.size(); ++i) {
    EXPECT_EQ((*servers)[i].server, truth[i].server);
    EXPECT_TRUE((*servers)[i].reachable);
    EXPECT_EQ((*servers)[i].regions, truth[i].regions);
    EXPECT_EQ((*servers)[i].rows, truth[i].rows);
  }
  auto regions = client_->ListRegions("places");
  ASSERT_TRUE(regions.ok()) << regions.status().ToString();
  auto region_truth = router_->ListRegions("places");
  ASSERT_TRUE(region_truth.ok());
  ASSERT_EQ(regions->size(), region_truth->size());
  for (size_t i = 0; i < regions->size(); ++i) {
    EXPECT_EQ((*regions)[i].region_id, (*region_truth)[i].region_id);
    EXPECT_EQ((*regions)[i].start_key, (*region_truth)[i].start_key);
    EXPECT_EQ((*regions)[i].serving, router::RegionServing::kOpen);
    EXPECT_EQ((*regions)[i].rows, (*region_truth)[i].rows);
  }
  EXPECT_TRUE(client_->ListRegions("nope").status().IsNotFound());
}

TEST_F(RouterClientTest, RegionOperationsThroughTheClient) {
  auto regions = [&] {
    auto info = client_->DescribeTable("places");
    EXPECT_TRUE(info.ok()) << info.status().ToString();
    return info.ok() ? info->regions : std::vector<router::RegionLocation>();
  };
  auto expect_rows = [&] {
    auto found = client_->Lookup("places", WhereEq({{"d:country", "NO"}}));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_THAT(Keys(found->rows), ElementsAre("bergen", "oslo"));
    auto scanner = client_->OpenScanner("places", router::ScanSpec());
    ASSERT_TRUE(scanner.ok()) << scanner.status().ToString();
    auto all = client_->ScannerNext(*scanner, 100);
    ASSERT_TRUE(all.ok()) << all.status().ToString();
    EXPECT_THAT(Keys(*all), ElementsAre("bergen", "kiruna", "oslo", "umea"));
    EXPECT_TRUE(client_->CloseScanner(*scanner).ok());
  };
  // ["n", end) holds oslo and umea: split between them.
  const router::RegionLocation last = regions().back();
  auto split = client_->SplitRegion(last.region.region_id, std::string("p"));
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->regions.size(), 2u);
  EXPECT_EQ(split->regions[0].region.end_key, "p");
  EXPECT_EQ(split->regions[1].region.start_key, "p");
  EXPECT_EQ(split->regions[0].server, last.server);
  EXPECT_EQ(split->rows_copied, 2u);
  EXPECT_EQ(regions().size(), 4u);
  expect_rows();

  const router::RegionLocation first = regions().front();
  const router::ServerId other = first.server.id % 3 + 1;
  auto moved = client_->MoveRegion(first.region.region_id, other);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(moved->regions[0].server.id, other);
  EXPECT_EQ(moved->rows_copied, 1u);
  EXPECT_NE(regions().front().region.region_id, first.region.region_id);
  expect_rows();

  auto merged = client_->MergeRegions(split->regions[0].region.region_id,
                                      split->regions[1].region.region_id);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(regions().size(), 3u);
  expect_rows();

  auto balanced = client_->Balance(5);
  ASSERT_TRUE(balanced.ok()) << balanced.status().ToString();
  EXPECT_TRUE(balanced->balanced) << balanced->stopped;
  auto drained = client_->DecommissionServer(other);
  ASSERT_TRUE(drained.ok()) << drained.status().ToString();
  for (const auto& step : *drained) {
    EXPECT_EQ(step.from.id, other);
    EXPECT_NE(step.to.id, other);
  }
  for (const auto& r : regions()) EXPECT_NE(r.server.id, other);
  expect_rows();

  // The router's refusals arrive with their codes.
  EXPECT_TRUE(client_->MoveRegion(999999, 1).status().IsNotFound());
  EXPECT_TRUE(
      client_->SplitRegion(regions().front().region.region_id, std::string())
          .status()
          .IsInvalidArgument());
  EXPECT_TRUE(client_->DecommissionServer(other).status().IsNotFound());
}

TEST_F(RouterClientTest, VerifyAsTheRouterReportsIt) {
  auto truth = router_->VerifyIndex("places");
  ASSERT_TRUE(truth.ok()) << truth.status().ToString();
  auto report = client_->VerifyIndex("places");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->table.name, "places");
  EXPECT_EQ(report->table.table_id, truth->table.table_id);
  ASSERT_EQ(report->servers.size(), truth->servers.size());
  ASSERT_EQ(report->servers.size(), 3u);
  for (size_t i = 0; i < truth->servers.size(); ++i) {
    const router::ServerVerifyReport& got = report->servers[i];
    const router::ServerVerifyReport& want = truth->servers[i];
    EXPECT_EQ(got.server, want.server);
    EXPECT_EQ(got.regions, want.regions);
    EXPECT_EQ(got.index.rows, want.index.rows);
    EXPECT_EQ(got.index.index_entries_valid, want.index.index_entries_valid);
    EXPECT_EQ(got.index.values, want.index.values);
    EXPECT_EQ(got.index.filter_matches_rebuild, true);
    EXPECT_EQ(got.replica.agreement, want.replica.agreement);
    EXPECT_EQ(got.replica.detail, want.replica.detail);
  }
  EXPECT_TRUE(client_->VerifyIndex("nope").status().IsNotFound());

  cluster_.Down(1);
  report = client_->VerifyIndex("places");
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_FALSE(report->ok());
  EXPECT_THAT(report->servers[1].error, HasSubstr("server-1"));
  EXPECT_TRUE(report->servers[0].error.empty());
  cluster_.Up(1);
}

TEST_F(RouterClientTest, CallsMayRunConcurrently) {
  std::vector<std::thread> threads;
  std::vector<Status> failures(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50 && failures[t].ok(); ++i) {
        const std::string row =
            "t" + std::to_string(t) + "-" + std::to_string(i);
        failures[t] = client_->Mutate("places", {PutRow(row, "DK", "Z")});
        if (failures[t].ok()) {
          failures[t] =
              client_->Lookup("places", WhereEq({{"d:country", "DK"}}))
                  .status();
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : failures) EXPECT_TRUE(s.ok()) << s.ToString();
  auto found = client_->Lookup("places", WhereEq({{"d:country", "DK"}}));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->rows.size(), 200u);
}

TEST(RouterClientConnectTest, BadAddressesAreRefused) {
  EXPECT_TRUE(ConnectRouter("no-port").status().IsInvalidArgument());
  EXPECT_TRUE(ConnectRouter("127.0.0.1:0").status().IsInvalidArgument());
  RouterClientOptions options;
  options.call_timeout_ms = 0;
  EXPECT_TRUE(
      ConnectRouter("127.0.0.1:9", options).status().IsInvalidArgument());
}

TEST_F(RouterClientTest, ARouterThatIsGoneIsUnavailableAndNamed) {
  const std::string address = "127.0.0.1:" + std::to_string(server_->port());
  server_.reset();  // stops serving and closes the port
  const Status gone = client_->ListTables().status();
  EXPECT_TRUE(gone.IsUnavailable()) << gone.ToString();
  EXPECT_EQ(gone.message(),
            "cannot connect to the router at " + address +
                ": connection refused (is it running? name another with "
                "--router HOST:PORT)");
}

}  // namespace
}  // namespace bloomroute
