// RouterClient: the client API of bloomroute (RouterService,
// thrift/router_service.thrift) with the router's own types and Status, for
// the command-line tools. Rows travel through HBase's Thrift2 calls (put,
// getMultiple, openScanner, ...; cells as family and qualifier), tables and
// lookups through bloomroute's own (createIndexedTable, getByIndex, ...).
// Thrift stays behind this header (STYLE.md: only thrift/ includes Thrift
// headers).
//
// Connections. ConnectRouter() checks the address and does not connect; each
// call takes an idle connection from the client's pool or opens one (framed
// transport, binary protocol, as RouterServer speaks), and puts it back when
// the call completed with a result or a declared error (TIllegalArgument,
// TIOError). After any other failure the connection is closed. Calls may run
// concurrently: as many connections are open as calls are in progress.
//
// Errors: the one place where the router client's Thrift exceptions become
// Status (the same rules as ThriftRegionClient, thrift_region_client.h).
//   Unavailable      the router did not answer (connect refused or timed
//                    out, no reply in time, the connection dropped), named:
//                    "router 127.0.0.1:9090: getByIndex: ...".
// A new connection's failure is said with advice in the command line's
// terms, where the client can tell what went wrong:
//   Unavailable      "cannot connect to the router at 127.0.0.1:9090:
//                    connection refused (is it running? name another with
//                    --router HOST:PORT)" (or Thrift's reason for another
//                    failure to connect).
//   InvalidArgument  "the router at HOST:PORT speaks TLS: give --tls-ca
//                    FILE, the CA that signed its certificate": a plaintext
//                    client's first reply began with a TLS record;
//                    "the router at HOST:PORT does not speak TLS: drop
//                    --tls-ca, or name its TLS port with --router HOST:PORT":
//                    a TLS client's handshake read bytes that are not TLS.
//   Unavailable      "the router at HOST:PORT closed the connection before
//                    answering: if it runs with TLS, give --tls-ca FILE"
//                    (plaintext) or "... closed the connection during the
//                    TLS handshake: if it runs without TLS, drop --tls-ca":
//                    the connection closed with nothing read.
//   router's Status  a TIllegalArgument / TIOError reply carries the
//                    router's Status restored with its code: InvalidArgument,
//                    NotFound (unknown table or scanner), Unavailable (a region
//                    server did not answer), IOError, Corruption.
//   InvalidArgument  the request cannot be sent (a number that does not fit
//                    the wire, a frame over max_frame_bytes); nothing sent.
//   IOError          a reply that does not decode; Corruption a reply that
//                    decodes but holds what no router sends.
//
// Thread-safety: every method may be called concurrently.
//
// Example:
//   auto router = ConnectRouter("127.0.0.1:9090");
//   if (!router.ok()) return router.status();
//   router::LookupSpec q;
//   q.equals = {{"d:country_code", "NO"}};
//   StatusOr<router::LookupResult> found = (*router)->Lookup("geo", q);
#ifndef BLOOMROUTE_THRIFT_ROUTER_CLIENT_H_
#define BLOOMROUTE_THRIFT_ROUTER_CLIENT_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {

// Timeouts, frame limit and idle connections, as for the region client.
using RouterClientOptions = ThriftClientOptions;

class RouterClient {
 public:
  virtual ~RouterClient() = default;
  RouterClient(const RouterClient&) = delete;
  RouterClient& operator=(const RouterClient&) = delete;

  // "HOST:PORT" as given to ConnectRouter.
  virtual const std::string& address() const = 0;

  // Tables (createIndexedTable, HBase's deleteTable, listTables,
  // describeTable).
  // DescribeTable and DeleteTable give NotFound for an unknown table.
  // DeleteTable deletes enabled tables too: it disables the table first
  // (disableTable; a table already disabled is fine) and then deletes it
  // (HBase's deleteTable, which requires a disabled table). When the delete
  // fails after the disable, the table stays disabled.
  virtual StatusOr<router::TableInfo> CreateTable(
      const router::TableSpec& spec) = 0;
  [[nodiscard]] virtual Status DeleteTable(std::string_view table) = 0;
  virtual StatusOr<std::vector<TableDescriptor>> ListTables() = 0;
  virtual StatusOr<router::TableInfo> DescribeTable(std::string_view table) = 0;
  // HBase's disableTable, enableTable, isTableEnabled and truncateTable
  // (router::Router::DisableTable and TruncateTable say what each refuses:
  // disabling a disabled table, truncating an enabled one).
  [[nodiscard]] virtual Status DisableTable(std::string_view table) = 0;
  [[nodiscard]] virtual Status EnableTable(std::string_view table) = 0;
  virtual StatusOr<bool> IsTableEnabled(std::string_view table) = 0;
  [[nodiscard]] virtual Status TruncateTable(std::string_view table,
                                             bool preserve_splits) = 0;
  // HBase's deleteTable as it is: InvalidArgument "table 'T' is not
  // disabled" for an enabled table (checked by the router under the lock
  // that deletes).
  [[nodiscard]] virtual Status DeleteDisabledTable(std::string_view table) = 0;

