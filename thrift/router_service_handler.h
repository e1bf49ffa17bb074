// RouterServiceHandler: implements the generated rpc::client::RouterServiceIf
// by calling a router::Router: HBase's THBaseService calls
// (thrift/hbase_service.thrift), bloomroute's index calls
// (thrift/index_service.thrift) and its admin calls
// (thrift/router_service.thrift), RouterService extending the other two.
//
// Each call converts its request (conversion/hbase_conversion.h for HBase's
// structs, conversion/index_conversion.h and admin_conversion.h for
// bloomroute's), calls the router and converts the result. Every failure
// leaves through one function (thrift/internal/serve_call.h), so that nothing
// but a declared exception ever reaches the client and the connection stays
// usable:
//   HBase calls            TIOError for every failure, its message starting
//                          with the status code name ("InvalidArgument: ...",
//                          "NotFound: ...", "Unavailable: ..." with canRetry)
//   getScannerRows,        TIllegalArgument for InvalidArgument and NotFound
//   closeScanner, and      (a bad argument, an unknown table or scanner),
//   bloomroute's calls     TIOError for the rest
//   getThriftServerType    cannot fail (TWO)
//
// Fields of features bloomroute does not have are refused naming the
// feature ("InvalidArgument: <field>: ... is not supported",
// conversion/hbase_conversion.h).
//
// HBase's rules kept by the atomic and table calls:
//   checkAndPut / checkAndDelete / checkAndMutate: an empty `value` is the
//     "absent" check (the column is absent or empty): the generated
//     interface cannot tell unset from empty, and HBase treats both alike
//     (model/atomic_ops.h, ConditionHolds). NO_OP with a value is
//     InvalidArgument (HBase fails it: "Unknown Compare op"); without one it
//     is the absent check.
//   increment / append: the new cells, or an empty TResult when
//     returnResults is false (unset: true, HBase's default).
//   deleteTable: the table must be disabled (Router::DeleteTableIfDisabled);
//     truncateTable too (Router::TruncateTable), enabled again after it.
//   isTableAvailable: exists and enabled; false for an unknown table.
//     isTableAvailableWithSplit: also the regions start at the split keys.
//   getTableNamesByPattern / getTableDescriptorsByPattern: whole-name
//     matches of a Java regex, in the subset common/java_regex.h
//     accepts (the rest is refused naming the construct).
//   getSlowLogResponses / clearSlowLogResponses: the server's SlowCallLog.
//   getClusterId: the catalog's cluster id (Router::ClusterId).
//   tableExists: answers for any namespace (hbase:meta exists, as in
//     HBase); getTableDescriptors leaves out the tables that do not exist
//     (HBase's Admin.listTableDescriptors).
//   Namespaces: Router::CreateNamespace and the rest; a table's TTableName
//     has its namespace in ns ("default" for a name without ':').
//
// Scanners belong to a router::ScannerClient: the handler's. A server makes
// one handler per connection (RouterServiceHandlerFactory), so each
// connection's scanners are its own and are closed with it. A TScan's limit
// and batchSize are kept by the handler per scanner
// (thrift/internal/hbase_scanners.h).
//
// Thread-safety: calls may run concurrently.
#ifndef BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_
#define BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "coord/cluster_members.h"
#include "router/router.h"
#include "thrift/gen-cpp/RouterService.h"
#include "thrift/internal/hbase_scanners.h"
#include "thrift/server/slow_call_log.h"

namespace bloomroute {

// What a router's handlers answer from besides the router.
struct HandlerServices {
  // What getSlowLogResponses answers from and clearSlowLogResponses
  // empties; null: none kept.
  std::shared_ptr<SlowCallLog> slow_calls;
  // getClusterMembers and admin servers' liveness; null: the router keeps
  // its catalog alone (no ZooKeeper).
  coord::ClusterMembersSource members;
  // Each HBase scanner's TScan.limit and batchSize between calls, shared by
  // the handlers of every connection (a principal's scanner serves each of
  // its connections); null: the handler keeps its own.
  std::shared_ptr<thrift_internal::HBaseScanners> scanners;
};

class RouterServiceHandler : public rpc::client::RouterServiceIf {
 public:
  // `router` must not be null; the handler shares its ownership. Scanner
  // calls are made as `client` (and the call's principal, under TLS).
  // `scanners` keeps the HBase scanners' limits and batches; a factory's
  // handlers share one, since a principal's scanner serves each of its
  // connections. Null: the handler's own.
  explicit RouterServiceHandler(
      std::shared_ptr<router::Router> router,
      router::ScannerClient client = router::kLocalScannerClient,
      HandlerServices services = {});
  RouterServiceHandler(const RouterServiceHandler&) = delete;
  RouterServiceHandler& operator=(const RouterServiceHandler&) = delete;

  router::ScannerClient client() const { return client_; }

