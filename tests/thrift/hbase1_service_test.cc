// HBase's Thrift1 API (thrift/hbase1_service.thrift) as the router serves it
// (Hbase1Server, Hbase1ServiceHandler): every method, through a client
// generated from the IDL, against a server on 127.0.0.1 over in-process
// region stores. The client speaks happybase's default (buffered transport,
// binary protocol); one test repeats a session framed and compact.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tests/router/router_test_util.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/tls_test_util.h"
#include "thrift/gen-cpp/Hbase.h"
#include "thrift/hbase1_server.h"
#include "thrift/hbase1_service_handler.h"
#include "thrift/internal/tls.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {
namespace {

namespace at = ::apache::thrift;
namespace h1 = ::bloomroute::rpc::hbase1;
namespace t = ::bloomroute::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

enum class Wire { kBufferedBinary, kFramedCompact };

// A connected Thrift1 client.
class Client {
 public:
  Client(int port, Wire wire)
      : Client(std::make_shared<at::transport::TSocket>("127.0.0.1", port),
               wire) {}
  // Over `socket` (a TLS one).
  Client(std::shared_ptr<at::transport::TSocket> socket, Wire wire) {
    socket->setRecvTimeout(10000);
    if (wire == Wire::kBufferedBinary) {
      transport_ = std::make_shared<at::transport::TBufferedTransport>(socket);
      client_ = std::make_unique<h1::HbaseClient>(
          std::make_shared<at::protocol::TBinaryProtocol>(transport_));
    } else {
      transport_ = std::make_shared<at::transport::TFramedTransport>(socket);
      client_ = std::make_unique<h1::HbaseClient>(
          std::make_shared<at::protocol::TCompactProtocol>(transport_));
    }
    transport_->open();
  }
  ~Client() { transport_->close(); }
  h1::HbaseClient* operator->() { return client_.get(); }

 private:
  std::shared_ptr<at::transport::TTransport> transport_;
  std::unique_ptr<h1::HbaseClient> client_;
};

h1::ColumnDescriptor Family(const std::string& name) {
  h1::ColumnDescriptor family;
  family.__set_name(name);
  family.__set_maxVersions(1);
  return family;
}

h1::Mutation Put(const std::string& column, const std::string& value) {
  h1::Mutation m;
  m.__set_column(column);
  m.__set_value(value);
  return m;
}

h1::Mutation Delete(const std::string& column) {
  h1::Mutation m;
  m.__set_isDelete(true);
  m.__set_column(column);
  return m;
}

h1::BatchMutation Batch(const std::string& row,
                        std::vector<h1::Mutation> mutations) {
  h1::BatchMutation batch;
  batch.__set_row(row);
  batch.__set_mutations(std::move(mutations));
  return batch;
}

// "row: column=value ..." of rows, columns in order.
std::string Show(const std::vector<h1::TRowResult>& rows) {
  std::string out;
  for (const h1::TRowResult& r : rows) {
    out += (out.empty() ? "" : " | ") + r.row + ":";
    for (const auto& [column, cell] : r.columns) {
      out += " " + column + "=" + cell.value;
    }
    for (const h1::TColumn& c : r.sortedColumns) {
      out += " " + c.columnName + "=" + c.cell.value;
    }
  }
  return out;
}

std::vector<std::string> Values(const std::vector<h1::TCell>& cells) {
  std::vector<std::string> values;
  for (const h1::TCell& c : cells) values.push_back(c.value);
  return values;
}

// The message of the IOError `call` throws (a test failure if none).
template <typename Call>
std::string IOErrorOf(Call&& call) {
  try {
    call();
  } catch (const h1::IOError& e) {
    return e.message;
  }
  ADD_FAILURE() << "no IOError";
  return "";
}

template <typename Call>
std::string IllegalArgumentOf(Call&& call) {
  try {
    call();
  } catch (const h1::IllegalArgument& e) {
    return e.message;
  }
  ADD_FAILURE() << "no IllegalArgument";
  return "";
}

class Hbase1ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = t::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    ServerOptions options;
    options.port = 0;
    options.threads = 2;
    auto server = Hbase1Server::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    client_ = std::make_unique<Client>(server_->port(), Wire::kBufferedBinary);
  }

  // Table "t" with families d and e, through Thrift1.
  void CreateT() {
    (*client_)->createTable("t", {Family("d:"), Family("e")});
    ASSERT_TRUE(t::WaitAllCurrent(*router_));
  }

  // Table "geo" indexed on d:cc, two regions split at "m", with rows whose
  // country is NO below "m" and SE from "m" on.
  void CreateGeo() {
    router::TableSpec spec;
    spec.name = "geo";
    spec.indexed_columns = {"d:cc"};
    spec.split_keys = {"m"};
    ASSERT_TRUE(router_->CreateTable(spec).ok());
    ASSERT_TRUE(t::WaitAllCurrent(*router_));
    (*client_)->mutateRows(
        "geo",
        {Batch("bergen", {Put("d:cc", "NO"), Put("d:name", "Bergen")}),
         Batch("bodo", {Put("d:cc", "NO"), Put("d:name", "Bodø")}),
         Batch("oslo", {Put("d:cc", "SE"), Put("d:name", "Oslo?")}),
         Batch("umea", {Put("d:cc", "SE"), Put("d:name", "Umeå")})},
        {});
  }

  // Every row a scanner gives, scannerGet by scannerGet.
  std::string Drain(int32_t id) {
    std::vector<h1::TRowResult> all;
    for (;;) {
      std::vector<h1::TRowResult> one;
      (*client_)->scannerGet(one, id);
      if (one.empty()) break;
      EXPECT_EQ(one.size(), 1u);
      all.insert(all.end(), one.begin(), one.end());
    }
    (*client_)->scannerClose(id);
    return Show(all);
  }

  t::StoreCluster cluster_{2};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<Hbase1Server> server_;
  std::unique_ptr<Client> client_;
};

