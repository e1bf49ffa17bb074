// RowCalls (row_calls.h): routed writes and gets across regions.
#include "router/internal/row_calls.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <utility>

#include "common/sync_point.h"
#include "model/table_attributes.h"
#include "router/internal/scans.h"
#include "router/router.h"

namespace bloomroute::router_internal {

using router::kMaxMutationsPerRowOperation;

namespace {

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
  // Mutate splits a call into several writes and drops their outcomes: what
  // must be atomic or answered goes through the row operations.
  if (m.condition || m.kind == Mutation::Kind::kIncrement ||
      m.kind == Mutation::Kind::kAppend) {
    return Status::InvalidArgument(
        where +
        ": Mutate takes puts and deletes; conditions, increments and "
        "appends go through CheckAndMutate, Increment and Append");
  }
  if (m.kind == Mutation::Kind::kPut) {
    if (m.cells.empty()) {
      return Status::InvalidArgument(where + ": a put needs a column value");
    }
    for (const Cell& c : m.cells) {
      BLOOMROUTE_RETURN_IF_ERROR(
          ValidateColumnName(c.column).WithContext(where));
      BLOOMROUTE_RETURN_IF_ERROR(ValidateTimestampNamed(c.timestamp, [&] {
                                   return "timestamp of column " +
                                          QuoteForMessage(c.column);
                                 }).WithContext(where));
    }
  }
  for (const std::string& c : m.columns) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(c).WithContext(where));
  }
  for (const DeleteSpec& d : m.deletes) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateDeleteSpec(d).WithContext(where));
  }
  return ValidateTimestamp(m.timestamp, "timestamp").WithContext(where);
}

}  // namespace

Status RowCalls::Mutate(std::string_view table,
                        std::vector<Mutation> mutations) {
  if (mutations.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " rows per call");
  }
  std::vector<std::string_view> rows;
  for (size_t i = 0; i < mutations.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateMutation(mutations[i], i));
    rows.push_back(mutations[i].row_key);
  }
  // Held until every part is answered: a region operation copies the rows
  // it notes below once more before it switches.
  BLOOMROUTE_ASSIGN_OR_RETURN(const WriteRoute route,
                              ctx_.write_path->RouteWrite(table, rows));
  const TableState& state = *route.state;
  std::map<ServerId, std::vector<Mutation>> by_server;
  // The rows in the operation's sources, with their region, to note.
  std::map<ServerId, std::vector<std::pair<std::string, size_t>>> noted;
  for (Mutation& m : mutations) {
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckMutationFamilies(state.record.descriptor, m));
  }
  for (Mutation& m : mutations) {
    const size_t r = state.RegionFor(m.row_key);
    const CatalogRegion& region = state.record.regions[r];
    m.region_id = region.region_id;
    if (route.op != nullptr) noted[region.server].emplace_back(m.row_key, r);
    by_server[region.server].push_back(std::move(m));
  }
  std::vector<std::pair<const ServerEntry*, std::vector<Mutation>*>> work;
  for (auto& [id, batch] : by_server)
    work.emplace_back(&ctx_.servers->Get(id), &batch);
  std::vector<Status> results(work.size());
  ctx_.fan_out->Run(work.size(), [&](size_t i) {
    results[i] = ctx_.write_path->ApplyBatches(*work[i].first,
                                               std::move(*work[i].second));
  });
  for (size_t i = 0; i < work.size(); ++i) {
    for (const auto& [row, r] : noted[work[i].first->ref.id]) {
      route.Note(row, r, results[i]);
    }
  }
  for (const Status& s : results) BLOOMROUTE_RETURN_IF_ERROR(s);
  return Status::OK();
}

