#include "thrift/router_service_handler.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/internal/serve_call.h"
#include "thrift/server/access_control.h"

namespace bloomroute {

namespace client = rpc::client;
// Every call leaves through ServeCall or ServeHBaseCall: see serve_call.h.
using thrift_internal::ServeCall;
using thrift_internal::ServeHBaseCall;

namespace {

// ---- Atomic row operations ----

// The router's condition for an HBase check. An empty `value` is the
// "absent" check: the generated handler cannot tell an unset binary from an
// empty one, and HBase (HBASE-26742) treats both alike anyway, as does
// ConditionHolds (model/atomic_ops.h). NO_OP compares nothing: HBase fails
// it ("Unknown Compare op NO_OP") whenever there is a value to compare, so
// with a value it is refused; without one it is the absent check, which it
// shares with every operator but NOT_EQUAL.
StatusOr<RowCondition> ConditionOf(const HBaseCheck& check) {
  RowCondition condition;
  condition.column = check.column;
  if (!check.value.empty()) condition.value = check.value;
  if (check.compare != client::TCompareOperator::NO_OP) {
    // CheckFromThrift let only the table's values through.
    condition.op =
        kHBaseCompareOps.Find(check.compare).value_or(CompareOp::kEqual);
    return condition;
  }
  if (condition.value.has_value()) {
    return Status::InvalidArgument(
        "compareOperator NO_OP compares no value: give an operator, or "
        "an empty value to check that the column is absent");
  }
  condition.op = CompareOp::kEqual;
  return condition;
}

StatusOr<bool> RouterCheckAndMutate(router::Router& router,
                                    const std::string& table,
                                    const HBaseCheck& check,
                                    std::vector<Mutation> mutations) {
  BLOOMROUTE_ASSIGN_OR_RETURN(RowCondition condition, ConditionOf(check));
  return router.CheckAndMutate(table, check.row, condition,
                               std::move(mutations));
}

// HBase's returnResults false: an empty TResult (no row, no cells).
std::optional<Row> Returned(Row row, bool return_results) {
  if (!return_results) return std::nullopt;
  return row;
}

StatusOr<std::optional<Row>> RouterIncrement(router::Router& router,
                                             const std::string& table,
                                             const HBaseIncrement& increment) {
  std::vector<ColumnIncrement> increments;
  increments.reserve(increment.amounts.size());
  for (const auto& [column, amount] : increment.amounts) {
    increments.push_back(ColumnIncrement{column, amount});
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      Row row, router.Increment(table, increment.row, std::move(increments)));
  return Returned(std::move(row), increment.return_results);
}

StatusOr<std::optional<Row>> RouterAppend(router::Router& router,
                                          const std::string& table,
                                          HBaseAppend append) {
  BLOOMROUTE_ASSIGN_OR_RETURN(Row row,
                              router.Append(table, append.cells.row_key,
                                            std::move(append.cells.cells)));
  return Returned(std::move(row), append.return_results);
}

// ---- Helpers ----

// Applies mutations already converted (one bad entry rejected them all).
Status ApplyAll(router::Router& router, const std::string& table,
                std::vector<Mutation> mutations) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
  return router.Mutate(name, std::move(mutations));
}

// Gets every row, in request order. The router may answer a prefix when
// its reply byte budget is spent: HBase's getMultiple has no way to say so,
// so the call fails naming the budget.
StatusOr<std::vector<std::optional<Row>>> GetAll(router::Router& router,
                                                 const std::string& table,
                                                 std::vector<HBaseGet> gets) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
  std::vector<GetRequest> requests;
  requests.reserve(gets.size());
  for (HBaseGet& get : gets) requests.push_back(std::move(get.request));
  const size_t asked = requests.size();
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::optional<Row>> rows,
                              router.Get(name, std::move(requests)));
  if (rows.size() != asked) {
    return Status::InvalidArgument(
        "the rows of " + std::to_string(asked) +
        " gets pass the router's reply byte budget (--max-reply-bytes) after " +
        std::to_string(rows.size()) + " of them: ask for fewer rows");
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] && gets[i].existence_only) rows[i]->cells.clear();
  }
  return rows;
}

// Whether a get's answer has a cell it selects.
bool Exists(const std::optional<Row>& row) {
  return row.has_value() && !row->cells.empty();
}

StatusOr<std::vector<bool>> ExistsAll(router::Router& router,
                                      const std::string& table,
                                      std::vector<HBaseGet> gets) {
  // existence_only would drop the cells that say whether a cell matched.
  for (HBaseGet& get : gets) get.existence_only = false;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::optional<Row>> rows,
                              GetAll(router, table, std::move(gets)));
  std::vector<bool> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) out[i] = Exists(rows[i]);
  return out;
}

