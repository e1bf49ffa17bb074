// Row operations: routed writes, gets and scans across regions.
#include <algorithm>
#include <iterator>
#include <utility>

#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::ScanSpec;

namespace {

// One RegionService call carries at most this many rows or (about) bytes, so
// that a request stays far below a region server's frame limit and its
// per-batch limit.
constexpr size_t kRowsPerRpc = 1000;
constexpr size_t kBytesPerRpc = 8 << 20;

Status ValidateRowKey(const std::string& key, size_t position) {
  if (key.empty() || key.size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("row " + std::to_string(position) +
                                   ": the row key must be 1 to " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  return Status::OK();
}

Status ValidateMutation(const Mutation& m, size_t position) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRowKey(m.row_key, position));
  const std::string where = "row " + std::to_string(position);
  if (m.kind == Mutation::Kind::kPut) {
    if (m.cells.empty()) {
      return Status::InvalidArgument(where + ": a put needs a column value");
    }
    for (const Cell& c : m.cells) {
      BLOOMROUTE_RETURN_IF_ERROR(
          ValidateColumnName(c.column).WithContext(where));
    }
    return Status::OK();
  }
  for (const std::string& c : m.columns) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c).WithContext(where));
  }
  return Status::OK();
}

size_t MutationBytes(const Mutation& m) {
  size_t n = m.row_key.size() + 16;
  for (const Cell& c : m.cells) n += c.column.size() + c.value.size() + 8;
  for (const std::string& c : m.columns) n += c.size() + 4;
  return n;
}

}  // namespace

template <typename SendFn>
Status RouterImpl::SendWrite(const ServerEntry& server, SendFn&& send) {
  // A fence refuses writes with an older token only after a write to the
  // server went in doubt; a retry with the new token is a new request (the
  // refused one wrote nothing). A few attempts: fences rise rarely.
  constexpr int kAttempts = 3;
  for (int attempt = 1;; ++attempt) {
    StatusOr<WriteResult> result = RetryIfRegionsClosed(
        server, [&] { return send(index_->FenceToken(server.ref.id)); });
    if (result.ok()) {
      // Before the caller hears of success: read-your-writes.
      ApplyWrite(server, *result);
      return Status::OK();
    }
    if (result.status().IsAborted() && attempt < kAttempts) continue;
    return WriteFailed(server, result.status());
  }
}

Status RouterImpl::ApplyBatches(const ServerEntry& server,
                                std::vector<Mutation> mutations) {
  size_t begin = 0;
  while (begin < mutations.size()) {
    size_t end = begin;
    size_t bytes = 0;
    while (end < mutations.size() && end - begin < kRowsPerRpc &&
           (end == begin || bytes < kBytesPerRpc)) {
      bytes += MutationBytes(mutations[end++]);
    }
    // Moved, not copied: the rows' bytes are not duplicated per write.
    const std::vector<Mutation> chunk(
        std::make_move_iterator(mutations.begin() + begin),
        std::make_move_iterator(mutations.begin() + end));
    BLOOMROUTE_RETURN_IF_ERROR(SendWrite(server, [&](uint64_t token) {
      return server.client->Apply(chunk, token);
    }));
    begin = end;
  }
  return Status::OK();
}

Status RouterImpl::Mutate(std::string_view table,
                          std::vector<Mutation> mutations) {
  if (mutations.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " rows per call");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTable(table));
  std::map<ServerId, std::vector<Mutation>> by_server;
  for (size_t i = 0; i < mutations.size(); ++i) {
    Mutation& m = mutations[i];
    BLOOMROUTE_RETURN_IF_ERROR(ValidateMutation(m, i));
    const CatalogRegion& region =
        state->record.regions[state->RegionFor(m.row_key)];
    m.region_id = region.region_id;
    by_server[region.server].push_back(std::move(m));
  }
  std::vector<std::pair<const ServerEntry*, std::vector<Mutation>*>> work;
  for (auto& [id, batch] : by_server) work.emplace_back(&Server(id), &batch);
  std::vector<Status> results(work.size());
  fan_out_->Run(work.size(), [&](size_t i) {
    results[i] = ApplyBatches(*work[i].first, std::move(*work[i].second));
  });
  for (const Status& s : results) BLOOMROUTE_RETURN_IF_ERROR(s);
  return Status::OK();
}