TEST_F(Hbase1ServiceTest, CreatesListsDescribesAndDropsTables) {
  EXPECT_EQ((*client_)->getThriftServerType(), h1::TThriftServerType::ONE);
  CreateT();
  std::vector<std::string> names;
  (*client_)->getTableNames(names);
  EXPECT_THAT(names, ElementsAre("t"));
  EXPECT_THROW((*client_)->createTable("t", {Family("d")}), h1::AlreadyExists);

  std::map<std::string, h1::ColumnDescriptor> families;
  (*client_)->getColumnDescriptors(families, "t");
  ASSERT_EQ(families.size(), 2u);
  EXPECT_EQ(families["d:"].name, "d:");
  EXPECT_EQ(families["d:"].maxVersions, 1);
  EXPECT_EQ(families["e:"].timeToLive, 0x7fffffff);

  EXPECT_TRUE((*client_)->isTableEnabled("t"));
  (*client_)->disableTable("t");
  EXPECT_FALSE((*client_)->isTableEnabled("default:t"));
  std::map<std::string, bool> enabled;
  (*client_)->getTableNamesWithIsTableEnabled(enabled);
  EXPECT_EQ(enabled, (std::map<std::string, bool>{{"t", false}}));
  (*client_)->enableTable("t");
  EXPECT_TRUE((*client_)->isTableEnabled("t"));

  (*client_)->compact("t");
  (*client_)->majorCompact("t");
  EXPECT_THAT(IOErrorOf([&] { (*client_)->compact("nope"); }),
              StartsWith("NotFound: "));
  std::string cluster_id;
  (*client_)->getClusterId(cluster_id);
  EXPECT_FALSE(cluster_id.empty());

  // HBase's rule: only a disabled table is deleted.
  EXPECT_FALSE(IOErrorOf([&] { (*client_)->deleteTable("t"); }).empty());
  (*client_)->disableTable("t");
  (*client_)->deleteTable("t");
  (*client_)->getTableNames(names);
  EXPECT_TRUE(names.empty());
}

// As HBase's Thrift1 server: a table that does not exist has no regions
// (an empty list, not an error).
TEST_F(Hbase1ServiceTest, GetTableRegionsOfAMissingTableIsEmpty) {
  std::vector<h1::TRegionInfo> regions = {h1::TRegionInfo()};
  (*client_)->getTableRegions(regions, "nope");
  EXPECT_TRUE(regions.empty());
}

