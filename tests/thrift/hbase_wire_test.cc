// HBase Thrift2 wire compatibility of the router: calls encoded byte by byte
// as a client generated from HBase's own hbase.thrift (THBaseService) sends
// them -- strict binary protocol, framed transport -- against a real
// RouterServer on 127.0.0.1 over in-process region stores, and the replies
// decoded by the field ids HBase publishes. Nothing here uses bloomroute's
// generated code, so it proves the wire, not our IDL's agreement with
// itself.
//
// HBase's ids used (hbase.thrift): TColumnValue {1 family, 2 qualifier,
// 3 value, 4 timestamp}; TPut {1 row, 2 columnValues}; TDelete {1 row,
// 8 cellVisibility}; TCellVisibility {1 expression}; TGet {1 row,
// 3 timestamp, 6 filterString};
// TScan {1 startRow, 2 stopRow, 7 filterString, 8 batchSize, 11 reversed,
// 15 limit};
// TResult {1 row, 2 columnValues, 4 partial};
// TTableName {1 ns, 2 qualifier}; TTableDescriptor {1 tableName, 2 columns,
// 3 attributes}; TColumnFamilyDescriptor {1 name, 2 attributes,
// 3 configuration, 4..20 as FamilySettingsComeBackWithHBasesDefaults lists
// them}; TIOError {1 message};
// TIllegalArgument {1 message}; TServerName {1 hostName, 2 port};
// TLogQueryFilter {3 tableName, 5 limit, 6 logType}; TOnlineLogRecord
// {1 startTime, 2 processingTime, 5 clientAddress, 6 serverClass,
// 7 methodName}; every reply's success is field 0 and its exceptions the
// ids each method declares (io = 1, ia = 2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/thrift/hbase_wire_util.h"

namespace bloomroute {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::StartsWith;
namespace t = ::bloomroute::testing;
using namespace ::bloomroute::hbase_wire;  // NOLINT: the wire helpers

TEST_F(HBaseWireTest, AnHBaseClientWritesReadsAndScans) {
  CreateGeo();
  // put and putMultiple ("default:geo" is the same table).
  Success("put", BinaryField(1, "geo") + StructField(2, PutBody("oslo", "NO")));
  Success("putMultiple",
          BinaryField(1, "default:geo") +
              StructList(2, {PutBody("umea", "SE"), PutBody("bergen", "NO")}));

  // get: TResult {1: row, 2: [TColumnValue {1: family, 2: qualifier,
  // 3: value, 4: timestamp}]}; the region server stamped the cell.
  const Value result = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "oslo")));
  ASSERT_EQ(result.type, t::kTStruct);
  EXPECT_EQ(result.Field(1).bytes, "oslo");
  ASSERT_EQ(result.Field(2).elements.size(), 1u);
  const Value& cell = result.Field(2).elements[0];
  EXPECT_EQ(cell.Field(1).bytes, "d");
  EXPECT_EQ(cell.Field(2).bytes, "cc");
  EXPECT_EQ(cell.Field(3).bytes, "NO");
  ASSERT_EQ(cell.Field(4).type, t::kTI64);
  EXPECT_GT(cell.Field(4).number, 0);
  // A missing row: no row field, an empty list of cells.
  const Value missing = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "nobody")));
  EXPECT_FALSE(missing.Has(1));
  EXPECT_TRUE(missing.Field(2).elements.empty());

  // openScanner returns an i32; getScannerRows sends only fields 1 and 2.
  const Value scanner =
      Success("openScanner",
              BinaryField(1, "geo") + StructField(2, BinaryField(1, "a")));
  ASSERT_EQ(scanner.type, kTI32);
  EXPECT_GT(scanner.number, 0);
  const auto id = static_cast<int32_t>(scanner.number);
  const Value rows =
      Success("getScannerRows", I32Field(1, id) + I32Field(2, 10));
  ASSERT_EQ(rows.type, t::kTList);
  std::vector<std::string> keys;
  for (const Value& r : rows.elements) keys.push_back(r.Field(1).bytes);
  EXPECT_EQ(keys, (std::vector<std::string>{"bergen", "oslo", "umea"}));
  EXPECT_TRUE(Success("getScannerRows", I32Field(1, id) + I32Field(2, 10))
                  .elements.empty());
  Success("closeScanner", I32Field(1, id));
  // A closed scanner is HBase's TIllegalArgument (field 2 of these two).
  EXPECT_THAT(Failure("getScannerRows", I32Field(1, id) + I32Field(2, 1), 2),
              StartsWith("NotFound: "));

  // getThriftServerType: i32 2 (TWO).
  const Value type = Success("getThriftServerType", "");
  EXPECT_EQ(type.type, kTI32);
  EXPECT_EQ(type.number, 2);
}

