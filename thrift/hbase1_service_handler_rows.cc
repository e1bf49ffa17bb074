// Hbase1ServiceHandler's reads and writes of rows: each one Thrift2 call
// (get, getMultiple, mutateRow, deleteSingle, increment) of the connection's
// Thrift2 handler.
#include <utility>

#include "model/rows.h"
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

Status CheckVersions(int32_t num_versions) {
  if (num_versions >= 1) return Status::OK();
  return Status::InvalidArgument("numVersions " + std::to_string(num_versions) +
                                 " is not positive");
}

}  // namespace

// ---- Reads ----

Status Hbase1ServiceHandler::CellsOf(const Text& table, const Text& row,
                                     const Text& column,
                                     const h2::TTimeRange* range,
                                     std::vector<h1::TCell>* result) {
  h2::TGet get;
  get.__set_row(row);
  get.__isset.row = true;
  h2::TColumn tcolumn;
  BLOOMROUTE_RETURN_IF_ERROR(
      Thrift1ColumnToThrift2(column, "column", &tcolumn));
  get.__set_columns({tcolumn});
  get.__isset.columns = true;
  if (range != nullptr) get.__set_timeRange(*range);
  h2::TResult found;
  thrift2_->get(found, table, get);
  *result = Thrift1Cells(found);
  return Status::OK();
}

void Hbase1ServiceHandler::get(std::vector<h1::TCell>& result,
                               const Text& table, const Text& row,
                               const Text& column,
                               const Attributes& /*attributes*/) {
  ServeHbase1Call("get", kIO, [&]() -> Status {
    return CellsOf(table, row, column, nullptr, &result);
  });
}

void Hbase1ServiceHandler::getVer(std::vector<h1::TCell>& result,
                                  const Text& table, const Text& row,
                                  const Text& column, int32_t num_versions,
                                  const Attributes& /*attributes*/) {
  ServeHbase1Call("getVer", kIO, [&]() -> Status {
    // One version per cell is kept: numVersions >= 1 reads it.
    BLOOMROUTE_RETURN_IF_ERROR(CheckVersions(num_versions));
    return CellsOf(table, row, column, nullptr, &result);
  });
}

void Hbase1ServiceHandler::getVerTs(std::vector<h1::TCell>& result,
                                    const Text& table, const Text& row,
                                    const Text& column, int64_t timestamp,
                                    int32_t num_versions,
                                    const Attributes& /*attributes*/) {
  ServeHbase1Call("getVerTs", kIO, [&]() -> Status {
    BLOOMROUTE_RETURN_IF_ERROR(CheckVersions(num_versions));
    h2::TTimeRange range;
    BLOOMROUTE_RETURN_IF_ERROR(TimestampBound(timestamp, "timestamp", &range));
    return CellsOf(table, row, column, &range, &result);
  });
}

Status Hbase1ServiceHandler::RowsOf(const Text& table,
                                    const std::vector<Text>& rows,
                                    const std::vector<Text>& columns,
                                    std::optional<int64_t> timestamp,
                                    std::vector<h1::TRowResult>* result) {
  std::vector<h2::TColumn> tcolumns;
  BLOOMROUTE_RETURN_IF_ERROR(
      Thrift1ColumnsToThrift2(columns, "columns", &tcolumns));
  h2::TTimeRange range;
  if (timestamp.has_value()) {
    BLOOMROUTE_RETURN_IF_ERROR(TimestampBound(*timestamp, "timestamp", &range));
  }
  std::vector<h2::TGet> gets(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    gets[i].__set_row(rows[i]);
    gets[i].__isset.row = true;
    if (!tcolumns.empty()) gets[i].__set_columns(tcolumns);
    if (timestamp.has_value()) gets[i].__set_timeRange(range);
  }
  std::vector<h2::TResult> found;
  thrift2_->getMultiple(found, table, gets);
  *result = Thrift1Rows(found, /*sorted=*/false);
  return Status::OK();
}

void Hbase1ServiceHandler::getRow(std::vector<h1::TRowResult>& result,
                                  const Text& table, const Text& row,
                                  const Attributes& /*attributes*/) {
  ServeHbase1Call("getRow", kIO, [&]() -> Status {
    return RowsOf(table, {row}, {}, std::nullopt, &result);
  });
}

void Hbase1ServiceHandler::getRowWithColumns(
    std::vector<h1::TRowResult>& result, const Text& table, const Text& row,
    const std::vector<Text>& columns, const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowWithColumns", kIO, [&]() -> Status {
    return RowsOf(table, {row}, columns, std::nullopt, &result);
  });
}