TEST_F(Hbase1ServiceTest, CreateTableRefusesWhatIsNotKeptNamingIt) {
  h1::ColumnDescriptor three = Family("d:");
  three.__set_maxVersions(3);  // the IDL's default, HBase's old one
  EXPECT_THAT(IllegalArgumentOf([&] { (*client_)->createTable("t", {three}); }),
              HasSubstr("columnFamilies[0].maxVersions 3: more than one "
                        "version per cell"));
  h1::ColumnDescriptor ttl = Family("d:");
  ttl.__set_timeToLive(3600);
  EXPECT_THAT(IllegalArgumentOf([&] { (*client_)->createTable("t", {ttl}); }),
              HasSubstr("timeToLive 3600: a cell time-to-live is not"));
  h1::ColumnDescriptor zip = Family("d:");
  zip.__set_compression("ZIP");
  EXPECT_THAT(IllegalArgumentOf([&] { (*client_)->createTable("t", {zip}); }),
              HasSubstr("columnFamilies[0].compression \"ZIP\""));
  EXPECT_THAT(IllegalArgumentOf([&] { (*client_)->createTable("t", {}); }),
              HasSubstr("columnFamilies is empty"));
  EXPECT_THAT(
      IllegalArgumentOf([&] { (*client_)->createTable("t", {Family(":")}); }),
      HasSubstr("names no family"));
  // Settings that change no answer are kept, and reported back.
  h1::ColumnDescriptor gz = Family("d:");
  gz.__set_compression("gz");
  gz.__set_inMemory(true);
  (*client_)->createTable("t", {gz});
  std::map<std::string, h1::ColumnDescriptor> families;
  (*client_)->getColumnDescriptors(families, "t");
  EXPECT_EQ(families["d:"].compression, "GZ");
  EXPECT_TRUE(families["d:"].inMemory);
}

// Regions and their servers, from the catalog (a fake router: the test
// cluster's servers have no host:port address).
TEST(Hbase1RegionsTest, RegionsAndRegionInfo) {
  auto router = std::make_shared<FakeRouter>();
  router->table_info.descriptor = {7, "geo", {{1, "d:cc"}}};
  router->table_info.regions = {
      {RegionDescriptor{11, {}, "", "m"}, router::ServerRef{1, "10.0.0.1:91"}},
      {RegionDescriptor{12, {}, "m", ""}, router::ServerRef{2, "[::1]:92"}}};
  RouterServiceHandler thrift2(router);
  Hbase1ServiceHandler handler(router, &thrift2);
  std::vector<h1::TRegionInfo> regions;
  handler.getTableRegions(regions, "geo");
  ASSERT_EQ(regions.size(), 2u);
  EXPECT_EQ(regions[0].startKey, "");
  EXPECT_EQ(regions[0].endKey, "m");
  EXPECT_EQ(regions[0].id, 11);
  EXPECT_EQ(regions[0].name, "geo,,11");
  EXPECT_EQ(regions[0].version, 1);
  EXPECT_EQ(regions[0].serverName, "10.0.0.1");
  EXPECT_EQ(regions[0].port, 91);
  EXPECT_EQ(regions[1].startKey, "m");
  EXPECT_EQ(regions[1].serverName, "::1");
  // A catalog key: the table, the row, and a suffix after the last ','.
  h1::TRegionInfo info;
  handler.getRegionInfo(info, "geo,a,b,99999999999999");
  EXPECT_EQ(router->located_row, "a,b");
  EXPECT_EQ(info.id, 11);  // the fake locates every row in the first
  EXPECT_THAT(IOErrorOf([&] { handler.getRegionInfo(info, "geo"); }),
              HasSubstr("no catalog key"));
}

// As HBase's Thrift1 server: compact and majorCompact take a region's
// name (as getTableRegions answers it) as well as a table's.
TEST(Hbase1RegionsTest, CompactTakesATableOrARegionName) {
  auto router = std::make_shared<FakeRouter>();
  router->table_info.descriptor = {7, "geo", {{1, "d:cc"}}};
  router->table_info.regions = {
      {RegionDescriptor{11, {}, "", "m"}, router::ServerRef{1, "10.0.0.1:91"}},
      {RegionDescriptor{12, {}, "m", ""}, router::ServerRef{2, "[::1]:92"}}};
  RouterServiceHandler thrift2(router);
  Hbase1ServiceHandler handler(router, &thrift2);
  handler.compact("geo");
  handler.compact("geo,,11");
  handler.majorCompact("geo,m,12");
  EXPECT_EQ(router->table, "geo");
  EXPECT_THAT(IOErrorOf([&] { handler.compact("geo,m,11"); }),
              HasSubstr("NotFound: region 'geo,m,11' does not exist"));
  EXPECT_THAT(IOErrorOf([&] { handler.majorCompact("geo,x,13"); }),
              HasSubstr("NotFound: region 'geo,x,13'"));
}