  // Writes the mutations in order: each run of consecutive puts goes as one
  // putMultiple, each run of deletes as one deleteMultiple (region_id is
  // ignored). At most kMaxRowsPerCall mutations. As in HBase, a batch is not
  // atomic: on an error, rows of other chunks may have been applied.
  [[nodiscard]] virtual Status Mutate(std::string_view table,
                                      const std::vector<Mutation>& batch) = 0;
  // getMultiple: in request order, nullopt for a missing row. When the rows
  // pass the router's reply byte budget (--max-reply-bytes) the router fails
  // the call (InvalidArgument naming it): ask for fewer rows. A reply that
  // is a prefix of the requests (a router before HBase's API) is completed
  // by asking again for the rest.
  virtual StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, const std::vector<GetRequest>& requests) = 0;
  // openScanner / getScannerRows / closeScanner. ScannerNext returns up to
  // max_rows rows; an empty answer means the scan is complete. A scanner
  // belongs to the connection that opened it (NotFound on any other), and
  // calls take the most recently used idle connection: use a scanner from
  // one thread with no call of this client from another thread in between.
  // ScannerNext is unsequenced (callSeq 0): a call that fails after the
  // request left may have lost its rows. Scanner ids are HBase's i32: an id
  // outside it is NotFound without a call.
  virtual StatusOr<int64_t> OpenScanner(std::string_view table,
                                        const router::ScanSpec& spec) = 0;
  virtual StatusOr<std::vector<Row>> ScannerNext(int64_t scanner,
                                                 uint32_t max_rows) = 0;
  [[nodiscard]] virtual Status CloseScanner(int64_t scanner) = 0;

  // getByIndex: see router::LookupSpec and router::LookupResult (the
  // routing info's ServerRefs carry the router's ids and addresses).
  virtual StatusOr<router::LookupResult> Lookup(
      std::string_view table, const router::LookupSpec& spec) = 0;
  // countByIndex: see router::Router::Count.
  virtual StatusOr<router::CountResult> Count(
      std::string_view table, const router::LookupSpec& spec) = 0;

  // getIndexStats: per region server, ascending by id. Of each replica's
  // ReplicaStats the wire carries loaded, current, epoch, seq and the
  // filter's SscbfStats; reported_epoch / reported_seq are left 0 and
  // ops_behind says how far behind it is.
  virtual StatusOr<std::vector<router::ServerIndexStats>> IndexStats() = 0;
  virtual StatusOr<router::ClusterStatus> GetClusterStatus() = 0;
  // listServers / listRegions: see router::Router::ListServers and
  // ListRegions. NotFound for an unknown table.
  virtual StatusOr<std::vector<router::ServerSummary>> ListServers() = 0;
  virtual StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view table) = 0;
  // addServer / setServerAddress / removeServer: see router::Router's
  // AddServer, SetServerAddress and RemoveServer (NotFound arrives as
  // InvalidArgument, as every refusal of the router).
  virtual StatusOr<router::ServerRef> AddServer(const std::string& address) = 0;
  virtual Status SetServerAddress(router::ServerId id,
                                  const std::string& address) = 0;
  virtual Status RemoveServer(router::ServerId id) = 0;
  // moveRegion / splitRegion / mergeRegions / balance / decommissionServer:
  // see router::Router's MoveRegion, SplitRegion, MergeRegions, Balance and
  // DecommissionServer (NotFound for an unknown region or server). Each answers
  // when the operation is done, which may take as long as copying the
  // region; a call that times out leaves it running on the router.
  virtual StatusOr<router::RegionOpResult> MoveRegion(uint64_t region_id,
                                                      router::ServerId to) = 0;
  virtual StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t region_id, const std::optional<std::string>& split_row) = 0;
  virtual StatusOr<router::RegionOpResult> MergeRegions(uint64_t region_a,
                                                        uint64_t region_b) = 0;
  virtual StatusOr<router::BalanceReport> Balance(uint32_t max_operations) = 0;
  virtual StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      router::ServerId id) = 0;
  // setQuota / listQuotas: see router::Router::SetQuota and Quotas.
  virtual Status SetQuota(const router::Quota& quota) = 0;
  virtual StatusOr<std::vector<router::Quota>> ListQuotas() = 0;
  // verifyIndex: see router::VerifyReport. From the wire, the report's table
  // carries its name and id only (no indexed columns) and a server's
  // IndexReport has no table_id. NotFound for an unknown table.
  virtual StatusOr<router::VerifyReport> VerifyIndex(
      std::string_view table) = 0;

  // bulkLoad: loads a bulk file (regionstore/bulk_file.h), given as its
  // bytes, into region `region_id` of the table (DescribeTable gives the
  // regions and their key ranges); see router::Router::BulkLoad. The file
  // must fit one frame (max_frame_bytes, less a few bytes) and the region
  // server's file limit (RegionStoreOptions::max_bulk_file_bytes, 32 MiB by
  // default). InvalidArgument for a region not of the table or a bad file
  // (nothing written); Unavailable when the router or the region server did
  // not answer (loading the file again is safe: same rows, same result).
  [[nodiscard]] virtual Status BulkLoad(std::string_view table,
                                        uint64_t region_id,
                                        const std::string& file) = 0;

  // addIndex / dropIndex / getIndexStatus: see router::Router::AddIndex,
  // DropIndex and IndexStatus. NotFound for an unknown table.
  [[nodiscard]] virtual Status AddIndex(std::string_view table,
                                        const std::string& column) = 0;
  [[nodiscard]] virtual Status DropIndex(std::string_view table,
                                         const std::string& column) = 0;
  virtual StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view table) = 0;

 protected:
  RouterClient() = default;
};

// A client for the router at "HOST:PORT" (HOST an IPv4 address, a host name
// or "[IPv6]"). InvalidArgument for a malformed address, port 0, or options
// that fail Validate(). Does not connect: an unreachable router shows as
// Unavailable from the first call.
StatusOr<std::unique_ptr<RouterClient>> ConnectRouter(
    const std::string& address, const RouterClientOptions& options = {});

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_CLIENT_H_
