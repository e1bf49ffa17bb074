#include "thrift/region_service_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "tests/thrift/fake_region_store.h"
#include "tests/thrift/wire_util.h"
#include "thrift/conversion/region_conversion.h"
#include "thrift/internal/region_stats_conversion.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

class RegionServiceHandlerTest : public ::testing::Test {
 protected:
  RegionServiceHandlerTest()
      : store_(std::make_shared<FakeRegionStore>()), handler_(store_) {}

  // Every RegionService call once, with valid arguments.
  std::vector<std::pair<std::string, std::function<void()>>> EveryCall() {
    rpc::TRegionDescriptor region;
    region.__set_regionId(1);
    rpc::TTableDescriptor table;
    table.__set_tableId(1);
    table.__set_name("t");
    region.__set_table(table);
    rpc::TScan scan;
    scan.__set_regionId(1);
    scan.__set_limit(10);
    rpc::TIndexQuery query;
    query.__set_tableId(1);
    query.__set_limit(10);
    region = ThroughWire(region);
    table = ThroughWire(table);
    scan = ThroughWire(scan);
    query = ThroughWire(query);
    return {
        {"openRegion", [=] { handler_.openRegion(region, 0, false, 0); }},
        {"splitPoint",
         [=] {
           rpc::TSplitPoint r;
           handler_.splitPoint(r, 1);
         }},
        {"exportRows",
         [=] {
           rpc::TExportedRows r;
           handler_.exportRows(r, 1, "", "", 10, 1 << 20);
         }},
        {"closeRegion", [=] { handler_.closeRegion(1, 0); }},
        {"dropRegion", [=] { handler_.dropRegion(1, 0); }},
        {"mutateRows",
         [=] {
           rpc::TWriteResult r;
           handler_.mutateRows(r, {}, 0);
         }},
        {"getMultiple",
         [=] {
           std::vector<rpc::TResult> r;
           handler_.getMultiple(r, {}, 0);
         }},
        {"scan",
         [=] {
           rpc::TScanResult r;
           handler_.scan(r, scan);
         }},
        {"lookup",
         [=] {
           rpc::TIndexQueryResult r;
           handler_.lookup(r, query);
         }},
        {"getFilterSnapshot",
         [=] {
           rpc::TFilterSnapshot r;
           handler_.getFilterSnapshot(r, 0);
         }},
        {"getFilterImagePage",
         [=] {
           rpc::TFilterImagePage r;
           handler_.getFilterImagePage(r, 0, 0, 0);
         }},
        {"getFilterOpsSince",
         [=] {
           rpc::TFilterOpsSince r;
           handler_.getFilterOpsSince(r, 1, 1, 0, 0);
         }},
        {"compactFilter", [=] { handler_.compactFilter(); }},
        {"syncWal", [=] { handler_.syncWal(); }},
        {"setFilterConfig",
         [=] {
           rpc::TFilterConfig config;
           (void)ToThrift(SscbfConfig(), &config);
           handler_.setFilterConfig(config, 0);
         }},
        {"verifyIndex",
         [=] {
           rpc::TIndexReport r;
           handler_.verifyIndex(r, 0);
         }},
        {"bulkLoad",
         [=] {
           rpc::TWriteResult r;
           handler_.bulkLoad(r, 1, "file", 0);
         }},
        {"updateTableIndexes", [=] { handler_.updateTableIndexes(table, 0); }},
        {"backfillIndex",
         [=] {
           rpc::TIndexChunkResult r;
           handler_.backfillIndex(r, 1, 2, "", 10, 0, 0);
         }},
        {"dropIndexEntries",
         [=] {
           rpc::TIndexChunkResult r;
           handler_.dropIndexEntries(r, 1, 2, 10, 0, 0);
         }},
        {"getRegionStats",
         [=] {
           rpc::TRegionStatsPage r;
           handler_.getRegionStats(r, 0, 0, 10, false);
         }},
    };
  }

  std::shared_ptr<FakeRegionStore> store_;
  mutable RegionServiceHandler handler_;
};

