#include "thrift/thrift_region_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "index/element_hash.h"
#include "index/occupancy_image.h"
#include "regionstore/bulk_file.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/fake_region_store.h"
#include "tests/thrift/raw_wire.h"
#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_server.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::PlacesRegion;
using ::bloomroute::testing::PutPlace;
using ::bloomroute::testing::ScriptedThriftServer;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::Where;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string Address(int port) { return "127.0.0.1:" + std::to_string(port); }

// The payload of one Thrift reply to `method`, as a server frames and sends
// it: a generated *_result struct, or a TApplicationException with
// T_EXCEPTION.
template <typename Result>
std::string ReplyPayload(const char* method, const Result& result,
                         apache::thrift::protocol::TMessageType type =
                             apache::thrift::protocol::T_REPLY) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeMessageBegin(method, type, 0);
  result.write(&protocol);
  protocol.writeMessageEnd();
  return buffer->getBufferAsString();
}

// The store's clock in these tests: the timestamp of cells written without
// one.
constexpr int64_t kNow = 1700000000000;

class ThriftRegionClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegionStoreOptions options;
    options.clock_ms = [] { return kNow; };
    auto store = RegionStore::Open(dir_.path(), options);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    StartServer(store_, 0);
    client_ = Connect(Address(server_->port()));
  }

  // Serves `store` on `port` (0: any free port).
  void StartServer(std::shared_ptr<RegionStore> store, int port) {
    RegionServerOptions options;
    options.port = port;
    options.threads = 16;
    auto server = RegionServer::Start(std::move(store), options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }

  static ThriftClientOptions TestOptions() {
    ThriftClientOptions options;
    options.connect_timeout_ms = 5000;
    options.call_timeout_ms = 10000;
    return options;
  }

  static std::unique_ptr<router::RegionClient> Connect(
      const std::string& address,
      const ThriftClientOptions& options = TestOptions()) {
    auto client = NewThriftRegionClientFactory(options)->Connect(1, address);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  // Opens region 1 over [, "m") and writes three places into it.
  WriteResult OpenAndFill() {
    EXPECT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());
    auto written = client_->Apply({PutPlace(1, "bergen", "NO", "PPLA"),
                                   PutPlace(1, "aarhus", "DK", "PPL"),
                                   PutPlace(1, "kiruna", "SE", "PPL")},
                                  0);
    EXPECT_TRUE(written.ok()) << written.status().ToString();
    return written.ok() ? *written : WriteResult();
  }

  TempDir dir_;
  std::shared_ptr<RegionStore> store_;
  std::unique_ptr<RegionServer> server_;
  std::unique_ptr<router::RegionClient> client_;
};

TEST_F(ThriftRegionClientTest, ValidatesOptions) {
  EXPECT_TRUE(ThriftClientOptions().Validate().ok());
  ThriftClientOptions o;
  o.connect_timeout_ms = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = ThriftClientOptions();
  o.call_timeout_ms = -1;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = ThriftClientOptions();
  o.long_call_timeout_ms = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = ThriftClientOptions();
  o.max_frame_bytes = RegionServerOptions::kMinFrameBytes - 1;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o.max_frame_bytes = RegionServerOptions::kMaxFrameBytes + 1;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  o = ThriftClientOptions();
  o.max_idle_connections = ThriftClientOptions::kMaxIdleConnections + 1;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
  EXPECT_TRUE(NewThriftRegionClientFactory(o)
                  ->Connect(1, Address(server_->port()))
                  .status()
                  .IsInvalidArgument());
}

// A client the router no longer uses (its member re-pointed elsewhere) kept
// its pooled connection, and so a slot of the old server, for as long as
// the router ran. ReleaseConnections closes it, and no later call pools one.
TEST_F(ThriftRegionClientTest, ReleasedConnectionsFreeTheServersSlots) {
  server_.reset();
  RegionServerOptions options;
  options.port = 0;
  options.max_connections = 1;
  auto server = RegionServer::Start(store_, options);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  server_ = std::move(server).value();
  const std::string address = Address(server_->port());
  std::unique_ptr<router::RegionClient> first = Connect(address);
  ASSERT_TRUE(first->ListRegions().ok());  // its connection is pooled
  first->ReleaseConnections();
  ThriftClientOptions quick = TestOptions();
  quick.call_timeout_ms = 2000;  // the pooled one would hold it 300 s
  std::unique_ptr<router::RegionClient> second = Connect(address, quick);
  const Status answered = second->ListRegions().status();
  EXPECT_TRUE(answered.ok()) << answered.ToString();
  second.reset();
  // Calls of a released client still work, on connections it then closes.
  EXPECT_TRUE(first->ListRegions().ok());
  std::unique_ptr<router::RegionClient> third = Connect(address, quick);
  EXPECT_TRUE(third->ListRegions().ok());
}