// TScan.reversed (11): the rows in descending order from startRow
// (inclusive, the largest) down to stopRow (exclusive), across both
// regions, paged by getScannerRows; getScannerResults with a filter and a
// limit the same way.
TEST_F(HBaseWireTest, AReversedScanReadsDownwardAcrossRegions) {
  CreateGeo();
  std::vector<std::string> puts;
  for (const char* k : {"bergen", "lund", "malmo", "oslo", "umea"}) {
    puts.push_back(PutBody(k, "NO"));
  }
  Success("putMultiple", BinaryField(1, "geo") + StructList(2, puts));
  auto keys = [](const Value& rows) {
    std::vector<std::string> out;
    for (const Value& r : rows.elements) out.push_back(r.Field(1).bytes);
    return out;
  };
  const std::string scan =
      BinaryField(1, "oslo") + BinaryField(2, "bergen") + BoolField(11, true);
  const auto id = static_cast<int32_t>(
      Success("openScanner", BinaryField(1, "geo") + StructField(2, scan))
          .number);
  auto next = [&](int32_t n) {
    return keys(Success("getScannerRows", I32Field(1, id) + I32Field(2, n)));
  };
  EXPECT_EQ(next(2), (std::vector<std::string>{"oslo", "malmo"}));
  EXPECT_EQ(next(2), std::vector<std::string>{"lund"});
  EXPECT_TRUE(next(2).empty());
  Success("closeScanner", I32Field(1, id));
  const std::string whole = BoolField(11, true) + I32Field(15, 3);
  EXPECT_EQ(keys(Success("getScannerResults", BinaryField(1, "geo") +
                                                  StructField(2, whole) +
                                                  I32Field(3, 10))),
            (std::vector<std::string>{"umea", "oslo", "malmo"}));
  const std::string filtered =
      BinaryField(7, "PrefixFilter('b') OR PrefixFilter('m')") +
      BoolField(11, true);
  EXPECT_EQ(keys(Success("getScannerResults", BinaryField(1, "geo") +
                                                  StructField(2, filtered) +
                                                  I32Field(3, 10))),
            (std::vector<std::string>{"malmo", "bergen"}));
}

// A put's TColumnValue.timestamp is the cell's, and a get's reply carries
// it; TScan.filterString selects rows (and its errors name the position),
// and TScan.limit composes with a PageFilter (the smaller wins).
TEST_F(HBaseWireTest, TimestampsAndFilterStringsCrossTheWire) {
  CreateGeo();
  Success(
      "put",
      BinaryField(1, "geo") +
          StructField(
              2, BinaryField(1, "oslo") +
                     StructList(2, {StampedCell("d", "cc", "NO", 1234567)})));
  Success("putMultiple",
          BinaryField(1, "geo") +
              StructList(2, {PutBody("bergen", "NO"), PutBody("bodo", "NO"),
                             PutBody("umea", "SE")}));
  const Value result = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "oslo")));
  ASSERT_EQ(result.Field(2).elements.size(), 1u);
  const Value& cell = result.Field(2).elements[0];
  EXPECT_EQ(cell.Field(3).bytes, "NO");
  ASSERT_EQ(cell.Field(4).type, t::kTI64);
  EXPECT_EQ(cell.Field(4).number, 1234567);
  // TGet {3: timestamp} selects that one timestamp; {6: filterString}
  // drops the row it does not pass.
  auto get_keys = [&](const std::string& extra) {
    return Success("get", BinaryField(1, "geo") +
                              StructField(2, BinaryField(1, "oslo") + extra))
        .Field(1)
        .bytes;
  };
  EXPECT_EQ(get_keys(I64Field(3, 1234567)), "oslo");
  EXPECT_EQ(get_keys(I64Field(3, 1234568)), "");
  EXPECT_EQ(get_keys(BinaryField(6, "PrefixFilter('os')")), "oslo");
  EXPECT_EQ(get_keys(BinaryField(6, "PrefixFilter('b')")), "");

  // getScannerResults(1: table, 2: TScan, 3: numRows).
  auto scan = [&](const std::string& tscan, int32_t rows) {
    const Value found = Success(
        "getScannerResults",
        BinaryField(1, "geo") + StructField(2, tscan) + I32Field(3, rows));
    std::vector<std::string> keys;
    for (const Value& r : found.elements) keys.push_back(r.Field(1).bytes);
    return keys;
  };
  EXPECT_EQ(scan(BinaryField(7, "PrefixFilter('b')"), 10),
            (std::vector<std::string>{"bergen", "bodo"}));
  EXPECT_EQ(scan(BinaryField(7,
                             "SingleColumnValueFilter('d', 'cc', =, "
                             "'binary:SE', true, true)"),
                 10),
            (std::vector<std::string>{"umea"}));
  EXPECT_EQ(scan(BinaryField(7, "PageFilter(3)") + I32Field(15, 2), 10),
            (std::vector<std::string>{"bergen", "bodo"}));
  EXPECT_EQ(scan(BinaryField(7, "PageFilter(1)") + I32Field(15, 3), 10),
            (std::vector<std::string>{"bergen"}));
  EXPECT_THAT(Failure("openScanner",
                      BinaryField(1, "geo") +
                          StructField(2, BinaryField(7, "PrefixFilter("))),
              AllOf(StartsWith("InvalidArgument: "), HasSubstr("at position")));
}

