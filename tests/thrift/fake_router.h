// A router::Router double for adapter tests: records what it was asked,
// answers with canned results, or fails every call with a chosen Status (or
// throws, to test that nothing but the declared exceptions leaves a handler).
// Not thread-safe beyond the fault injection: one handler call at a time.
// Calls that return no Status (ListTables, IndexStats, GetClusterStatus,
// Servers, ListServers) cannot fail; they only throw when asked to.
#ifndef BLOOMROUTE_TESTS_THRIFT_FAKE_ROUTER_H_
#define BLOOMROUTE_TESTS_THRIFT_FAKE_ROUTER_H_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "router/router.h"
#include "tests/thrift/handler_test_util.h"

namespace bloomroute {

// FailWith, ThrowOnCall and calls() come from FaultInjector.
class FakeRouter : public router::Router, public testing::FaultInjector {
 public:
  FakeRouter() : FaultInjector("router exploded") {}

  // What the last calls were asked (the table they named in `table`).
  mutable std::string table;  // DescribeTable is const
  router::TableSpec spec;
  std::vector<Mutation> mutations;
  bool preserve_splits = false;  // of the last TruncateTable
  // Whether the last table deletion was DeleteTableIfDisabled (HBase's).
  bool deleted_if_disabled = false;
  mutable std::string located_row;  // of the last LocateRegion
  uint64_t bulk_region = 0;         // the arguments of the last BulkLoad
  std::string bulk_file;
  std::vector<GetRequest> gets;
  router::ScanSpec scan;
  int64_t scanner = 0;
  uint32_t max_rows = 0;
  uint64_t call_seq = 0;
  router::ScannerClient scanner_client = 0;
  std::string principal;  // of the last scanner call
  std::vector<router::ScannerClient> closed_scanner_clients;
  std::vector<router::LookupSpec> lookups;
  std::string index_column;  // of the last AddIndex / DropIndex

  // Canned answers.
  router::TableInfo table_info;
  std::vector<TableDescriptor> tables;
  std::vector<std::optional<Row>> get_result;  // one per request if empty
  int64_t opened_scanner = 42;
  std::string scanned_table;  // of the last OpenScanner
  std::vector<Row> scanner_rows;
  router::LookupResult lookup_result;
  router::CountResult count_result;
  std::vector<router::ServerIndexStats> index_stats;
  SscbfConfig filter_config_;
  router::ClusterStatus cluster_status;
  std::string cluster_id = "3f1c2a9e-7b4d-4e8f-9a01-23456789abcd";
  std::vector<router::ServerSummary> server_summaries;  // ListServers
  std::vector<router::RegionSummary> region_summaries;  // ListRegions
  // The arguments of the last AddServer / SetServerAddress / RemoveServer.
  router::ServerId server_id = 0;
  std::string server_address;
  router::VerifyReport verify_report;
  std::vector<router::IndexState> index_status;
  // Region operations: which was called ("move", "split", "merge",
  // "balance") with what, and the canned answers.
  std::string region_op;
  uint64_t region_a = 0, region_b = 0;
  router::ServerId move_to = 0;
  std::optional<std::string> split_key;
  uint32_t balance_max = 0;
  router::RegionOpResult region_op_result;
  router::BalanceReport balance_report;

