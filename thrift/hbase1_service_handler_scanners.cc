// Hbase1ServiceHandler's scanners, region info and atomic calls: each one or
// two Thrift2 calls of the connection's Thrift2 handler.
#include <utility>

#include "thrift/conversion/hbase1_conversion.h"
#include "thrift/hbase1_service_handler.h"
#include "thrift/internal/serve_hbase1_call.h"

namespace bloomroute {
namespace {

namespace h1 = rpc::hbase1;
namespace h2 = rpc::client;
using thrift_internal::Hbase1Declares;
using thrift_internal::ServeHbase1Call;

constexpr Hbase1Declares kIO = Hbase1Declares::kIOError;
constexpr Hbase1Declares kIA = Hbase1Declares::kIllegalArgument;

// getRegionInfo's catalog key "table,row,suffix": the table before the first
// ',' and the row up to the last one.
Status SplitCatalogKey(const std::string& key, std::string* table,
                       std::string* row) {
  const size_t first = key.find(',');
  const size_t last = key.rfind(',');
  if (first == std::string::npos || first == 0) {
    return Status::InvalidArgument("row \"" + key +
                                   "\" is no catalog key \"table,row,...\"");
  }
  *table = key.substr(0, first);
  *row = last == first ? key.substr(first + 1)
                       : key.substr(first + 1, last - first - 1);
  return Status::OK();
}

}  // namespace

// ---- Scanners ----

Status Hbase1ServiceHandler::OpenScanner(const Text& table,
                                         const h2::TScan& scan, bool sorted,
                                         int32_t* id) {
  *id = thrift2_->openScanner(table, scan);
  if (sorted) {
    std::lock_guard<std::mutex> lock(mu_);
    sorted_scanners_[*id] = true;
  }
  return Status::OK();
}

bool Hbase1ServiceHandler::Sorted(int32_t id) const {
  std::lock_guard<std::mutex> lock(mu_);
  return sorted_scanners_.count(id) > 0;
}

int32_t Hbase1ServiceHandler::scannerOpenWithScan(
    const Text& table, const h1::TScan& scan,
    const Attributes& /*attributes*/) {
  int32_t id = 0;
  ServeHbase1Call("scannerOpenWithScan", kIO, [&]() -> Status {
    h2::TScan tscan;
    BLOOMROUTE_RETURN_IF_ERROR(Thrift1ScanToThrift2(scan, &tscan));
    const bool sorted = scan.__isset.sortColumns && scan.sortColumns;
    return OpenScanner(table, tscan, sorted, &id);
  });
  return id;
}

int32_t Hbase1ServiceHandler::OpenSimpleScanner(
    const char* call, const Text& table, const Text& start_row,
    const std::optional<Text>& stop_row, const std::vector<Text>& columns,
    std::optional<int64_t> timestamp) {
  int32_t id = 0;
  ServeHbase1Call(call, kIO, [&]() -> Status {
    h2::TScan scan;
    scan.__set_startRow(start_row);
    if (stop_row.has_value()) scan.__set_stopRow(*stop_row);
    if (!columns.empty()) {
      std::vector<h2::TColumn> tcolumns;
      BLOOMROUTE_RETURN_IF_ERROR(
          Thrift1ColumnsToThrift2(columns, "columns", &tcolumns));
      scan.__set_columns(std::move(tcolumns));
      scan.__isset.columns = true;
    }
    if (timestamp.has_value()) {
      h2::TTimeRange range;
      BLOOMROUTE_RETURN_IF_ERROR(
          TimestampBound(*timestamp, "timestamp", &range));
      scan.__set_timeRange(range);
    }
    return OpenScanner(table, scan, /*sorted=*/false, &id);
  });
  return id;
}

int32_t Hbase1ServiceHandler::scannerOpen(const Text& table,
                                          const Text& start_row,
                                          const std::vector<Text>& columns,
                                          const Attributes& /*attributes*/) {
  return OpenSimpleScanner("scannerOpen", table, start_row, std::nullopt,
                           columns, std::nullopt);
}

int32_t Hbase1ServiceHandler::scannerOpenWithStop(
    const Text& table, const Text& start_row, const Text& stop_row,
    const std::vector<Text>& columns, const Attributes& /*attributes*/) {
  return OpenSimpleScanner("scannerOpenWithStop", table, start_row, stop_row,
                           columns, std::nullopt);
}

int32_t Hbase1ServiceHandler::scannerOpenWithPrefix(
    const Text& table, const Text& prefix, const std::vector<Text>& columns,
    const Attributes& /*attributes*/) {
  // HBase filters with WhileMatchFilter(PrefixFilter): the same rows as
  // stopping before the first key past the prefix.
  const std::string stop = PrefixStopRow(prefix);
  return OpenSimpleScanner(
      "scannerOpenWithPrefix", table, prefix,
      stop.empty() ? std::nullopt : std::optional<Text>(stop), columns,
      std::nullopt);
}

int32_t Hbase1ServiceHandler::scannerOpenTs(const Text& table,
                                            const Text& start_row,
                                            const std::vector<Text>& columns,
                                            int64_t timestamp,
                                            const Attributes& /*attributes*/) {
  return OpenSimpleScanner("scannerOpenTs", table, start_row, std::nullopt,
                           columns, timestamp);
}

int32_t Hbase1ServiceHandler::scannerOpenWithStopTs(
    const Text& table, const Text& start_row, const Text& stop_row,
    const std::vector<Text>& columns, int64_t timestamp,
    const Attributes& /*attributes*/) {
  return OpenSimpleScanner("scannerOpenWithStopTs", table, start_row, stop_row,
                           columns, timestamp);
}

void Hbase1ServiceHandler::scannerGet(std::vector<h1::TRowResult>& result,
                                      int32_t id) {
  scannerGetList(result, id, 1);
}

void Hbase1ServiceHandler::scannerGetList(std::vector<h1::TRowResult>& result,
                                          int32_t id, int32_t nb_rows) {
  ServeHbase1Call("scannerGetList", kIA, [&]() -> Status {
    result.clear();
    // HBase's ResultScanner.next(n) gives nothing for n < 1.
    if (nb_rows < 1) return Status::OK();
    std::vector<h2::TResult> rows;
    thrift2_->getScannerRows(rows, id, nb_rows, /*call_seq=*/0);
    result = Thrift1Rows(rows, Sorted(id));
    return Status::OK();
  });
}

void Hbase1ServiceHandler::scannerClose(int32_t id) {
  ServeHbase1Call("scannerClose", kIA, [&]() -> Status {
    {
      std::lock_guard<std::mutex> lock(mu_);
      sorted_scanners_.erase(id);
    }
    thrift2_->closeScanner(id);
    return Status::OK();
  });
}

// ---- Regions and atomic operations ----

void Hbase1ServiceHandler::getRegionInfo(h1::TRegionInfo& result,
                                         const Text& row) {
  ServeHbase1Call("getRegionInfo", kIO, [&]() -> Status {
    std::string table, key;
    BLOOMROUTE_RETURN_IF_ERROR(SplitCatalogKey(row, &table, &key));
    h2::THRegionLocation location;
    thrift2_->getRegionLocation(location, table, key, /*reload=*/false);
    result = RegionInfoFromThrift2(location);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::append(std::vector<h1::TCell>& result,
                                  const h1::TAppend& in) {
  ServeHbase1Call("append", kIO, [&]() -> Status {
    std::string table;
    h2::TAppend append;
    BLOOMROUTE_RETURN_IF_ERROR(Thrift1AppendToThrift2(in, &table, &append));
    h2::TResult cells;
    thrift2_->append(cells, table, append);
    result = Thrift1Cells(cells);
    return Status::OK();
  });
}

bool Hbase1ServiceHandler::checkAndPut(const Text& table, const Text& row,
                                       const Text& column, const Text& value,
                                       const h1::Mutation& mput,
                                       const Attributes& /*attributes*/) {
  bool done = false;
  ServeHbase1Call("checkAndPut", kIA, [&]() -> Status {
    if (mput.isDelete) {
      return Status::InvalidArgument(
          "mput.isDelete: checkAndPut puts (a delete is not supported)");
    }
    h2::TColumn checked;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1ColumnToThrift2(column, "column", &checked));
    h2::TRowMutations mutations;
    BLOOMROUTE_RETURN_IF_ERROR(Thrift1MutationsToThrift2(
        row, {mput}, std::nullopt, "mput", &mutations));
    done = thrift2_->checkAndPut(table, row, checked.family, checked.qualifier,
                                 value, mutations.mutations.at(0).put);
    return Status::OK();
  });
  return done;
}

}  // namespace bloomroute
