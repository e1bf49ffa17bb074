// RegionClient: how the router reaches one region server.
//
// The router never talks to a region server any other way: thrift/ provides
// the RPC implementation, tests an in-process fake. Each method mirrors one
// RegionService call and has the region server's semantics
// (regionstore/region_store.h documents them in full); the value types are
// the shared model/ headers (rows, index queries, region protocol), so one set
// of Thrift conversions serves both.
//
// Errors. Every method returns Status or StatusOr:
//   Unavailable      the server did not answer (connect failure, timeout, the
//                    connection dropped). The call may or may not have taken
//                    effect; it is the only code worth retrying.
//   InvalidArgument  the server rejected the request (nothing was written).
//   NotFound         the region or table is unknown to the server.
//   IOError, Corruption  the server failed internally, or (the RPC client)
//                    a reply did not decode: the call may have taken effect.
//   Aborted          a write refused by the server's fence: nothing written.
//                    A coordinator's call refused for its epoch
//                    (IsCoordinatorEpochRefused): nothing done, and another
//                    router coordinates now.
//
// Coordinator epochs. The calls only the coordinator's duties make and that
// change a server's regions or filter -- OpenRegion, OpenStagedRegion,
// CloseRegion, DropRegion, UpdateTableIndexes, BackfillIndex,
// DropIndexEntries, SetFilterConfig -- take the coordinator's epoch
// (CoordinatorEpoch, model/region_protocol.h; regionstore/region_store.h,
// "Coordinator epochs"), and the server refuses them when it has seen a
// newer coordinator. The router's code always passes its epoch
// (RouterContext::coordinator); the overloads without one send epoch 0 (not
// a coordinator: never refused) and are for tools and tests. Calls on rows
// and the filter's catch-up calls are any router's and carry none; so do
// ExportRows and SplitPoint, which only read.
//
// Thread-safety: an implementation must allow every method to be called
// concurrently from several threads (the router fans lookups out in parallel
// and applies writes from many client connections).
//
// Usage:
//   StatusOr<std::unique_ptr<RegionClient>> c = factory->Connect(server, addr);
//   if (!c.ok()) return c.status();
//   StatusOr<WriteResult> w = (*c)->Apply(batch, fence_token);
//   if (w.ok()) global_index.ApplyWriteResult(server, *w);
#ifndef BLOOMROUTE_ROUTER_REGION_CLIENT_H_
#define BLOOMROUTE_ROUTER_REGION_CLIENT_H_

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/index_query.h"
#include "model/op_push.h"
#include "model/region_protocol.h"
#include "model/rows.h"
#include "router/server_id.h"

namespace bloomroute::router {

class RegionClient {
 public:
  virtual ~RegionClient() = default;

