// Hbase1ServiceHandler: HBase's Thrift1 API (thrift/hbase1_service.thrift,
// service Hbase: happybase and the older clients) over a router::Router.
//
// Each call builds the Thrift2 request that HBase's own Thrift1 server
// (ThriftHBaseServiceHandler) would build for it and hands it to a
// RouterServiceHandler, the router's Thrift2 handler, then converts its
// answer (conversion/hbase1_conversion.h). So both APIs share one
// translation to the router: the same rows, timestamps, filter language
// (TScan.filterString pins on indexed columns are served by the index),
// refusals and limits. Errors leave as Thrift1's IOError, IllegalArgument
// and AlreadyExists (thrift/internal/serve_hbase1_call.h).
//
// What differs from HBase, by method (docs/clients.md has the full list):
//   getVer / getVerTs: one version per cell is kept, so numVersions >= 1
//     answers that one (numVersions < 1 is an IOError naming it, as HBase:
//     getVer declares no IllegalArgument).
//   createTable: families with maxVersions other than 1 or a time-to-live
//     are refused naming the field; AlreadyExists for a table that exists.
//   getTableRegions: none for a table that does not exist (as HBase).
//   compact / majorCompact: RocksDB compacts by itself; the table (or the
//     region, given its name as HBase's take it) must exist and nothing
//     else is done.
//   mutateRow(s): a put of a whole family is refused (HBase drops it with a
//     warning); each row's mutations apply at once.
//   checkAndPut: mput must be a put (isDelete is refused).
//   getRegionInfo: `row` is a catalog key "table,row,..."; the region
//     holding that row of that table.
//   grant / revoke: the router's grants, as the Thrift2 calls
//     (thrift/server/grant_check.h); the Thrift1 port applies them too.
//   Scanners belong to the connection that opened them and are closed with
//     it (HBase's are the server's); sortColumns is kept per scanner.
//
// Thread-safety: calls may run concurrently.
#ifndef BLOOMROUTE_THRIFT_HBASE1_SERVICE_HANDLER_H_
#define BLOOMROUTE_THRIFT_HBASE1_SERVICE_HANDLER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "router/router.h"
#include "thrift/gen-cpp/Hbase.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

class Hbase1ServiceHandler : public rpc::hbase1::HbaseIf {
 public:
  using Text = rpc::hbase1::Text;
  using Attributes = std::map<Text, Text>;

  // `router` and `thrift2` must not be null; `thrift2` (the connection's
  // Thrift2 handler, which owns its scanners) outlives this handler.
  Hbase1ServiceHandler(std::shared_ptr<router::Router> router,
                       RouterServiceHandler* thrift2);
  Hbase1ServiceHandler(const Hbase1ServiceHandler&) = delete;
  Hbase1ServiceHandler& operator=(const Hbase1ServiceHandler&) = delete;

  RouterServiceHandler* thrift2() const { return thrift2_; }

  // ---- Tables (hbase1_service_handler.cc) ----
  void enableTable(const std::string& table) override;
  void disableTable(const std::string& table) override;
  bool isTableEnabled(const std::string& table) override;
  void compact(const std::string& table_or_region) override;
  void majorCompact(const std::string& table_or_region) override;
  void getTableNames(std::vector<Text>& result) override;
  void getTableNamesWithIsTableEnabled(std::map<Text, bool>& result) override;
  void getColumnDescriptors(
      std::map<Text, rpc::hbase1::ColumnDescriptor>& result,
      const Text& table) override;
  void getTableRegions(std::vector<rpc::hbase1::TRegionInfo>& result,
                       const Text& table) override;
  void createTable(
      const Text& table,
      const std::vector<rpc::hbase1::ColumnDescriptor>& families) override;
  void deleteTable(const Text& table) override;
  rpc::hbase1::TThriftServerType::type getThriftServerType() override;
  void getClusterId(std::string& result) override;
  bool grant(const rpc::hbase1::TAccessControlEntity& info) override;
  bool revoke(const rpc::hbase1::TAccessControlEntity& info) override;

