// RouterClient: the client API of bloomroute (RouterService,
// thrift/router_service.thrift) with the router's own types and Status, for
// the command-line tools. Rows travel through HBase's Thrift2 calls (put,
// getMultiple, openScanner, ...; cells as family and qualifier), tables and
// lookups through bloomroute's own (createIndexedTable, getByIndex, ...).
// Thrift stays behind this header (STYLE.md: only thrift/ includes Thrift
// headers).
//
// Routers. A client takes a list of routers of one cluster ("h1:p1,h2:p2",
// ParseRouterList); any router serves any call. The client sticks to one
// router, chosen at random in the list when it is made (so that clients
// given the same list spread over it), and moves to the next one when that
// router does not answer: connect refused or timed out, no reply in time,
// the connection dropped (Unavailable without a reply). A router that
// failed is skipped for a short backoff (RouterListOptions), doubling while
// it keeps failing. A call is sent again to the next router only when that
// is safe:
//   - a request that never left (no connection could be made) goes to the
//     next router, whatever the call;
//   - a request that was sent and whose reply was lost is sent again only
//     when the call is idempotent (the table below); otherwise the call
//     fails with Unavailable "router A: increment: the connection was lost
//     after the request was sent; it may have been applied: read the row
//     before retrying (CAUSE)", the check depending on the call;
//   - a router's answer, a declared error too (TIllegalArgument, TIOError,
//     also its Unavailable when a region server behind it did not answer),
//     is not sent elsewhere: every router of the cluster would say the same.
// When every router failed: the failure as it is for a list of one, else
// Unavailable "no router answered M (tried A, B): CAUSE; CAUSE".
//
// Which call is resent after a lost reply (idempotent), and why:
//   resent    ListTables, DescribeTable, IsTableEnabled, Get, OpenScanner,
//             Lookup, Count, IndexStats, GetClusterStatus, ListServers,
//             ListRegions, ListQuotas, VerifyIndex, IndexStatus: reads.
//             Mutate (putMultiple, deleteMultiple): a put writes the same
//             cells again and a delete deletes the same cells (a cell has
//             one version: a second delete uncovers no older one), as
//             HBase's own client retries them (a cell written without a
//             timestamp gets a newer one; a write of another client between
//             the two sends is overwritten, as with HBase).
//             BulkLoad: loading a file again gives the same rows.
//             SetQuota: sets a value; twice is once. ChangeGrant: a
//             grant merges its letters and a revoke takes them away, so
//             twice is once.
//   not       Increment (HBase's increment: twice adds twice; so would
//             append and checkAndMutate, which this client does not call).
//             CreateTable, DeleteTable (its disable step is resent: a
//             disabled table is fine) / DeleteDisabledTable, EnableTable,
//             DisableTable, TruncateTable (a second truncate would delete
//             rows written since), AddIndex, DropIndex, AddServer,
//             SetServerAddress, RemoveServer, MoveRegion, SplitRegion,
//             MergeRegions, Balance, DecommissionServer: each changes the
//             cluster's shape once; sent again it would act again or fail
//             with a refusal that hides that the first one succeeded.
//   pinned    ScannerNext, CloseScanner go to the router that opened the
//             scanner, never elsewhere (see the scanner calls).
//
// Page tokens (LookupSpec::page_token) are signed with a key every router
// of a cluster shares (router/page_token.h: it lives in the cluster's
// catalog), so a lookup's next page may be asked of any router: paged
// lookups fail over as any lookup does.
//
// Connections. ConnectRouter() checks the addresses and does not connect;
// each call takes an idle connection of its router's pool or opens one
// (framed transport, binary protocol, as RouterServer speaks), and puts it
// back when the call completed with a result or a declared error
// (TIllegalArgument, TIOError). After any other failure the connection is
// closed. Calls may run concurrently: as many connections are open as calls
// are in progress.
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
//                    failure to connect; the advice only for a list of one).
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
//   auto router = ConnectRouter("10.0.0.1:9090,10.0.0.2:9090");
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
#include "coord/cluster_members.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {

// Timeouts, frame limit and idle connections, as for the region client.
using RouterClientOptions = ThriftClientOptions;

// The most routers one list may name.
inline constexpr size_t kMaxRouters = 64;

// How a client moves over its list of routers.
struct RouterListOptions {
  // The position in the list of the router the client starts with (taken
  // modulo the list's length), or kRandomStart (the default): one picked at
  // random, so that clients given the same list spread over it. Tests name
  // one to know where a client starts.
  static constexpr int kRandomStart = -1;
  int start = kRandomStart;
  // A router that failed is skipped for min_backoff_ms, doubling with each
  // failure in a row up to max_backoff_ms; an answer clears it.
  int min_backoff_ms = 250;
  int max_backoff_ms = 4000;
  // InvalidArgument unless start >= kRandomStart and 1 <= min_backoff_ms <=
  // max_backoff_ms <= 60000.
  Status Validate() const;
};