  // Applies the mutations as one atomic batch, in order; returns the filter
  // ops the batch produced. InvalidArgument (naming the mutation) rejects the
  // whole batch; so does Aborted, when `fence_token` is below the server's
  // fence (regionstore/region_store.h, "Fencing").
  virtual StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                                      uint64_t fence_token) = 0;
  // The rows in request order; nullopt for a missing row. A prefix of the
  // requests (at least one) when the reply passed `max_bytes` (0: the
  // server's own budget) or the server's budget.
  virtual StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests, uint64_t max_bytes) = 0;
  // A region server's reply is untrusted: the router checks that its rows
  // are in order within the range and that it makes progress.
  virtual StatusOr<ScanResult> Scan(const ScanRequest& request) = 0;
  // Exact answer from the server's local inverted index.
  virtual StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) = 0;

  // A lookup sent whose answer has not been read: Finish() waits for it and
  // returns what Lookup would have (once; the client must outlive it).
  // Destroyed unfinished, its connection is closed.
  class PendingLookup {
   public:
    virtual ~PendingLookup() = default;
    virtual StatusOr<IndexQueryResult> Finish() = 0;
  };
  // Sends the lookup and returns without waiting for the answer, so that
  // one thread has a lookup in flight on every server it asks and reads the
  // answers as they come: a fan-out to 8 servers then wakes no other
  // thread of the router (Router::Lookup). Null when the client cannot
  // (the default): the caller calls Lookup instead.
  virtual std::unique_ptr<PendingLookup> StartLookup(
      const IndexQuery& /*query*/) {
    return nullptr;
  }

  // Both first raise the server's fence to `fence_token` (0: leave it), so
  // that no write with an older token commits after the answer was read.
  // The server's whole filter with its incarnation, epoch and last sequence
  // number.
  virtual StatusOr<FilterSnapshot> Snapshot(uint64_t fence_token) = 0;
  // The ops after `seq` in (`incarnation`, `epoch`), in order, up to the
  // server's cap; or too_old when they were trimmed or the server is in
  // another incarnation or epoch.
  virtual StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation,
                                            uint64_t epoch, uint64_t seq,
                                            uint64_t fence_token) = 0;
  virtual StatusOr<FilterStatus> GetFilterStatus() = 0;
  // Gives the server's filter the cluster's config: a no-op when it has
  // exactly this one; otherwise the server persists it and rebuilds its
  // filter with it under a new epoch (a replica of the old epoch must take a
  // snapshot). InvalidArgument for an invalid config (nothing changes).
  [[nodiscard]] virtual Status SetFilterConfig(const SscbfConfig& config,
                                               CoordinatorEpoch epoch) = 0;
  [[nodiscard]] Status SetFilterConfig(const SscbfConfig& config) {
    return SetFilterConfig(config, CoordinatorEpoch{});
  }
  // Syncs the server's WAL (RegionStore::SyncWal): what it acknowledged so
  // far survives a power loss.
  [[nodiscard]] virtual Status SyncWal() = 0;
  // The router no longer uses this client (its server was re-pointed to
  // another address): closes its pooled connections and pools none from
  // now on, so that it holds none of the old server's connection slots.
  // Calls under way finish. Clients that pool nothing have nothing to do.
  virtual void ReleaseConnections() {}
  // A bits-only snapshot of the server's filter: OccupancyImage::Serialize()
  // with its incarnation, epoch and last sequence number, fetched in pages
  // (RegionStore::SnapshotImagePage) and put together by
  // AssembleFilterImage, which checks them. Raises the fence first, as
  // Snapshot.
  virtual StatusOr<FilterImage> SnapshotImage(uint64_t fence_token) = 0;

  // Region management. OpenRegion is idempotent for an identical
  // descriptor, and Aborted when `incarnation` is nonzero and not the
  // server's (it restarted: a restarted server serves no region until it is
  // opened again); CloseRegion gives NotFound for a region that is not open;
  // DropRegion deletes the region's rows (NotFound: never hosted or gone).
  [[nodiscard]] virtual Status OpenRegion(const RegionDescriptor& region,
                                          uint64_t incarnation,
                                          CoordinatorEpoch epoch) = 0;
  [[nodiscard]] virtual Status CloseRegion(uint64_t region_id,
                                           CoordinatorEpoch epoch) = 0;
  [[nodiscard]] virtual Status DropRegion(uint64_t region_id,
                                          CoordinatorEpoch epoch) = 0;
  [[nodiscard]] Status OpenRegion(const RegionDescriptor& region,
                                  uint64_t incarnation) {
    return OpenRegion(region, incarnation, CoordinatorEpoch{});
  }
  [[nodiscard]] Status CloseRegion(uint64_t region_id) {
    return CloseRegion(region_id, CoordinatorEpoch{});
  }
  [[nodiscard]] Status DropRegion(uint64_t region_id) {
    return DropRegion(region_id, CoordinatorEpoch{});
  }

  // Region moves and splits (regionstore/region_store.h, "Staged regions"
  // and SplitPoint, have the full contracts;
  // router/coordinator/region_ops.cc uses them). OpenStagedRegion opens a
  // region STAGED, Aborted as OpenRegion when `incarnation` is nonzero and not
  // the server's (0 for a new, empty region; the server's when a switched
  // operation's targets are reopened after a restart, as they serve reads):
  // calls naming it work, it may overlap serving regions of its table, and
  // lookups over every region of the table skip it; OpenRegion of it later
  // promotes it to serving (InvalidArgument while a serving region overlaps
  // it). SplitPoint is a row key splitting an open region's rows about in half
  // (nullopt: fewer than 2 rows; NotFound: not open); the RPC client checks
  // that a reply's key is non-empty and at most kMaxRowKeyBytes (Corruption
  // otherwise). Clients that predate moves (test doubles) keep these defaults,
  // which refuse the call.
  [[nodiscard]] virtual Status OpenStagedRegion(const RegionDescriptor& region,
                                                uint64_t incarnation,
                                                CoordinatorEpoch epoch) {
    (void)region, (void)incarnation, (void)epoch;
    return Unsupported("opening a staged region");
  }
  [[nodiscard]] Status OpenStagedRegion(const RegionDescriptor& region,
                                        uint64_t incarnation) {
    return OpenStagedRegion(region, incarnation, CoordinatorEpoch{});
  }
  virtual StatusOr<std::optional<std::string>> SplitPoint(uint64_t region_id) {
    (void)region_id;
    return Unsupported("asking for a split point");
  }
  // RegionStore::ExportRows: a slice of a region's rows as a bulk file (for
  // BulkLoad into another server's region). The RPC client checks the
  // reply as untrusted: rows within the request's max_rows, a file exactly
  // when there are rows, a resume row after the start, before the stop and
  // of a row key's size (Corruption otherwise).
  virtual StatusOr<ExportedRows> ExportRows(const ExportRequest& request) {
    (void)request;
    return Unsupported("exporting rows");
  }
  virtual StatusOr<std::vector<RegionDescriptor>> ListRegions() = 0;
  // The ids of the open regions, ascending (ListRegions without the key
  // ranges; the default asks ListRegions).
  virtual StatusOr<std::vector<uint64_t>> OpenRegionIds() {
    StatusOr<std::vector<RegionDescriptor>> regions = ListRegions();
    if (!regions.ok()) return regions.status();
    std::vector<uint64_t> ids;
    for (const RegionDescriptor& r : *regions) ids.push_back(r.region_id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  // RegionStore::GetRegionStats: one page of what the server's regions
  // hold. Replies are checked: at most request.max_regions regions, ids
  // ascending above request.after_region_id (Corruption otherwise). The
  // default answers InvalidArgument, for test doubles that have no store.
  virtual StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) {
    (void)request;
    return Status::InvalidArgument("this region client has no statistics");
  }

  // Loads a bulk file (regionstore/bulk_file.h), given as its bytes, into an
  // open region: puts of its rows, atomically, with the result Apply of
  // them would give. InvalidArgument (nothing written) for a bad file;
  // fenced as Apply.
  virtual StatusOr<WriteResult> BulkLoad(uint64_t region_id,
                                         const std::string& file,
                                         uint64_t fence_token) = 0;

  // The index lifecycle (regionstore/region_store.h has the full
  // contracts). UpdateTableIndexes gives every region of the table on the
  // server the table's indexed columns (NotFound: the server hosts none of
  // its regions); after it returns, every write that starts maintains
  // them. BackfillIndex adds, for the next rows of an open region after
  // `after_row` ("" = from its start), the missing entries of a building
  // column; DropIndexEntries removes entries of a column the table no
  // longer indexes. Both answer the filter ops they made as a write does
  // (the caller applies them to the replica) and are fenced as Apply.
  // Clients that predate the lifecycle (test doubles) keep these defaults,
  // which refuse the call.
  [[nodiscard]] virtual Status UpdateTableIndexes(const TableDescriptor& table,
                                                  CoordinatorEpoch epoch) {
    (void)table, (void)epoch;
    return Unsupported("updating a table's indexed columns");
  }
  virtual StatusOr<IndexChunkResult> BackfillIndex(
      uint64_t region_id, uint32_t column_id, const std::string& after_row,
      uint32_t max_rows, uint64_t fence_token, CoordinatorEpoch epoch) {
    (void)region_id, (void)column_id, (void)after_row, (void)max_rows,
        (void)fence_token, (void)epoch;
    return Unsupported("backfilling an index");
  }
  virtual StatusOr<IndexChunkResult> DropIndexEntries(uint64_t region_id,
                                                      uint32_t column_id,
                                                      uint32_t max_entries,
                                                      uint64_t fence_token,
                                                      CoordinatorEpoch epoch) {
    (void)region_id, (void)column_id, (void)max_entries, (void)fence_token,
        (void)epoch;
    return Unsupported("dropping an index's entries");
  }

  // RegionStore::SubscribeOps: subscribes this router to the server's
  // filter ops, or renews the lease (router/op_subscriber.h). The reply is
  // untrusted: the caller checks it. Clients that predate op pushes (test
  // doubles) keep this default, which refuses the call.
  virtual StatusOr<OpSubscribeGrant> SubscribeOps(
      const OpSubscribeRequest& request) {
    (void)request;
    return Unsupported("subscribing to filter ops");
  }

  // Scrutiny: the server recomputes its index entries, value counts and
  // filter from its rows and reports what disagrees (IndexReport). With a
  // table id only that table's rows, entries and values are counted; the
  // filter comparison is server-wide. Slow: it reads everything the server
  // stores, holding its writes off meanwhile.
  virtual StatusOr<IndexReport> VerifyIndex(
      std::optional<uint64_t> table_id) = 0;

 protected:
  RegionClient() = default;

 private:
  static Status Unsupported(const char* what) {
    return Status::InvalidArgument(std::string(what) +
                                   " is not supported by this region client");
  }
};