// The image id and fence token are bits (negative on the wire when their
// top bit is set); the offset is a quantity.
TEST_F(RegionServiceHandlerTest, ForwardsFilterImagePages) {
  store_->image_page =
      FilterImagePage{~uint64_t{0}, 3, 9, uint64_t{1} << 63, 100, 40, "bits"};
  rpc::TFilterImagePage page;
  handler_.getFilterImagePage(page, -2, -5, 40);
  EXPECT_EQ(store_->last_fence_token, ~uint64_t{1});
  EXPECT_EQ(store_->image_page_request,
            (std::pair<uint64_t, uint64_t>{~uint64_t{4}, 40}));
  EXPECT_EQ(page.incarnation, -1);
  EXPECT_EQ(page.epoch, 3);
  EXPECT_EQ(page.lastSeq, 9);
  EXPECT_EQ(page.imageId, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(page.totalBytes, 100);
  EXPECT_EQ(page.offset, 40);
  EXPECT_EQ(page.bytes, "bits");
  testing::ExpectIllegal([&] { handler_.getFilterImagePage(page, 0, 1, -1); },
                         "offset is negative (-1)");
}

TEST_F(RegionServiceHandlerTest, SyncWalReachesTheStore) {
  handler_.syncWal();
  handler_.syncWal();
  EXPECT_EQ(store_->wal_syncs.load(), 2);
}

TEST_F(RegionServiceHandlerTest, ForwardsConvertedRequests) {
  rpc::TRegionDescriptor region;
  region.__set_regionId(5);
  rpc::TTableDescriptor table;
  table.__set_tableId(9);
  table.__set_name("geo");
  table.__set_families({"d", "meta"});
  region.__set_table(table);
  region.__set_startKey("a");
  handler_.openRegion(ThroughWire(region), 0, false, 0);
  ASSERT_EQ(store_->opened().size(), 1u);
  EXPECT_EQ(store_->opened()[0].region_id, 5u);
  EXPECT_EQ(store_->opened()[0].table.table_id, 9u);
  EXPECT_EQ(store_->opened()[0].start_key, "a");
  // The families cross the wire (a region server checks bulk loads).
  EXPECT_EQ(store_->opened()[0].table.families,
            (std::vector<std::string>{"d", "meta"}));

  std::vector<rpc::TRegionDescriptor> listed;
  handler_.listRegions(listed);
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].regionId, 5);
  EXPECT_EQ(listed[0].table.families, (std::vector<std::string>{"d", "meta"}));
  // Families that break the rules are refused by name.
  table.__set_families({"d", "d"});
  region.__set_table(table);
  region.__set_regionId(6);
  testing::ExpectIllegal(
      [&] { handler_.openRegion(ThroughWire(region), 0, false, 0); },
      "families");

  store_->write_result.epoch = 2;
  store_->write_result.ops = {{1, FilterOp::Kind::kInsert, {3, 4}, 0}};
  rpc::TMutation put;
  put.__set_type(rpc::TMutationType::PUT);
  put.__set_regionId(5);
  put.__set_row("r");
  rpc::TColumnValue cell;
  cell.__set_column("f:a");
  cell.__set_value("v");
  put.__set_columnValues({cell});
  rpc::TWriteResult written;
  handler_.mutateRows(written, {ThroughWire(put)}, 0);
  ASSERT_EQ(store_->last_batch().size(), 1u);
  EXPECT_EQ(store_->last_batch()[0].row_key, "r");
  EXPECT_EQ(written.epoch, 2);
  ASSERT_EQ(written.ops.size(), 1u);
  EXPECT_EQ(written.ops[0].kind, rpc::TFilterOpKind::INSERT);
  EXPECT_EQ(written.ops[0].hashLow, 3);

  rpc::TFilterOpsSince since;
  handler_.getFilterOpsSince(since, 6, 70, 0, 0);
  EXPECT_EQ(store_->ops_since_epoch, 6u);
  EXPECT_EQ(store_->ops_since_seq, 70u);

  rpc::TWriteResult loaded;
  handler_.bulkLoad(loaded, 5, std::string("sst\0bytes", 9), 0);
  EXPECT_EQ(store_->last_bulk_load(),
            std::make_pair(uint64_t{5}, std::string("sst\0bytes", 9)));
  EXPECT_EQ(loaded.epoch, 2);
  ASSERT_EQ(loaded.ops.size(), 1u);
  EXPECT_EQ(loaded.ops[0].hashLow, 3);

  store_->report.filter_matches_rebuild = true;
  rpc::TIndexReport report;
  handler_.verifyIndex(report, 0);
  EXPECT_TRUE(report.ok);
}