TEST_F(HBaseWireTest, ErrorsAreTIOErrorWithTheCodeName) {
  CreateGeo();
  EXPECT_THAT(Failure("get", BinaryField(1, "nope") +
                                 StructField(2, BinaryField(1, "r"))),
              StartsWith("NotFound: "));
  const std::string other_ns = Failure(
      "put", BinaryField(1, "other:geo") + StructField(2, PutBody("r", "x")));
  // Namespaces are real: geo of namespace other is another table.
  EXPECT_THAT(other_ns, StartsWith("NotFound: "));
  EXPECT_THAT(other_ns, HasSubstr("table 'other:geo' does not exist"));
  // A feature bloomroute does not have is refused naming it.
  EXPECT_THAT(
      Failure("get", BinaryField(1, "geo") +
                         StructField(2, BinaryField(1, "r") + I32Field(5, 3))),
      HasSubstr("tget.maxVersions 3: more than one version per cell "
                "is not supported"));
}

// HBase's client takes cells of up to hbase.client.keyvalue.maxsize, 10 MiB
// by default; a region server's default limit is the same, so a client
// with HBase's defaults writes here what it writes to HBase.
TEST_F(HBaseWireTest, ACellOfHBasesDefaultMaximumSizeIsStoredAndRead) {
  CreateGeo();
  const std::string big(10 << 20, 'v');
  Success("put", BinaryField(1, "geo") + StructField(2, PutBody("big", big)));
  const Value result = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "big")));
  ASSERT_EQ(result.Field(2).elements.size(), 1u);
  EXPECT_EQ(result.Field(2).elements[0].Field(3).bytes.size(), big.size());
  EXPECT_THAT(Failure("put", BinaryField(1, "geo") +
                                 StructField(2, PutBody("big", big + "v"))),
              HasSubstr("max_value_bytes"));
}

// TDelete {8: cellVisibility} (HBase 2.x's field) is read and refused as
// TPut's is: visibility labels do not exist here, and a delete that
// skipped the field would remove cells a label was meant to guard.
TEST_F(HBaseWireTest, ADeleteWithACellVisibilityIsRefused) {
  CreateGeo();
  Success("put", BinaryField(1, "geo") + StructField(2, PutBody("oslo", "NO")));
  const std::string visibility = StructField(8, BinaryField(1, "secret"));
  EXPECT_THAT(Failure("deleteSingle",
                      BinaryField(1, "geo") +
                          StructField(2, BinaryField(1, "oslo") + visibility)),
              AllOf(StartsWith("InvalidArgument: "),
                    HasSubstr("tdelete.cellVisibility: visibility labels is "
                              "not supported")));
  EXPECT_THAT(Failure("deleteMultiple",
                      BinaryField(1, "geo") +
                          StructList(2, {BinaryField(1, "oslo") + visibility})),
              HasSubstr("tdeletes[0].cellVisibility"));
  const Value oslo = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "oslo")));
  EXPECT_EQ(oslo.Field(1).bytes, "oslo");  // nothing was deleted
}

// numRows 0 answers no rows, as HBase's ResultScanner.next(0): the
// scanner stays where it was; an unknown scanner is still TIllegalArgument.
TEST_F(HBaseWireTest, ZeroRowsAnswerAnEmptyList) {
  CreateGeo();
  Success("putMultiple",
          BinaryField(1, "geo") +
              StructList(2, {PutBody("oslo", "NO"), PutBody("umea", "SE")}));
  const auto id = static_cast<int32_t>(
      Success("openScanner", BinaryField(1, "geo") + StructField(2, ""))
          .number);
  const Value none =
      Success("getScannerRows", I32Field(1, id) + I32Field(2, 0));
  EXPECT_EQ(none.type, t::kTList);
  EXPECT_TRUE(none.elements.empty());
  EXPECT_EQ(Success("getScannerRows", I32Field(1, id) + I32Field(2, 10))
                .elements.size(),
            2u);
  Success("closeScanner", I32Field(1, id));
  EXPECT_THAT(Failure("getScannerRows", I32Field(1, id) + I32Field(2, 0), 2),
              StartsWith("NotFound: "));
  const Value results =
      Success("getScannerResults",
              BinaryField(1, "geo") + StructField(2, "") + I32Field(3, 0));
  EXPECT_EQ(results.type, t::kTList);
  EXPECT_TRUE(results.elements.empty());
}