Status RouterImpl::BulkLoad(std::string_view table, uint64_t region_id,
                            const std::string& file) {
  if (file.empty()) return Status::InvalidArgument("the bulk file is empty");
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTable(table));
  const std::vector<CatalogRegion>& regions = state->record.regions;
  auto region = std::find_if(
      regions.begin(), regions.end(),
      [&](const CatalogRegion& r) { return r.region_id == region_id; });
  if (region == regions.end()) {
    return Status::InvalidArgument("region " + std::to_string(region_id) +
                                   " is not a region of table " +
                                   QuoteForMessage(table));
  }
  const ServerEntry& server = Server(region->server);
  return SendWrite(server, [&](uint64_t token) {
    return server.client->BulkLoad(region_id, file, token);
  });
}

StatusOr<std::vector<std::optional<Row>>> RouterImpl::Get(
    std::string_view table, std::vector<GetRequest> requests) {
  if (requests.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " rows per call");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTable(table));
  // Per server: the requests and their positions in the answer.
  struct Part {
    const ServerEntry* server = nullptr;
    std::vector<GetRequest> gets;
    std::vector<size_t> positions;
  };
  std::vector<ServerId> server_of(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    GetRequest& g = requests[i];
    BLOOMROUTE_RETURN_IF_ERROR(ValidateRowKey(g.row_key, i));
    BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(g.columns));
    const CatalogRegion& region =
        state->record.regions[state->RegionFor(g.row_key)];
    g.region_id = region.region_id;
    server_of[i] = region.server;
  }
  // Chunks of at most kRowsPerRpc per server, fetched in parallel.
  std::map<ServerId, size_t> chunk_of;
  std::vector<Part> work;
  for (size_t i = 0; i < requests.size(); ++i) {
    const ServerId server = server_of[i];
    auto it = chunk_of.find(server);
    if (it == chunk_of.end() || work[it->second].gets.size() >= kRowsPerRpc) {
      chunk_of[server] = work.size();
      work.push_back(Part{&Server(server), {}, {}});
      it = chunk_of.find(server);
    }
    work[it->second].gets.push_back(std::move(requests[i]));
    work[it->second].positions.push_back(i);
  }
  std::vector<std::optional<Row>> out(requests.size());
  std::vector<Status> results(work.size());
  fan_out_->Run(work.size(), [&](size_t i) {
    StatusOr<std::vector<std::optional<Row>>> rows = RetryIfRegionsClosed(
        *work[i].server,
        [&] { return work[i].server->client->Get(work[i].gets); });
    if (!rows.ok()) {
      results[i] = Named(*work[i].server, rows.status());
    } else if (rows->size() != work[i].gets.size()) {
      results[i] =
          Status::Corruption("region server " + work[i].server->ref.address +
                             " answered a get with too few rows");
    } else {
      for (size_t j = 0; j < rows->size(); ++j) {
        out[work[i].positions[j]] = std::move((*rows)[j]);
      }
    }
  });
  for (const Status& s : results) BLOOMROUTE_RETURN_IF_ERROR(s);
  return out;
}

StatusOr<ScanResult> RouterImpl::Scan(std::string_view table,
                                      const ScanSpec& spec, uint32_t limit) {
  if (limit < 1 || limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("the scan limit must be in [1, " +
                                   std::to_string(kMaxRowsPerCall) + "]");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(spec.columns));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTable(table));
  ScanResult out;
  if (!spec.stop_row.empty() && spec.start_row >= spec.stop_row) return out;
  const std::vector<CatalogRegion>& regions = state->record.regions;
  for (size_t r = state->RegionFor(spec.start_row); r < regions.size(); ++r) {
    const CatalogRegion& region = regions[r];
    if (!spec.stop_row.empty() && !region.start_key.empty() &&
        region.start_key >= spec.stop_row) {
      break;
    }
    ScanRequest request{
        region.region_id, std::max(spec.start_row, region.start_key),
        spec.stop_row, static_cast<uint32_t>(limit - out.rows.size()),
        spec.columns};
    const ServerEntry& server = Server(region.server);
    StatusOr<ScanResult> part = RetryIfRegionsClosed(
        server, [&] { return server.client->Scan(request); });
    if (!part.ok()) return Named(server, part.status());
    for (Row& row : part->rows) out.rows.push_back(std::move(row));
    if (part->resume_row.has_value()) {
      out.resume_row = std::move(part->resume_row);
      return out;
    }
    if (region.end_key.empty()) break;
    if (out.rows.size() >= limit) {
      if (spec.stop_row.empty() || region.end_key < spec.stop_row) {
        out.resume_row = region.end_key;  // later regions may hold rows
      }
      return out;
    }
  }
  return out;
}

}  // namespace bloomroute::router_internal
