#include "thrift/router_client.h"

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/gen-cpp/RouterService.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/client_pool.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;

Status OpResultFromThrift(const client::TRegionOpResult& in,
                          router::RegionOpResult* out) {
  return thrift_internal::RegionOpResultFromThrift(in, "result", out);
}
using Service = client::RouterServiceClient;
using thrift_internal::Unsendable;

// Each new connection first presents the token, when there is one; a
// refused token fails the call that opened it (PermissionDenied).
thrift_internal::ClientPool<Service>::OpenFn Authenticator(std::string token) {
  if (token.empty()) return nullptr;
  return [token = std::move(token)](Service& service) {
    service.authenticate(token);
  };
}

// A new connection's failure, said in the words of the command line's
// flags (--router, --tls-ca): RouterClient serves the tools. A mismatch of
// TLS is the caller's configuration, not the network's: InvalidArgument, not
// retried. Where the client cannot be sure (a connection closed without a
// word), the advice is conditional.
Status ExplainConnectFailure(const std::string& address,
                             const thrift_internal::NewConnectionFailure& f,
                             const Status& failure) {
  using thrift_internal::ConnectProblem;
  const std::string router = "the router at " + address;
  switch (f.problem) {
    case ConnectProblem::kCannotConnect:
      return Status::Unavailable(
          "cannot connect to " + router + ": " + f.reason +
          " (is it running? name another with --router HOST:PORT)");
    case ConnectProblem::kSpeaksTls:
      return Status::InvalidArgument(
          router +
          " speaks TLS: give --tls-ca FILE, the CA that signed its "
          "certificate");
    case ConnectProblem::kClosedBeforeReply:
      return Status::Unavailable(
          router +
          " closed the connection before answering: if it runs with TLS, "
          "give --tls-ca FILE");
    case ConnectProblem::kSpeaksPlaintext:
      return Status::InvalidArgument(
          router +
          " does not speak TLS: drop --tls-ca, or name its TLS port "
          "with --router HOST:PORT");
    case ConnectProblem::kClosedInHandshake:
      return Status::Unavailable(
          router +
          " closed the connection during the TLS handshake: if it runs "
          "without TLS, drop --tls-ca");
    case ConnectProblem::kNone:
      break;
  }
  return failure;
}

// Scanner ids are i32 on the wire (HBase's): an id that does not fit was
// never one the router gave.
StatusOr<int32_t> ScannerIdToThrift(int64_t scanner) {
  if (scanner < std::numeric_limits<int32_t>::min() ||
      scanner > std::numeric_limits<int32_t>::max()) {
    return Status::NotFound("scanner " + std::to_string(scanner) +
                            " is not open (router scanner ids are 32-bit)");
  }
  return static_cast<int32_t>(scanner);
}

// Whether `s` is the router's refusal to disable a table already disabled
// (router::Router::DisableTable: InvalidArgument "table 'T' is not enabled").
bool IsNotEnabled(const Status& s) {
  return s.code() == Status::Code::kInvalidArgument &&
         s.message().find("is not enabled") != std::string::npos;
}

client::TTableName TableName(std::string_view table) {
  client::TTableName name;
  name.__set_qualifier(std::string(table));
  return name;
}

class ThriftRouterClient final : public RouterClient {
 public:
  ThriftRouterClient(std::string address, std::string host, int port,
                     const RouterClientOptions& options)
      : address_(std::move(address)),
        pool_(std::move(host), port, options, Authenticator(options.token),
              [this](const thrift_internal::NewConnectionFailure& f,
                     const Status& failure) {
                return ExplainConnectFailure(address_, f, failure);
              }) {}

  const std::string& address() const override { return address_; }

  StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) override {
    client::TTableSpec request;
    BLOOMROUTE_RETURN_IF_ERROR(
        thrift_internal::TableSpecToThrift(spec, &request));
    return Fetch<router::TableInfo, client::TTableInfo>(
        "createIndexedTable",
        [&](Service& s, client::TTableInfo& r) {
          s.createIndexedTable(r, request);
        },
        thrift_internal::TableInfoFromThrift);
  }

  Status DeleteTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    // HBase's deleteTable wants the table disabled; this deletes an enabled
    // table too. A table already disabled answers "is not enabled".
    Status disabled =
        Call("disableTable", [&](Service& s) { s.disableTable(name); });
    if (!disabled.ok() && !IsNotEnabled(disabled)) return disabled;
    return Call("deleteTable", [&](Service& s) { s.deleteTable(name); });
  }

  Status DisableTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("disableTable", [&](Service& s) { s.disableTable(name); });
  }

  Status EnableTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("enableTable", [&](Service& s) { s.enableTable(name); });
  }

  StatusOr<bool> IsTableEnabled(std::string_view table) override {
    const client::TTableName name = TableName(table);
    bool enabled = false;
    BLOOMROUTE_RETURN_IF_ERROR(Call("isTableEnabled", [&](Service& s) {
      enabled = s.isTableEnabled(name);
    }));
    return enabled;
  }

  Status TruncateTable(std::string_view table, bool preserve_splits) override {
    const client::TTableName name = TableName(table);
    return Call("truncateTable",
                [&](Service& s) { s.truncateTable(name, preserve_splits); });
  }

  Status DeleteDisabledTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("deleteTable", [&](Service& s) { s.deleteTable(name); });
  }

  StatusOr<std::vector<TableDescriptor>> ListTables() override {
    return Fetch<std::vector<TableDescriptor>,
                 std::vector<client::TIndexedTable>>(
        "listTables",
        [](Service& s, std::vector<client::TIndexedTable>& r) {
          s.listTables(r);
        },
        thrift_internal::DescriptorsFromThrift);
  }

  StatusOr<router::TableInfo> DescribeTable(std::string_view table) override {
    const std::string name(table);
    return Fetch<router::TableInfo, client::TTableInfo>(
        "describeTable",
        [&](Service& s, client::TTableInfo& r) { s.describeTable(r, name); },
        thrift_internal::TableInfoFromThrift);
  }

  Status Mutate(std::string_view table,
                const std::vector<Mutation>& batch) override {
    const std::string name(table);
    // Consecutive mutations of one kind go in one call, keeping the order.
    for (size_t begin = 0; begin < batch.size();) {
      const Mutation::Kind kind = batch[begin].kind;
      size_t end = begin;
      while (end < batch.size() && batch[end].kind == kind) ++end;
      BLOOMROUTE_RETURN_IF_ERROR(kind == Mutation::Kind::kPut
                                     ? SendPuts(name, batch, begin, end)
                                     : SendDeletes(name, batch, begin, end));
      begin = end;
    }
    return Status::OK();
  }

  // The router answers a prefix of the gets when its reply budget is spent:
  // ask again for the rest until every get is answered.
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table,
      const std::vector<GetRequest>& requests) override {
    std::vector<std::optional<Row>> out;
    while (out.size() < requests.size()) {
      BLOOMROUTE_ASSIGN_OR_RETURN(
          std::vector<std::optional<Row>> part,
          GetPrefix(table, std::vector<GetRequest>(
                               requests.begin() + out.size(), requests.end())));
      if (part.empty() || part.size() > requests.size() - out.size()) {
        return Status::Corruption(
            "router " + address_ + ": getMultiple answered " +
            std::to_string(part.size()) + " of " +
            std::to_string(requests.size() - out.size()) + " gets");
      }
      for (std::optional<Row>& row : part) out.push_back(std::move(row));
    }
    return out;
  }

  StatusOr<std::vector<std::optional<Row>>> GetPrefix(
      std::string_view table, const std::vector<GetRequest>& requests) {
    const std::string name(table);
    const std::vector<client::TGet> gets =
        thrift_internal::GetsToThrift(requests);
    return Fetch<std::vector<std::optional<Row>>, std::vector<client::TResult>>(
        "getMultiple",
        [&](Service& s, std::vector<client::TResult>& r) {
          s.getMultiple(r, name, gets);
        },
        [](const std::vector<client::TResult>& in,
           std::vector<std::optional<Row>>* out) {
          return thrift_internal::OptionalRowsFromHBase(in, "result", out);
        });
  }

  StatusOr<int64_t> OpenScanner(std::string_view table,
                                const router::ScanSpec& spec) override {
    const std::string name(table);
    const client::TScan scan = thrift_internal::ScanToThrift(spec);
    int32_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Call(
        "openScanner", [&](Service& s) { id = s.openScanner(name, scan); }));
    return id;
  }

  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner,
                                         uint32_t max_rows) override {
    int32_t rows = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(max_rows, "max_rows", &rows)));
    BLOOMROUTE_ASSIGN_OR_RETURN(const int32_t id, ScannerIdToThrift(scanner));
    return Fetch<std::vector<Row>, std::vector<client::TResult>>(
        "getScannerRows",
        [&](Service& s, std::vector<client::TResult>& r) {
          s.getScannerRows(r, id, rows, /*callSeq=*/0);
        },
        [](const std::vector<client::TResult>& in, std::vector<Row>* out) {
          return thrift_internal::RowsFromHBase(in, "result", out);
        });
  }

  Status CloseScanner(int64_t scanner) override {
    BLOOMROUTE_ASSIGN_OR_RETURN(const int32_t id, ScannerIdToThrift(scanner));
    return Call("closeScanner", [&](Service& s) { s.closeScanner(id); });
  }

  StatusOr<router::LookupResult> Lookup(
      std::string_view table, const router::LookupSpec& spec) override {
    const std::string name(table);
    client::TIndexQuery query;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::QueryToThrift(spec, &query));
    return Fetch<router::LookupResult, client::TIndexResult>(
        "getByIndex",
        [&](Service& s, client::TIndexResult& r) {
          s.getByIndex(r, name, query);
        },
        thrift_internal::LookupResultFromThrift);
  }

  StatusOr<router::CountResult> Count(std::string_view table,
                                      const router::LookupSpec& spec) override {
    const std::string name(table);
    client::TIndexQuery query;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::QueryToThrift(spec, &query));
    return Fetch<router::CountResult, client::TIndexCount>(
        "countByIndex",
        [&](Service& s, client::TIndexCount& r) {
          s.countByIndex(r, name, query);
        },
        thrift_internal::CountResultFromThrift);
  }

  StatusOr<std::vector<router::ServerIndexStats>> IndexStats() override {
    return Fetch<std::vector<router::ServerIndexStats>,
                 std::vector<client::TServerIndexStats>>(
        "getIndexStats",
        [](Service& s, std::vector<client::TServerIndexStats>& r) {
          s.getIndexStats(r);
        },
        thrift_internal::IndexStatsFromThrift);
  }

  StatusOr<router::ClusterStatus> GetClusterStatus() override {
    return Fetch<router::ClusterStatus, client::TClusterStatus>(
        "getClusterStatus",
        [](Service& s, client::TClusterStatus& r) { s.getClusterStatus(r); },
        thrift_internal::ClusterStatusFromThrift);
  }

  StatusOr<std::vector<router::ServerSummary>> ListServers() override {
    return Fetch<std::vector<router::ServerSummary>,
                 std::vector<client::TServerSummary>>(
        "listServers",
        [](Service& s, std::vector<client::TServerSummary>& r) {
          s.listServers(r);
        },
        thrift_internal::ServerSummariesFromThrift);
  }

  StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view table) override {
    const std::string name(table);
    return Fetch<std::vector<router::RegionSummary>,
                 std::vector<client::TRegionSummary>>(
        "listRegions",
        [&](Service& s, std::vector<client::TRegionSummary>& r) {
          s.listRegions(r, name);
        },
        thrift_internal::RegionSummariesFromThrift);
  }

  StatusOr<router::ServerRef> AddServer(const std::string& address) override {
    return Fetch<router::ServerRef, client::TServerRef>(
        "addServer",
        [&](Service& s, client::TServerRef& r) { s.addServer(r, address); },
        [](const client::TServerRef& in, router::ServerRef* out) {
          return thrift_internal::ServerFromThrift(in, "server", out);
        });
  }

  Status SetServerAddress(router::ServerId id,
                          const std::string& address) override {
    int32_t wire = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(id, "server id", &wire)));
    return Call("setServerAddress",
                [&](Service& s) { s.setServerAddress(wire, address); });
  }

  Status RemoveServer(router::ServerId id) override {
    int32_t wire = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(id, "server id", &wire)));
    return Call("removeServer", [&](Service& s) { s.removeServer(wire); });
  }

  StatusOr<router::RegionOpResult> MoveRegion(uint64_t region_id,
                                              router::ServerId to) override {
    int64_t region = 0;
    int32_t server = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(region_id, "region_id", &region)));
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(to, "server id", &server)));
    return Fetch<router::RegionOpResult, client::TRegionOpResult>(
        "moveRegion",
        [&](Service& s, client::TRegionOpResult& r) {
          s.moveRegion(r, region, server);
        },
        OpResultFromThrift);
  }

  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region_id,
      const std::optional<std::string>& split_row) override {
    int64_t region = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(region_id, "region_id", &region)));
    if (split_row && split_row->empty()) {
      return Status::InvalidArgument("the split row is empty");
    }
    const std::string row = split_row.value_or(std::string());
    return Fetch<router::RegionOpResult, client::TRegionOpResult>(
        "splitRegion",
        [&](Service& s, client::TRegionOpResult& r) {
          s.splitRegion(r, region, row);
        },
        OpResultFromThrift);
  }

  StatusOr<router::RegionOpResult> MergeRegions(uint64_t region_a,
                                                uint64_t region_b) override {
    int64_t a = 0, b = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(region_a, "region_a", &a)));
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(region_b, "region_b", &b)));
    return Fetch<router::RegionOpResult, client::TRegionOpResult>(
        "mergeRegions",
        [&](Service& s, client::TRegionOpResult& r) {
          s.mergeRegions(r, a, b);
        },
        OpResultFromThrift);
  }

  StatusOr<router::BalanceReport> Balance(uint32_t max_operations) override {
    int32_t wire = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Unsendable(
        thrift_internal::Widen(max_operations, "max_operations", &wire)));
    return Fetch<router::BalanceReport, client::TBalanceReport>(
        "balance",
        [&](Service& s, client::TBalanceReport& r) { s.balance(r, wire); },
        thrift_internal::BalanceReportFromThrift);
  }

  StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      router::ServerId id) override {
    int32_t wire = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(id, "server id", &wire)));
    return Fetch<std::vector<router::BalanceReport::Step>,
                 std::vector<client::TBalanceStep>>(
        "decommissionServer",
        [&](Service& s, std::vector<client::TBalanceStep>& r) {
          s.decommissionServer(r, wire);
        },
        [](const std::vector<client::TBalanceStep>& in,
           std::vector<router::BalanceReport::Step>* out) {
          return thrift_internal::BalanceStepsFromThrift(in, "result", out);
        });
  }

  Status SetQuota(const router::Quota& quota) override {
    client::TQuota wire;
    thrift_internal::QuotaToThrift(quota, &wire);
    return Call("setQuota", [&](Service& s) { s.setQuota(wire); });
  }

  StatusOr<std::vector<router::Quota>> ListQuotas() override {
    return Fetch<std::vector<router::Quota>, std::vector<client::TQuota>>(
        "listQuotas",
        [&](Service& s, std::vector<client::TQuota>& r) { s.listQuotas(r); },
        [](const std::vector<client::TQuota>& in,
           std::vector<router::Quota>* out) -> Status {
          if (in.size() > router::Quota::kMaxQuotas) {
            return Status::Corruption("more quotas than a router keeps");
          }
          out->resize(in.size());
          for (size_t i = 0; i < in.size(); ++i) {
            BLOOMROUTE_RETURN_IF_ERROR(
                thrift_internal::QuotaFromThrift(in[i], &(*out)[i]));
          }
          return Status::OK();
        });
  }

  Status BulkLoad(std::string_view table, uint64_t region_id,
                  const std::string& file) override {
    const std::string name(table);
    int64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(region_id, "region_id", &id)));
    return Call("bulkLoad", [&](Service& s) { s.bulkLoad(name, id, file); });
  }

  StatusOr<router::VerifyReport> VerifyIndex(std::string_view table) override {
    const std::string name(table);
    return Fetch<router::VerifyReport, client::TVerifyReport>(
        "verifyIndex",
        [&](Service& s, client::TVerifyReport& r) { s.verifyIndex(r, name); },
        thrift_internal::VerifyReportFromThrift);
  }

  Status AddIndex(std::string_view table, const std::string& column) override {
    const std::string name(table);
    return Call("addIndex", [&](Service& s) { s.addIndex(name, column); });
  }

  Status DropIndex(std::string_view table, const std::string& column) override {
    const std::string name(table);
    return Call("dropIndex", [&](Service& s) { s.dropIndex(name, column); });
  }

  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view table) override {
    const std::string name(table);
    return Fetch<std::vector<router::IndexState>,
                 std::vector<client::TIndexStatus>>(
        "getIndexStatus",
        [&](Service& s, std::vector<client::TIndexStatus>& r) {
          s.getIndexStatus(r, name);
        },
        thrift_internal::IndexStatusFromThrift);
  }

 private:
  std::string Where(const char* method) const {
    return "router " + address_ + ": " + method + ": ";
  }

  template <typename CallFn>
  Status Call(const char* method, CallFn&& call) {
    return pool_.Call(Where(method), std::forward<CallFn>(call));
  }

  template <typename Result, typename Reply, typename CallFn,
            typename ConvertFn>
  StatusOr<Result> Fetch(const char* method, CallFn&& call,
                         ConvertFn&& convert) {
    return pool_.template Fetch<Result, Reply>(
        Where(method), std::forward<CallFn>(call),
        std::forward<ConvertFn>(convert));
  }

  Status SendPuts(const std::string& table, const std::vector<Mutation>& batch,
                  size_t begin, size_t end) {
    std::vector<client::TPut> puts;
    puts.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      puts.push_back(thrift_internal::PutToThrift(batch[i]));
    }
    return Call("putMultiple", [&](Service& s) { s.putMultiple(table, puts); });
  }

  Status SendDeletes(const std::string& table,
                     const std::vector<Mutation>& batch, size_t begin,
                     size_t end) {
    std::vector<client::TDelete> deletes;
    deletes.reserve(end - begin);
    for (size_t i = begin; i < end; ++i) {
      deletes.push_back(thrift_internal::DeleteToThrift(batch[i]));
    }
    std::vector<client::TDelete> failed;
    return Call("deleteMultiple",
                [&](Service& s) { s.deleteMultiple(failed, table, deletes); });
  }

  const std::string address_;  // as given, for messages
  thrift_internal::ClientPool<Service> pool_;
};

}  // namespace

StatusOr<std::unique_ptr<RouterClient>> ConnectRouter(
    const std::string& address, const RouterClientOptions& options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  std::string host;
  int port = 0;
  const Status parsed = ParseListenAddress(address, &host, &port);
  if (!parsed.ok()) return parsed.WithContext("router address");
  if (port == 0) {
    return Status::InvalidArgument("router address '" + address +
                                   "' has port 0");
  }
  return std::unique_ptr<RouterClient>(std::make_unique<ThriftRouterClient>(
      address, std::move(host), port, options));
}

}  // namespace bloomroute