// A list of more than 100,000 entries (the container limit, which is also
// the rows-per-call limit) is answered with the call's declared exception
// naming the limit -- TIOError for HBase's calls, TIllegalArgument for
// bloomroute's -- before the connection closes (the rest of the frame is
// unread), never by a silent close.
TEST_F(HBaseWireTest, AListOverTheContainerLimitIsAnsweredNamingIt) {
  CreateGeo();
  constexpr size_t kOver = 100001;
  const std::vector<std::string> gets(kOver, BinaryField(1, "r"));
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"getMultiple", BinaryField(1, "geo") + StructList(2, gets)},
      {"putMultiple", BinaryField(1, "geo") + StructList(2, gets)},
      {"deleteMultiple", BinaryField(1, "geo") + StructList(2, gets)},
  };
  for (const auto& [method, args] : calls) {
    SCOPED_TRACE(method);
    connection_ = std::make_unique<t::RawConnection>(server_->port());
    ASSERT_TRUE(connection_->connected());
    EXPECT_THAT(Failure(method, args, 1),
                AllOf(StartsWith("InvalidArgument: "), HasSubstr("100001"),
                      HasSubstr("100000")));
  }
  // bloomroute's own calls declare TIllegalArgument (field 2).
  connection_ = std::make_unique<t::RawConnection>(server_->port());
  ASSERT_TRUE(connection_->connected());
  EXPECT_THAT(Failure("getByIndexMultiple",
                      BinaryField(1, "geo") +
                          StructList(2, std::vector<std::string>(kOver, "")),
                      2),
              AllOf(StartsWith("InvalidArgument: "), HasSubstr("100000")));
}

// TColumnFamilyDescriptor {4 blockSize, 5 bloomnFilterType, 6
// compressionType, 7 dfsReplication, 8 dataBlockEncoding, 9
// keepDeletedCells, 10 maxVersions, 11 minVersions, 12 scope, 13
// timeToLive, 14 blockCacheEnabled, 15 cacheBloomsOnWrite, 16
// cacheDataOnWrite, 17 cacheIndexesOnWrite, 18 compressTags, 19
// evictBlocksOnClose, 20 inMemory}: createTable keeps what is given (with
// the family's 2 attributes and 3 configuration) and getTableDescriptor(s)
// gives it back; a field not given is HBase 2.x's default, every field set,
// as HBase's getTableDescriptor answers.
TEST_F(HBaseWireTest, FamilySettingsComeBackWithHBasesDefaults) {
  CreateGeo();  // family d: its name alone
  const std::string family =
      BinaryField(1, "e") + OneEntryMap(2, "k", "v") +
      OneEntryMap(3, "hbase.x", "y") + I32Field(4, 8192) + I32Field(5, 2) +
      I32Field(6, 3) + I16Field(7, 3) + I32Field(8, 4) + I32Field(10, 1) +
      I32Field(12, 1) + BoolField(14, false) + BoolField(18, false) +
      BoolField(20, true);
  Success("createTable", StructField(1, StructField(1, BinaryField(2, "geo2")) +
                                            StructList(2, {family})));
  // HBase 2.x's ColumnFamilyDescriptorBuilder.DEFAULT_*.
  const std::map<int16_t, int64_t> defaults = {
      {4, 65536}, {5, 1},  {6, 2},  {7, 0},           {8, 0},  {9, 0},
      {10, 1},    {11, 0}, {12, 0}, {13, 2147483647}, {14, 1}, {15, 0},
      {16, 0},    {17, 0}, {18, 1}, {19, 0},          {20, 0}};
  const Value geo =
      Success("getTableDescriptor", StructField(1, BinaryField(2, "geo")));
  ASSERT_EQ(geo.Field(2).elements.size(), 1u);
  const Value& d = geo.Field(2).elements[0];
  EXPECT_EQ(d.Field(1).bytes, "d");
  for (const auto& [id, want] : defaults) {
    EXPECT_TRUE(d.Has(id)) << "field " << id;
    EXPECT_EQ(d.Field(id).number, want) << "field " << id;
  }
  EXPECT_EQ(d.Field(7).type, kTI16);
  EXPECT_EQ(d.Field(14).type, kTBool);
  // The table's attributes: the index attribute alone.
  EXPECT_EQ(geo.Field(3).elements.size(), 2u);

  const Value both =
      Success("getTableDescriptors",
              StructList(1, {BinaryField(2, "geo"), BinaryField(2, "geo2")}));
  ASSERT_EQ(both.elements.size(), 2u);
  ASSERT_EQ(both.elements[1].Field(2).elements.size(), 1u);
  const Value& e = both.elements[1].Field(2).elements[0];
  EXPECT_EQ(e.Field(1).bytes, "e");
  std::map<int16_t, int64_t> given = defaults;
  given[4] = 8192;
  given[5] = 2;
  given[6] = 3;
  given[7] = 3;
  given[8] = 4;
  given[12] = 1;
  given[14] = 0;
  given[18] = 0;
  given[20] = 1;
  for (const auto& [id, want] : given) {
    EXPECT_EQ(e.Field(id).number, want) << "field " << id;
  }
  ASSERT_EQ(e.Field(2).elements.size(), 2u);
  EXPECT_EQ(e.Field(2).elements[0].bytes, "k");
  EXPECT_EQ(e.Field(2).elements[1].bytes, "v");
  ASSERT_EQ(e.Field(3).elements.size(), 2u);
  EXPECT_EQ(e.Field(3).elements[0].bytes, "hbase.x");
  EXPECT_EQ(e.Field(3).elements[1].bytes, "y");
  // A table without attributes answers none (the settings do not show).
  EXPECT_TRUE(both.elements[1].Field(3).elements.empty());
}

