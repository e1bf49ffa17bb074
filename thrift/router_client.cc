#include "thrift/router_client.h"

#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "thrift/conversion/admin_conversion.h"
#include "thrift/conversion/hbase_conversion.h"
#include "thrift/conversion/index_conversion.h"
#include "thrift/conversion/members_conversion.h"
#include "thrift/gen-cpp/RouterService.h"
#include "thrift/gen-cpp/errors_types.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/client_pool.h"
#include "thrift/internal/router_list.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;

Status OpResultFromThrift(const client::TRegionOpResult& in,
                          router::RegionOpResult* out) {
  return thrift_internal::RegionOpResultFromThrift(in, "result", out);
}
using Service = client::RouterServiceClient;
using Pool = thrift_internal::ClientPool<Service>;
using thrift_internal::Reach;
using thrift_internal::Resend;
using thrift_internal::Unsendable;

// Calls sent again after a lost reply, and those that are not, with what to
// look at before trying again (router_client.h lists each call's choice).
constexpr Resend kIdempotent{true, nullptr};
constexpr Resend kTableChange{false, "describe the table"};
constexpr Resend kRowChange{false, "read the row"};
constexpr Resend kIndexChange{false, "see the index status"};
constexpr Resend kServerChange{false, "list the servers"};
constexpr Resend kRegionChange{false, "list the regions"};

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
// With a list of routers the client moves on to the next one by itself: the
// advice to name another is for a list of one.
Status ExplainConnectFailure(const std::string& address, bool only_router,
                             const thrift_internal::NewConnectionFailure& f,
                             const Status& failure) {
  using thrift_internal::ConnectProblem;
  const std::string router = "the router at " + address;
  switch (f.problem) {
    case ConnectProblem::kCannotConnect:
      return Status::Unavailable(
          "cannot connect to " + router + ": " + f.reason +
          (only_router
               ? " (is it running? name another with --router HOST:PORT)"
               : ""));
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

// A scanner as the client names it: the router that opened it (its
// position in the list) and that router's i32 id (HBase's).
struct PinnedScanner {
  size_t router = 0;
  int32_t id = 0;
};

int64_t ScannerHandle(size_t router, int32_t id) {
  return static_cast<int64_t>(router) << 32 | static_cast<uint32_t>(id);
}

// A handle that names no router of the list was never one this client gave.
StatusOr<PinnedScanner> ScannerOfHandle(int64_t scanner, size_t routers) {
  const uint64_t router = static_cast<uint64_t>(scanner) >> 32;
  if (scanner < 0 || router >= routers) {
    return Status::NotFound("scanner " + std::to_string(scanner) +
                            " is not open (it names no router of the list)");
  }
  return PinnedScanner{static_cast<size_t>(router),
                       static_cast<int32_t>(scanner & 0xffffffff)};
}

// HBase's TIncrement of the columns ("family:qualifier").
Status IncrementToThrift(const std::string& row,
                         const std::vector<ColumnIncrement>& increments,
                         client::TIncrement* out) {
  if (increments.empty()) {
    return Status::InvalidArgument("an increment names no column");
  }
  out->__set_row(row);
  for (const ColumnIncrement& c : increments) {
    const size_t colon = c.column.find(':');
    if (colon == std::string::npos) {
      return Status::InvalidArgument("increment column '" + c.column +
                                     "' is not family:qualifier");
    }
    client::TColumnIncrement column;
    column.__set_family(c.column.substr(0, colon));
    column.__set_qualifier(c.column.substr(colon + 1));
    column.__set_amount(c.amount);
    out->columns.push_back(std::move(column));
  }
  out->__set_returnResults(true);
  return Status::OK();
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

// One router of the list: where it is.
struct Endpoint {
  std::string address;  // as given, for messages
  std::string host;
  int port = 0;
};

class ThriftRouterClient final : public RouterClient {
 public:
  ThriftRouterClient(std::string given, const std::vector<Endpoint>& routers,
                     const RouterClientOptions& options,
                     const RouterListOptions& list_options)
      : address_(std::move(given)), list_(Addresses(routers), list_options) {
    const bool only_router = routers.size() == 1;
    for (const Endpoint& router : routers) {
      pools_.push_back(std::make_unique<Pool>(
          router.host, router.port, options, Authenticator(options.token),
          [address = router.address, only_router](
              const thrift_internal::NewConnectionFailure& f,
              const Status& failure) {
            return ExplainConnectFailure(address, only_router, f, failure);
          }));
    }
  }

  const std::string& address() const override { return address_; }

  StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) override {
    client::TTableSpec request;
    BLOOMROUTE_RETURN_IF_ERROR(
        thrift_internal::TableSpecToThrift(spec, &request));
    return Fetch<router::TableInfo, client::TTableInfo>(
        "createIndexedTable", kTableChange,
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
    return Call("deleteTable", kTableChange,
                [&](Service& s) { s.deleteTable(name); });
  }

  Status DisableTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("disableTable", kTableChange,
                [&](Service& s) { s.disableTable(name); });
  }

  Status EnableTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("enableTable", kTableChange,
                [&](Service& s) { s.enableTable(name); });
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
    return Call("truncateTable", kTableChange,
                [&](Service& s) { s.truncateTable(name, preserve_splits); });
  }

  Status DeleteDisabledTable(std::string_view table) override {
    const client::TTableName name = TableName(table);
    return Call("deleteTable", kTableChange,
                [&](Service& s) { s.deleteTable(name); });
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
    size_t router = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Call(
        "openScanner", kIdempotent,
        [&](Service& s) { id = s.openScanner(name, scan); }, &router));
    return ScannerHandle(router, id);
  }

  StatusOr<std::vector<Row>> ScannerNext(int64_t scanner,
                                         uint32_t max_rows) override {
    int32_t rows = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(max_rows, "max_rows", &rows)));
    BLOOMROUTE_ASSIGN_OR_RETURN(const PinnedScanner at,
                                ScannerOfHandle(scanner, list_.size()));
    std::vector<client::TResult> reply;
    BLOOMROUTE_RETURN_IF_ERROR(
        Pinned(at.router, "getScannerRows", [&](Service& s) {
          s.getScannerRows(reply, at.id, rows, /*callSeq=*/0);
        }));
    std::vector<Row> out;
    const Status converted =
        thrift_internal::RowsFromHBase(reply, "result", &out);
    if (!converted.ok()) {
      return Status::Corruption(Where(at.router, "getScannerRows") +
                                converted.message());
    }
    return out;
  }

  bool ScannerLost(int64_t scanner) const override {
    StatusOr<PinnedScanner> at = ScannerOfHandle(scanner, list_.size());
    return at.ok() && list_.InBackoff(at->router);
  }

  Status CloseScanner(int64_t scanner) override {
    BLOOMROUTE_ASSIGN_OR_RETURN(const PinnedScanner at,
                                ScannerOfHandle(scanner, list_.size()));
    // A router that failed since took the scanner's connection, and with it
    // the scanner, along.
    if (list_.InBackoff(at.router)) return Status::OK();
    return Pinned(at.router, "closeScanner",
                  [&](Service& s) { s.closeScanner(at.id); });
  }

  StatusOr<std::optional<Row>> Increment(
      std::string_view table, const std::string& row,
      const std::vector<ColumnIncrement>& increments) override {
    const std::string name(table);
    client::TIncrement request;
    BLOOMROUTE_RETURN_IF_ERROR(IncrementToThrift(row, increments, &request));
    return Fetch<std::optional<Row>, client::TResult>(
        "increment", kRowChange,
        [&](Service& s, client::TResult& r) { s.increment(r, name, request); },
        [](const client::TResult& in, std::optional<Row>* out) {
          std::vector<std::optional<Row>> rows;
          BLOOMROUTE_RETURN_IF_ERROR(
              thrift_internal::OptionalRowsFromHBase({in}, "result", &rows));
          *out = std::move(rows.at(0));
          return Status::OK();
        });
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

  StatusOr<coord::ClusterMembers> ClusterMembers() override {
    return Fetch<coord::ClusterMembers, client::TClusterMembers>(
        "getClusterMembers",
        [](Service& s, client::TClusterMembers& r) { s.getClusterMembers(r); },
        MembersFromThrift);
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
        "addServer", kServerChange,
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
    return Call("setServerAddress", kServerChange,
                [&](Service& s) { s.setServerAddress(wire, address); });
  }

  Status RemoveServer(router::ServerId id) override {
    int32_t wire = 0;
    BLOOMROUTE_RETURN_IF_ERROR(
        Unsendable(thrift_internal::Widen(id, "server id", &wire)));
    return Call("removeServer", kServerChange,
                [&](Service& s) { s.removeServer(wire); });
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
        "moveRegion", kRegionChange,
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
        "splitRegion", kRegionChange,
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
        "mergeRegions", kRegionChange,
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
        "balance", kRegionChange,
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
        "decommissionServer", kRegionChange,
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

  Status ChangeGrant(const router::Grant& grant,
                     router::GrantChange change) override {
    client::TAccessControlEntity wire;
    wire.username = grant.user;
    wire.actions = grant.actions;
    if (grant.is_namespace()) {
      wire.scope = client::TPermissionScope::NAMESPACE;
      wire.__set_nsName(grant.ns);
    } else {
      wire.scope = client::TPermissionScope::TABLE;
      wire.__set_tableName(grant.table);
    }
    if (change == router::GrantChange::kGrant) {
      return Call("grant", [&](Service& s) { s.grant(wire); });
    }
    return Call("revoke", [&](Service& s) { s.revoke(wire); });
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
    return Call("addIndex", kIndexChange,
                [&](Service& s) { s.addIndex(name, column); });
  }

  Status DropIndex(std::string_view table, const std::string& column) override {
    const std::string name(table);
    return Call("dropIndex", kIndexChange,
                [&](Service& s) { s.dropIndex(name, column); });
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
  static std::vector<std::string> Addresses(
      const std::vector<Endpoint>& routers) {
    std::vector<std::string> out;
    for (const Endpoint& router : routers) out.push_back(router.address);
    return out;
  }

  std::string Where(size_t router, const char* method) const {
    return "router " + list_.address(router) + ": " + method + ": ";
  }

  // One attempt on `router`. `reach` says how far it got: sent once the
  // connection is made (and authenticated), answered when the router
  // replied with a declared error (a result returns OK).
  template <typename CallFn>
  Status Attempt(size_t router, const char* method, Reach* reach,
                 CallFn& call) {
    return pools_[router]->Call(Where(router, method), [&](Service& s) {
      *reach = Reach::kSent;
      try {
        call(s);
      } catch (const rpc::TIOError&) {
        *reach = Reach::kAnswered;
        throw;
      } catch (const rpc::TIllegalArgument&) {
        *reach = Reach::kAnswered;
        throw;
      }
    });
  }

  // A call on the list (RouterList::Run); `answered` (when given) gets the
  // router that answered.
  template <typename CallFn>
  Status Call(const char* method, const Resend& resend, CallFn&& call,
              size_t* answered = nullptr) {
    return list_.Run(method, resend, [&](size_t router, Reach* reach) {
      if (answered != nullptr) *answered = router;
      return Attempt(router, method, reach, call);
    });
  }
  template <typename CallFn>
  Status Call(const char* method, CallFn&& call) {
    return Call(method, kIdempotent, std::forward<CallFn>(call));
  }

  // A call that only `router` can answer (a scanner's).
  template <typename CallFn>
  Status Pinned(size_t router, const char* method, CallFn&& call) {
    Reach reach = Reach::kNotSent;
    Status status = Attempt(router, method, &reach, call);
    list_.Record(router, status, reach);
    return status;
  }

  // Call() for a method with a reply: `call(service, reply)` fills it and
  // `convert(reply, &result)` turns it into Result; a reply that does not
  // convert is Corruption, naming the router.
  template <typename Result, typename Reply, typename CallFn,
            typename ConvertFn>
  StatusOr<Result> Fetch(const char* method, const Resend& resend,
                         CallFn&& call, ConvertFn&& convert) {
    Reply reply;
    size_t router = 0;
    BLOOMROUTE_RETURN_IF_ERROR(Call(
        method, resend, [&](Service& s) { call(s, reply); }, &router));
    Result result;
    const Status converted = convert(reply, &result);
    if (!converted.ok()) {
      return Status::Corruption(Where(router, method) + converted.message());
    }
    return result;
  }
  template <typename Result, typename Reply, typename CallFn,
            typename ConvertFn>
  StatusOr<Result> Fetch(const char* method, CallFn&& call,
                         ConvertFn&& convert) {
    return Fetch<Result, Reply>(method, kIdempotent, std::forward<CallFn>(call),
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

  const std::string address_;  // the list as given
  thrift_internal::RouterList list_;
  std::vector<std::unique_ptr<Pool>> pools_;  // one per router of list_
};

}  // namespace

StatusOr<std::unique_ptr<RouterClient>> ConnectRouter(
    const std::string& routers, const RouterClientOptions& options,
    const RouterListOptions& list_options) {
  BLOOMROUTE_RETURN_IF_ERROR(options.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(list_options.Validate());
  BLOOMROUTE_ASSIGN_OR_RETURN(const std::vector<std::string> addresses,
                              ParseRouterList(routers));
  std::vector<Endpoint> endpoints;
  for (const std::string& address : addresses) {
    Endpoint endpoint{address, "", 0};
    // ParseRouterList accepted it.
    BLOOMROUTE_RETURN_IF_ERROR(
        ParseListenAddress(address, &endpoint.host, &endpoint.port));
    endpoints.push_back(std::move(endpoint));
  }
  return std::unique_ptr<RouterClient>(std::make_unique<ThriftRouterClient>(
      routers, endpoints, options, list_options));
}

}  // namespace bloomroute