// checkAndPut / checkAndDelete: checkAndMutate with EQUAL and one mutation
// (a TPut or a TDelete, argument `field`).
template <typename TOneMutation>
bool CheckAndApplyOne(router::Router& router, const char* call,
                      const char* field, const std::string& table,
                      const std::string& row, const std::string& family,
                      const std::string& qualifier, const std::string& value,
                      const TOneMutation& tmutation) {
  bool applied = false;
  ServeHBaseCall(call, [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    HBaseCheck check;
    BLOOMROUTE_RETURN_IF_ERROR(CheckFromThrift(row, family, qualifier, value,
                                               client::TCompareOperator::EQUAL,
                                               &check));
    Mutation mutation;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tmutation, &mutation));
    BLOOMROUTE_RETURN_IF_ERROR(RowMutationFromThrift(mutation, row, field));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        applied,
        RouterCheckAndMutate(router, name, check, {std::move(mutation)}));
    return Status::OK();
  });
  return applied;
}

// The user the current call runs as (the certificate's name or the token's
// user); "" without TLS.
std::string CallerPrincipal() {
  const Identity* caller = thrift_internal::CurrentCaller();
  return caller != nullptr ? caller->user : "";
}

}  // namespace

RouterServiceHandler::RouterServiceHandler(
    std::shared_ptr<router::Router> router, router::ScannerClient client,
    HandlerServices services)
    : router_(std::move(router)),
      client_(client),
      services_(std::move(services)),
      scanners_(services_.scanners != nullptr
                    ? services_.scanners
                    : std::make_shared<thrift_internal::HBaseScanners>()) {}

RouterServiceHandlerFactory::RouterServiceHandlerFactory(
    std::shared_ptr<router::Router> router, HandlerServices services)
    : router_(std::move(router)), services_(std::move(services)) {
  if (services_.scanners == nullptr) {
    services_.scanners = std::make_shared<thrift_internal::HBaseScanners>();
  }
}

client::RouterServiceIf* RouterServiceHandlerFactory::getHandler(
    const apache::thrift::TConnectionInfo& /*connection*/) {
  return new RouterServiceHandler(router_, router::NewScannerClient(),
                                  services_);
}

void RouterServiceHandlerFactory::releaseHandler(
    client::THBaseServiceIf* handler) {
  // Only getHandler's handlers come back here; THBaseServiceIf is a virtual
  // base, so only a dynamic_cast reaches the handler.
  auto* mine = dynamic_cast<RouterServiceHandler*>(handler);
  router_->CloseScanners(mine->client());
  // What is kept of scanners that closed, with the connection or by
  // expiry, goes too.
  services_.scanners->RemoveIf(
      [&](int32_t id) { return router_->ScannerTable(id).empty(); });
  delete mine;
}

// ---- Gets ----

bool RouterServiceHandler::exists(const std::string& table,
                                  const client::TGet& tget) {
  bool found = false;
  ServeHBaseCall("exists", [&]() -> Status {
    std::vector<HBaseGet> gets(1);
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tget, &gets[0]));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<bool> answer,
                                ExistsAll(*router_, table, std::move(gets)));
    found = answer.at(0);
    return Status::OK();
  });
  return found;
}

void RouterServiceHandler::existsAll(std::vector<bool>& result,
                                     const std::string& table,
                                     const std::vector<client::TGet>& tgets) {
  ServeHBaseCall("existsAll", [&]() -> Status {
    std::vector<HBaseGet> gets;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tgets, &gets));
    BLOOMROUTE_ASSIGN_OR_RETURN(result,
                                ExistsAll(*router_, table, std::move(gets)));
    return Status::OK();
  });
}

void RouterServiceHandler::get(client::TResult& result,
                               const std::string& table,
                               const client::TGet& tget) {
  ServeHBaseCall("get", [&]() -> Status {
    std::vector<HBaseGet> gets(1);
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tget, &gets[0]));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows,
                                GetAll(*router_, table, std::move(gets)));
    std::vector<client::TResult> results;
    BLOOMROUTE_RETURN_IF_ERROR(ToThrift(rows, &results));
    result = std::move(results.at(0));
    return Status::OK();
  });
}

void RouterServiceHandler::getMultiple(std::vector<client::TResult>& result,
                                       const std::string& table,
                                       const std::vector<client::TGet>& tgets) {
  ServeHBaseCall("getMultiple", [&]() -> Status {
    std::vector<HBaseGet> gets;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tgets, &gets));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows,
                                GetAll(*router_, table, std::move(gets)));
    return ToThrift(rows, &result);
  });
}