// TScan {8: batchSize} is HBase's Scan.setBatch: a row with more cells is
// returned as several TResults of at most batchSize cells, in order, each
// but the last with TResult {4: partial}; numRows counts those results, and
// the next getScannerRows continues a split row where the last one stopped.
// TScan.limit still counts rows.
TEST_F(HBaseWireTest, BatchSizeSplitsWideRowsAcrossCalls) {
  CreateGeo();
  auto row = [](const std::string& key, int cells) {
    std::vector<std::string> columns;
    for (int i = 0; i < cells; ++i) {
      columns.push_back(CellValue("d", "c" + std::to_string(i), "v"));
    }
    return BinaryField(1, key) + StructList(2, columns);
  };
  Success("putMultiple",
          BinaryField(1, "geo") +
              StructList(2, {row("a", 5), row("b", 1), row("c", 3)}));
  // Each result as "key:first..last" of its qualifiers, "+" when partial.
  auto show = [](const Value& results) {
    std::vector<std::string> out;
    for (const Value& r : results.elements) {
      const auto& cells = r.Field(2).elements;
      std::string s = r.Field(1).bytes + ":" +
                      (cells.empty() ? "" : cells.front().Field(2).bytes) +
                      ".." + (cells.empty() ? "" : cells.back().Field(2).bytes);
      if (r.Field(4).number != 0) s += "+";
      out.push_back(s);
    }
    return out;
  };
  using Results = std::vector<std::string>;
  const auto id = static_cast<int32_t>(
      Success("openScanner",
              BinaryField(1, "geo") + StructField(2, I32Field(8, 2)))
          .number);
  auto next = [&](int32_t n) {
    return show(Success("getScannerRows", I32Field(1, id) + I32Field(2, n)));
  };
  EXPECT_EQ(next(2), (Results{"a:c0..c1+", "a:c2..c3+"}));
  EXPECT_EQ(next(2), (Results{"a:c4..c4", "b:c0..c0"}));
  EXPECT_EQ(next(10), (Results{"c:c0..c1+", "c:c2..c2"}));
  EXPECT_TRUE(next(10).empty());
  Success("closeScanner", I32Field(1, id));

  auto results = [&](const std::string& tscan, int32_t n) {
    return show(Success(
        "getScannerResults",
        BinaryField(1, "geo") + StructField(2, tscan) + I32Field(3, n)));
  };
  EXPECT_EQ(results(I32Field(8, 2), 3),
            (Results{"a:c0..c1+", "a:c2..c3+", "a:c4..c4"}));
  // limit 2: the rows a and b, in all their parts.
  EXPECT_EQ(results(I32Field(8, 2) + I32Field(15, 2), 10),
            (Results{"a:c0..c1+", "a:c2..c3+", "a:c4..c4", "b:c0..c0"}));
  // No batchSize, or HBase's unset -1: whole rows.
  EXPECT_EQ(results(I32Field(8, -1), 10),
            (Results{"a:c0..c4", "b:c0..c0", "c:c0..c2"}));
}