TEST_F(RegionServiceHandlerTest, ForwardsIndexLifecycleCalls) {
  rpc::TTableDescriptor table;
  table.__set_tableId(9);
  table.__set_name("cities");
  rpc::TIndexedColumn ready;
  ready.__set_columnId(1);
  ready.__set_name("d:name");
  rpc::TIndexedColumn building = ready;
  building.__set_columnId(4);
  building.__set_name("d:cc");
  building.__set_building(true);
  table.__set_indexedColumns({ready, building});
  handler_.updateTableIndexes(ThroughWire(table), 0);
  const TableDescriptor expected{
      9, "cities", {{1, "d:name", false}, {4, "d:cc", true}}};
  EXPECT_EQ(store_->indexes_table, expected);

  store_->chunk_result.write.epoch = 3;
  store_->chunk_result.write.incarnation = 77;
  store_->chunk_result.write.ops = {{5, FilterOp::Kind::kInsert, {1, 2}, 0}};
  store_->chunk_result.rows = 10;
  store_->chunk_result.entries = 4;
  store_->chunk_result.resume_after = std::string("r\0w", 3);
  rpc::TIndexChunkResult reply;
  handler_.backfillIndex(reply, 7, 4, "after", 10, -1, 0);
  EXPECT_EQ(store_->last_chunk,
            std::make_tuple(uint64_t{7}, uint32_t{4}, std::string("after"),
                            uint32_t{10}, ~uint64_t{0}));
  IndexChunkResult back;
  ASSERT_TRUE(FromThrift(ThroughWire(reply), &back).ok());
  EXPECT_EQ(back.write.ops, store_->chunk_result.write.ops);
  EXPECT_EQ(back.write.epoch, 3u);
  EXPECT_EQ(back.rows, 10u);
  EXPECT_EQ(back.entries, 4u);
  EXPECT_FALSE(back.done);
  EXPECT_EQ(back.resume_after, store_->chunk_result.resume_after);

  store_->chunk_result.done = true;
  handler_.dropIndexEntries(reply, 7, 4, 99, 5, 0);
  EXPECT_EQ(store_->last_chunk,
            std::make_tuple(uint64_t{7}, uint32_t{4}, std::string(),
                            uint32_t{99}, uint64_t{5}));
  ASSERT_TRUE(FromThrift(ThroughWire(reply), &back).ok());
  EXPECT_TRUE(back.done);
  // A reply whose resume row is longer than any row key is refused.
  reply.__set_resumeAfter(std::string(kMaxRowKeyBytes + 1, 'x'));
  EXPECT_TRUE(FromThrift(reply, &back).IsCorruption());
  // Chunk sizes must be positive; they never reach the store.
  store_->last_chunk = {};
  EXPECT_THROW(handler_.backfillIndex(reply, 7, 4, "", 0, 0, 0),
               rpc::TIllegalArgument);
  EXPECT_THROW(handler_.dropIndexEntries(reply, 7, 4, -3, 0, 0),
               rpc::TIllegalArgument);
  EXPECT_EQ(std::get<0>(store_->last_chunk), 0u);
}

