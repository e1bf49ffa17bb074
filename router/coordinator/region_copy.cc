// The copy of a region operation (region_ops.cc has the mechanism and
// its steps): the targets opened staged, the first copy of the sources'
// rows into the targets as bulk files (step 3), and the catch-up rounds
// that copy again the rows written meanwhile (step 4).
#include "router/coordinator/region_copy.h"

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/table_attributes.h"
#include "router/internal/write_path.h"

namespace bloomroute::router_internal {

using router::RegionOpResult;

namespace {

// One copy call carries at most this many rows or (about) bytes, as the
// write path's calls (kRowsPerRpc, kBytesPerRpc in internal/write_path.h).
constexpr uint32_t kCopyRowsPerCall = 1000;
constexpr uint64_t kCopyBytesPerCall = 8 << 20;
// The first copy moves bulk files of at most this many rows or (about)
// bytes: well inside a region server's bulk file limits (1,000,000 rows,
// 32 MiB) and its frame (64 MiB), and few enough calls that their latency
// does not count (BM_MoveRegion: ~170-byte rows, 4 MiB is ~24,000 rows).
constexpr uint32_t kCopyRowsPerFile = 2000;
constexpr uint64_t kCopyBytesPerFile = 1 << 20;
// Pages of the first copy being written at once (CopyRegionRows): memory
// is at most this many pages plus the one read.
constexpr size_t kCopyWritesInFlight = 2;
// A whole-row delete of every cell: timestamps are below kLatestTimestamp.
constexpr int64_t kEveryCell = kLatestTimestamp - 1;

// The index of the region of `regions` (by start key, contiguous) holding
// `row`; regions.size() when none does.
size_t RegionOf(const std::vector<CatalogRegion>& regions,
                std::string_view row) {
  for (size_t i = 0; i < regions.size(); ++i) {
    if (row >= regions[i].start_key &&
        (regions[i].end_key.empty() || row < regions[i].end_key)) {
      return i;
    }
  }
  return regions.size();
}

}  // namespace

RegionDescriptor DescriptorOf(const CatalogTable& table,
                              const CatalogRegion& r) {
  return RegionDescriptor{r.region_id, ServerDescriptor(table.descriptor),
                          r.start_key, r.end_key};
}

Status RegionCopy::OpenTargets(uint64_t table_id, const CatalogRegionOp& op) {
  CatalogTable table;
  const std::shared_ptr<const CatalogStore::TableList> tables =
      ctx_.catalog->Tables();
  for (const CatalogTable& t : *tables) {
    if (t.descriptor.table_id == table_id) table = t;
  }
  for (const CatalogRegion& target : op.targets) {
    const ServerEntry& server = ctx_.servers->Get(target.server);
    const Status s = server.client->OpenStagedRegion(
        DescriptorOf(table, target), 0, ctx_.coordinator_epoch());
    if (!s.ok()) return ctx_.write_path->ServerFailed(server, s);
  }
  return Status::OK();
}

Status RegionCopy::FenceSources(const CatalogRegionOp& op) {
  for (const CatalogRegion& source : op.sources) {
    const ServerEntry& server = ctx_.servers->Get(source.server);
    // A write that went in doubt made the replica not current
    // (GlobalIndex::MarkWriteInDoubt); the catch-up that makes it current
    // raises the server's fence past that write's token.
    if (ctx_.index->IsCurrent(server.ref.id)) continue;
    if (!ctx_.write_path->EnsureFilterConfig(server.ref.id, server)) {
      return WritePath::Named(
          server, Status::Unavailable("its filter config could not be checked "
                                      "before the copy; try again"));
    }
    const Status s = ctx_.index->CatchUp(server.ref.id, *server.client);
    if (!s.ok()) {
      return ctx_.write_path->ServerFailed(server, s).WithContext(
          "raising the fence of the region's server before the copy");
    }
  }
  return Status::OK();
}

Status RegionCopy::SyncTargets(const CatalogRegionOp& op) {
  std::set<ServerId> servers;
  for (const CatalogRegion& t : op.targets) servers.insert(t.server);
  for (ServerId id : servers) {
    const ServerEntry& server = ctx_.servers->Get(id);
    const Status s = server.client->SyncWal();
    if (!s.ok()) return ctx_.write_path->ServerFailed(server, s);
  }
  return Status::OK();
}

Status RegionCopy::CopyRegionRows(const CatalogRegionOp& op,
                                  RegionOpResult* result) {
  // Each target's part of each source, as bulk files (ExportRows) loaded
  // into the target (BulkLoad, through SendWrite as a write: fenced, its
  // filter ops applied to the replica).
  for (const CatalogRegion& source : op.sources) {
    for (const CatalogRegion& target : op.targets) {
      const std::string& low = std::max(source.start_key, target.start_key);
      std::string high = source.end_key;
      if (high.empty() || (!target.end_key.empty() && target.end_key < high)) {
        high = target.end_key;
      }
      if (!high.empty() && low >= high) continue;  // they do not overlap
      BLOOMROUTE_RETURN_IF_ERROR(CopyRange(source, target, low, high, result));
    }
  }
  return Status::OK();
}

Status RegionCopy::CopyRange(const CatalogRegion& source,
                             const CatalogRegion& target,
                             const std::string& low, const std::string& high,
                             RegionOpResult* result) {
  const ServerEntry& from = ctx_.servers->Get(source.server);
  const ServerEntry& to = ctx_.servers->Get(target.server);
  ExportRequest request;
  request.region_id = source.region_id;
  request.start_row = low;
  request.stop_row = high;
  request.max_rows = kCopyRowsPerFile;
  request.max_bytes = kCopyBytesPerFile;
  for (;;) {
    StatusOr<ExportedRows> page = from.client->ExportRows(request);
    if (!page.ok()) return ctx_.write_path->ServerFailed(from, page.status());
    // The client checked the reply's shape; progress is ours to check.
    if (page->resume_row && *page->resume_row <= request.start_row) {
      return WritePath::Named(
          from, Status::Corruption("an export of region " +
                                   std::to_string(source.region_id) +
                                   " did not move on"));
    }
    if (page->rows > 0) {
      BLOOMROUTE_RETURN_IF_ERROR(
          ctx_.write_path->LoadBulkFile(to, target.region_id, page->file));
      result->rows_copied += page->rows;
      result->bytes_copied += page->file.size();
    }
    if (!page->resume_row) return Status::OK();
    request.start_row = std::move(*page->resume_row);
  }
}

Status RegionCopy::CopyWrittenRows(const CatalogRegionOp& op,
                                   ReshapeState& state, RegionOpResult* result,
                                   size_t* noted) {
  bool overflow = false, in_doubt = false;
  const std::vector<std::string> keys = state.TakeWritten(&overflow, &in_doubt);
  ++result->catch_up_rounds;
  *noted = keys.size();
  if (overflow) {
    return Status::Unavailable(
        "writes to the region outpaced the copy (over 64 MiB of row keys "
        "written during one round); try again when fewer writes arrive");
  }
  if (in_doubt) {
    // It may still commit on the source after the last round.
    return Status::Unavailable(
        "a write to the region failed with its outcome unknown; try again");
  }
  // Keys are sorted: each source's are one run.
  size_t begin = 0;
  while (begin < keys.size()) {
    const size_t s = RegionOf(op.sources, keys[begin]);
    if (s == op.sources.size())
      return Status::Corruption("a noted row outside the sources");
    size_t end = begin;
    std::vector<GetRequest> requests;
    while (end < keys.size() && requests.size() < kCopyRowsPerCall &&
           RegionOf(op.sources, keys[end]) == s) {
      GetRequest g;
      g.region_id = op.sources[s].region_id;
      g.row_key = keys[end++];
      requests.push_back(std::move(g));
    }
    BLOOMROUTE_RETURN_IF_ERROR(CopyRowsAgain(
        op, ctx_.servers->Get(op.sources[s].server), requests, result));
    begin = end;
  }
  return Status::OK();
}

Status RegionCopy::CopyRowsAgain(const CatalogRegionOp& op,
                                 const ServerEntry& from,
                                 const std::vector<GetRequest>& requests,
                                 RegionOpResult* result) {
  size_t done = 0;
  while (done < requests.size()) {
    const std::vector<GetRequest> rest(requests.begin() + done, requests.end());
    StatusOr<std::vector<std::optional<Row>>> rows =
        from.client->Get(rest, kCopyBytesPerCall);
    if (!rows.ok()) return ctx_.write_path->ServerFailed(from, rows.status());
    if (rows->empty() || rows->size() > rest.size()) {
      return WritePath::Named(
          from,
          Status::Corruption("a get answered " + std::to_string(rows->size()) +
                             " of " + std::to_string(rest.size()) + " rows"));
    }
    std::vector<std::string> part;
    for (size_t i = 0; i < rows->size(); ++i) {
      const std::optional<Row>& row = (*rows)[i];
      if (row && row->key != rest[i].row_key) {
        return WritePath::Named(
            from, Status::Corruption("a get answered another row"));
      }
      part.push_back(rest[i].row_key);
      if (row) result->bytes_copied += ReplyBytes(*row);
    }
    BLOOMROUTE_RETURN_IF_ERROR(WriteToTargets(op, part, *rows, true));
    result->rows_copied += part.size();
    done += rows->size();
  }
  return Status::OK();
}

Status RegionCopy::WriteToTargets(const CatalogRegionOp& op,
                                  const std::vector<std::string>& keys,
                                  const std::vector<std::optional<Row>>& rows,
                                  bool replace) {
  std::vector<std::vector<Mutation>> batches(op.targets.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const size_t t = RegionOf(op.targets, keys[i]);
    if (t == op.targets.size())
      return Status::Corruption("a copied row outside the targets");
    const uint64_t region = op.targets[t].region_id;
    if (replace) {
      Mutation d = Mutation::Delete(region, keys[i]);
      d.timestamp = kEveryCell;
      batches[t].push_back(std::move(d));
    }
    // A row always has a cell; a put keeps each cell's timestamp.
    if (rows[i] && !rows[i]->cells.empty()) {
      batches[t].push_back(Mutation::Put(region, keys[i], rows[i]->cells));
    }
  }
  for (size_t t = 0; t < batches.size(); ++t) {
    if (batches[t].empty()) continue;
    BLOOMROUTE_RETURN_IF_ERROR(ctx_.write_path->ApplyBatches(
        ctx_.servers->Get(op.targets[t].server), std::move(batches[t])));
  }
  return Status::OK();
}

}  // namespace bloomroute::router_internal