TEST_F(ThriftRegionClientTest, MalformedAddressesAreInvalidArgument) {
  auto factory = NewThriftRegionClientFactory(TestOptions());
  for (const char* bad : {"", "127.0.0.1", "127.0.0.1:", ":9091",
                          "127.0.0.1:65536", "127.0.0.1:0", "127.0.0.1:x",
                          "::1:9091", "[::zz]:9091", "bad host:9091"}) {
    SCOPED_TRACE(bad);
    EXPECT_TRUE(factory->Connect(1, bad).status().IsInvalidArgument());
  }
  // Well-formed addresses give a client without connecting.
  for (const char* good : {"localhost:1", "[::1]:1", "10.255.255.1:9091"}) {
    SCOPED_TRACE(good);
    EXPECT_TRUE(factory->Connect(1, good).ok());
  }
}

TEST_F(ThriftRegionClientTest, RegionManagementRoundTrips) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());  // again
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(2, "m", ""), 0).ok());
  auto regions = client_->ListRegions();
  ASSERT_TRUE(regions.ok()) << regions.status().ToString();
  EXPECT_THAT(*regions,
              ElementsAre(PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")));

  ASSERT_TRUE(client_->Apply({PutPlace(2, "oslo", "NO", "PPLC")}, 0).ok());
  ASSERT_TRUE(client_->CloseRegion(2).ok());
  EXPECT_THAT(*client_->ListRegions(), ElementsAre(PlacesRegion(1, "", "m")));
  EXPECT_TRUE(client_->Get({{2, "oslo", {}}}, 0).status().IsNotFound());

  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(2, "m", ""), 0).ok());
  auto rows = client_->Get({{2, "oslo", {}}}, 0);
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE((*rows)[0].has_value());  // closing kept the row

  ASSERT_TRUE(client_->DropRegion(2).ok());
  EXPECT_THAT(*client_->ListRegions(), ElementsAre(PlacesRegion(1, "", "m")));
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(2, "m", ""), 0).ok());
  rows = client_->Get({{2, "oslo", {}}}, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_FALSE((*rows)[0].has_value());  // dropping deleted it
}

TEST_F(ThriftRegionClientTest, RegionStatsRoundTrip) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(2, "m", ""), 0).ok());
  ASSERT_TRUE(client_
                  ->Apply({PutPlace(1, "bergen", "NO", "PPLA"),
                           PutPlace(2, "oslo", "NO", "PPLC"),
                           PutPlace(2, "stavanger", "NO", "PPLA")},
                          0)
                  .ok());
  ASSERT_TRUE(client_->CloseRegion(1).ok());
  RegionStatsRequest request;
  auto page = client_->GetRegionStats(request);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->regions.size(), 2u);
  EXPECT_EQ(page->regions[0].state, RegionState::kClosed);
  EXPECT_EQ(page->regions[0].rows, 1u);
  EXPECT_EQ(page->regions[1].state, RegionState::kOpen);
  EXPECT_EQ(page->regions[1].rows, 2u);
  request.max_regions = 1;
  page = client_->GetRegionStats(request);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->regions.size(), 1u);
  EXPECT_TRUE(page->more);
  request.max_regions = 0;  // never sent
  EXPECT_TRUE(client_->GetRegionStats(request).status().IsInvalidArgument());
}

