// Index lookups routed through the global index, and cluster statistics.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "index/element_hash.h"
#include "model/table_attributes.h"
#include "router/internal/router_impl.h"

namespace bloomroute::router_internal {

using router::LookupResult;
using router::LookupSpec;
using router::ServerRef;

namespace {

// At most this many predicates in one lookup (far more than any index use).
constexpr size_t kMaxPredicates = 64;

Status ValidateLookup(const LookupSpec& spec) {
  if (spec.equals.empty() || spec.equals.size() > kMaxPredicates) {
    return Status::InvalidArgument("a lookup needs 1 to " +
                                   std::to_string(kMaxPredicates) +
                                   " predicates");
  }
  if (spec.limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("the limit is above " +
                                   std::to_string(kMaxRowsPerCall));
  }
  if (spec.after_row && spec.after_row->size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("the row to resume after is longer than " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(spec.time_range));
  return ValidateProjection(spec.columns);
}

// The hash of each predicate's element (computed once per lookup).
StatusOr<std::vector<ElementHash>> HashPredicates(const TableDescriptor& table,
                                                  const LookupSpec& spec) {
  std::vector<ElementHash> hashes;
  for (const EqualityPredicate& p : spec.equals) {
    const IndexedColumn* column = table.FindIndexed(p.column);
    if (column == nullptr) {
      return Status::InvalidArgument("column " + QuoteForMessage(p.column) +
                                     " is not indexed in table '" + table.name +
                                     "'");
    }
    hashes.push_back(HashElement(table.table_id, column->column_id, p.value));
  }
  return hashes;
}

// The last key a truncated answer covers: its resume_after, or (from a
// server that does not send one) its last row. Needs CheckAnswer.
const std::string& Covered(const IndexQueryResult& answer) {
  return answer.resume_after ? *answer.resume_after : answer.rows.back().key;
}

// One server's answer, checked: a region server's reply is untrusted input.
// Its rows must be in strictly ascending key order after `after_row` (the
// server searches its regions in key order), and a truncated answer must
// say where it stopped (a row or resume_after), after its rows and after
// `after_row`, or the merge could not say where it stopped, and a caller
// continuing from there would make no progress.
Status CheckAnswer(const IndexQueryResult& answer,
                   const std::optional<std::string>& after_row) {
  for (size_t i = 0; i < answer.rows.size(); ++i) {
    const std::string& key = answer.rows[i].key;
    if ((i > 0 && !(answer.rows[i - 1].key < key)) ||
        (i == 0 && after_row && !(*after_row < key))) {
      return Status::Corruption("lookup answer out of row-key order at " +
                                QuoteForMessage(key));
    }
  }
  if (!answer.truncated) return Status::OK();
  if (answer.rows.empty() && !answer.resume_after) {
    return Status::Corruption("lookup answer truncated without a row");
  }
  const std::string& covered = Covered(answer);
  if ((!answer.rows.empty() && covered < answer.rows.back().key) ||
      (after_row && !(*after_row < covered)) ||
      covered.size() > kMaxRowKeyBytes) {
    return Status::Corruption("lookup answer resumes after " +
                              QuoteForMessage(covered) +
                              ", which is not after its rows and the row "
                              "asked to resume after: it makes no progress");
  }
  return Status::OK();
}

// Merges the servers' answers into a prefix, in row-key order, of the full
// answer. A server that stopped early (truncated) returned every match up to
// its last row and none after, so rows of other servers past the smallest
// such last row are dropped: they would hide that server's rows before them.
// Then the limit and the router's byte budget cut the prefix shorter.
void MergeRows(std::vector<IndexQueryResult>* answers, uint32_t limit,
               uint64_t budget, LookupResult* out) {
  std::optional<std::string> cut;  // the last key every answer covers
  for (const IndexQueryResult& a : *answers) {
    if (a.truncated && (!cut || Covered(a) < *cut)) cut = Covered(a);
  }
  std::vector<Row> rows;
  for (IndexQueryResult& a : *answers) {
    for (Row& row : a.rows) {
      if (cut && *cut < row.key) break;  // and the rest of `a`
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.key < b.key; });
  out->truncated = cut.has_value();
  out->resume_after = cut;  // a server's work bound may cut after its rows
  uint64_t bytes = 0;
  for (Row& row : rows) {
    // Stop after the row that passed the budget.
    if (out->rows.size() == limit || (!out->rows.empty() && bytes >= budget)) {
      out->truncated = true;
      out->resume_after = out->rows.back().key;
      break;
    }
    bytes += ReplyBytes(row);
    out->rows.push_back(std::move(row));
  }
}

}  // namespace

StatusOr<LookupResult> RouterImpl::Lookup(std::string_view table,
                                          const LookupSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLookup(spec));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTable(table));
  const TableDescriptor& descriptor = state->record.descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(CheckProjectionFamilies(descriptor, spec.columns));
  for (const EqualityPredicate& p : spec.equals) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckIndexReady(state->record, p.column));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<ElementHash> hashes,
                              HashPredicates(descriptor, spec));
  LookupResult out;
  out.routing.servers_in_cluster = static_cast<uint32_t>(servers_.size());
  // Servers to ask: those holding regions of the table that the filters
  // cannot rule out (all of them when broadcasting).
  std::vector<ServerId> asked;
  std::vector<ServerId> not_current;
  if (spec.broadcast) {
    for (const auto& [id, regions] : state->regions_by_server) {
      asked.push_back(id);
    }
  } else {
    const router::CandidateServers c = index_->Candidates(hashes);
    for (ServerId id : c.servers) {
      if (state->regions_by_server.count(id) != 0) asked.push_back(id);
    }
    for (ServerId id : c.not_current) {
      if (state->regions_by_server.count(id) != 0) not_current.push_back(id);
    }
  }
  const uint32_t limit = spec.limit == 0 ? kMaxRowsPerCall : spec.limit;
  uint64_t budget = options_.max_reply_bytes;
  if (spec.max_bytes != 0) budget = std::min(budget, spec.max_bytes);
  // Each server answers a share of the budget, so that the answers held
  // for the merge are about the budget however many servers are asked.
  const uint64_t share =
      std::max<uint64_t>(1, budget / std::max<size_t>(1, asked.size()));
  std::vector<StatusOr<IndexQueryResult>> answers(asked.size(),
                                                  Status::IOError("not asked"));
  fan_out_->Run(asked.size(), [&](size_t i) {
    IndexQuery query{descriptor.table_id,
                     state->regions_by_server.at(asked[i]),
                     spec.equals,
                     std::nullopt,
                     limit,
                     spec.columns,
                     spec.after_row,
                     share,
                     spec.time_range};
    const ServerEntry& server = Server(asked[i]);
    answers[i] = RetryIfRegionsClosed(
        server, [&] { return server.client->Lookup(query); });
    if (answers[i].ok()) {
      Status checked = CheckAnswer(*answers[i], spec.after_row);
      if (!checked.ok()) answers[i] = checked;
    }
  });
  std::vector<IndexQueryResult> parts;
  for (size_t i = 0; i < asked.size(); ++i) {
    const ServerEntry& server = Server(asked[i]);
    out.routing.asked.push_back(server.ref);
    if (!answers[i].ok()) {
      if (!spec.allow_partial || !answers[i].status().IsUnavailable()) {
        return Named(server, answers[i].status());
      }
      out.partial = true;
      out.missing.push_back(server.ref);
      continue;
    }
    if (!answers[i]->rows.empty()) out.routing.with_rows.push_back(server.ref);
    parts.push_back(std::move(answers[i]).value());
  }
  for (ServerId id : not_current) {
    out.routing.asked_not_current.push_back(Server(id).ref);
  }
  if (!not_current.empty()) WakeMaintenance();
  MergeRows(&parts, limit, budget, &out);
  return out;
}