  // ---- HBase THBaseService ----
  bool exists(const std::string& table, const rpc::client::TGet& tget) override;
  void existsAll(std::vector<bool>& result, const std::string& table,
                 const std::vector<rpc::client::TGet>& tgets) override;
  void get(rpc::client::TResult& result, const std::string& table,
           const rpc::client::TGet& tget) override;
  void getMultiple(std::vector<rpc::client::TResult>& result,
                   const std::string& table,
                   const std::vector<rpc::client::TGet>& tgets) override;
  void put(const std::string& table, const rpc::client::TPut& tput) override;
  bool checkAndPut(const std::string& table, const std::string& row,
                   const std::string& family, const std::string& qualifier,
                   const std::string& value,
                   const rpc::client::TPut& tput) override;
  void putMultiple(const std::string& table,
                   const std::vector<rpc::client::TPut>& tputs) override;
  void deleteSingle(const std::string& table,
                    const rpc::client::TDelete& tdelete) override;
  void deleteMultiple(
      std::vector<rpc::client::TDelete>& result, const std::string& table,
      const std::vector<rpc::client::TDelete>& tdeletes) override;
  bool checkAndDelete(const std::string& table, const std::string& row,
                      const std::string& family, const std::string& qualifier,
                      const std::string& value,
                      const rpc::client::TDelete& tdelete) override;
  void increment(rpc::client::TResult& result, const std::string& table,
                 const rpc::client::TIncrement& tincrement) override;
  void append(rpc::client::TResult& result, const std::string& table,
              const rpc::client::TAppend& tappend) override;
  int32_t openScanner(const std::string& table,
                      const rpc::client::TScan& tscan) override;
  void getScannerRows(std::vector<rpc::client::TResult>& result,
                      int32_t scanner_id, int32_t num_rows,
                      int64_t call_seq) override;
  void closeScanner(int32_t scanner_id) override;
  void mutateRow(const std::string& table,
                 const rpc::client::TRowMutations& trow_mutations) override;
  void getScannerResults(std::vector<rpc::client::TResult>& result,
                         const std::string& table,
                         const rpc::client::TScan& tscan,
                         int32_t num_rows) override;
  void getRegionLocation(rpc::client::THRegionLocation& result,
                         const std::string& table, const std::string& row,
                         bool reload) override;
  void getAllRegionLocations(std::vector<rpc::client::THRegionLocation>& result,
                             const std::string& table) override;
  bool checkAndMutate(const std::string& table, const std::string& row,
                      const std::string& family, const std::string& qualifier,
                      int32_t compare_operator, const std::string& value,
                      const rpc::client::TRowMutations& row_mutations) override;
  void getTableDescriptor(rpc::client::TTableDescriptor& result,
                          const rpc::client::TTableName& table) override;
  void getTableDescriptors(
      std::vector<rpc::client::TTableDescriptor>& result,
      const std::vector<rpc::client::TTableName>& tables) override;
  bool tableExists(const rpc::client::TTableName& table_name) override;
  void createTable(const rpc::client::TTableDescriptor& desc,
                   const std::vector<std::string>& split_keys) override;
  void deleteTable(const rpc::client::TTableName& table_name) override;
  void truncateTable(const rpc::client::TTableName& table_name,
                     bool preserve_splits) override;
  void enableTable(const rpc::client::TTableName& table_name) override;
  void disableTable(const rpc::client::TTableName& table_name) override;
  bool isTableEnabled(const rpc::client::TTableName& table_name) override;
  bool isTableDisabled(const rpc::client::TTableName& table_name) override;
  bool isTableAvailable(const rpc::client::TTableName& table_name) override;
  rpc::client::TThriftServerType::type getThriftServerType() override;
  // In router_service_handler_admin.cc.
  void getTableDescriptorsByPattern(
      std::vector<rpc::client::TTableDescriptor>& result,
      const std::string& regex, bool include_sys_tables) override;
  void getTableNamesByPattern(std::vector<rpc::client::TTableName>& result,
                              const std::string& regex,
                              bool include_sys_tables) override;
  bool isTableAvailableWithSplit(
      const rpc::client::TTableName& table_name,
      const std::vector<std::string>& split_keys) override;
  void getSlowLogResponses(
      std::vector<rpc::client::TOnlineLogRecord>& result,
      const std::set<rpc::client::TServerName>& server_names,
      const rpc::client::TLogQueryFilter& log_query_filter) override;
  void clearSlowLogResponses(
      std::vector<bool>& result,
      const std::set<rpc::client::TServerName>& server_names) override;
  void getClusterId(std::string& result) override;
  // In router_service_handler_namespaces.cc, with the schema changes.
  void modifyTable(const rpc::client::TTableDescriptor& desc) override;
  void addColumnFamily(
      const rpc::client::TTableName& table_name,
      const rpc::client::TColumnFamilyDescriptor& column) override;
  void modifyColumnFamily(
      const rpc::client::TTableName& table_name,
      const rpc::client::TColumnFamilyDescriptor& column) override;
  void deleteColumnFamily(const rpc::client::TTableName& table_name,
                          const std::string& column) override;
  void createNamespace(
      const rpc::client::TNamespaceDescriptor& namespace_desc) override;
  void modifyNamespace(
      const rpc::client::TNamespaceDescriptor& namespace_desc) override;
  void deleteNamespace(const std::string& name) override;
  void getNamespaceDescriptor(rpc::client::TNamespaceDescriptor& result,
                              const std::string& name) override;
  void listNamespaceDescriptors(
      std::vector<rpc::client::TNamespaceDescriptor>& result) override;
  void listNamespaces(std::vector<std::string>& result) override;
  void getTableDescriptorsByNamespace(
      std::vector<rpc::client::TTableDescriptor>& result,
      const std::string& name) override;
  void getTableNamesByNamespace(std::vector<rpc::client::TTableName>& result,
                                const std::string& name) override;
  bool grant(const rpc::client::TAccessControlEntity& info) override;
  bool revoke(const rpc::client::TAccessControlEntity& info) override;