  // ---- Reads (hbase1_service_handler_rows.cc) ----
  void get(std::vector<rpc::hbase1::TCell>& result, const Text& table,
           const Text& row, const Text& column,
           const Attributes& attributes) override;
  void getVer(std::vector<rpc::hbase1::TCell>& result, const Text& table,
              const Text& row, const Text& column, int32_t num_versions,
              const Attributes& attributes) override;
  void getVerTs(std::vector<rpc::hbase1::TCell>& result, const Text& table,
                const Text& row, const Text& column, int64_t timestamp,
                int32_t num_versions, const Attributes& attributes) override;
  void getRow(std::vector<rpc::hbase1::TRowResult>& result, const Text& table,
              const Text& row, const Attributes& attributes) override;
  void getRowWithColumns(std::vector<rpc::hbase1::TRowResult>& result,
                         const Text& table, const Text& row,
                         const std::vector<Text>& columns,
                         const Attributes& attributes) override;
  void getRowTs(std::vector<rpc::hbase1::TRowResult>& result, const Text& table,
                const Text& row, int64_t timestamp,
                const Attributes& attributes) override;
  void getRowWithColumnsTs(std::vector<rpc::hbase1::TRowResult>& result,
                           const Text& table, const Text& row,
                           const std::vector<Text>& columns, int64_t timestamp,
                           const Attributes& attributes) override;
  void getRows(std::vector<rpc::hbase1::TRowResult>& result, const Text& table,
               const std::vector<Text>& rows,
               const Attributes& attributes) override;
  void getRowsWithColumns(std::vector<rpc::hbase1::TRowResult>& result,
                          const Text& table, const std::vector<Text>& rows,
                          const std::vector<Text>& columns,
                          const Attributes& attributes) override;
  void getRowsTs(std::vector<rpc::hbase1::TRowResult>& result,
                 const Text& table, const std::vector<Text>& rows,
                 int64_t timestamp, const Attributes& attributes) override;
  void getRowsWithColumnsTs(std::vector<rpc::hbase1::TRowResult>& result,
                            const Text& table, const std::vector<Text>& rows,
                            const std::vector<Text>& columns, int64_t timestamp,
                            const Attributes& attributes) override;

  // ---- Writes (hbase1_service_handler_rows.cc) ----
  void mutateRow(const Text& table, const Text& row,
                 const std::vector<rpc::hbase1::Mutation>& mutations,
                 const Attributes& attributes) override;
  void mutateRowTs(const Text& table, const Text& row,
                   const std::vector<rpc::hbase1::Mutation>& mutations,
                   int64_t timestamp, const Attributes& attributes) override;
  void mutateRows(const Text& table,
                  const std::vector<rpc::hbase1::BatchMutation>& batches,
                  const Attributes& attributes) override;
  void mutateRowsTs(const Text& table,
                    const std::vector<rpc::hbase1::BatchMutation>& batches,
                    int64_t timestamp, const Attributes& attributes) override;
  int64_t atomicIncrement(const Text& table, const Text& row,
                          const Text& column, int64_t value) override;
  void deleteAll(const Text& table, const Text& row, const Text& column,
                 const Attributes& attributes) override;
  void deleteAllTs(const Text& table, const Text& row, const Text& column,
                   int64_t timestamp, const Attributes& attributes) override;
  void deleteAllRow(const Text& table, const Text& row,
                    const Attributes& attributes) override;
  void deleteAllRowTs(const Text& table, const Text& row, int64_t timestamp,
                      const Attributes& attributes) override;
  void increment(const rpc::hbase1::TIncrement& increment) override;
  void incrementRows(
      const std::vector<rpc::hbase1::TIncrement>& increments) override;