TEST_F(Hbase1ServiceTest, GetsOfCellsAndRows) {
  CreateT();
  (*client_)->mutateRow("t", "r1", {Put("d:a", "1"), Put("d:b", "2")}, {});
  (*client_)->mutateRow("t", "r2", {Put("e:c", "3")}, {});
  std::vector<h1::TCell> cells;
  (*client_)->get(cells, "t", "r1", "d:a", {});
  ASSERT_THAT(Values(cells), ElementsAre("1"));
  EXPECT_GT(cells[0].timestamp, 0);
  (*client_)->get(cells, "t", "r1", "d", {});  // a family
  EXPECT_THAT(Values(cells), ElementsAre("1", "2"));
  (*client_)->get(cells, "t", "nobody", "d:a", {});
  EXPECT_TRUE(cells.empty());
  // One version is kept: any numVersions >= 1 reads it.
  (*client_)->getVer(cells, "t", "r1", "d:a", 3, {});
  EXPECT_THAT(Values(cells), ElementsAre("1"));
  EXPECT_THAT(
      IOErrorOf([&] { (*client_)->getVer(cells, "t", "r1", "d:a", 0, {}); }),
      HasSubstr("numVersions 0 is not positive"));

  std::vector<h1::TRowResult> rows;
  (*client_)->getRow(rows, "t", "r1", {});
  EXPECT_EQ(Show(rows), "r1: d:a=1 d:b=2");
  (*client_)->getRowWithColumns(rows, "t", "r1", {"d:b"}, {});
  EXPECT_EQ(Show(rows), "r1: d:b=2");
  (*client_)->getRow(rows, "t", "nobody", {});
  EXPECT_TRUE(rows.empty());
  (*client_)->getRows(rows, "t", {"r2", "nobody", "r1"}, {});
  EXPECT_EQ(Show(rows), "r2: e:c=3 | r1: d:a=1 d:b=2");
  (*client_)->getRowsWithColumns(rows, "t", {"r1", "r2"}, {"e"}, {});
  EXPECT_EQ(Show(rows), "r2: e:c=3");
  EXPECT_THAT(IOErrorOf([&] { (*client_)->getRow(rows, "nope", "r1", {}); }),
              StartsWith("NotFound: "));
}

TEST_F(Hbase1ServiceTest, TimestampsBoundReadsAndDeletes) {
  CreateT();
  (*client_)->mutateRowTs("t", "r", {Put("d:a", "old")}, 100, {});
  (*client_)->mutateRowsTs("t", {Batch("s", {Put("d:a", "s")})}, 200, {});
  std::vector<h1::TCell> cells;
  (*client_)->getVerTs(cells, "t", "r", "d:a", 101, 1, {});
  ASSERT_THAT(Values(cells), ElementsAre("old"));
  EXPECT_EQ(cells[0].timestamp, 100);
  // Strictly older than the timestamp, as HBase's setTimeRange(0, ts).
  (*client_)->getVerTs(cells, "t", "r", "d:a", 100, 1, {});
  EXPECT_TRUE(cells.empty());
  std::vector<h1::TRowResult> rows;
  (*client_)->getRowTs(rows, "t", "r", 101, {});
  EXPECT_EQ(Show(rows), "r: d:a=old");
  (*client_)->getRowWithColumnsTs(rows, "t", "r", {"d:a"}, 100, {});
  EXPECT_TRUE(rows.empty());
  (*client_)->getRowsTs(rows, "t", {"r", "s"}, 150, {});
  EXPECT_EQ(Show(rows), "r: d:a=old");
  (*client_)->getRowsWithColumnsTs(rows, "t", {"r", "s"}, {"d"}, 201, {});
  EXPECT_EQ(Show(rows), "r: d:a=old | s: d:a=s");

  // deleteAllTs deletes cells at or below its timestamp.
  (*client_)->deleteAllTs("t", "s", "d:a", 199, {});
  (*client_)->getRow(rows, "t", "s", {});
  EXPECT_EQ(Show(rows), "s: d:a=s");
  (*client_)->deleteAllTs("t", "s", "d:a", 200, {});
  (*client_)->getRow(rows, "t", "s", {});
  EXPECT_TRUE(rows.empty());
  (*client_)->deleteAllRowTs("t", "r", 99, {});
  (*client_)->getRow(rows, "t", "r", {});
  EXPECT_EQ(Show(rows), "r: d:a=old");
  (*client_)->deleteAllRowTs("t", "r", 100, {});
  (*client_)->getRow(rows, "t", "r", {});
  EXPECT_TRUE(rows.empty());
}