TEST_F(ThriftRegionClientTest, DataCallsRoundTrip) {
  const WriteResult written = OpenAndFill();
  EXPECT_EQ(written.ops.size(), 5u);  // NO, DK, SE, PPLA, PPL enter
  EXPECT_EQ(written.last_seq, 5u);

  auto rows =
      client_->Get({{1, "bergen", {"d:country"}}, {1, "absent", {}}}, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  ASSERT_TRUE((*rows)[0].has_value());
  EXPECT_EQ(*(*rows)[0], (Row{"bergen", {{"d:country", "NO", kNow}}}));
  EXPECT_FALSE((*rows)[1].has_value());

  auto page = client_->Scan({1, "", "", 2, {"d:feature"}});
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->rows.size(), 2u);
  EXPECT_EQ(page->rows[0], (Row{"aarhus", {{"d:feature", "PPL", kNow}}}));
  EXPECT_EQ(page->rows[1].key, "bergen");
  ASSERT_EQ(page->resume_row, std::optional<std::string>("kiruna"));
  page = client_->Scan({1, "kiruna", "", 10, {}});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->rows.size(), 1u);
  EXPECT_EQ(page->rows[0].cells.size(), 3u);
  EXPECT_FALSE(page->resume_row.has_value());

  auto found = client_->Lookup(Where({{"d:feature", "PPL"}}));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->rows.size(), 2u);
  EXPECT_EQ(found->rows[0].key, "aarhus");
  EXPECT_EQ(found->rows[1].key, "kiruna");
  EXPECT_FALSE(found->truncated);
  found = client_->Lookup(Where({{"d:feature", "PPL"}}, /*limit=*/1));
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->rows.size(), 1u);
  EXPECT_TRUE(found->truncated);
}

// A scan's filter crosses the wire and runs on the server; a bad one comes
// back as InvalidArgument naming the position.
TEST_F(ThriftRegionClientTest, ScanFiltersRunOnTheServer) {
  OpenAndFill();
  ScanRequest scan{1, "", "", 10, {}};
  scan.filter =
      "SingleColumnValueFilter('d', 'feature', =, 'binary:PPL', true, true) "
      "AND KeyOnlyFilter()";
  auto page = client_->Scan(scan);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->rows.size(), 2u);
  EXPECT_EQ(page->rows[0].key, "aarhus");
  EXPECT_EQ(page->rows[1].key, "kiruna");
  for (const Cell& c : page->rows[1].cells) EXPECT_EQ(c.value, "");
  scan.filter = "KeyOnlyFilter() OR";
  page = client_->Scan(scan);
  ASSERT_TRUE(page.status().IsInvalidArgument()) << page.status().ToString();
  EXPECT_THAT(page.status().message(), HasSubstr("at position"));
}

// Conditions, increments and appends reach the real store over the wire,
// and their outcomes come back; a refused increment keeps its message.
TEST_F(ThriftRegionClientTest, AtomicOpsRoundTrip) {
  OpenAndFill();
  Mutation check = PutPlace(1, "bergen", "NO", "PPLC");
  check.condition = RowCondition{"d:country", CompareOp::kEqual, "SE"};
  auto w = client_->Apply({check}, 0);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->outcomes.size(), 1u);
  EXPECT_FALSE(w->outcomes[0].applied);
  check.condition->value = "NO";
  w = client_->Apply(
      {check, Mutation::Increment(1, "bergen", {{"d:visits", 5}}),
       Mutation::Append(1, "bergen", {{"d:name", "-by"}})},
      0);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  ASSERT_EQ(w->outcomes.size(), 3u);
  EXPECT_TRUE(w->outcomes[0].applied);
  // A new cell gets the clock; the appended one was written at kNow in
  // OpenAndFill, so its new cell is stamped one later.
  EXPECT_EQ(
      w->outcomes[1].cells,
      (std::vector<Cell>{{"d:visits", std::string(7, '\0') + "\x05", kNow}}));
  EXPECT_EQ(w->outcomes[2].cells,
            (std::vector<Cell>{{"d:name", "x-by", kNow + 1}}));
  auto found = client_->Lookup(Where({{"d:feature", "PPLC"}}));
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->rows.size(), 1u);
  EXPECT_EQ(found->rows[0].key, "bergen");

  w = client_->Apply({Mutation::Increment(1, "bergen", {{"d:name", 1}})}, 0);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(w.status().IsInvalidArgument()) << w.status().ToString();
  EXPECT_NE(w.status().message().find("Field is not a long, it's 4 bytes"),
            std::string::npos)
      << w.status().ToString();
}