  StatusOr<router::TableInfo> CreateTable(const router::TableSpec& s) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    spec = s;
    return table_info;
  }
  Status DeleteTable(std::string_view t) override {
    table = t;
    deleted_if_disabled = false;
    return Enter();
  }
  std::vector<TableDescriptor> ListTables() const override {
    EnterConst();
    return tables;
  }
  Status ModifyTable(const router::TableSpec& s) override {
    spec = s;
    return Enter();
  }
  // Namespaces: the last one asked for (by name or descriptor), and the
  // canned list.
  mutable std::string namespace_name;
  router::NamespaceDescriptor namespace_desc;
  std::vector<router::NamespaceDescriptor> namespaces;
  Status CreateNamespace(const router::NamespaceDescriptor& ns) override {
    namespace_desc = ns;
    return Enter();
  }
  Status ModifyNamespace(const router::NamespaceDescriptor& ns) override {
    namespace_desc = ns;
    return Enter();
  }
  Status DeleteNamespace(std::string_view name) override {
    namespace_name = name;
    return Enter();
  }
  StatusOr<router::NamespaceDescriptor> GetNamespace(
      std::string_view name) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    namespace_name = name;
    return namespace_desc;
  }
  std::vector<router::NamespaceDescriptor> ListNamespaces() const override {
    EnterConst();
    return namespaces;
  }
  StatusOr<std::vector<TableDescriptor>> ListTablesInNamespace(
      std::string_view name) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    namespace_name = name;
    return tables;
  }
  StatusOr<router::TableInfo> DescribeTable(std::string_view t) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    return table_info;
  }
  Status DisableTable(std::string_view t) override {
    table = t;
    return Enter();
  }
  Status EnableTable(std::string_view t) override {
    table = t;
    return Enter();
  }
  StatusOr<bool> IsTableEnabled(std::string_view t) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    return table_info.enabled;
  }
  Status DeleteTableIfDisabled(std::string_view t) override {
    table = t;
    deleted_if_disabled = true;
    return Enter();
  }
  Status AddIndex(std::string_view t, const std::string& column) override {
    table = t;
    index_column = column;
    return Enter();
  }
  Status DropIndex(std::string_view t, const std::string& column) override {
    table = t;
    index_column = column;
    return Enter();
  }
  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view t) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    return index_status;
  }
  Status TruncateTable(std::string_view t, bool preserve) override {
    table = t;
    preserve_splits = preserve;
    return Enter();
  }
  StatusOr<router::RegionLocation> LocateRegion(
      std::string_view t, std::string_view row) const override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    located_row = row;
    if (table_info.regions.empty()) return Status::NotFound("no regions");
    return table_info.regions[0];
  }
  Status BulkLoad(std::string_view t, uint64_t region,
                  const std::string& file) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    bulk_region = region;
    bulk_file = file;
    return Status::OK();
  }
  Status Mutate(std::string_view t, std::vector<Mutation> m) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    mutations = std::move(m);
    return Status::OK();
  }
  // Atomic row operations: record the row, the condition and the
  // mutations (increments / appends as one Mutation), and answer with
  // check_result / row_result.
  std::string atomic_row;
  std::optional<RowCondition> condition;
  bool check_result = true;
  Row row_result;
  StatusOr<bool> CheckAndMutate(std::string_view t, const std::string& row,
                                const RowCondition& c,
                                std::vector<Mutation> m) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    atomic_row = row;
    condition = c;
    mutations = std::move(m);
    return check_result;
  }
  StatusOr<Row> Increment(std::string_view t, const std::string& row,
                          std::vector<ColumnIncrement> increments) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    atomic_row = row;
    mutations = {Mutation::Increment(0, row, std::move(increments))};
    return row_result;
  }
  StatusOr<Row> Append(std::string_view t, const std::string& row,
                       std::vector<Cell> cells) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    atomic_row = row;
    mutations = {Mutation::Append(0, row, std::move(cells))};
    return row_result;
  }
  Status MutateRow(std::string_view t, const std::string& row,
                   std::vector<Mutation> m) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    atomic_row = row;
    mutations = std::move(m);
    return Status::OK();
  }
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view t, std::vector<GetRequest> requests) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    gets = std::move(requests);
    if (get_result.empty()) {
      return std::vector<std::optional<Row>>(gets.size());
    }
    return get_result;
  }
  StatusOr<ScanResult> Scan(std::string_view t, const router::ScanSpec& s,
                            uint32_t limit) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    scan = s;
    max_rows = limit;
    return ScanResult{scanner_rows, std::nullopt};
  }
  using Router::CloseScanner;
  using Router::OpenScanner;
  using Router::ScannerNext;
  StatusOr<int64_t> OpenScanner(std::string_view t, const router::ScanSpec& s,
                                router::ScannerClient c,
                                std::string_view who) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    scanned_table = t;
    scan = s;
    scanner_client = c;
    principal = who;
    return opened_scanner;
  }
  StatusOr<std::vector<Row>> ScannerNext(int64_t id, uint32_t n, uint64_t seq,
                                         router::ScannerClient c,
                                         std::string_view who) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    principal = who;
    scanner = id;
    max_rows = n;
    call_seq = seq;
    scanner_client = c;
    return scanner_rows;
  }
  Status CloseScanner(int64_t id, router::ScannerClient c,
                      std::string_view who) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    principal = who;
    scanner = id;
    scanner_client = c;
    return Status::OK();
  }
  void CloseScanners(router::ScannerClient c) override {
    closed_scanner_clients.push_back(c);
  }
  // Scanner opened_scanner reads the table of the last OpenScanner.
  std::string ScannerTable(int64_t id) const override {
    return id == opened_scanner ? scanned_table : std::string();
  }
  StatusOr<router::LookupResult> Lookup(std::string_view t,
                                        const router::LookupSpec& s) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    lookups.push_back(s);
    return lookup_result;
  }
  StatusOr<router::CountResult> Count(std::string_view t,
                                      const router::LookupSpec& s) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    lookups.push_back(s);
    return count_result;
  }
  // Records every spec; answers each with lookup_result.
  StatusOr<std::vector<router::LookupResult>> LookupMultiple(
      std::string_view t, const std::vector<router::LookupSpec>& s) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    lookups.insert(lookups.end(), s.begin(), s.end());
    return std::vector<router::LookupResult>(s.size(), lookup_result);
  }
  const SscbfConfig& filter_config() const override { return filter_config_; }
  std::vector<router::ServerIndexStats> IndexStats() const override {
    EnterConst();
    return index_stats;
  }
  StatusOr<router::VerifyReport> VerifyIndex(std::string_view t) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    return verify_report;
  }
  void RunMaintenance() override { EnterConst(); }
  std::string ClusterId() const override {
    EnterConst();
    return cluster_id;
  }
  router::ClusterStatus GetClusterStatus() override {
    EnterConst();
    return cluster_status;
  }
  std::vector<router::ServerRef> Servers() const override {
    EnterConst();
    return {};
  }
  StatusOr<router::ServerRef> AddServer(const std::string& address) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    server_address = address;
    return router::ServerRef{7, address};
  }
  Status SetServerAddress(router::ServerId id,
                          const std::string& address) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    server_id = id;
    server_address = address;
    return Status::OK();
  }
  Status RemoveServer(router::ServerId id) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    server_id = id;
    return Status::OK();
  }
  std::vector<router::ServerSummary> ListServers() override {
    EnterConst();
    return server_summaries;
  }
  StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view t) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    table = t;
    return region_summaries;
  }
  StatusOr<router::RegionOpResult> MoveRegion(uint64_t region,
                                              router::ServerId to) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    region_op = "move", region_a = region, move_to = to;
    return region_op_result;
  }
  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region, const std::optional<std::string>& key) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    region_op = "split", region_a = region, split_key = key;
    return region_op_result;
  }
  StatusOr<router::RegionOpResult> MergeRegions(uint64_t a,
                                                uint64_t b) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    region_op = "merge", region_a = a, region_b = b;
    return region_op_result;
  }
  StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      router::ServerId id) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    region_op = "decommission", move_to = id;
    return balance_report.steps;
  }
  // Quotas as the catalog keeps them: one per user and table, a new
  // snapshot per change.
  Status SetQuota(const router::Quota& quota) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    BLOOMROUTE_RETURN_IF_ERROR(router::ValidateQuota(quota));
    std::lock_guard<std::mutex> lock(quota_mu_);
    auto next = std::make_shared<std::vector<router::Quota>>();
    for (const router::Quota& q : *quotas_) {
      if (q.user != quota.user || q.table != quota.table) next->push_back(q);
    }
    if (!quota.none()) next->push_back(quota);
    quotas_ = std::move(next);
    return Status::OK();
  }
  std::shared_ptr<const std::vector<router::Quota>> Quotas() const override {
    std::lock_guard<std::mutex> lock(quota_mu_);
    return quotas_;
  }
  // Grants as the catalog keeps them (router::WithGrantChange).
  Status ChangeGrant(const router::Grant& grant,
                     router::GrantChange change) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    std::lock_guard<std::mutex> lock(quota_mu_);
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<router::Grant> next,
        router::WithGrantChange(*grants_, grant, change));
    grants_ =
        std::make_shared<const std::vector<router::Grant>>(std::move(next));
    return Status::OK();
  }
  std::shared_ptr<const std::vector<router::Grant>> Grants() const override {
    std::lock_guard<std::mutex> lock(quota_mu_);
    return grants_;
  }
  StatusOr<router::BalanceReport> Balance(uint32_t max_operations) override {
    BLOOMROUTE_RETURN_IF_ERROR(Enter());
    region_op = "balance", balance_max = max_operations;
    return balance_report;
  }

 private:
  // The calls without a Status can only throw.
  void EnterConst() const { (void)Enter(); }

  mutable std::mutex quota_mu_;
  std::shared_ptr<const std::vector<router::Quota>> quotas_ =
      std::make_shared<std::vector<router::Quota>>();
  std::shared_ptr<const std::vector<router::Grant>> grants_ =
      std::make_shared<std::vector<router::Grant>>();
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TESTS_THRIFT_FAKE_ROUTER_H_