TEST_F(Hbase1ServiceTest, MutationsAndDeletes) {
  CreateT();
  (*client_)->mutateRows(
      "t",
      {Batch("a", {Put("d:x", "1"), Put("d:y", "2"), Put("e:z", "3")}),
       Batch("b", {Put("d:x", "4")}), Batch("c", {})},
      {});
  std::vector<h1::TRowResult> rows;
  // Deletes before puts: d:x is written again, e is gone.
  (*client_)->mutateRow("t", "a", {Put("d:x", "5"), Delete("d:x"), Delete("e")},
                        {});
  (*client_)->getRow(rows, "t", "a", {});
  EXPECT_EQ(Show(rows), "a: d:x=5 d:y=2");
  EXPECT_THAT(IllegalArgumentOf([&] {
                (*client_)->mutateRow("t", "a", {Put("d", "v")}, {});
              }),
              HasSubstr("mutations[0].column \"d\": a put names a column"));
  EXPECT_THAT(IllegalArgumentOf([&] {
                (*client_)->mutateRows("t", {Batch("b", {Put(":q", "v")})}, {});
              }),
              HasSubstr("rowBatches[0].mutations[0].column"));
  // Every batch is checked before any is written, as HBase builds all its
  // Puts and Deletes before it sends one: a bad second row writes nothing.
  EXPECT_THAT(
      IllegalArgumentOf([&] {
        (*client_)->mutateRows(
            "t", {Batch("n", {Put("d:x", "1")}), Batch("o", {Put("d", "v")})},
            {});
      }),
      HasSubstr("rowBatches[1].mutations[0].column"));
  (*client_)->getRow(rows, "t", "n", {});
  EXPECT_TRUE(rows.empty()) << Show(rows);
  EXPECT_THAT(IllegalArgumentOf([&] {
                (*client_)->mutateRows(
                    "t", {Batch("n", {Put("d:x", "1")}), Batch("", {})}, {});
              }),
              HasSubstr("rowBatches[1].row: the row key must be 1 to"));
  (*client_)->getRow(rows, "t", "n", {});
  EXPECT_TRUE(rows.empty()) << Show(rows);

  (*client_)->deleteAll("t", "a", "d:y", {});
  (*client_)->getRow(rows, "t", "a", {});
  EXPECT_EQ(Show(rows), "a: d:x=5");
  (*client_)->deleteAll("t", "a", "d", {});  // the family
  (*client_)->getRow(rows, "t", "a", {});
  EXPECT_TRUE(rows.empty());
  (*client_)->deleteAllRow("t", "b", {});
  (*client_)->getRows(rows, "t", {"a", "b"}, {});
  EXPECT_TRUE(rows.empty());
}

TEST_F(Hbase1ServiceTest, CountersAppendsAndCheckAndPut) {
  CreateT();
  EXPECT_EQ((*client_)->atomicIncrement("t", "r", "d:n", 5), 5);
  EXPECT_EQ((*client_)->atomicIncrement("t", "r", "d:n", 3), 8);
  h1::TIncrement inc;
  inc.__set_table("t");
  inc.__set_row("r");
  inc.__set_column("d:n");
  inc.__set_ammount(2);
  (*client_)->increment(inc);
  h1::TIncrement other = inc;
  other.__set_row("s");
  (*client_)->incrementRows({inc, other});
  EXPECT_EQ((*client_)->atomicIncrement("t", "r", "d:n", 0), 12);
  EXPECT_EQ((*client_)->atomicIncrement("t", "s", "d:n", 0), 2);
  (*client_)->mutateRow("t", "r", {Put("d:text", "abc")}, {});
  EXPECT_THAT(IllegalArgumentOf(
                  [&] { (*client_)->atomicIncrement("t", "r", "d:text", 1); }),
              HasSubstr("not a long"));

  h1::TAppend append;
  append.__set_table("t");
  append.__set_row("r");
  append.__set_columns({"d:text"});
  append.__set_values({"def"});
  std::vector<h1::TCell> cells;
  (*client_)->append(cells, append);
  EXPECT_THAT(Values(cells), ElementsAre("abcdef"));
  append.__set_values({});
  EXPECT_THAT(IOErrorOf([&] { (*client_)->append(cells, append); }),
              HasSubstr("1 columns but 0 values"));

  // An empty value checks that the cell is absent.
  EXPECT_TRUE(
      (*client_)->checkAndPut("t", "r", "d:flag", "", Put("d:flag", "on"), {}));
  EXPECT_FALSE((*client_)->checkAndPut("t", "r", "d:flag", "",
                                       Put("d:flag", "again"), {}));
  EXPECT_TRUE((*client_)->checkAndPut("t", "r", "d:flag", "on",
                                      Put("d:flag", "off"), {}));
  (*client_)->get(cells, "t", "r", "d:flag", {});
  EXPECT_THAT(Values(cells), ElementsAre("off"));
  EXPECT_THAT(IllegalArgumentOf([&] {
                (*client_)->checkAndPut("t", "r", "d:flag", "off",
                                        Delete("d:flag"), {});
              }),
              HasSubstr("mput.isDelete"));
}