StatusOr<std::vector<LookupResult>> RouterImpl::LookupMultiple(
    std::string_view table, const std::vector<LookupSpec>& specs) {
  if (specs.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " lookups per call");
  }
  // Each answer is held until the reply: they share one budget, and the
  // answer stops at the lookup that passes it.
  const uint64_t budget = options_.max_reply_bytes;
  uint64_t used = 0;
  std::vector<LookupResult> out;
  for (const LookupSpec& spec : specs) {
    if (!out.empty() && used >= budget) break;
    LookupSpec bounded = spec;
    const uint64_t left = budget - used;
    bounded.max_bytes =
        spec.max_bytes == 0 ? left : std::min(spec.max_bytes, left);
    BLOOMROUTE_ASSIGN_OR_RETURN(LookupResult result, Lookup(table, bounded));
    for (const Row& row : result.rows) used += ReplyBytes(row);
    out.push_back(std::move(result));
  }
  return out;
}

std::vector<router::ServerIndexStats> RouterImpl::IndexStats() const {
  std::vector<router::ServerIndexStats> out;
  for (const router::ReplicaStats& r : index_->Stats()) {
    router::ServerIndexStats s;
    s.server = Server(r.server).ref;
    s.replica = r;
    if (r.loaded && r.reported_epoch == r.epoch && r.reported_seq > r.seq) {
      s.ops_behind = r.reported_seq - r.seq;
    }
    s.target_false_routes = options_.filter.target_false_routes;
    s.cluster_config = filter_config_;
    const uint64_t configured = Server(r.server).config_incarnation;
    s.has_cluster_config = configured != 0 && configured == r.incarnation;
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<router::VerifyReport> RouterImpl::VerifyIndex(std::string_view table) {
  // Disabled tables too: their regions stay open on their servers.
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              FindTableAnyState(table));
  router::VerifyReport out;
  out.table = state->record.descriptor;
  std::vector<ServerId> ids;
  for (const auto& [id, regions] : state->regions_by_server) ids.push_back(id);
  out.servers.resize(ids.size());
  fan_out_->Run(ids.size(), [&](size_t i) {
    out.servers[i] = VerifyServer(ids[i], out.table.table_id);
    out.servers[i].regions =
        static_cast<uint32_t>(state->regions_by_server.at(ids[i]).size());
  });
  return out;
}

router::ServerVerifyReport RouterImpl::VerifyServer(ServerId id,
                                                    uint64_t table_id) {
  const ServerEntry& server = Server(id);
  router::ServerVerifyReport out;
  out.server = server.ref;
  // Read-only calls: a failure here says nothing about writes, so it does
  // not mark the replica stale (as ServerFailed would).
  StatusOr<IndexReport> index = server.client->VerifyIndex(table_id);
  if (!index.ok()) {
    out.error = Named(server, index.status()).ToString();
    return out;
  }
  out.index = std::move(index).value();
  // The server's filter after its check, against the replica: equal unless
  // writes came in between (then "not current", not an error).
  StatusOr<FilterImage> snapshot = server.client->SnapshotImage(/*fence=*/0);
  if (!snapshot.ok()) {
    out.error = Named(server, snapshot.status()).ToString();
    return out;
  }
  // A server that restarted behind our back is reloaded and reopened.
  NoteIncarnation(server, snapshot->incarnation);
  StatusOr<router::ReplicaComparison> compared = index_->Compare(id, *snapshot);
  if (!compared.ok()) {
    out.error = Named(server, compared.status()).ToString();
    return out;
  }
  out.replica = std::move(compared).value();
  return out;
}

router::ClusterStatus RouterImpl::GetClusterStatus() {
  router::ClusterStatus out;
  for (const auto& [id, server] : servers_) {
    router::ServerStatus s;
    s.server = server->ref;
    s.replica_current = index_->IsCurrent(id);
    s.reopen_error = server->ReopenError();
    out.servers.push_back(std::move(s));
  }
  // The regions the catalog places on each server (ascending ids).
  std::vector<std::vector<uint64_t>> assigned(out.servers.size());
  {
    std::shared_lock<std::shared_mutex> lock(tables_mu_);
    out.tables = static_cast<uint32_t>(tables_.size());
    for (const auto& [name, table] : tables_) {
      out.regions += static_cast<uint32_t>(table->record.regions.size());
      for (size_t i = 0; i < out.servers.size(); ++i) {
        auto it = table->regions_by_server.find(out.servers[i].server.id);
        if (it == table->regions_by_server.end()) continue;
        assigned[i].insert(assigned[i].end(), it->second.begin(),
                           it->second.end());
      }
    }
  }
  fan_out_->Run(out.servers.size(), [&](size_t i) {
    router::ServerStatus& s = out.servers[i];
    const ServerEntry& server = Server(s.server.id);
    StatusOr<FilterStatus> status = server.client->GetFilterStatus();
    s.reachable = status.ok();
    if (!status.ok()) s.error = status.status().ToString();
    // A server that restarted behind our back is reloaded and reopened.
    if (status.ok()) {
      NoteIncarnation(server, status->incarnation);
      NoteFilterConfig(server, *status);
    }
    std::vector<uint64_t>& want = assigned[i];
    s.regions = static_cast<uint32_t>(want.size());
    if (!s.reachable) return;
    StatusOr<std::vector<uint64_t>> open = server.client->OpenRegionIds();
    if (!open.ok()) return;
    std::sort(want.begin(), want.end());
    for (uint64_t id : want) {
      if (!std::binary_search(open->begin(), open->end(), id)) {
        ++s.regions_not_served;
      }
    }
  });
  return out;
}

}  // namespace bloomroute::router_internal