  // ---- bloomroute's own ----

  // Reached only on a server without TLS (with TLS the connection layer
  // answers it, thrift/server/access_control.h): PermissionDenied, since
  // a token must not cross the network in the clear, and without TLS every
  // caller may call everything anyway.
  void authenticate(const std::string& token) override;
  void createIndexedTable(rpc::client::TTableInfo& result,
                          const rpc::client::TTableSpec& spec) override;
  void listTables(std::vector<rpc::client::TIndexedTable>& result) override;
  void describeTable(rpc::client::TTableInfo& result,
                     const std::string& table) override;
  void getByIndex(rpc::client::TIndexResult& result, const std::string& table,
                  const rpc::client::TIndexQuery& tquery) override;
  void getByIndexMultiple(
      std::vector<rpc::client::TIndexResult>& result, const std::string& table,
      const std::vector<rpc::client::TIndexQuery>& queries) override;
  void countByIndex(rpc::client::TIndexCount& result, const std::string& table,
                    const rpc::client::TIndexQuery& tquery) override;
  void getIndexStats(
      std::vector<rpc::client::TServerIndexStats>& result) override;
  void getClusterStatus(rpc::client::TClusterStatus& result) override;
  void listServers(std::vector<rpc::client::TServerSummary>& result) override;
  void getClusterMembers(rpc::client::TClusterMembers& result) override;
  void listRegions(std::vector<rpc::client::TRegionSummary>& result,
                   const std::string& table) override;
  void addServer(rpc::client::TServerRef& result,
                 const std::string& address) override;
  void setServerAddress(int32_t server_id, const std::string& address) override;
  void removeServer(int32_t server_id) override;
  void moveRegion(rpc::client::TRegionOpResult& result, int64_t region_id,
                  int32_t server_id) override;
  void splitRegion(rpc::client::TRegionOpResult& result, int64_t region_id,
                   const std::string& split_row) override;
  void mergeRegions(rpc::client::TRegionOpResult& result, int64_t region_a,
                    int64_t region_b) override;
  void balance(rpc::client::TBalanceReport& result,
               int32_t max_operations) override;
  void decommissionServer(std::vector<rpc::client::TBalanceStep>& result,
                          int32_t server_id) override;
  void setQuota(const rpc::client::TQuota& quota) override;
  void listQuotas(std::vector<rpc::client::TQuota>& result) override;
  void bulkLoad(const std::string& table, int64_t region_id,
                const std::string& file) override;
  void verifyIndex(rpc::client::TVerifyReport& result,
                   const std::string& table) override;
  void addIndex(const std::string& table, const std::string& column) override;
  void dropIndex(const std::string& table, const std::string& column) override;
  void getIndexStatus(std::vector<rpc::client::TIndexStatus>& result,
                      const std::string& table) override;

 private:
  // Opens a scanner for an HBase TScan, keeping its limit and batch size.
  StatusOr<int32_t> OpenHBaseScanner(const std::string& table,
                                     const rpc::client::TScan& tscan);
  // getScannerRows' work, with `call_seq` as given.
  Status ScannerRows(int32_t scanner, int32_t num_rows, int64_t call_seq,
                     std::vector<rpc::client::TResult>* result);

  const std::shared_ptr<router::Router> router_;
  const router::ScannerClient client_;
  // The slow calls the server keeps (null: none kept) and the cluster's
  // live members (null: no ZooKeeper).
  const HandlerServices services_;
  // Each scanner's TScan.limit and batchSize between calls.
  const std::shared_ptr<thrift_internal::HBaseScanners> scanners_;
};

// One handler per connection, each a new ScannerClient; releasing a handler
// (its connection closed) closes the scanners that client opened without a
// principal (plaintext): a principal's stay, for its other connections,
// until closed or expired. Thread-safe.
class RouterServiceHandlerFactory : public rpc::client::RouterServiceIfFactory {
 public:
  // `router` must not be null.
  explicit RouterServiceHandlerFactory(std::shared_ptr<router::Router> router,
                                       HandlerServices services = {});

  rpc::client::RouterServiceIf* getHandler(
      const apache::thrift::TConnectionInfo& connection) override;
  // `handler` is one getHandler returned (the generated factory passes it
  // as the root service's interface, THBaseServiceIf).
  void releaseHandler(rpc::client::THBaseServiceIf* handler) override;

 private:
  const std::shared_ptr<router::Router> router_;
  HandlerServices services_;  // its scanners always set
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_