// ---- Mutations ----

void RouterServiceHandler::put(const std::string& table,
                               const client::TPut& tput) {
  ServeHBaseCall("put", [&]() -> Status {
    std::vector<Mutation> mutations(1);
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tput, &mutations[0]));
    return ApplyAll(*router_, table, std::move(mutations));
  });
}

void RouterServiceHandler::putMultiple(const std::string& table,
                                       const std::vector<client::TPut>& tputs) {
  ServeHBaseCall("putMultiple", [&]() -> Status {
    std::vector<Mutation> mutations;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tputs, &mutations));
    return ApplyAll(*router_, table, std::move(mutations));
  });
}

void RouterServiceHandler::deleteSingle(const std::string& table,
                                        const client::TDelete& tdelete) {
  ServeHBaseCall("deleteSingle", [&]() -> Status {
    std::vector<Mutation> mutations(1);
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tdelete, &mutations[0]));
    return ApplyAll(*router_, table, std::move(mutations));
  });
}

void RouterServiceHandler::deleteMultiple(
    std::vector<client::TDelete>& result, const std::string& table,
    const std::vector<client::TDelete>& tdeletes) {
  ServeHBaseCall("deleteMultiple", [&]() -> Status {
    std::vector<Mutation> mutations;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tdeletes, &mutations));
    // Every delete applied or the call failed: none to return.
    result.clear();
    return ApplyAll(*router_, table, std::move(mutations));
  });
}

bool RouterServiceHandler::checkAndPut(const std::string& table,
                                       const std::string& row,
                                       const std::string& family,
                                       const std::string& qualifier,
                                       const std::string& value,
                                       const client::TPut& tput) {
  return CheckAndApplyOne(*router_, "checkAndPut", "tput", table, row, family,
                          qualifier, value, tput);
}

bool RouterServiceHandler::checkAndDelete(const std::string& table,
                                          const std::string& row,
                                          const std::string& family,
                                          const std::string& qualifier,
                                          const std::string& value,
                                          const client::TDelete& tdelete) {
  return CheckAndApplyOne(*router_, "checkAndDelete", "tdelete", table, row,
                          family, qualifier, value, tdelete);
}

bool RouterServiceHandler::checkAndMutate(
    const std::string& table, const std::string& row, const std::string& family,
    const std::string& qualifier, int32_t compare_operator,
    const std::string& value, const client::TRowMutations& row_mutations) {
  bool applied = false;
  ServeHBaseCall("checkAndMutate", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    HBaseCheck check;
    BLOOMROUTE_RETURN_IF_ERROR(CheckFromThrift(row, family, qualifier, value,
                                               compare_operator, &check));
    std::vector<Mutation> mutations;
    BLOOMROUTE_RETURN_IF_ERROR(
        FromThrift(row_mutations, "rowMutations", &mutations));
    if (row_mutations.row != row) {
      return Status::InvalidArgument("rowMutations.row is not the row checked");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        applied,
        RouterCheckAndMutate(*router_, name, check, std::move(mutations)));
    return Status::OK();
  });
  return applied;
}

void RouterServiceHandler::mutateRow(
    const std::string& table, const client::TRowMutations& trow_mutations) {
  ServeHBaseCall("mutateRow", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    std::vector<Mutation> mutations;
    BLOOMROUTE_RETURN_IF_ERROR(
        FromThrift(trow_mutations, "trowMutations", &mutations));
    return router_->MutateRow(name, trow_mutations.row, std::move(mutations));
  });
}

void RouterServiceHandler::increment(client::TResult& result,
                                     const std::string& table,
                                     const client::TIncrement& tincrement) {
  ServeHBaseCall("increment", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    HBaseIncrement increment;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tincrement, &increment));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::optional<Row> row,
                                RouterIncrement(*router_, name, increment));
    std::vector<client::TResult> results;
    BLOOMROUTE_RETURN_IF_ERROR(ToThrift({std::move(row)}, &results));
    result = std::move(results.at(0));
    return Status::OK();
  });
}

void RouterServiceHandler::append(client::TResult& result,
                                  const std::string& table,
                                  const client::TAppend& tappend) {
  ServeHBaseCall("append", [&]() -> Status {
    std::string name;
    BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
    HBaseAppend append;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tappend, &append));
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::optional<Row> row,
        RouterAppend(*router_, name, std::move(append)));
    std::vector<client::TResult> results;
    BLOOMROUTE_RETURN_IF_ERROR(ToThrift({std::move(row)}, &results));
    result = std::move(results.at(0));
    return Status::OK();
  });
}

