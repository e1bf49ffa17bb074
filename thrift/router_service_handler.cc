#include "thrift/router_service_handler.h"

#include <utility>

#include "thrift/internal/serve_call.h"
#include "thrift/region_types_conversion.h"
#include "thrift/router_types_conversion.h"

namespace bloomroute {

namespace client = rpc::client;
// Every call leaves through ServeCall: see serve_call.h.
using thrift_internal::ServeCall;

namespace {

// Converts one put or delete (TPut, TDelete) and applies it.
template <typename Request>
Status MutateOne(router::Router& router, const std::string& table,
                 const Request& request) {
  Mutation mutation;
  BLOOMROUTE_RETURN_IF_ERROR(FromThrift(request, &mutation));
  return router.Mutate(table, {std::move(mutation)});
}

// Converts every put or delete first (one bad entry rejects them all) and
// applies them as one call.
template <typename Request>
Status MutateAll(router::Router& router, const std::string& table,
                 const std::vector<Request>& requests) {
  std::vector<Mutation> mutations;
  BLOOMROUTE_RETURN_IF_ERROR(FromThrift(requests, &mutations));
  return router.Mutate(table, std::move(mutations));
}

}  // namespace

RouterServiceHandler::RouterServiceHandler(
    std::shared_ptr<router::Router> router, router::ScannerClient client)
    : router_(std::move(router)), client_(client) {}

RouterServiceHandlerFactory::RouterServiceHandlerFactory(
    std::shared_ptr<router::Router> router)
    : router_(std::move(router)) {}

client::RouterServiceIf* RouterServiceHandlerFactory::getHandler(
    const apache::thrift::TConnectionInfo& /*connection*/) {
  return new RouterServiceHandler(router_, router::NewScannerClient());
}

void RouterServiceHandlerFactory::releaseHandler(
    client::RouterServiceIf* handler) {
  // Only getHandler's handlers come back here.
  auto* mine = static_cast<RouterServiceHandler*>(handler);
  router_->CloseScanners(mine->client());
  delete mine;
}

// ---- Tables ----

void RouterServiceHandler::createTable(client::TTableInfo& result,
                                       const client::TTableSpec& spec) {
  ServeCall("createTable", [&]() -> Status {
    router::TableSpec table;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(spec, &table));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                router_->CreateTable(table));
    return ToThrift(info, &result);
  });
}

void RouterServiceHandler::authenticate(const std::string& /*token*/) {
  ServeCall("authenticate", []() -> Status {
    return Status::PermissionDenied(
        "authenticate: this router serves without TLS, so it takes no "
        "token (one would cross the network in the clear); start it with "
        "--tls-ca, --tls-cert and --tls-key");
  });
}

void RouterServiceHandler::deleteTable(const std::string& table) {
  ServeCall("deleteTable",
            [&]() -> Status { return router_->DeleteTable(table); });
}

void RouterServiceHandler::listTables(
    std::vector<client::TTableDescriptor>& result) {
  ServeCall("listTables", [&]() -> Status {
    return ToThrift(router_->ListTables(), &result);
  });
}

void RouterServiceHandler::describeTable(client::TTableInfo& result,
                                         const std::string& table) {
  ServeCall("describeTable", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                                router_->DescribeTable(table));
    return ToThrift(info, &result);
  });
}

// ---- Rows ----

void RouterServiceHandler::put(const std::string& table,
                               const client::TPut& tput) {
  ServeCall("put",
            [&]() -> Status { return MutateOne(*router_, table, tput); });
}

void RouterServiceHandler::putMultiple(const std::string& table,
                                       const std::vector<client::TPut>& puts) {
  ServeCall("putMultiple",
            [&]() -> Status { return MutateAll(*router_, table, puts); });
}

void RouterServiceHandler::get(client::TResult& result,
                               const std::string& table,
                               const client::TGet& tget) {
  ServeCall("get", [&]() -> Status {
    GetRequest request;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tget, &request));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows,
                                router_->Get(table, {std::move(request)}));
    if (rows.size() != 1) {
      return Status::IOError("the router answered a get with " +
                             std::to_string(rows.size()) + " rows");
    }
    std::vector<client::TResult> results;
    BLOOMROUTE_RETURN_IF_ERROR(ToThrift(rows, &results));
    result = std::move(results[0]);
    return Status::OK();
  });
}