// Timestamps, delete specs and time ranges cross the wire both ways.
TEST_F(ThriftRegionClientTest, TimestampsAndTimeRangesRoundTrip) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());
  Mutation put = Mutation::Put(1, "bergen", {{"d:country", "NO", 100}});
  put.cells.push_back({"d:name", "Bergen"});
  put.timestamp = 150;  // for the cell without its own
  ASSERT_TRUE(client_->Apply({put}, 0).ok());
  GetRequest get{1, "bergen", {}};
  auto rows = client_->Get({get}, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(
      (*rows)[0],
      (Row{"bergen", {{"d:country", "NO", 100}, {"d:name", "Bergen", 150}}}));
  get.time_range = {120, 200};
  rows = client_->Get({get}, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0], (Row{"bergen", {{"d:name", "Bergen", 150}}}));

  ScanRequest scan{1, "", "", 10, {}};
  scan.time_range = {0, 120};
  auto page = client_->Scan(scan);
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  EXPECT_EQ(page->rows,
            (std::vector<Row>{Row{"bergen", {{"d:country", "NO", 100}}}}));
  IndexQuery q = Where({{"d:country", "NO"}});
  q.time_range = {120, 200};
  auto found = client_->Lookup(q);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(found->rows.empty()) << "the NO cell is outside the range";

  Mutation del = Mutation::Delete(1, "bergen");
  del.deletes = {{DeleteSpec::Kind::kColumn, "d:name", 150}};
  ASSERT_TRUE(client_->Apply({del}, 0).ok());
  get.time_range = TimeRange();
  rows = client_->Get({get}, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ((*rows)[0], (Row{"bergen", {{"d:country", "NO", 100}}}));
  auto bad = client_->Apply({Mutation::Put(1, "x", {{"d:a", "1", -4}})}, 0);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
}

// A bulk file travels as bytes, is loaded by the real store, and a bad one
// comes back as InvalidArgument with nothing written.
TEST_F(ThriftRegionClientTest, BulkLoadRoundTrips) {
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", "m"), 0).ok());
  const std::string path = dir_.path() + "/rows.sst";
  {
    auto w = BulkFileWriter::Create(path);
    ASSERT_TRUE(w.ok());
    ASSERT_TRUE((*w)->Add("aarhus", PutPlace(1, "", "DK", "PPL").cells).ok());
    ASSERT_TRUE((*w)->Add("bergen", PutPlace(1, "", "NO", "PPLA").cells).ok());
    ASSERT_TRUE((*w)->Finish().ok());
  }
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), {}};
  auto loaded = client_->BulkLoad(1, bytes, 0);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->ops.size(), 4u);  // DK, NO, PPL, PPLA enter
  auto found = client_->Lookup(Where({{"d:country", "NO"}}));
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->rows.size(), 1u);
  EXPECT_EQ(found->rows[0].key, "bergen");

  auto bad = client_->BulkLoad(1, bytes.substr(0, bytes.size() / 2), 0);
  EXPECT_TRUE(bad.status().IsInvalidArgument()) << bad.status().ToString();
  EXPECT_TRUE(client_->BulkLoad(2, bytes, 0).status().IsNotFound());
  EXPECT_EQ(client_->GetFilterStatus()->last_seq, loaded->last_seq);
}