Status RowCalls::BulkLoad(std::string_view table, uint64_t region_id,
                          const std::string& file) {
  if (file.empty()) return Status::InvalidArgument("the bulk file is empty");
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->Find(table));
  const std::vector<CatalogRegion>& regions = state->record.regions;
  auto region = std::find_if(
      regions.begin(), regions.end(),
      [&](const CatalogRegion& r) { return r.region_id == region_id; });
  if (region == regions.end()) {
    return Status::InvalidArgument("region " + std::to_string(region_id) +
                                   " is not a region of table " +
                                   QuoteForMessage(table));
  }
  // The router does not know a file's rows, so it cannot note them for a
  // region operation's catch-up: a load waits for the operation to end.
  // Decided from the state the load routes with (as RouteWrite does): a
  // state from before the operation is waited for by its copy.
  BLOOMROUTE_SYNC_POINT("BulkLoad:StateTaken");
  const std::shared_ptr<ReshapeState>& op = state->reshape;
  if (op != nullptr &&
      op->Covers(state->record.descriptor.table_id, region_id)) {
    return Status::Unavailable(
        "region " + std::to_string(region_id) +
        " is being moved, split or merged; load the file again when that "
        "has ended (bloomroute admin regions shows the new regions)");
  }
  return ctx_.write_path->LoadBulkFile(ctx_.servers->Get(region->server),
                                       region_id, file);
}

// ---- Atomic row operations ----

StatusOr<WriteResult> RowCalls::ApplyRowAtomically(
    std::string_view table, const std::string& row,
    std::vector<Mutation> mutations) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRowKey(row, 0));
  if (mutations.empty() || mutations.size() > kMaxMutationsPerRowOperation) {
    return Status::InvalidArgument(
        "an atomic row operation carries 1 to " +
        std::to_string(kMaxMutationsPerRowOperation) +
        " mutations (kMaxMutationsPerRowOperation), not " +
        std::to_string(mutations.size()));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(const WriteRoute route,
                              ctx_.write_path->RouteWrite(table, {row}));
  const TableState* state = route.state.get();
  const size_t region_index = state->RegionFor(row);
  const CatalogRegion& region = state->record.regions[region_index];
  for (size_t i = 0; i < mutations.size(); ++i) {
    if (mutations[i].row_key != row) {
      return Status::InvalidArgument(
          "mutation " + std::to_string(i) + " names row " +
          QuoteForMessage(mutations[i].row_key) + ", not the operation's row " +
          QuoteForMessage(row));
    }
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckMutationFamilies(state->record.descriptor, mutations[i])
            .WithContext("mutation " + std::to_string(i)));
    mutations[i].region_id = region.region_id;
  }
  const ServerEntry& server = ctx_.servers->Get(region.server);
  // Resent only when the server refused it with nothing written (SendWrite,
  // RetryIfRegionsClosed): an increment is never applied twice by the router.
  StatusOr<WriteResult> sent = ctx_.write_path->SendWrite(
      server,
      [&](uint64_t token) { return server.client->Apply(mutations, token); });
  route.Note(row, region_index, sent.status());
  BLOOMROUTE_ASSIGN_OR_RETURN(WriteResult result, std::move(sent));
  // A server says what each mutation did unless all are plain puts and
  // deletes (WriteResult::outcomes).
  const bool plain =
      std::all_of(mutations.begin(), mutations.end(), [](const Mutation& m) {
        return !m.condition && (m.kind == Mutation::Kind::kPut ||
                                m.kind == Mutation::Kind::kDelete);
      });
  if (result.outcomes.size() != (plain ? 0 : mutations.size())) {
    return WritePath::Named(
        server, Status::Corruption(
                    "the answer to an atomic row operation holds " +
                    std::to_string(result.outcomes.size()) + " outcomes for " +
                    std::to_string(mutations.size()) + " mutations"));
  }
  return result;
}

StatusOr<bool> RowCalls::CheckAndMutate(std::string_view table,
                                        const std::string& row,
                                        const RowCondition& condition,
                                        std::vector<Mutation> mutations) {
  for (Mutation& m : mutations) m.condition = condition;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      WriteResult result, ApplyRowAtomically(table, row, std::move(mutations)));
  return result.outcomes.front().applied;
}