// "HOST:PORT[,HOST:PORT...]" split into its addresses, in order (spaces
// around an entry are ignored). Each entry is HOST:PORT as ParseListenAddress
// takes it (thrift/server/thrift_server.h), with a port in 1..65535.
// InvalidArgument, naming the entry, for an empty list or entry, a bad
// address, port 0, an address listed twice (host names compared without
// case), or more than kMaxRouters entries.
StatusOr<std::vector<std::string>> ParseRouterList(std::string_view list);

class RouterClient {
 public:
  virtual ~RouterClient() = default;
  RouterClient(const RouterClient&) = delete;
  RouterClient& operator=(const RouterClient&) = delete;

  // The list as given to ConnectRouter ("HOST:PORT" or
  // "HOST:PORT,HOST:PORT,...").
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
  // HBase's increment of 8-byte counters in one row: the row's incremented
  // cells (nullopt if the router returned none). NOT idempotent: never sent
  // again after a lost reply (the error says it may have been applied).
  // InvalidArgument for an empty list or a column without ':'.
  virtual StatusOr<std::optional<Row>> Increment(
      std::string_view table, const std::string& row,
      const std::vector<ColumnIncrement>& increments) = 0;
  // getMultiple: in request order, nullopt for a missing row. When the rows
  // pass the router's reply byte budget (--max-reply-bytes) the router fails
  // the call (InvalidArgument naming it): ask for fewer rows. A reply that
  // is a prefix of the requests (a router before HBase's API) is completed
  // by asking again for the rest.
  virtual StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, const std::vector<GetRequest>& requests) = 0;
  // openScanner / getScannerRows / closeScanner. ScannerNext returns up to
  // max_rows rows; an empty answer means the scan is complete. A scanner
  // belongs to the router, and on it to the connection, that opened it
  // (NotFound on any other), as HBase Thrift gateways' scanners do:
  // OpenScanner fails over like a read, and the id it returns names the
  // router too (its position in the list times 2^32, plus the router's i32
  // id), so that ScannerNext and CloseScanner go to that router and never
  // elsewhere. Calls take the most recently used idle connection: use a
  // scanner from one thread with no call of this client from another thread
  // in between. ScannerNext is unsequenced (callSeq 0): a call that fails
  // after the request left may have lost its rows, and when the scanner's
  // router is gone the scanner is gone with it (Unavailable): reopen the
  // scan after the last row received (ScanEach in tools/
  // client_command_util.h does). An id that names no router of the list or
  // is outside the router's i32 is NotFound without a call. CloseScanner of
  // a scanner whose router failed since (in its backoff) is OK without a
  // call: the scanner closed with its connection.
  virtual StatusOr<int64_t> OpenScanner(std::string_view table,
                                        const router::ScanSpec& spec) = 0;
  // Whether the router holding `scanner` failed since without answering (a
  // call to it got no reply; its backoff runs): its scanners closed with
  // their connections, so a scan can only go on from a new scanner. False
  // while it answers (an Unavailable it declared, for a region server
  // behind it, leaves the scanner open) and for an id of no router.
  virtual bool ScannerLost(int64_t scanner) const = 0;
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
  // getClusterMembers: the ZooKeeper cluster's live routers and region
  // servers (coord/cluster_members.h); InvalidArgument from a router that
  // keeps its catalog alone.
  virtual StatusOr<coord::ClusterMembers> ClusterMembers() = 0;
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
  // HBase's grant / revoke of `grant` (router/grant.h; made by
  // router::MakeGrant): see router::Router::ChangeGrant. PermissionDenied
  // for a caller without role admin or A on the grant's scope.
  [[nodiscard]] virtual Status ChangeGrant(const router::Grant& grant,
                                           router::GrantChange change) = 0;
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

// A client for the routers of `routers`, "HOST:PORT" or a list of them
// (ParseRouterList; HOST an IPv4 address, a host name or "[IPv6]").
// InvalidArgument for a list ParseRouterList refuses, or options that fail
// Validate(). Does not connect: an unreachable router shows as Unavailable
// from the first call.
StatusOr<std::unique_ptr<RouterClient>> ConnectRouter(
    const std::string& routers, const RouterClientOptions& options = {},
    const RouterListOptions& list_options = {});

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_CLIENT_H_