// A result's cells come in HBase's order, family by family then qualifier
// (CellComparator): family "d" before "d0", although "d0:a" sorts before
// "d:b" as a string (model/cell_order.h); a scan's batches split the row
// in that order.
TEST_F(HBaseWireTest, CellsComeInHBasesFamilyOrder) {
  Success("createTable",
          StructField(1, StructField(1, BinaryField(2, "fam")) +
                             StructList(2, {BinaryField(1, "d"),
                                            BinaryField(1, "d0")})) +
              t::FieldHeader(t::kTList, 2) + t::ListHeader(t::kTString, 0));
  ASSERT_TRUE(t::WaitAllCurrent(*router_));
  Success("put",
          BinaryField(1, "fam") +
              StructField(2, BinaryField(1, "r") +
                                 StructList(2, {CellValue("d0", "a", "1"),
                                                CellValue("d", "b", "2"),
                                                CellValue("d", "c", "3")})));
  auto columns = [](const Value& result) {
    std::vector<std::string> out;
    for (const Value& c : result.Field(2).elements) {
      out.push_back(c.Field(1).bytes + ":" + c.Field(2).bytes);
    }
    return out;
  };
  using Columns = std::vector<std::string>;
  EXPECT_EQ(columns(Success("get", BinaryField(1, "fam") +
                                       StructField(2, BinaryField(1, "r")))),
            (Columns{"d:b", "d:c", "d0:a"}));
  const Value batches = Success(
      "getScannerResults",
      BinaryField(1, "fam") + StructField(2, I32Field(8, 2)) + I32Field(3, 10));
  ASSERT_EQ(batches.elements.size(), 2u);
  EXPECT_EQ(columns(batches.elements[0]), (Columns{"d:b", "d:c"}));
  EXPECT_EQ(columns(batches.elements[1]), (Columns{"d0:a"}));
  const Value first =
      Success("getScannerResults",
              BinaryField(1, "fam") +
                  StructField(2, BinaryField(7, "FirstKeyOnlyFilter()")) +
                  I32Field(3, 10));
  ASSERT_EQ(first.elements.size(), 1u);
  EXPECT_EQ(columns(first.elements[0]), (Columns{"d:b"}));
}

// checkAndPut and increment as HBase's client encodes them: the check
// compares the given value with the cell's; increment returns the new
// 8-byte big-endian value in TResult.columnValues.
TEST_F(HBaseWireTest, CheckAndPutAndIncrement) {
  CreateGeo();
  Success("put", BinaryField(1, "geo") + StructField(2, PutBody("oslo", "NO")));
  // Value unset (field 5 omitted): the column must be absent.
  EXPECT_EQ(
      Success("checkAndPut", CheckAndPutArgs("oslo", std::nullopt, "X")).number,
      0);
  const Value applied =
      Success("checkAndPut", CheckAndPutArgs("oslo", std::string("NO"), "SE"));
  EXPECT_EQ(applied.type, kTBool);
  EXPECT_EQ(applied.number, 1);
  EXPECT_EQ(
      Success("checkAndPut", CheckAndPutArgs("oslo", std::string("NO"), "DK"))
          .number,
      0);
  EXPECT_EQ(Success("checkAndPut", CheckAndPutArgs("rome", std::nullopt, "IT"))
                .number,
            1);
  const Value oslo = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "oslo")));
  ASSERT_EQ(oslo.Field(2).elements.size(), 1u);
  EXPECT_EQ(oslo.Field(2).elements[0].Field(3).bytes, "SE");

  Value counter = Success("increment", IncrementArgs("c", 5));
  EXPECT_EQ(counter.Field(1).bytes, "c");
  ASSERT_EQ(counter.Field(2).elements.size(), 1u);
  EXPECT_EQ(counter.Field(2).elements[0].Field(2).bytes, "n");
  EXPECT_EQ(counter.Field(2).elements[0].Field(3).bytes, I64(5));
  counter = Success("increment", IncrementArgs("c", -7));
  ASSERT_EQ(counter.Field(2).elements.size(), 1u);
  EXPECT_EQ(counter.Field(2).elements[0].Field(3).bytes, I64(-2));
  // A cell that is not 8 bytes is not a counter (HBase's message).
  EXPECT_THAT(
      Failure("increment",
              BinaryField(1, "geo") +
                  StructField(2, BinaryField(1, "oslo") +
                                     StructList(2, {BinaryField(1, "d") +
                                                    BinaryField(2, "cc")}))),
      HasSubstr("Field is not a long"));
}