// Fetches one page of a bits-only snapshot (RegionStore::SnapshotImagePage):
// image_id 0 and offset 0 start a new image (raising the fence, which the
// function passes on); otherwise the page of that image at `offset`.
using FilterImagePageFetch = std::function<StatusOr<FilterImagePage>(
    uint64_t image_id, uint64_t offset)>;

struct FilterImageLimits {
  // Bytes of a whole image, at most. An image over it is refused before
  // its second page is fetched: IOError naming both sizes and `option`.
  uint64_t max_image_bytes = uint64_t{1} << 30;
  // The option that sets max_image_bytes, for that message.
  const char* option = "router --max-filter-image-bytes";
  // Times an image that expired on the server (NotFound after the first
  // page) is started again before the NotFound is returned.
  uint32_t max_restarts = 3;
};

// Fetches every page of one image and puts them together. Pages are
// untrusted: every page must name the first page's image id (never 0),
// incarnation, epoch, last_seq and total_bytes; start where the previous
// one ended (the first at 0); hold at least one byte; and end at or before
// total_bytes. Anything else is Corruption naming the page. An error of
// `fetch` is returned as it is, except an expired image (see max_restarts).
// Memory: the image, as it arrives (nothing is reserved from a page's
// claims).
StatusOr<FilterImage> AssembleFilterImage(const FilterImagePageFetch& fetch,
                                          const FilterImageLimits& limits);

// Makes the client for one server; the router holds one per server.
// Thread-safety: Connect may be called concurrently.
class RegionClientFactory {
 public:
  virtual ~RegionClientFactory() = default;
  // A client for the server at `address` ("host:port" for the RPC client).
  // Connecting may be lazy: an unreachable server may give Unavailable here
  // or on the first call. InvalidArgument for a malformed address.
  virtual StatusOr<std::unique_ptr<RegionClient>> Connect(
      ServerId server, const std::string& address) = 0;

 protected:
  RegionClientFactory() = default;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_REGION_CLIENT_H_
