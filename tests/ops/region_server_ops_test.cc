// ops/region_server_ops.h against a real RegionStore in a temporary
// directory: the metrics a scrape writes, readiness, and the status page.
#include "ops/region_server_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/metrics.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::ops {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::PlacesRegion;

class RegionServerOpsTest : public testing::TwoPlacesRegionsTest {
 protected:
  std::string Scrape() {
    metrics::Registry registry;
    auto handle = AddRegionServerMetrics(store_.get(), &registry);
    return registry.Render();
  }
  std::string Page(const RegionServerPageInfo& info) {
    return RegionServerStatusPage(*store_, info);
  }
  static RegionServerPageInfo Info() {
    RegionServerPageInfo info;
    info.address = "127.0.0.1:9091";
    info.server_id = "rs-7";
    info.version = "0.1.0";
    info.start_time =
        std::chrono::system_clock::now() - std::chrono::seconds(3725);
    return info;
  }
};

TEST_F(RegionServerOpsTest, ScrapeWritesEveryMetricWithValuesOfTheWrites) {
  PutRows(1, "a", 30);
  PutRows(2, "p", 20);
  const std::string text = Scrape();
  for (const char* family :
       {"bloomroute_regionserver_regions gauge",
        "bloomroute_regionserver_rows gauge",
        "bloomroute_regionserver_bytes gauge",
        "bloomroute_regionserver_region_bytes gauge",
        "bloomroute_regionserver_writes_total counter",
        "bloomroute_regionserver_wal_syncs_total counter",
        "bloomroute_regionserver_filter_stages gauge",
        "bloomroute_regionserver_filter_fill_ratio gauge",
        "bloomroute_regionserver_filter_estimated_fpr gauge",
        "bloomroute_rocksdb_block_cache_hits_total counter",
        "bloomroute_rocksdb_block_cache_misses_total counter",
        "bloomroute_rocksdb_write_stall_seconds_total counter",
        "bloomroute_rocksdb_pending_compaction_bytes gauge",
        "bloomroute_rocksdb_write_stopped gauge",
        "bloomroute_rocksdb_delayed_write_rate_bytes_per_second gauge",
        "bloomroute_rocksdb_block_cache_capacity_bytes gauge",
        "bloomroute_rocksdb_block_cache_usage_bytes gauge",
        "bloomroute_rocksdb_memtable_bytes gauge",
        "bloomroute_rocksdb_memtable_limit_bytes gauge"}) {
    EXPECT_THAT(text, HasSubstr(std::string("# TYPE ") + family + "\n"));
  }
  EXPECT_THAT(
      text,
      HasSubstr("\nbloomroute_rocksdb_block_cache_capacity_bytes " +
                std::to_string(RegionStoreOptions().block_cache_bytes) + "\n"));
  EXPECT_THAT(
      text,
      HasSubstr("\nbloomroute_rocksdb_memtable_limit_bytes " +
                std::to_string(RegionStoreOptions().memtable_bytes) + "\n"));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_writes_total 50\n"));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_wal_syncs_total 0\n"));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_rows 50\n"));
  EXPECT_THAT(text,
              HasSubstr("bloomroute_regionserver_regions{state=\"open\"} 2\n"));
  EXPECT_THAT(
      text, HasSubstr("bloomroute_regionserver_regions{state=\"closed\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_filter_stages 1\n"));
  EXPECT_THAT(text, HasSubstr("bloomroute_regionserver_filter_fill_ratio{"
                              "stage=\"0\"} "));
  EXPECT_THAT(text, HasSubstr("bloomroute_regionserver_region_bytes{"
                              "region=\"1\",table=\"places\"} "));
  EXPECT_THAT(text, HasSubstr("bloomroute_regionserver_region_bytes{"
                              "region=\"2\",table=\"places\"} "));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_rocksdb_write_stopped 0\n"));
  // The scrape reads the store when rendered: later writes show.
  PutRows(1, "b", 5);
  EXPECT_THAT(Scrape(),
              HasSubstr("\nbloomroute_regionserver_writes_total 55\n"));
}

TEST_F(RegionServerOpsTest, SyncedWritesAreCountedAsWalSyncs) {
  RegionStoreOptions options;
  options.sync = true;
  Reopen({PlacesRegion(1, "", "m")}, options);
  PutRows(1, "a", 3);
  PutRows(1, "b", 3);
  const std::string text = Scrape();
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_wal_syncs_total 2\n"));
  EXPECT_THAT(text, HasSubstr("\nbloomroute_regionserver_writes_total 6\n"));
}

TEST_F(RegionServerOpsTest, TheCollectorEndsWithItsHandle) {
  metrics::Registry registry;
  {
    auto handle = AddRegionServerMetrics(store_.get(), &registry);
    EXPECT_THAT(registry.Render(), HasSubstr("bloomroute_regionserver_rows"));
  }
  EXPECT_EQ(registry.Render(), "");
}

TEST_F(RegionServerOpsTest, NotReadyUntilTheStoreIsOpen) {
  const Readiness r = RegionServerReadiness(nullptr);
  EXPECT_FALSE(r.ready);
  EXPECT_THAT(r.reason, HasSubstr("opening"));
}