// checkAndMutate's LESS holds when the GIVEN value sorts before the cell's
// (HBase's direction), through the wire against real region stores.
TEST_F(HBaseWireTest, CheckAndMutateComparesTheGivenValueWithTheCells) {
  CreateGeo();
  Success("put", BinaryField(1, "geo") + StructField(2, PutBody("oslo", "5")));
  const auto check = [&](int32_t op, const std::string& given,
                         const std::string& new_value) {
    const std::string mutations =
        BinaryField(1, "oslo") +
        StructList(2, {StructField(1, PutBody("oslo", new_value))});
    return Success("checkAndMutate",
                   BinaryField(1, "geo") + BinaryField(2, "oslo") +
                       BinaryField(3, "d") + BinaryField(4, "cc") +
                       I32Field(5, op) + BinaryField(6, given) +
                       StructField(7, mutations))
        .number;
  };
  constexpr int32_t kLess = 0, kGreater = 5, kNoOp = 6;
  EXPECT_EQ(check(kGreater, "3", "x"), 0);  // given 3 > cell 5: no
  EXPECT_EQ(check(kLess, "3", "7"), 1);     // given 3 < cell 5: applied
  EXPECT_EQ(check(kLess, "9", "x"), 0);     // given 9 < cell 7: no
  EXPECT_EQ(check(kGreater, "9", "8"), 1);  // given 9 > cell 7: applied
  const Value oslo = Success(
      "get", BinaryField(1, "geo") + StructField(2, BinaryField(1, "oslo")));
  ASSERT_EQ(oslo.Field(2).elements.size(), 1u);
  EXPECT_EQ(oslo.Field(2).elements[0].Field(3).bytes, "8");
  const std::string no_op = Failure(
      "checkAndMutate",
      BinaryField(1, "geo") + BinaryField(2, "oslo") + BinaryField(3, "d") +
          BinaryField(4, "cc") + I32Field(5, kNoOp) + BinaryField(6, "8") +
          StructField(7, BinaryField(1, "oslo") + StructList(2, {})));
  EXPECT_THAT(no_op, HasSubstr("compareOperator NO_OP"));
}

// Every HBase call with a bad argument answers its declared exception:
// never an undeclared exception id, never a dropped connection.
TEST_F(HBaseWireTest, EveryHBaseCallAnswersABadArgumentWithTIOError) {
  CreateGeo();
  const std::string nope = BinaryField(1, "nope");
  const std::string empty_name = StructField(1, "");  // TTableName{}
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"exists", BinaryField(1, "geo") + StructField(2, "")},
      {"existsAll", BinaryField(1, "geo") + StructList(2, {""})},
      {"get", BinaryField(1, "geo") + StructField(2, "")},
      {"getMultiple", BinaryField(1, "geo") + StructList(2, {""})},
      {"put", BinaryField(1, "geo") + StructField(2, "")},
      {"checkAndPut", BinaryField(1, "geo") + StructField(6, "")},
      {"putMultiple", BinaryField(1, "geo") + StructList(2, {""})},
      {"deleteSingle", BinaryField(1, "geo") + StructField(2, "")},
      {"deleteMultiple", BinaryField(1, "geo") + StructList(2, {""})},
      {"checkAndDelete", BinaryField(1, "geo") + StructField(6, "")},
      {"increment", BinaryField(1, "geo") + StructField(2, "")},
      {"append", BinaryField(1, "geo") + StructField(2, "")},
      {"openScanner", nope + StructField(2, "")},
      {"mutateRow", BinaryField(1, "geo") + StructField(2, "")},
      {"getScannerResults", nope + StructField(2, "") + I32Field(3, 1)},
      {"getRegionLocation", nope + BinaryField(2, "r")},
      {"getAllRegionLocations", nope},
      {"checkAndMutate", BinaryField(1, "geo") + StructField(7, "")},
      {"getTableDescriptor", empty_name},
      {"getTableDescriptors", StructList(1, {""})},
      {"tableExists", empty_name},
      {"createTable", StructField(1, "")},
      {"deleteTable", empty_name},
      {"truncateTable", empty_name},
      {"enableTable", empty_name},
      {"disableTable", empty_name},
      {"isTableEnabled", empty_name},
      {"isTableDisabled", empty_name},
      {"isTableAvailable", empty_name},
  };
  for (const auto& [method, args] : calls) {
    SCOPED_TRACE(method);
    const std::string message = Failure(method, args, 1);
    EXPECT_THAT(message, ::testing::AnyOf(StartsWith("InvalidArgument: "),
                                          StartsWith("NotFound: ")));
  }
  // The scanner calls declare TIllegalArgument too.
  EXPECT_THAT(Failure("getScannerRows", I32Field(1, 12345) + I32Field(2, 1), 2),
              StartsWith("NotFound: "));
  EXPECT_THAT(Failure("closeScanner", I32Field(1, -7), 2),
              StartsWith("NotFound: "));
  // The connection still serves.
  EXPECT_EQ(Success("getThriftServerType", "").number, 2);
}

}  // namespace
}  // namespace bloomroute