TEST_F(RegionServiceHandlerTest, ForwardsRegionStats) {
  store_->region_stats.regions = {{4, 9, RegionState::kOpen, 1000, 65536, 4096},
                                  {7, 9, RegionState::kDropping, 3, 10, 0}};
  store_->region_stats.more = true;
  rpc::TRegionStatsPage reply;
  handler_.getRegionStats(reply, 9, 2, 2, false);
  EXPECT_EQ(store_->last_stats_request.table_id, 9u);
  EXPECT_EQ(store_->last_stats_request.after_region_id, 2u);
  EXPECT_EQ(store_->last_stats_request.max_regions, 2u);
  RegionStatsRequest asked;
  asked.table_id = 9;
  asked.after_region_id = 2;
  asked.max_regions = 2;
  // Fields a reply must carry are "set" only once read from the wire.
  reply = ThroughWire(reply);
  RegionStatsPage back;
  ASSERT_TRUE(
      thrift_internal::RegionStatsPageFromThrift(reply, asked, &back).ok());
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(back.regions[0].region_id, 4u);
  EXPECT_EQ(back.regions[0].rows, 1000u);
  EXPECT_EQ(back.regions[0].row_bytes, 65536u);
  EXPECT_EQ(back.regions[0].index_bytes, 4096u);
  EXPECT_EQ(back.regions[1].state, RegionState::kDropping);
  EXPECT_TRUE(back.more);

  // The client side refuses a reply it did not ask for.
  asked.max_regions = 1;
  EXPECT_TRUE(thrift_internal::RegionStatsPageFromThrift(reply, asked, &back)
                  .IsCorruption());
  asked.max_regions = 2;
  asked.after_region_id = 4;  // region 4 is not above it
  EXPECT_TRUE(thrift_internal::RegionStatsPageFromThrift(reply, asked, &back)
                  .IsCorruption());
  asked.after_region_id = 0;
  asked.table_id = 8;  // another table's regions
  EXPECT_TRUE(thrift_internal::RegionStatsPageFromThrift(reply, asked, &back)
                  .IsCorruption());
  asked.table_id = 0;
  rpc::TRegionStatsPage bad = reply;
  bad.regions[1].__set_rows(-1);
  Status s = thrift_internal::RegionStatsPageFromThrift(bad, asked, &back);
  EXPECT_TRUE(s.IsCorruption());
  EXPECT_THAT(s.message(), HasSubstr("result.regions[1].rows is negative"));
}

// The state is declared i32 on the wire, so a region server may send any
// value: STAGED crosses, an unknown one is refused ("is not a region
// state"), as an older reader (whose states end at 2) refuses STAGED.
TEST_F(RegionServiceHandlerTest, StagedRegionsCrossTheWire) {
  store_->region_stats.regions = {{4, 9, RegionState::kStaged, 10, 0, 0}};
  rpc::TRegionStatsPage reply;
  handler_.getRegionStats(reply, 0, 0, 10, false);
  reply = ThroughWire(reply);
  ASSERT_EQ(reply.regions.size(), 1u);
  EXPECT_EQ(reply.regions[0].state, rpc::TRegionState::STAGED);
  RegionStatsPage back;
  RegionStatsRequest asked;
  asked.max_regions = 10;
  ASSERT_TRUE(
      thrift_internal::RegionStatsPageFromThrift(reply, asked, &back).ok());
  EXPECT_EQ(back.regions[0].state, RegionState::kStaged);
  EXPECT_STREQ(RegionStateName(RegionState::kStaged), "staged");
  reply.regions[0].__set_state(9);
  const Status unknown =
      thrift_internal::RegionStatsPageFromThrift(reply, asked, &back);
  EXPECT_TRUE(unknown.IsCorruption());
  EXPECT_THAT(unknown.message(), HasSubstr("is not a region state (9)"));
}