TEST_F(RegionServerOpsTest, ReadyWithRegionsOpenClosedOrNone) {
  Readiness r = RegionServerReadiness(store_.get());
  EXPECT_TRUE(r.ready);
  EXPECT_THAT(r.reason, HasSubstr("serving 2 regions"));
  // A restart: the regions are kept, closed until a router opens them.
  Reopen({});
  r = RegionServerReadiness(store_.get());
  EXPECT_TRUE(r.ready);
  EXPECT_THAT(r.reason, HasSubstr("serves nothing"));
  EXPECT_THAT(r.reason, HasSubstr("2 closed"));
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "m")).ok());
  r = RegionServerReadiness(store_.get());
  EXPECT_TRUE(r.ready);
  EXPECT_THAT(r.reason, HasSubstr("serving 1 region;"));
  EXPECT_THAT(r.reason, HasSubstr("1 closed"));
}

TEST_F(RegionServerOpsTest, PageSummarizesTheServer) {
  PutRows(1, "a", 30);
  RegionServerPageInfo info = Info();
  info.refresh_seconds = 5;
  const std::string html = Page(info);
  EXPECT_THAT(html,
              HasSubstr("<h1>bloomroute region server 127.0.0.1:9091</h1>"));
  EXPECT_THAT(html, HasSubstr("<meta http-equiv=\"refresh\" content=\"5\">"));
  EXPECT_THAT(html, HasSubstr("<dt>Server id</dt><dd>rs-7</dd>"));
  EXPECT_THAT(html, HasSubstr("<dt>Version</dt><dd>0.1.0</dd>"));
  EXPECT_THAT(html, HasSubstr("<dt>Uptime</dt><dd>1h 2m"));
  EXPECT_THAT(html, HasSubstr("<dt>Regions</dt><dd>2 open, 0 staged, "
                              "0 closed, 0 dropping</dd>"));
  EXPECT_THAT(html,
              HasSubstr("<dt>Writes (mutations applied)</dt><dd>30</dd>"));
  EXPECT_THAT(html, HasSubstr("<dt>WAL syncs</dt><dd>0</dd>"));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"oplog\">"));
  EXPECT_THAT(html, HasSubstr("<h2 id=\"rocksdb\">"));
  EXPECT_THAT(html, HasSubstr("<dt>Block cache hits</dt>"));
  EXPECT_THAT(html, HasSubstr("<dt>Pending compaction</dt>"));
}

TEST_F(RegionServerOpsTest, PageListsTheRegionsWithRowsAndState) {
  PutRows(1, "a", 30);
  PutRows(2, "p", 20);
  ASSERT_TRUE(store_->CloseRegion(2).ok());
  const std::string html = Page(Info());
  EXPECT_THAT(html, HasSubstr("<table id=\"regions\">"));
  EXPECT_THAT(html, HasSubstr("<tr><td>1</td><td>places</td>"
                              "<td>(table start)</td><td>m</td><td>30</td>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>2</td><td>places</td><td>m</td>"
                              "<td>(table end)</td><td>20</td>"));
  EXPECT_THAT(html, HasSubstr("</td><td>open</td></tr>"));
  EXPECT_THAT(html, HasSubstr("</td><td>closed</td></tr>"));
}

TEST_F(RegionServerOpsTest, PageEscapesTableNamesAndShowsBinaryKeys) {
  TableDescriptor evil = testing::PlacesTable();
  evil.table_id = 9;
  evil.name = "<script>alert('t')</script>";
  const std::string start = "<script>\x01";
  ASSERT_TRUE(
      store_
          ->OpenRegion(RegionDescriptor{3, evil, start, std::string("\xff", 1)})
          .ok());
  const std::string html = Page(Info());
  EXPECT_THAT(html, Not(HasSubstr("<script")));
  EXPECT_THAT(html, HasSubstr("<td>&lt;script&gt;alert(&#39;t&#39;)&lt;/"
                              "script&gt;</td>"));
  EXPECT_THAT(html, HasSubstr("<td>&lt;script&gt;\\x01</td><td>\\xFF</td>"));
}

TEST_F(RegionServerOpsTest, PageShowsTheFilterStagesAndOpLogPosition) {
  PutRows(1, "a", 10);  // two distinct values: NO and PPL
  const FilterStatus filter = store_->GetFilterStatus();
  const std::string html = Page(Info());
  EXPECT_THAT(html, HasSubstr("<table id=\"filter\">"));
  EXPECT_THAT(html, HasSubstr("<dt>Elements (distinct values)</dt><dd>2</dd>"));
  EXPECT_THAT(html, HasSubstr("<th>fill</th><th>estimated FPR</th>"));
  EXPECT_THAT(html, HasSubstr("<tr><td>0</td>"));  // stage 0's row
  EXPECT_THAT(html, HasSubstr("<dt>Epoch</dt><dd>" +
                              std::to_string(filter.epoch) + "</dd>"));
  EXPECT_THAT(html, HasSubstr("<dt>Last sequence number</dt><dd>" +
                              std::to_string(filter.last_seq) + "</dd>"));
  EXPECT_GT(filter.last_seq, 0u);
}

// Above count_rows_up_to rows the page does not scan the regions.
TEST_F(RegionServerOpsTest, PageLeavesRowsUncountedOnABigServer) {
  PutRows(1, "a", 30);
  RegionServerPageInfo info = Info();
  info.count_rows_up_to = 10;
  const std::string html = Page(info);
  EXPECT_THAT(html, HasSubstr("<td>not counted</td>"));
  EXPECT_THAT(html, HasSubstr("Rows are not counted"));
  EXPECT_THAT(html, Not(HasSubstr("<td>30</td>")));
}

}  // namespace
}  // namespace bloomroute::ops