// ---- Scanners ----

StatusOr<int32_t> RouterServiceHandler::OpenHBaseScanner(
    const std::string& table, const client::TScan& tscan) {
  std::string name;
  BLOOMROUTE_RETURN_IF_ERROR(TableFromThrift(table, &name));
  HBaseScan scan;
  BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tscan, &scan));
  // Under TLS each scanner counts against its user too, over all of the
  // user's connections (RouterOptions::max_scanners_per_principal), and is
  // the user's: any of its connections may use it.
  const std::string principal = CallerPrincipal();
  BLOOMROUTE_ASSIGN_OR_RETURN(
      int64_t id, router_->OpenScanner(name, scan.spec, client_, principal));
  if (id <= 0 || id > std::numeric_limits<int32_t>::max()) {
    (void)router_->CloseScanner(id, client_, principal);
    return Status::IOError("the router opened scanner " + std::to_string(id) +
                           ", which does not fit the wire's i32");
  }
  const auto scanner = static_cast<int32_t>(id);
  scanners_->Add(scanner, {scan.limit, scan.batch_cells, client_, principal});
  return scanner;
}

Status RouterServiceHandler::ScannerRows(int32_t scanner, int32_t num_rows,
                                         int64_t call_seq,
                                         std::vector<client::TResult>* result) {
  uint32_t max_rows = 0;
  BLOOMROUTE_RETURN_IF_ERROR(CountFromThrift(num_rows, "numRows", &max_rows));
  if (call_seq < 0) {
    return Status::InvalidArgument("callSeq must not be negative");
  }
  // numRows 0 still asks the router: it answers no rows for a scanner of
  // this caller, NotFound for another (HBase checks the id too). What is
  // kept of a scanner is shared by the connections: served to its owners
  // alone, by the router's rule.
  const std::string principal = CallerPrincipal();
  if (!scanners_->MayRead(scanner, client_, principal)) {
    return Status::NotFound("scanner " + std::to_string(scanner) +
                            " is not open (closed, expired or never opened)");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::vector<thrift_internal::ScannerResult> results,
      scanners_->Next(scanner, max_rows, static_cast<uint64_t>(call_seq),
                      [&](uint32_t rows, uint64_t seq) {
                        return router_->ScannerNext(scanner, rows, seq, client_,
                                                    principal);
                      }));
  std::vector<Row> rows(results.size());
  for (size_t i = 0; i < results.size(); ++i) {
    rows[i] = std::move(results[i].row);
  }
  BLOOMROUTE_RETURN_IF_ERROR(ToThrift(std::move(rows), result));
  // A part of a row but its last (TScan.batchSize): HBase's
  // Result.mayHaveMoreCellsInRow.
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].partial) (*result)[i].__set_partial(true);
  }
  return Status::OK();
}

int32_t RouterServiceHandler::openScanner(const std::string& table,
                                          const client::TScan& tscan) {
  int32_t scanner = 0;
  ServeHBaseCall("openScanner", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(scanner, OpenHBaseScanner(table, tscan));
    return Status::OK();
  });
  return scanner;
}

void RouterServiceHandler::getScannerRows(std::vector<client::TResult>& result,
                                          int32_t scanner_id, int32_t num_rows,
                                          int64_t call_seq) {
  // Declares TIllegalArgument too: an unknown scanner is one (as HBase's).
  ServeCall("getScannerRows", [&]() -> Status {
    return ScannerRows(scanner_id, num_rows, call_seq, &result);
  });
}

void RouterServiceHandler::closeScanner(int32_t scanner_id) {
  ServeCall("closeScanner", [&]() -> Status {
    const Status closed =
        router_->CloseScanner(scanner_id, client_, CallerPrincipal());
    if (closed.ok()) scanners_->Remove(scanner_id);
    return closed;
  });
}

void RouterServiceHandler::getScannerResults(
    std::vector<client::TResult>& result, const std::string& table,
    const client::TScan& tscan, int32_t num_rows) {
  ServeHBaseCall("getScannerResults", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(int32_t scanner,
                                OpenHBaseScanner(table, tscan));
    const Status read = ScannerRows(scanner, num_rows, /*call_seq=*/0, &result);
    scanners_->Remove(scanner);
    const Status closed =
        router_->CloseScanner(scanner, client_, CallerPrincipal());
    return read.ok() ? closed : read;
  });
}

}  // namespace bloomroute