TEST_F(Hbase1ServiceTest, ScannersOfEveryKind) {
  CreateGeo();
  EXPECT_EQ(Drain((*client_)->scannerOpen("geo", "c", {"d:cc"}, {})),
            "oslo: d:cc=SE | umea: d:cc=SE");
  EXPECT_EQ(
      Drain((*client_)->scannerOpenWithStop("geo", "", "oslo", {"d:cc"}, {})),
      "bergen: d:cc=NO | bodo: d:cc=NO");
  EXPECT_EQ(Drain((*client_)->scannerOpenWithPrefix("geo", "bo", {"d"}, {})),
            "bodo: d:cc=NO d:name=Bodø");
  const int64_t now = INT64_MAX;
  EXPECT_EQ(Drain((*client_)->scannerOpenTs("geo", "u", {"d:cc"}, now, {})),
            "umea: d:cc=SE");
  EXPECT_EQ(Drain((*client_)->scannerOpenWithStopTs("geo", "a", "c", {"d:name"},
                                                    now, {})),
            "bergen: d:name=Bergen | bodo: d:name=Bodø");
  // Nothing was written before timestamp 1.
  EXPECT_EQ(Drain((*client_)->scannerOpenTs("geo", "", {}, 1, {})), "");

  // scannerGetList, then the end (an empty list).
  const int32_t id = (*client_)->scannerOpen("geo", "", {"d:cc"}, {});
  std::vector<h1::TRowResult> rows;
  (*client_)->scannerGetList(rows, id, 3);
  EXPECT_EQ(Show(rows), "bergen: d:cc=NO | bodo: d:cc=NO | oslo: d:cc=SE");
  (*client_)->scannerGetList(rows, id, 3);
  EXPECT_EQ(Show(rows), "umea: d:cc=SE");
  (*client_)->scannerGetList(rows, id, 3);
  EXPECT_TRUE(rows.empty());
  (*client_)->scannerClose(id);
  EXPECT_THAT(
      IllegalArgumentOf([&] { (*client_)->scannerGetList(rows, id, 1); }),
      StartsWith("NotFound: "));
  EXPECT_THROW((*client_)->scannerClose(id), h1::IllegalArgument);
}

TEST_F(Hbase1ServiceTest, ScanWithAFilterOnAnIndexedColumnUsesTheIndex) {
  CreateGeo();
  StatusOr<router::TableInfo> geo = router_->DescribeTable("geo");
  ASSERT_TRUE(geo.ok());
  ASSERT_EQ(geo->regions.size(), 2u);
  h1::TScan scan;
  scan.__set_filterString(
      "SingleColumnValueFilter('d', 'cc', =, 'binary:SE', true, true)");
  // The filtered column must be read (HBase's rule: a row without it is
  // filtered out).
  scan.__set_columns({"d"});
  scan.__set_caching(10);
  // The SE rows are all on the region from "m": when the two regions are on
  // two servers, the index sends the scan to that one server alone. The
  // stores count every call, the router's background catch-up too, so a
  // scan may see both counted: the fewest of a few scans is what the scan
  // asked (a scan that asked both every time would fail).
  int fewest = 2;
  for (int attempt = 0; attempt < 5 && fewest > 1; ++attempt) {
    std::vector<int64_t> before;
    for (int i = 0; i < 2; ++i) before.push_back(cluster_.node(i).calls.load());
    EXPECT_EQ(Drain((*client_)->scannerOpenWithScan("geo", scan, {})),
              "oslo: d:cc=SE d:name=Oslo? | umea: d:cc=SE d:name=Umeå");
    int asked = 0;
    for (int i = 0; i < 2; ++i) {
      asked += cluster_.node(i).calls.load() > before[i] ? 1 : 0;
    }
    fewest = std::min(fewest, asked);
  }
  if (geo->regions[0].server.id != geo->regions[1].server.id) {
    EXPECT_EQ(fewest, 1);
  }

  // sortColumns, a stop row, reversed.
  h1::TScan sorted;
  sorted.__set_sortColumns(true);
  sorted.__set_startRow("bodo");
  sorted.__set_stopRow("oslo");
  const int32_t id = (*client_)->scannerOpenWithScan("geo", sorted, {});
  std::vector<h1::TRowResult> rows;
  (*client_)->scannerGetList(rows, id, 10);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_FALSE(rows[0].__isset.columns);
  EXPECT_EQ(Show(rows), "bodo: d:cc=NO d:name=Bodø");
  (*client_)->scannerClose(id);
  h1::TScan reversed;
  reversed.__set_reversed(true);
  reversed.__set_columns({"d:cc"});
  reversed.__set_filterString("PrefixFilter('b')");
  EXPECT_EQ(Drain((*client_)->scannerOpenWithScan("geo", reversed, {})),
            "bodo: d:cc=NO | bergen: d:cc=NO");
  h1::TScan bad;
  bad.__set_filterString("PrefixFilter(");
  EXPECT_THAT(
      IOErrorOf([&] { (*client_)->scannerOpenWithScan("geo", bad, {}); }),
      HasSubstr("at position"));
}