StatusOr<Row> RowCalls::Increment(std::string_view table,
                                  const std::string& row,
                                  std::vector<ColumnIncrement> increments) {
  if (increments.empty() || increments.size() > kMaxMutationsPerRowOperation) {
    return Status::InvalidArgument(
        "an increment names 1 to " +
        std::to_string(kMaxMutationsPerRowOperation) +
        " columns (kMaxMutationsPerRowOperation)");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      WriteResult result,
      ApplyRowAtomically(table, row,
                         {Mutation::Increment(0, row, std::move(increments))}));
  return Row{row, std::move(result.outcomes.front().cells)};
}

StatusOr<Row> RowCalls::Append(std::string_view table, const std::string& row,
                               std::vector<Cell> cells) {
  if (cells.empty() || cells.size() > kMaxMutationsPerRowOperation) {
    return Status::InvalidArgument(
        "an append names 1 to " + std::to_string(kMaxMutationsPerRowOperation) +
        " columns (kMaxMutationsPerRowOperation)");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      WriteResult result,
      ApplyRowAtomically(table, row,
                         {Mutation::Append(0, row, std::move(cells))}));
  return Row{row, std::move(result.outcomes.front().cells)};
}

Status RowCalls::MutateRow(std::string_view table, const std::string& row,
                           std::vector<Mutation> mutations) {
  // A condition would make some mutations of the row conditional and
  // others not, which no HBase call means.
  for (const Mutation& m : mutations) {
    if (m.condition) {
      return Status::InvalidArgument(
          "mutateRow takes no conditions: use CheckAndMutate");
    }
  }
  return ApplyRowAtomically(table, row, std::move(mutations)).status();
}

StatusOr<std::vector<std::optional<Row>>> RowCalls::Get(
    std::string_view table, std::vector<GetRequest> requests) {
  if (requests.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " rows per call");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->Find(table));
  std::vector<ServerId> server_of(requests.size());
  // Parsed filters by position (most gets have none); the region servers
  // are sent the gets without them.
  std::map<size_t, Filter> filters;
  for (size_t i = 0; i < requests.size(); ++i) {
    GetRequest& g = requests[i];
    BLOOMROUTE_RETURN_IF_ERROR(ValidateRowKey(g.row_key, i));
    BLOOMROUTE_RETURN_IF_ERROR(ValidateProjection(g.columns));
    if (!g.filter.empty()) {
      StatusOr<Filter> f =
          ParseRouterFilter(g.filter, ctx_.options->max_filter_bytes);
      if (!f.ok()) return f.status().WithContext("get " + std::to_string(i));
      filters.emplace(i, std::move(f).value());
      g.filter.clear();
    }
    BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(g.time_range));
    BLOOMROUTE_RETURN_IF_ERROR(
        CheckProjectionFamilies(state->record.descriptor, g.columns));
    const CatalogRegion& region =
        state->record.regions[state->RegionFor(g.row_key)];
    g.region_id = region.region_id;
    server_of[i] = region.server;
  }
  // Waves of requests in order until the reply budget is spent: duplicate
  // gets of one large row would otherwise build a reply of any size.
  const uint64_t budget = ctx_.options->max_reply_bytes;
  std::vector<std::optional<Row>> out;
  uint64_t used = 0;
  while (out.size() < requests.size() && used < budget) {
    BLOOMROUTE_RETURN_IF_ERROR(
        GetWave(requests, server_of, out.size(), budget, &out, &used).status());
  }
  // On the projected row, as a scan's filter; of PageFilter only a page of
  // zero rows matters to a get of one row.
  for (auto& [i, filter] : filters) {
    if (i >= out.size() || !out[i]) continue;
    const bool empty_page = PlanFilter(filter, [](std::string_view) {
                              return false;
                            }).row_limit == std::optional<uint64_t>(0);
    out[i] = empty_page ? std::nullopt : ApplyFilter(filter, *out[i]);
  }
  return out;
}