void RouterServiceHandler::getMultiple(std::vector<client::TResult>& result,
                                       const std::string& table,
                                       const std::vector<client::TGet>& gets) {
  ServeCall("getMultiple", [&]() -> Status {
    std::vector<GetRequest> requests;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(gets, &requests));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows,
                                router_->Get(table, std::move(requests)));
    return ToThrift(rows, &result);
  });
}

void RouterServiceHandler::deleteSingle(const std::string& table,
                                        const client::TDelete& tdelete) {
  ServeCall("deleteSingle",
            [&]() -> Status { return MutateOne(*router_, table, tdelete); });
}

void RouterServiceHandler::deleteMultiple(
    const std::string& table, const std::vector<client::TDelete>& deletes) {
  ServeCall("deleteMultiple",
            [&]() -> Status { return MutateAll(*router_, table, deletes); });
}

// ---- Scanners ----

int64_t RouterServiceHandler::openScanner(const std::string& table,
                                          const client::TScan& tscan) {
  int64_t scanner = 0;
  ServeCall("openScanner", [&]() -> Status {
    router::ScanSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tscan, &spec));
    BLOOMROUTE_ASSIGN_OR_RETURN(scanner,
                                router_->OpenScanner(table, spec, client_));
    return Status::OK();
  });
  return scanner;
}

void RouterServiceHandler::getScannerRows(std::vector<client::TResult>& result,
                                          int64_t scanner_id, int32_t num_rows,
                                          int64_t call_seq) {
  ServeCall("getScannerRows", [&]() -> Status {
    uint32_t max_rows = 0;
    BLOOMROUTE_RETURN_IF_ERROR(CountFromThrift(num_rows, "numRows", &max_rows));
    if (call_seq < 0) {
      return Status::InvalidArgument("callSeq must not be negative");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<Row> rows,
        router_->ScannerNext(scanner_id, max_rows,
                             static_cast<uint64_t>(call_seq), client_));
    return ToThrift(rows, &result);
  });
}

void RouterServiceHandler::closeScanner(int64_t scanner_id) {
  ServeCall("closeScanner", [&]() -> Status {
    return router_->CloseScanner(scanner_id, client_);
  });
}

// ---- Index lookups and status ----

void RouterServiceHandler::getByIndex(client::TIndexResult& result,
                                      const std::string& table,
                                      const client::TIndexQuery& tquery) {
  ServeCall("getByIndex", [&]() -> Status {
    router::LookupSpec spec;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(tquery, &spec));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult found,
                                router_->Lookup(table, spec));
    return ToThrift(found, &result);
  });
}

void RouterServiceHandler::getByIndexMultiple(
    std::vector<client::TIndexResult>& result, const std::string& table,
    const std::vector<client::TIndexQuery>& queries) {
  ServeCall("getByIndexMultiple", [&]() -> Status {
    // Every query is checked before the first is run.
    std::vector<router::LookupSpec> specs;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(queries, &specs));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::LookupResult> found,
                                router_->LookupMultiple(table, specs));
    result.assign(found.size(), client::TIndexResult());
    for (size_t i = 0; i < found.size(); ++i) {
      BLOOMROUTE_RETURN_IF_ERROR(ToThrift(found[i], &result[i]));
    }
    return Status::OK();
  });
}

void RouterServiceHandler::getIndexStats(
    std::vector<client::TServerIndexStats>& result) {
  ServeCall("getIndexStats", [&]() -> Status {
    return ToThrift(router_->IndexStats(), &result);
  });
}

void RouterServiceHandler::getClusterStatus(client::TClusterStatus& result) {
  ServeCall("getClusterStatus", [&]() -> Status {
    return ToThrift(router_->GetClusterStatus(), &result);
  });
}

void RouterServiceHandler::bulkLoad(const std::string& table, int64_t region_id,
                                    const std::string& file) {
  ServeCall("bulkLoad", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    return router_->BulkLoad(table, id, file);
  });
}

void RouterServiceHandler::verifyIndex(client::TVerifyReport& result,
                                       const std::string& table) {
  ServeCall("verifyIndex", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::VerifyReport report,
                                router_->VerifyIndex(table));
    return ToThrift(report, &result);
  });
}

}  // namespace bloomroute