  // ---- Scanners and the rest (hbase1_service_handler_scanners.cc) ----
  int32_t scannerOpenWithScan(const Text& table, const rpc::hbase1::TScan& scan,
                              const Attributes& attributes) override;
  int32_t scannerOpen(const Text& table, const Text& start_row,
                      const std::vector<Text>& columns,
                      const Attributes& attributes) override;
  int32_t scannerOpenWithStop(const Text& table, const Text& start_row,
                              const Text& stop_row,
                              const std::vector<Text>& columns,
                              const Attributes& attributes) override;
  int32_t scannerOpenWithPrefix(const Text& table, const Text& prefix,
                                const std::vector<Text>& columns,
                                const Attributes& attributes) override;
  int32_t scannerOpenTs(const Text& table, const Text& start_row,
                        const std::vector<Text>& columns, int64_t timestamp,
                        const Attributes& attributes) override;
  int32_t scannerOpenWithStopTs(const Text& table, const Text& start_row,
                                const Text& stop_row,
                                const std::vector<Text>& columns,
                                int64_t timestamp,
                                const Attributes& attributes) override;
  void scannerGet(std::vector<rpc::hbase1::TRowResult>& result,
                  int32_t id) override;
  void scannerGetList(std::vector<rpc::hbase1::TRowResult>& result, int32_t id,
                      int32_t nb_rows) override;
  void scannerClose(int32_t id) override;
  void getRegionInfo(rpc::hbase1::TRegionInfo& result,
                     const Text& row) override;
  void append(std::vector<rpc::hbase1::TCell>& result,
              const rpc::hbase1::TAppend& append) override;
  bool checkAndPut(const Text& table, const Text& row, const Text& column,
                   const Text& value, const rpc::hbase1::Mutation& mput,
                   const Attributes& attributes) override;

 private:
  // The cells of `column` of `row` (get, getVer, getVerTs): `range` bounds
  // their timestamps when set.
  Status CellsOf(const Text& table, const Text& row, const Text& column,
                 const rpc::client::TTimeRange* range,
                 std::vector<rpc::hbase1::TCell>* result);
  // The rows that exist of `rows`, with `columns` (all when empty), cells
  // older than `timestamp` when set (the getRow* and getRows* calls).
  Status RowsOf(const Text& table, const std::vector<Text>& rows,
                const std::vector<Text>& columns,
                std::optional<int64_t> timestamp,
                std::vector<rpc::hbase1::TRowResult>* result);
  // Applies one row's mutations ("<f>[i]") at once (mutateRow(Ts)).
  Status MutateRow(const Text& table, const Text& row,
                   const std::vector<rpc::hbase1::Mutation>& in,
                   std::optional<int64_t> timestamp, const std::string& f);
  // Applies each batch's mutations (mutateRows(Ts)).
  Status MutateRows(const Text& table,
                    const std::vector<rpc::hbase1::BatchMutation>& batches,
                    std::optional<int64_t> timestamp);
  // Opens a Thrift2 scanner, remembering whether its rows come sorted.
  Status OpenScanner(const Text& table, const rpc::client::TScan& scan,
                     bool sorted, int32_t* id);
  // A simple scanner (the scannerOpen* calls but WithScan).
  int32_t OpenSimpleScanner(const char* call, const Text& table,
                            const Text& start_row,
                            const std::optional<Text>& stop_row,
                            const std::vector<Text>& columns,
                            std::optional<int64_t> timestamp);
  bool Sorted(int32_t id) const;
  // NotFound for a table that does not exist.
  Status CheckTableExists(const Text& table) const;
  // NotFound unless `name` is a table's, or one of its regions' as
  // getTableRegions names them (compact, majorCompact, as HBase's).
  Status CheckTableOrRegionExists(const Text& name);

  const std::shared_ptr<router::Router> router_;
  RouterServiceHandler* const thrift2_;
  mutable std::mutex mu_;
  std::map<int32_t, bool> sorted_scanners_;  // guarded by mu_
};

// One handler per connection over a Thrift2 handler of the same
// connection (from a RouterServiceHandlerFactory, which closes the
// connection's scanners when it is released). Thread-safe.
class Hbase1ServiceHandlerFactory : public rpc::hbase1::HbaseIfFactory {
 public:
  // `router` must not be null.
  Hbase1ServiceHandlerFactory(std::shared_ptr<router::Router> router,
                              HandlerServices services);

  rpc::hbase1::HbaseIf* getHandler(
      const apache::thrift::TConnectionInfo& connection) override;
  void releaseHandler(rpc::hbase1::HbaseIf* handler) override;

 private:
  const std::shared_ptr<router::Router> router_;
  RouterServiceHandlerFactory thrift2_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_HBASE1_SERVICE_HANDLER_H_