h1::TAccessControlEntity Entity(const std::string& user,
                                const std::string& table,
                                const std::string& actions) {
  h1::TAccessControlEntity entity;
  entity.__set_username(user);
  entity.__set_scope(h1::TPermissionScope::TABLE);
  entity.__set_tableName(table);
  entity.__set_actions(actions);
  return entity;
}

h1::TAccessControlEntity NamespaceEntity(const std::string& user,
                                         const std::string& ns,
                                         const std::string& actions) {
  h1::TAccessControlEntity entity;
  entity.__set_username(user);
  entity.__set_scope(h1::TPermissionScope::NAMESPACE);
  entity.__set_nsName(ns);
  entity.__set_actions(actions);
  return entity;
}

// Without TLS grants are kept (they hold once TLS is on), as on the
// Thrift2 port; bad ones are refused naming what is wrong.
TEST_F(Hbase1ServiceTest, GrantAndRevokeKeepTheRouterGrants) {
  EXPECT_TRUE((*client_)->grant(Entity("u", "geo:a", "RW")));
  EXPECT_TRUE((*client_)->grant(NamespaceEntity("u", "geo", "C")));
  auto grants = router_->Grants();
  ASSERT_EQ(grants->size(), 2u);
  EXPECT_TRUE((*client_)->revoke(Entity("u", "geo:a", "W")));
  grants = router_->Grants();
  ASSERT_EQ(grants->size(), 2u);
  for (const router::Grant& g : *grants) {
    EXPECT_EQ(g.actions, g.table == "geo:a" ? "R" : "C") << g.table;
  }
  EXPECT_THAT(IOErrorOf([&] { (*client_)->grant(Entity("u", "t", "Q")); }),
              HasSubstr("'Q' is none of R, W, X, C, A"));
  h1::TAccessControlEntity no_table = Entity("u", "t", "R");
  no_table.__isset.tableName = false;
  EXPECT_THAT(IOErrorOf([&] { (*client_)->grant(no_table); }),
              HasSubstr("a TABLE grant needs tableName"));
}

TEST_F(Hbase1ServiceTest, FramedCompactClientsAreServedOnTheSamePort) {
  CreateT();
  Client compact(server_->port(), Wire::kFramedCompact);
  compact->mutateRows("t", {Batch("r", {Put("d:a", "1")})}, {});
  std::vector<h1::TRowResult> rows;
  (*client_)->getRows(rows, "t", {"r"}, {});
  EXPECT_EQ(Show(rows), "r: d:a=1");
  compact->getRow(rows, "t", "r", {});
  EXPECT_EQ(Show(rows), "r: d:a=1");
  // Scanners belong to their connection.
  const int32_t id = compact->scannerOpen("t", "", {}, {});
  EXPECT_THROW((*client_)->scannerGet(rows, id), h1::IllegalArgument);
  compact->scannerGet(rows, id);
  EXPECT_EQ(Show(rows), "r: d:a=1");
}

// The Thrift1 port over TLS, over a router with tables `tables`.
class Hbase1TlsTest : public ::testing::Test {
 protected:
  void Start(const std::vector<std::string>& tables) {
    router_ = t::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
    for (const std::string& name : tables) {
      router::TableSpec spec;
      spec.name = name;
      ASSERT_TRUE(router_->CreateTable(spec).ok());
    }
    ASSERT_TRUE(t::WaitAllCurrent(*router_));
    ServerOptions options;
    options.port = 0;
    options.tls = certs_.Node();
    auto server = Hbase1Server::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Stop();
  }
  // A buffered+binary client with `user`'s certificate.
  std::unique_ptr<Client> Connect(const std::string& user) {
    auto factory = thrift_internal::NewClientSocketFactory(certs_.Client(user));
    EXPECT_TRUE(factory.ok()) << factory.status().ToString();
    return std::make_unique<Client>(
        (*factory)->createSocket("127.0.0.1", server_->port()),
        Wire::kBufferedBinary);
  }