namespace bloomroute {
namespace {

// set<TServerName> with one server {1: hostName, 2: port}, as field `id`.
std::string OneServerSet(int16_t id) {
  return t::FieldHeader(kTSet, id) + t::ListHeader(t::kTStruct, 1) +
         BinaryField(1, "127.0.0.1") + I32Field(2, 9090) +
         std::string(1, t::kTStop);
}

// getClusterId, getTableNamesByPattern, getTableDescriptorsByPattern and
// isTableAvailableWithSplit as HBase 2.x's clients call them (before these
// were served, each was Thrift's unknown-method exception).
TEST_F(HBaseWireTest, ClusterIdPatternsAndSplitAvailability) {
  CreateGeo();
  const Value id = Success("getClusterId", "");
  ASSERT_EQ(id.type, t::kTString);
  EXPECT_EQ(id.bytes.size(), 36u);
  EXPECT_EQ(id.bytes, router_->ClusterId());
  EXPECT_EQ(Success("getClusterId", "").bytes, id.bytes);

  // {1: regex, 2: includeSysTables}: whole-name matches.
  const Value names = Success("getTableNamesByPattern",
                              BinaryField(1, "g.o") + BoolField(2, false));
  ASSERT_EQ(names.elements.size(), 1u);
  EXPECT_EQ(names.elements[0].Field(2).bytes, "geo");
  EXPECT_TRUE(Success("getTableNamesByPattern",
                      BinaryField(1, "ge") + BoolField(2, true))
                  .elements.empty());
  const Value all =
      Success("getTableDescriptorsByPattern", BoolField(2, false));
  ASSERT_EQ(all.elements.size(), 1u);
  EXPECT_EQ(all.elements[0].Field(1).Field(2).bytes, "geo");
  EXPECT_THAT(Failure("getTableNamesByPattern",
                      BinaryField(1, "ge++") + BoolField(2, false)),
              AllOf(StartsWith("InvalidArgument: "), HasSubstr("possessive")));

  // {1: TTableName, 2: list<binary> splitKeys}: geo was made split at "m".
  auto with_split = [&](const std::string& key) {
    return Success("isTableAvailableWithSplit",
                   StructField(1, BinaryField(2, "geo")) +
                       t::FieldHeader(t::kTList, 2) +
                       t::ListHeader(t::kTString, 1) + Bytes(key))
        .number;
  };
  EXPECT_EQ(with_split("m"), 1);
  EXPECT_EQ(with_split("n"), 0);
}

class HBaseWireSlowLogTest : public HBaseWireTest {
 protected:
  uint32_t SlowCallMs() const override { return 1; }
};

// getSlowLogResponses answers the router's slow calls (a putMultiple of
// 5,000 rows takes more than a millisecond), clearSlowLogResponses empties
// them.
TEST_F(HBaseWireSlowLogTest, SlowCallsAreListedAndCleared) {
  CreateGeo();
  std::vector<std::string> puts;
  for (int i = 0; i < 5000; ++i) {
    puts.push_back(PutBody("row" + std::to_string(i), "NO"));
  }
  Success("putMultiple", BinaryField(1, "geo") + StructList(2, puts));
  const std::string filter = StructField(2, I32Field(5, 100));
  const Value records =
      Success("getSlowLogResponses", OneServerSet(1) + filter);
  ASSERT_EQ(records.type, t::kTList);
  std::vector<std::string> methods;
  for (const Value& r : records.elements) {
    methods.push_back(r.Field(7).bytes);
    EXPECT_EQ(r.Field(6).bytes, "RouterServer");
    EXPECT_GT(r.Field(1).number, 0);
    EXPECT_GE(r.Field(2).number, 1);
    EXPECT_THAT(r.Field(5).bytes, StartsWith("127.0.0.1:"));
  }
  EXPECT_THAT(methods, ::testing::Contains("putMultiple"));
  // No server named: nothing (as HBase's).
  EXPECT_TRUE(
      Success("getSlowLogResponses",
              t::FieldHeader(kTSet, 1) + t::ListHeader(t::kTStruct, 0) + filter)
          .elements.empty());

  const Value cleared = Success("clearSlowLogResponses", OneServerSet(1));
  ASSERT_EQ(cleared.elements.size(), 1u);
  EXPECT_EQ(cleared.elements[0].number, 1);
  for (const Value& r :
       Success("getSlowLogResponses", OneServerSet(1) + filter).elements) {
    EXPECT_NE(r.Field(7).bytes, "putMultiple");
  }
}

}  // namespace
}  // namespace bloomroute