void Hbase1ServiceHandler::getRowTs(std::vector<h1::TRowResult>& result,
                                    const Text& table, const Text& row,
                                    int64_t timestamp,
                                    const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowTs", kIO, [&]() -> Status {
    return RowsOf(table, {row}, {}, timestamp, &result);
  });
}

void Hbase1ServiceHandler::getRowWithColumnsTs(
    std::vector<h1::TRowResult>& result, const Text& table, const Text& row,
    const std::vector<Text>& columns, int64_t timestamp,
    const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowWithColumnsTs", kIO, [&]() -> Status {
    return RowsOf(table, {row}, columns, timestamp, &result);
  });
}

void Hbase1ServiceHandler::getRows(std::vector<h1::TRowResult>& result,
                                   const Text& table,
                                   const std::vector<Text>& rows,
                                   const Attributes& /*attributes*/) {
  ServeHbase1Call("getRows", kIO, [&]() -> Status {
    return RowsOf(table, rows, {}, std::nullopt, &result);
  });
}

void Hbase1ServiceHandler::getRowsWithColumns(
    std::vector<h1::TRowResult>& result, const Text& table,
    const std::vector<Text>& rows, const std::vector<Text>& columns,
    const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowsWithColumns", kIO, [&]() -> Status {
    return RowsOf(table, rows, columns, std::nullopt, &result);
  });
}

void Hbase1ServiceHandler::getRowsTs(std::vector<h1::TRowResult>& result,
                                     const Text& table,
                                     const std::vector<Text>& rows,
                                     int64_t timestamp,
                                     const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowsTs", kIO, [&]() -> Status {
    return RowsOf(table, rows, {}, timestamp, &result);
  });
}

void Hbase1ServiceHandler::getRowsWithColumnsTs(
    std::vector<h1::TRowResult>& result, const Text& table,
    const std::vector<Text>& rows, const std::vector<Text>& columns,
    int64_t timestamp, const Attributes& /*attributes*/) {
  ServeHbase1Call("getRowsWithColumnsTs", kIO, [&]() -> Status {
    return RowsOf(table, rows, columns, timestamp, &result);
  });
}

// ---- Writes ----

Status Hbase1ServiceHandler::MutateRow(const Text& table, const Text& row,
                                       const std::vector<h1::Mutation>& in,
                                       std::optional<int64_t> timestamp,
                                       const std::string& f) {
  h2::TRowMutations mutations;
  BLOOMROUTE_RETURN_IF_ERROR(
      Thrift1MutationsToThrift2(row, in, timestamp, f, &mutations));
  // Nothing to do is done (HBase sends nothing either).
  if (!mutations.mutations.empty()) thrift2_->mutateRow(table, mutations);
  return Status::OK();
}

Status Hbase1ServiceHandler::MutateRows(
    const Text& table, const std::vector<h1::BatchMutation>& batches,
    std::optional<int64_t> timestamp) {
  // Every batch is converted before any is written, as HBase builds all
  // its Puts and Deletes before it sends them: a bad mutation in a later
  // row writes nothing. Rows are then written one by one, each atomic, as
  // HBase's batch is per row.
  std::vector<h2::TRowMutations> rows(batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    // HBase's Put and Delete refuse such a row when they are built.
    const std::string& row = batches[i].row;
    if (row.empty() || row.size() > kMaxRowKeyBytes) {
      return Status::InvalidArgument(
          "rowBatches[" + std::to_string(i) + "].row: the row key must be 1 " +
          "to " + std::to_string(kMaxRowKeyBytes) + " bytes");
    }
    BLOOMROUTE_RETURN_IF_ERROR(Thrift1MutationsToThrift2(
        batches[i].row, batches[i].mutations, timestamp,
        "rowBatches[" + std::to_string(i) + "].mutations", &rows[i]));
  }
  for (const h2::TRowMutations& mutations : rows) {
    if (!mutations.mutations.empty()) thrift2_->mutateRow(table, mutations);
  }
  return Status::OK();
}

void Hbase1ServiceHandler::mutateRow(const Text& table, const Text& row,
                                     const std::vector<h1::Mutation>& mutations,
                                     const Attributes& /*attributes*/) {
  ServeHbase1Call("mutateRow", kIA, [&]() -> Status {
    return MutateRow(table, row, mutations, std::nullopt, "mutations");
  });
}