  t::Certs certs_;
  t::StoreCluster cluster_{1};
  std::shared_ptr<router::Router> router_;
  std::unique_ptr<Hbase1Server> server_;
};

// With TLS each method needs the role of its Thrift2 counterpart, from the
// client's certificate: a reader reads and is refused a write before it
// runs; a writer writes and is refused DDL.
TEST_F(Hbase1TlsTest, EachMethodNeedsItsRole) {
  Start({"t"});
  std::unique_ptr<Client> reader = Connect("reader");
  std::vector<std::string> names;
  (*reader)->getTableNames(names);
  EXPECT_THAT(names, ElementsAre("t"));
  EXPECT_THAT(
      IOErrorOf([&] { (*reader)->mutateRow("t", "r", {Put("d:a", "1")}, {}); }),
      HasSubstr("PermissionDenied: mutateRow needs role write"));
  std::unique_ptr<Client> writer = Connect("writer");
  (*writer)->mutateRow("t", "r", {Put("d:a", "1")}, {});
  std::vector<h1::TCell> cells;
  (*writer)->get(cells, "t", "r", "d:a", {});
  EXPECT_THAT(Values(cells), ElementsAre("1"));
  EXPECT_THAT(IOErrorOf([&] { (*writer)->disableTable("t"); }),
              HasSubstr("PermissionDenied: disableTable needs role admin"));
  std::unique_ptr<Client> root = Connect("root");
  (*root)->disableTable("t");
  EXPECT_FALSE((*root)->isTableEnabled("t"));
}

// With TLS the router's grants apply on the Thrift1 port as on Thrift2's
// (thrift/server/grant_check.h): a grant raises its user's role on its
// table or namespace from the next call, a revoke takes it back, and only
// an admin (or A on the scope) may grant.
TEST_F(Hbase1TlsTest, GrantsRaiseAUsersRoleOnTheirScopeAlone) {
  Start({"t", "t2"});
  std::unique_ptr<Client> root = Connect("root");
  std::unique_ptr<Client> reader = Connect("reader");
  const auto put = [&](const std::string& table) {
    (*reader)->mutateRow(table, "r", {Put("d:a", "1")}, {});
  };
  EXPECT_THAT(IOErrorOf([&] { (*reader)->grant(Entity("reader", "t", "W")); }),
              HasSubstr("PermissionDenied: grant needs role admin"));
  EXPECT_THAT(IOErrorOf([&] { put("t"); }),
              HasSubstr("PermissionDenied: mutateRow needs role write"));

  EXPECT_TRUE((*root)->grant(Entity("reader", "t", "W")));
  put("t");
  (*reader)->atomicIncrement("t", "r", "d:n", 2);
  h1::TIncrement increment;
  increment.__set_table("t");
  increment.__set_row("r");
  increment.__set_column("d:n");
  increment.__set_ammount(1);
  (*reader)->increment(increment);
  std::vector<h1::TCell> cells;
  (*reader)->get(cells, "t", "r", "d:a", {});
  EXPECT_THAT(Values(cells), ElementsAre("1"));
  EXPECT_THAT(IOErrorOf([&] { put("t2"); }),
              HasSubstr("PermissionDenied: mutateRow needs role write"));
  increment.__set_table("t2");
  EXPECT_THAT(IOErrorOf([&] { (*reader)->increment(increment); }),
              HasSubstr("PermissionDenied: increment needs role write"));
  // W is no admin: DDL on t is still refused.
  EXPECT_THAT(IOErrorOf([&] { (*reader)->disableTable("t"); }),
              HasSubstr("PermissionDenied: disableTable needs role admin"));

  // C on the default namespace: its tables' DDL and new tables there.
  EXPECT_TRUE((*root)->grant(NamespaceEntity("reader", "default", "C")));
  (*reader)->createTable("t3", {Family("d")});
  (*reader)->disableTable("t2");
  EXPECT_THAT(
      IOErrorOf([&] { (*reader)->createTable("geo:t", {Family("d")}); }),
      HasSubstr("PermissionDenied: createTable needs role admin"));

  EXPECT_TRUE((*root)->revoke(NamespaceEntity("reader", "default", "")));
  EXPECT_TRUE((*root)->revoke(Entity("reader", "t", "")));
  EXPECT_THAT(IOErrorOf([&] { put("t"); }),
              HasSubstr("PermissionDenied: mutateRow needs role write"));
}

}  // namespace
}  // namespace bloomroute