namespace {

// One call of a wave of Get: a chunk of the gets of one server.
struct GetChunk {
  const ServerEntry* server = nullptr;
  std::vector<GetRequest> gets;  // copies: a later wave may need them
  std::vector<size_t> positions;
  std::vector<std::optional<Row>> rows;
  Status status;
};

// The requests [begin, end) in chunks of at most kRowsPerRpc per server,
// in order (a deque: stable addresses).
std::deque<GetChunk> ChunkGets(const std::vector<GetRequest>& requests,
                               const std::vector<ServerId>& server_of,
                               size_t begin, size_t end,
                               const ServerDirectory& servers) {
  std::deque<GetChunk> chunks;
  std::map<ServerId, GetChunk*> open_chunk;
  for (size_t i = begin; i < end; ++i) {
    GetChunk*& part = open_chunk[server_of[i]];
    if (part == nullptr || part->gets.size() >= kRowsPerRpc) {
      part = &chunks.emplace_back();
      part->server = &servers.Get(server_of[i]);
    }
    part->gets.push_back(requests[i]);
    part->positions.push_back(i);
  }
  return chunks;
}

// Appends the answered prefix of the requests [begin, end) to `out`
// (counting ReplyBytes in `*used`, stopping after the row that passes
// `budget`); returns how many it appended. The first position a server did
// not answer ends the prefix (the wave's first request is always answered).
size_t AppendAnswered(std::deque<GetChunk>* chunks, size_t begin, size_t end,
                      uint64_t budget, std::vector<std::optional<Row>>* out,
                      uint64_t* used) {
  std::vector<std::optional<Row>*> answer(end - begin, nullptr);
  for (GetChunk& p : *chunks) {
    for (size_t j = 0; j < p.rows.size(); ++j) {
      answer[p.positions[j] - begin] = &p.rows[j];
    }
  }
  size_t appended = 0;
  for (std::optional<Row>* row : answer) {
    if (row == nullptr || (appended > 0 && *used >= budget)) break;
    *used += *row ? ReplyBytes(**row) : kReplyBytesPerCell;
    out->push_back(std::move(*row));
    ++appended;
  }
  return appended;
}

}  // namespace

StatusOr<size_t> RowCalls::GetWave(const std::vector<GetRequest>& requests,
                                   const std::vector<ServerId>& server_of,
                                   size_t begin, uint64_t budget,
                                   std::vector<std::optional<Row>>* out,
                                   uint64_t* used) {
  // A wave holds up to server_calls_per_request chunks of kRowsPerRpc per
  // server, fetched in parallel but never more than that many at once on one
  // server: a huge get must not hold all of a server's connections.
  const size_t per_server = ctx_.options->server_calls_per_request;
  const size_t end =
      std::min(requests.size(), begin + kRowsPerRpc * per_server);
  std::deque<GetChunk> chunks =
      ChunkGets(requests, server_of, begin, end, *ctx_.servers);
  std::vector<uint64_t> server_of_part;
  for (const GetChunk& part : chunks) {
    server_of_part.push_back(part.server->ref.id);
  }
  // Each chunk gets a share of what is left, so that the wave holds about
  // the budget whatever the servers answer (each answers one row at least).
  const uint64_t share =
      std::max<uint64_t>(1, (budget - *used) / chunks.size());
  ctx_.fan_out->RunPerKey(server_of_part, per_server, [&](size_t i) {
    GetChunk& p = chunks[i];
    StatusOr<std::vector<std::optional<Row>>> rows =
        ctx_.write_path->RetryIfRegionsClosed(
            *p.server, [&] { return p.server->client->Get(p.gets, share); });
    if (!rows.ok()) {
      p.status = WritePath::Named(*p.server, rows.status());
    } else if (rows->empty() || rows->size() > p.gets.size()) {
      p.status =
          Status::Corruption("region server " + p.server->ref.address +
                             " answered " + std::to_string(rows->size()) +
                             " of " + std::to_string(p.gets.size()) + " gets");
    } else {
      p.rows = std::move(rows).value();
    }
  });
  for (const GetChunk& p : chunks) BLOOMROUTE_RETURN_IF_ERROR(p.status);
  return AppendAnswered(&chunks, begin, end, budget, out, used);
}

}  // namespace bloomroute::router_internal