void Hbase1ServiceHandler::mutateRowTs(
    const Text& table, const Text& row,
    const std::vector<h1::Mutation>& mutations, int64_t timestamp,
    const Attributes& /*attributes*/) {
  ServeHbase1Call("mutateRowTs", kIA, [&]() -> Status {
    return MutateRow(table, row, mutations, timestamp, "mutations");
  });
}

void Hbase1ServiceHandler::mutateRows(
    const Text& table, const std::vector<h1::BatchMutation>& batches,
    const Attributes& /*attributes*/) {
  ServeHbase1Call("mutateRows", kIA, [&]() -> Status {
    return MutateRows(table, batches, std::nullopt);
  });
}

void Hbase1ServiceHandler::mutateRowsTs(
    const Text& table, const std::vector<h1::BatchMutation>& batches,
    int64_t timestamp, const Attributes& /*attributes*/) {
  ServeHbase1Call("mutateRowsTs", kIA, [&]() -> Status {
    return MutateRows(table, batches, timestamp);
  });
}

int64_t Hbase1ServiceHandler::atomicIncrement(const Text& table,
                                              const Text& row,
                                              const Text& column,
                                              int64_t value) {
  int64_t after = 0;
  ServeHbase1Call("atomicIncrement", kIA, [&]() -> Status {
    h1::TIncrement in;
    in.__set_table(table);
    in.__set_row(row);
    in.__isset.row = true;
    in.__set_column(column);
    in.__set_ammount(value);
    std::string ignored;
    h2::TIncrement increment;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1IncrementToThrift2(in, "atomicIncrement", &ignored, &increment));
    increment.__set_returnResults(true);
    h2::TResult result;
    thrift2_->increment(result, table, increment);
    return CounterValue(result, column, &after);
  });
  return after;
}

void Hbase1ServiceHandler::deleteAll(const Text& table, const Text& row,
                                     const Text& column,
                                     const Attributes& /*attributes*/) {
  ServeHbase1Call("deleteAll", kIO, [&]() -> Status {
    h2::TDelete del;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1DeleteToThrift2(row, column, std::nullopt, &del));
    thrift2_->deleteSingle(table, del);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::deleteAllTs(const Text& table, const Text& row,
                                       const Text& column, int64_t timestamp,
                                       const Attributes& /*attributes*/) {
  ServeHbase1Call("deleteAllTs", kIO, [&]() -> Status {
    h2::TDelete del;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1DeleteToThrift2(row, column, timestamp, &del));
    thrift2_->deleteSingle(table, del);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::deleteAllRow(const Text& table, const Text& row,
                                        const Attributes& /*attributes*/) {
  ServeHbase1Call("deleteAllRow", kIO, [&]() -> Status {
    h2::TDelete del;
    del.__set_row(row);
    del.__isset.row = true;
    thrift2_->deleteSingle(table, del);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::deleteAllRowTs(const Text& table, const Text& row,
                                          int64_t timestamp,
                                          const Attributes& /*attributes*/) {
  ServeHbase1Call("deleteAllRowTs", kIO, [&]() -> Status {
    h2::TDelete del;
    del.__set_row(row);
    del.__isset.row = true;
    del.__set_timestamp(timestamp);
    thrift2_->deleteSingle(table, del);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::increment(const h1::TIncrement& in) {
  ServeHbase1Call("increment", kIO, [&]() -> Status {
    std::string table;
    h2::TIncrement increment;
    BLOOMROUTE_RETURN_IF_ERROR(
        Thrift1IncrementToThrift2(in, "increment", &table, &increment));
    increment.__set_returnResults(false);
    h2::TResult ignored;
    thrift2_->increment(ignored, table, increment);
    return Status::OK();
  });
}

void Hbase1ServiceHandler::incrementRows(
    const std::vector<h1::TIncrement>& increments) {
  ServeHbase1Call("incrementRows", kIO, [&]() -> Status {
    for (size_t i = 0; i < increments.size(); ++i) {
      std::string table;
      h2::TIncrement increment;
      BLOOMROUTE_RETURN_IF_ERROR(Thrift1IncrementToThrift2(
          increments[i], "increments[" + std::to_string(i) + "]", &table,
          &increment));
      increment.__set_returnResults(false);
      h2::TResult ignored;
      thrift2_->increment(ignored, table, increment);
    }
    return Status::OK();
  });
}

}  // namespace bloomroute