TEST_F(RegionServiceHandlerTest, ForwardsStagingAndSplitPoints) {
  rpc::TRegionDescriptor region;
  region.__set_regionId(5);
  rpc::TTableDescriptor table;
  table.__set_tableId(9);
  table.__set_name("geo");
  region.__set_table(table);
  region = ThroughWire(region);
  handler_.openRegion(region, 0, true, 0);
  handler_.openRegion(region, 0, false, 0);
  EXPECT_EQ(store_->opened_staging(), (std::vector<bool>{true, false}));

  // A router that predates the field sends no field 3: not staged.
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeStructBegin("openRegion_args");
  protocol.writeFieldBegin("region", apache::thrift::protocol::T_STRUCT, 1);
  region.write(&protocol);
  protocol.writeFieldEnd();
  protocol.writeFieldBegin("incarnation", apache::thrift::protocol::T_I64, 2);
  protocol.writeI64(0);
  protocol.writeFieldEnd();
  protocol.writeFieldStop();
  protocol.writeStructEnd();
  rpc::RegionService_openRegion_args old_args;  // as the processor reads
  old_args.read(&protocol);
  EXPECT_FALSE(old_args.__isset.staging);
  EXPECT_FALSE(old_args.staging);
  // Nor a coordinator epoch: 0, a call no coordinator epoch refuses.
  EXPECT_FALSE(old_args.__isset.coordinatorEpoch);
  handler_.openRegion(old_args.region, old_args.incarnation, old_args.staging,
                      old_args.coordinatorEpoch);
  EXPECT_FALSE(store_->opened_staging().back());
  EXPECT_EQ(store_->coordinator_epochs().back(), 0u);

  rpc::TSplitPoint point;
  handler_.splitPoint(point, 7);
  EXPECT_EQ(store_->last_split_region(), 7u);
  EXPECT_FALSE(ThroughWire(point).__isset.key);
  store_->split_point = "m";
  handler_.splitPoint(point, 7);
  point = ThroughWire(point);
  ASSERT_TRUE(point.__isset.key);
  EXPECT_EQ(point.key, "m");
  testing::ExpectIllegal([&] { handler_.splitPoint(point, -1); },
                         "regionId is negative (-1)");

  store_->exported.file = "bulk";
  store_->exported.rows = 3;
  store_->exported.resume_row = "q";
  rpc::TExportedRows exported;
  handler_.exportRows(exported, 7, "b", "z", 100, 4096);
  const ExportRequest asked = store_->last_export();
  EXPECT_EQ(asked.region_id, 7u);
  EXPECT_EQ(asked.start_row, "b");
  EXPECT_EQ(asked.stop_row, "z");
  EXPECT_EQ(asked.max_rows, 100u);
  EXPECT_EQ(asked.max_bytes, 4096u);
  exported = ThroughWire(exported);
  EXPECT_EQ(exported.file, "bulk");
  EXPECT_EQ(exported.rows, 3);
  ASSERT_TRUE(exported.__isset.resumeRow);
  EXPECT_EQ(exported.resumeRow, "q");
  testing::ExpectIllegal(
      [&] { handler_.exportRows(exported, 7, "", "", 0, 1); }, "maxRows");
  testing::ExpectIllegal(
      [&] { handler_.exportRows(exported, 7, "", "", 1, -1); },
      "maxBytes is negative");
}

TEST_F(RegionServiceHandlerTest, EveryCallMapsEveryStatusCode) {
  for (const Status& failure : testing::EveryFailure()) {
    store_->FailWith(failure);
    testing::ExpectEveryCallFailsWith(EveryCall(), failure);
  }
}

TEST_F(RegionServiceHandlerTest, ExceptionsFromBelowBecomeTIOError) {
  store_->ThrowOnCall(true);
  testing::ExpectEveryCallThrowsTIOError(EveryCall(), "store exploded");
}

TEST_F(RegionServiceHandlerTest, BadArgumentsNeverReachTheStore) {
  testing::ExpectIllegal([&] { handler_.closeRegion(-1, 0); },
                         "regionId is negative (-1)");
  testing::ExpectIllegal([&] { handler_.dropRegion(-7, 0); },
                         "regionId is negative (-7)");
  testing::ExpectIllegal(
      [&] {
        rpc::TWriteResult r;
        handler_.bulkLoad(r, -3, "file", 0);
      },
      "regionId is negative (-3)");
  testing::ExpectIllegal(
      [&] {
        rpc::TFilterOpsSince r;
        handler_.getFilterOpsSince(r, 0, -5, 0, 0);
      },
      "seq is negative (-5)");
  testing::ExpectIllegal(
      [&] {
        rpc::TRegionStatsPage r;
        handler_.getRegionStats(r, 0, 0, 1001, false);
      },
      "maxRegions must be in [1, 1000], not 1001");
  testing::ExpectIllegal(
      [&] {
        rpc::TRegionStatsPage r;
        handler_.getRegionStats(r, -2, 0, 10, false);
      },
      "tableId is negative (-2)");
  testing::ExpectIllegal(
      [&] {
        rpc::TRegionDescriptor region;  // nothing sent
        handler_.openRegion(region, 0, false, 0);
      },
      "region.regionId is missing");
  testing::ExpectIllegal(
      [&] {
        rpc::TMutation m;
        m.__set_type(0);
        m.__set_regionId(1);
        m.__set_row("r");
        rpc::TWriteResult r;
        handler_.mutateRows(r, {ThroughWire(m)}, 0);
      },
      "mutations[0].type has no such value (0)");
  EXPECT_EQ(store_->calls(), 0);
}

}  // namespace
}  // namespace bloomroute