TEST_F(ThriftRegionClientTest, FilterCallsRoundTrip) {
  const WriteResult written = OpenAndFill();

  auto snapshot = client_->Snapshot(0);
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->epoch, written.epoch);
  EXPECT_EQ(snapshot->last_seq, written.last_seq);
  auto filter = ScalableSplitCountingBloomFilter::Deserialize(snapshot->filter);
  ASSERT_TRUE(filter.ok()) << filter.status().ToString();
  EXPECT_TRUE(filter->Contains(HashElement(7, 1, "NO")));  // d:country
  EXPECT_EQ(filter->element_count(), 5u);

  auto since = client_->OpsSince(written.incarnation, written.epoch, 2, 0);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_FALSE(since->too_old);
  EXPECT_EQ(since->epoch, written.epoch);
  EXPECT_EQ(since->last_seq, 5u);
  EXPECT_EQ(since->ops,
            std::vector<FilterOp>(written.ops.begin() + 2, written.ops.end()));
  since = client_->OpsSince(written.incarnation, written.epoch + 1, 0, 0);
  ASSERT_TRUE(since.ok());
  EXPECT_TRUE(since->too_old);
  EXPECT_TRUE(since->ops.empty());

  auto status = client_->GetFilterStatus();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->epoch, written.epoch);
  EXPECT_EQ(status->last_seq, 5u);
  EXPECT_EQ(status->stats.elements, 5u);
  ASSERT_EQ(status->stats.stages.size(), filter->stage_count());
  EXPECT_EQ(status->stats.stages[0].elements, 5u);
  EXPECT_EQ(status->stats.stages[0].geometry.slices,
            filter->Stats().stages[0].geometry.slices);
  EXPECT_GT(status->stats.memory_bytes, 0u);
}

TEST_F(ThriftRegionClientTest, SetFilterConfigRoundTrips) {
  const WriteResult written = OpenAndFill();
  SscbfConfig config;
  config.target_fpr = 0.05 / 16;
  config.tightening_ratio = 0.8;
  config.initial_capacity = 4096;
  ASSERT_TRUE(client_->SetFilterConfig(config).ok());
  auto status = client_->GetFilterStatus();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_TRUE(status->config == config);
  EXPECT_GT(status->epoch, written.epoch);  // rebuilt
  EXPECT_EQ(status->stats.elements, 5u);
  // Again: nothing to do.
  ASSERT_TRUE(client_->SetFilterConfig(config).ok());
  EXPECT_EQ(client_->GetFilterStatus()->epoch, status->epoch);

  // The client sends what it is given; the server's decoder refuses an
  // invalid config, and nothing changes.
  SscbfConfig invalid = config;
  invalid.growth_factor = 100;
  const Status refused = client_->SetFilterConfig(invalid);
  EXPECT_TRUE(refused.IsInvalidArgument()) << refused.ToString();
  EXPECT_THAT(refused.message(), ::testing::HasSubstr("growth factor"));
  EXPECT_TRUE(client_->GetFilterStatus()->config == config);
  EXPECT_EQ(client_->GetFilterStatus()->epoch, status->epoch);
}

// A server whose bits-only snapshot is many pages (200,000 distinct values,
// 64 KiB pages) loads: the assembled image is the occupancy image of the
// server's filter at the (epoch, seq) it reports, and its first page raised
// the fence.
TEST_F(ThriftRegionClientTest, SnapshotImageLoadsAServerOfManyPages) {
  client_.reset();
  server_.reset();
  store_.reset();
  RegionStoreOptions options;
  options.filter_image_page_bytes = 64 << 10;
  auto store = RegionStore::Open(dir_.path(), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(store).value();
  StartServer(store_, 0);
  client_ = Connect(Address(server_->port()));
  ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  for (int batch = 0; batch < 10; ++batch) {
    std::vector<Mutation> puts;
    for (int i = 0; i < 10000; ++i) {
      const std::string n = std::to_string(batch * 10000 + i);
      puts.push_back(PutPlace(1, "k" + n, "c" + n, "f" + n));
    }
    ASSERT_TRUE(store_->Apply(puts, 3).ok());
  }
  const FilterStatus status = store_->GetFilterStatus();
  ASSERT_EQ(status.stats.elements, 200000u);

  auto image = client_->SnapshotImage(5);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  EXPECT_EQ(image->incarnation, status.incarnation);
  EXPECT_EQ(image->epoch, status.epoch);
  EXPECT_EQ(image->last_seq, status.last_seq);
  auto snapshot = store_->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  auto filter = ScalableSplitCountingBloomFilter::Deserialize(snapshot->filter);
  ASSERT_TRUE(filter.ok());
  EXPECT_EQ(image->image, OccupancyImage::Of(*filter).Serialize());
  EXPECT_GT(image->image.size(), 4 * (64u << 10));  // several pages
  std::cout << "filter of 200000 values: getFilterSnapshot "
            << snapshot->filter.size() << " bytes, occupancy image "
            << image->image.size() << " bytes in "
            << (image->image.size() + (64 << 10) - 1) / (64 << 10)
            << " pages of 64 KiB\n";
  EXPECT_TRUE(
      client_->Apply({PutPlace(1, "late", "x", "y")}, 4).status().IsAborted());

  // An image over the client's limit is refused by name.
  ThriftClientOptions small = TestOptions();
  small.max_filter_image_bytes = 1 << 18;
  auto limited = Connect(Address(server_->port()), small)->SnapshotImage(0);
  EXPECT_TRUE(limited.status().IsIOError()) << limited.status().ToString();
  EXPECT_THAT(limited.status().message(),
              HasSubstr("over the limit of 262144 bytes "
                        "(router --max-filter-image-bytes)"));
}

TEST_F(ThriftRegionClientTest, ServerRejectionsKeepTheirCode) {
  OpenAndFill();
  auto written = client_->Apply(
      {PutPlace(1, "lund", "SE", "PPLA"), PutPlace(1, "", "NO", "PPL")}, 0);
  EXPECT_TRUE(written.status().IsInvalidArgument());
  EXPECT_THAT(written.status().message(), HasSubstr("empty row key"));
  EXPECT_THAT(written.status().message(), Not(StartsWith("InvalidArgument")));
  written = client_->Apply({PutPlace(99, "lund", "SE", "PPLA")}, 0);
  EXPECT_TRUE(written.status().IsNotFound());
  EXPECT_EQ(written.status().message(),
            "mutation 0: region 99 is not open on this server");
  EXPECT_TRUE(
      client_->Lookup(Where({{"d:name", "x"}})).status().IsInvalidArgument());
  EXPECT_TRUE(client_->Scan({1, "", "", 0, {}}).status().IsInvalidArgument());
  EXPECT_TRUE(client_->DropRegion(12345).IsNotFound());

  // A number the wire cannot carry is refused before sending.
  const Status s = client_->CloseRegion(uint64_t{1} << 63);
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_TRUE(
      client_->OpsSince(1, 1, ~uint64_t{0}, 0).status().IsInvalidArgument());

  // The rejected batch wrote nothing; the client still works.
  auto rows = client_->Get({{1, "lund", {}}}, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_FALSE((*rows)[0].has_value());
}

// The store's own failures cross the wire as TIOError and come back as the
// Status the store returned.
TEST_F(ThriftRegionClientTest, ServerFailuresKeepTheirCode) {
  auto store = std::make_shared<FakeRegionStore>();
  StartServer(store, 0);
  auto client = Connect(Address(server_->port()));
  for (const Status& failure :
       {Status::Corruption("checksum mismatch in block 3"),
        Status::IOError("disk full"), Status::Unavailable("compacting"),
        Status::NotFound("table 9 is unknown")}) {
    SCOPED_TRACE(failure.ToString());
    store->FailWith(failure);
    const Status s = client->Snapshot(0).status();
    EXPECT_EQ(s.code(), failure.code());
    EXPECT_EQ(s.message(), failure.message());
  }
}

TEST_F(ThriftRegionClientTest, StoppedServerIsUnavailableNamingTheAddress) {
  OpenAndFill();  // leaves a pooled connection
  const std::string address = Address(server_->port());
  server_->Stop();
  for (int i = 0; i < 2; ++i) {  // the pooled connection, then a new one
    const Status s = client_->Snapshot(0).status();
    EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
    EXPECT_TRUE(s.IsRetryable());
    EXPECT_THAT(s.message(),
                StartsWith("region server " + address + ": getFilterSnapshot"));
  }
}

TEST_F(ThriftRegionClientTest, RestartedServerServesTheSameClientAgain) {
  const WriteResult written = OpenAndFill();
  const int port = server_->port();
  // Stopped and restarted between two calls: the pooled connection is dead
  // and must be noticed before it carries a call.
  server_->Stop();
  server_.reset();
  StartServer(store_, port);
  auto status = client_->GetFilterStatus();
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_EQ(status->last_seq, written.last_seq);

  // Stopped, a call fails, restarted: the next call works.
  server_->Stop();
  server_.reset();
  EXPECT_TRUE(client_->ListRegions().status().IsUnavailable());
  StartServer(store_, port);
  auto rows = client_->Get({{1, "bergen", {}}}, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE((*rows)[0].has_value());
}

TEST_F(ThriftRegionClientTest, ConcurrentCallsFromEightThreadsAllSucceed) {
  constexpr int kThreads = 8;
  constexpr int kRowsPerThread = 40;
  ASSERT_TRUE(client_->OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([this, t, &failures] {
      const std::string country = "C" + std::to_string(t);
      for (int i = 0; i < kRowsPerThread; ++i) {
        const std::string key =
            "row-" + std::to_string(t) + "-" + std::to_string(i);
        auto w = client_->Apply({PutPlace(1, key, country, "PPL", key)}, 0);
        auto rows = client_->Get({{1, key, {"d:name"}}}, 0);
        const bool right =
            w.ok() && rows.ok() && (*rows)[0].has_value() &&
            (*rows)[0]->cells == std::vector<Cell>{{"d:name", key, kNow}};
        if (!right) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  for (int t = 0; t < kThreads; ++t) {
    auto found =
        client_->Lookup(Where({{"d:country", "C" + std::to_string(t)}}));
    ASSERT_TRUE(found.ok()) << found.status().ToString();
    EXPECT_EQ(found->rows.size(), static_cast<size_t>(kRowsPerThread));
  }
  auto status = client_->GetFilterStatus();
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->stats.elements, kThreads + 1u);  // the countries and PPL
}

TEST_F(ThriftRegionClientTest, SilentServerIsUnavailableWithinTheCallTimeout) {
  ScriptedThriftServer silent;  // accepts nothing, answers nothing
  ThriftClientOptions options = TestOptions();
  options.call_timeout_ms = 200;
  auto client = Connect(Address(silent.port()), options);
  const auto start = std::chrono::steady_clock::now();
  const Status s = client->ListRegions().status();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  EXPECT_THAT(s.message(),
              StartsWith("region server " + Address(silent.port()) + ": "));
  EXPECT_THAT(s.message(), HasSubstr("timed out"));
  EXPECT_GE(elapsed, std::chrono::milliseconds(150));
  EXPECT_LT(elapsed, std::chrono::seconds(5));
}

// A store whose verify, drop and region list each take kSlowCallMs.
class SlowStore : public FakeRegionStore {
 public:
  static constexpr int kSlowCallMs = 800;
  StatusOr<IndexReport> VerifyIndex(
      std::optional<uint64_t> table_id) const override {
    Wait();
    return FakeRegionStore::VerifyIndex(table_id);
  }
  Status DropRegion(uint64_t id) override {
    Wait();
    return FakeRegionStore::DropRegion(id);
  }
  std::vector<RegionDescriptor> ListRegions() const override {
    Wait();
    return FakeRegionStore::ListRegions();
  }

 private:
  static void Wait() {
    std::this_thread::sleep_for(std::chrono::milliseconds(kSlowCallMs));
  }
};

// Verify and drop read or delete a whole region or server: they wait for
// their reply up to long_call_timeout_ms, every other call call_timeout_ms,
// also on a connection a long call used before.
TEST_F(ThriftRegionClientTest, VerifyAndDropHaveTheLongCallTimeout) {
  StartServer(std::make_shared<SlowStore>(), 0);
  ThriftClientOptions options = TestOptions();
  options.call_timeout_ms = 200;  // long_call_timeout_ms: its default
  options.max_idle_connections = 1;
  auto client = Connect(Address(server_->port()), options);
  const StatusOr<IndexReport> report = client->VerifyIndex(std::nullopt);
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  const Status dropped = client->DropRegion(3);
  EXPECT_TRUE(dropped.ok()) << dropped.ToString();
  const Status listed = client->ListRegions().status();
  EXPECT_TRUE(listed.IsUnavailable()) << listed.ToString();
  EXPECT_THAT(listed.message(), HasSubstr("timed out"));
}

// A declared exception is a complete reply: the connection is reused.
TEST_F(ThriftRegionClientTest, DeclaredExceptionsKeepTheConnection) {
  rpc::RegionService_listRegions_result result;
  rpc::TIllegalArgument error;
  error.__set_message("NotFound: table 3 is unknown");
  result.ia = error;  // the generated *_result setters are not defined
  result.__isset.ia = true;
  ScriptedThriftServer server(
      ScriptedThriftServer::Always(ReplyPayload("listRegions", result)));
  auto client = Connect(Address(server.port()));
  for (int i = 0; i < 3; ++i) {
    const Status s = client->ListRegions().status();
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_EQ(s.message(), "table 3 is unknown");
  }
  EXPECT_EQ(server.connections(), 1);
}

// Undecodable replies and application exceptions are IOError, and the
// connection, in an unknown state, is never reused.
TEST_F(ThriftRegionClientTest, BrokenRepliesAreIOErrorAndDropTheConnection) {
  const std::string garbage = "\x7f\xff\xff\xff";  // no message header
  apache::thrift::TApplicationException app_error(
      apache::thrift::TApplicationException::INTERNAL_ERROR, "handler died");
  for (const std::string& reply :
       {garbage, ReplyPayload("listRegions", app_error,
                              apache::thrift::protocol::T_EXCEPTION)}) {
    ScriptedThriftServer server(ScriptedThriftServer::Always(reply));
    auto client = Connect(Address(server.port()));
    for (int i = 0; i < 2; ++i) {
      const Status s = client->ListRegions().status();
      EXPECT_TRUE(s.IsIOError()) << s.ToString();
      EXPECT_THAT(s.message(),
                  StartsWith("region server " + Address(server.port()) +
                             ": listRegions: "));
    }
    EXPECT_EQ(server.connections(), 2);
  }
}

// A reply that decodes but holds what no server sends is Corruption.
TEST_F(ThriftRegionClientTest, ImpossibleRepliesAreCorruption) {
  rpc::RegionService_getFilterSnapshot_result result;
  rpc::TFilterSnapshot snapshot;
  snapshot.__set_incarnation(5);
  snapshot.__set_epoch(-1);
  snapshot.__set_lastSeq(0);
  result.success = snapshot;
  result.__isset.success = true;
  ScriptedThriftServer server(
      ScriptedThriftServer::Always(ReplyPayload("getFilterSnapshot", result)));
  auto client = Connect(Address(server.port()));
  const Status s = client->Snapshot(0).status();
  EXPECT_TRUE(s.IsCorruption()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("snapshot.epoch is negative (-1)"));
}

TEST_F(ThriftRegionClientTest, RequestsOverTheFrameLimitAreNotSent) {
  ThriftClientOptions options = TestOptions();
  options.max_frame_bytes = RegionServerOptions::kMinFrameBytes;
  auto client = Connect(Address(server_->port()), options);
  ASSERT_TRUE(client->OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  const std::string big(RegionServerOptions::kMinFrameBytes, 'x');
  const Status s =
      client->Apply({PutPlace(1, "big", "NO", "PPL", big)}, 0).status();
  EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("over the frame limit"));
  auto rows = client->Get({{1, "big", {}}}, 0);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_FALSE((*rows)[0].has_value());
}

// Thrift counts the bytes read through a transport against the configured
// message size (max_frame_bytes); the count must start again with each reply,
// or a pooled connection would fail once it had carried that much in total.
TEST_F(ThriftRegionClientTest, OneConnectionCarriesManyFramesWorthOfReplies) {
  ThriftClientOptions options = TestOptions();
  options.max_frame_bytes = RegionServerOptions::kMinFrameBytes;
  options.max_idle_connections = 1;
  auto client = Connect(Address(server_->port()), options);
  ASSERT_TRUE(client->OpenRegion(PlacesRegion(1, "", ""), 0).ok());
  const std::string value(RegionServerOptions::kMinFrameBytes / 4, 'v');
  ASSERT_TRUE(client->Apply({PutPlace(1, "r", "NO", "PPL", value)}, 0).ok());
  for (int i = 0; i < 20; ++i) {  // 20 replies of a quarter frame each
    auto rows = client->Get({{1, "r", {"d:name"}}}, 0);
    ASSERT_TRUE(rows.ok()) << i << ": " << rows.status().ToString();
    ASSERT_TRUE((*rows)[0].has_value());
    EXPECT_EQ((*rows)[0]->cells[0].value.size(), value.size());
  }
}

}  // namespace
}  // namespace bloomroute
