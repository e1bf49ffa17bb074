// LookupPlanner: index lookups planned through the global index, fanned out
// and merged (lookup_planner.h).
#include "router/internal/lookup_planner.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/sync_point.h"
#include "index/element_hash.h"
#include "model/index_predicate.h"
#include "model/table_attributes.h"

namespace bloomroute::router_internal {

using router::LookupResult;
using router::LookupSpec;
using router::RegionClient;

namespace {

Status ValidateLookup(const LookupSpec& spec) {
  if (spec.limit > kMaxRowsPerCall) {
    return Status::InvalidArgument("the limit is above " +
                                   std::to_string(kMaxRowsPerCall));
  }
  if (spec.after_row && spec.page_token) {
    return Status::InvalidArgument(
        "page_token and after_row cannot be given together: a page token "
        "carries the row to resume after");
  }
  if (spec.after_row && spec.after_row->size() > kMaxRowKeyBytes) {
    return Status::InvalidArgument("the row to resume after is longer than " +
                                   std::to_string(kMaxRowKeyBytes) + " bytes");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateTimeRange(spec.time_range));
  return ValidateProjection(spec.columns);
}

// Whether a column's index is complete (LookupPlanner::Hooks).
using ReadyCheck =
    std::function<Status(const CatalogTable& table, std::string_view column)>;

// The spec's predicates in the region server's forms, validated (counts,
// values, bytes, operators, indexed columns whose index is complete).
StatusOr<IndexQuery> PredicateQuery(const CatalogTable& record,
                                    const LookupSpec& spec,
                                    const ReadyCheck& check_index_ready) {
  const TableDescriptor& table = record.descriptor;
  if (spec.equals.size() + spec.where.size() > kMaxIndexPredicates) {
    return Status::InvalidArgument("a lookup has more than " +
                                   std::to_string(kMaxIndexPredicates) +
                                   " predicates (kMaxIndexPredicates)");
  }
  IndexQuery q;
  q.table_id = table.table_id;
  q.equals = spec.equals;
  for (const IndexPredicate& p : spec.where) {
    BLOOMROUTE_RETURN_IF_ERROR(AddToQuery(p, &q));
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateIndexPredicates(q));
  std::vector<const std::string*> columns;
  for (const auto& p : q.equals) columns.push_back(&p.column);
  for (const auto& p : q.in) columns.push_back(&p.column);
  for (const auto& p : q.ranges) columns.push_back(&p.column);
  for (const std::string* column : columns) {
    if (table.FindIndexed(*column) == nullptr) {
      return Status::InvalidArgument("column " + QuoteForMessage(*column) +
                                     " is not indexed in table '" + table.name +
                                     "'");
    }
    BLOOMROUTE_RETURN_IF_ERROR(check_index_ready(record, *column));
  }
  return q;
}

ElementHash Hash(const TableDescriptor& table, const std::string& column,
                 const std::string& value) {
  return HashElement(table.table_id, table.FindIndexed(column)->column_id,
                     value);
}

// The servers holding regions of the table that the filters cannot rule
// out for `q`: the equalities in one Candidates call (a server must hold
// every element), each IN list the union of its values' candidates, and
// the intersection of those. `not_current`: the asked servers included
// only because their replica is not current.
// The regions of `state` on `server`, or nullptr. A plan asks only servers
// that hold some (RouteByFilters, PlanLookup); looked up without throwing
// all the same, since a worker must never end the process.
const std::vector<uint64_t>* RegionsAsked(const TableState& state,
                                          ServerId server) {
  auto it = state.regions_by_server.find(server);
  return it == state.regions_by_server.end() ? nullptr : &it->second;
}

Status NotInPlan(ServerId server) {
  return Status::Corruption("lookup plan: region server " +
                            std::to_string(server) +
                            " holds no region of the table");
}

void RouteByFilters(const router::GlobalIndex& index, const TableState& state,
                    const IndexQuery& q, std::vector<ServerId>* asked,
                    std::vector<ServerId>* not_current) {
  std::set<ServerId> stale;
  std::optional<std::set<ServerId>> chosen;
  auto narrow = [&](const std::set<ServerId>& servers) {
    if (!chosen) {
      chosen = servers;
      return;
    }
    std::set<ServerId> both;
    std::set_intersection(chosen->begin(), chosen->end(), servers.begin(),
                          servers.end(), std::inserter(both, both.end()));
    chosen = std::move(both);
  };
  auto candidates = [&](const std::vector<ElementHash>& hashes,
                        std::set<ServerId>* out) {
    const router::CandidateServers c = index.Candidates(hashes);
    out->insert(c.servers.begin(), c.servers.end());
    stale.insert(c.not_current.begin(), c.not_current.end());
  };
  const TableDescriptor& table = state.record.descriptor;
  if (!q.equals.empty()) {
    std::vector<ElementHash> hashes;
    for (const auto& p : q.equals)
      hashes.push_back(Hash(table, p.column, p.value));
    std::set<ServerId> servers;
    candidates(hashes, &servers);
    narrow(servers);
  }
  for (const InPredicate& p : q.in) {
    std::set<ServerId> servers;
    for (const std::string& v : p.values) {
      candidates({Hash(table, p.column, v)}, &servers);
    }
    narrow(servers);
  }
  for (ServerId id : *chosen) {
    if (state.regions_by_server.count(id) == 0) continue;
    asked->push_back(id);
    if (stale.count(id) != 0) not_current->push_back(id);
  }
}

// Where a lookup or count goes, and the query each server gets (but for
// its regions).
struct LookupPlan {
  std::shared_ptr<const TableState> state;
  IndexQuery query;
  std::vector<ServerId> asked;
  std::vector<ServerId> not_current;
  std::string broadcast_reason;
};

StatusOr<LookupPlan> PlanLookup(const router::GlobalIndex& index,
                                std::shared_ptr<const TableState> state,
                                const LookupSpec& spec,
                                const ReadyCheck& check_index_ready) {
  LookupPlan plan;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      plan.query, PredicateQuery(state->record, spec, check_index_ready));
  plan.query.after_row = spec.after_row;
  plan.query.time_range = spec.time_range;
  const bool routable = !plan.query.equals.empty() || !plan.query.in.empty();
  if (spec.broadcast || !routable) {
    plan.broadcast_reason =
        spec.broadcast
            ? "broadcast was asked for"
            : "a range alone cannot be routed: asked every server of the table";
    for (const auto& [id, regions] : state->regions_by_server) {
      plan.asked.push_back(id);
    }
  } else {
    RouteByFilters(index, *state, plan.query, &plan.asked, &plan.not_current);
  }
  plan.state = std::move(state);
  return plan;
}

// The last key a truncated answer covers: its resume_after, or (from a
// server that does not send one) its last row. Needs CheckAnswer.
const std::string& Covered(const IndexQueryResult& answer) {
  return answer.resume_after ? *answer.resume_after : answer.rows.back().key;
}

// The rows a lookup's first round brought (AskForTheRest): their keys in
// order, their reply bytes, and the smallest point a truncated answer
// covers (the merge is exact up to it).
struct HeldRows {
  explicit HeldRows(const std::vector<StatusOr<IndexQueryResult>>& answers) {
    for (const StatusOr<IndexQueryResult>& answer : answers) {
      if (!answer.ok()) continue;
      for (const Row& row : answer->rows) {
        keys.push_back(&row.key);
        bytes += ReplyBytes(row);
      }
      if (answer->truncated && (!cut || Covered(*answer) < *cut)) {
        cut = Covered(*answer);
      }
    }
    std::sort(keys.begin(), keys.end(), Less);
  }
  // The rows held whose key is at or before `key`.
  size_t UpTo(const std::string& key) const {
    return static_cast<size_t>(
        std::upper_bound(keys.begin(), keys.end(), &key, Less) - keys.begin());
  }
  static bool Less(const std::string* a, const std::string* b) {
    return *a < *b;
  }

  std::vector<const std::string*> keys;
  uint64_t bytes = 0;
  std::optional<std::string> cut;
};

// `answer` followed by `rest`, the server's next rows after it, or the
// error asking for them gave.
void Extend(StatusOr<IndexQueryResult>* answer,
            StatusOr<IndexQueryResult> rest) {
  if (!rest.ok()) {
    *answer = rest.status();
    return;
  }
  for (Row& row : rest->rows) (*answer)->rows.push_back(std::move(row));
  (*answer)->truncated = rest->truncated;
  (*answer)->resume_after = std::move(rest->resume_after);
}

// Rows the first round of a lookup with a limit asks each of `servers`
// for: a quarter more than an even share of the limit (the first `limit`
// rows of the merge, spread evenly, are about limit / servers from each,
// with a standard deviation of about the square root of that), at least
// kMinFirstPageRows so that a small limit does not cost a second round
// for a few rows, at most the limit.
constexpr uint64_t kMinFirstPageRows = 64;
uint32_t FirstPageRows(uint32_t limit, size_t servers) {
  if (servers <= 1) return limit;
  const uint64_t share =
      (uint64_t{limit} * 5 + 4 * servers - 1) / (4 * servers);
  return static_cast<uint32_t>(
      std::min<uint64_t>(limit, std::max<uint64_t>(share, kMinFirstPageRows)));
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

LookupPlanner::LookupPlanner(const RouterContext& ctx,
                             const router::PageTokenCodec* page_tokens,
                             Hooks hooks)
    : ctx_(ctx), page_tokens_(page_tokens), hooks_(std::move(hooks)) {}

StatusOr<LookupResult> LookupPlanner::Lookup(std::string_view table,
                                             const LookupSpec& spec) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLookup(spec));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->Find(table));
  const TableDescriptor& descriptor = state->record.descriptor;
  BLOOMROUTE_RETURN_IF_ERROR(CheckProjectionFamilies(descriptor, spec.columns));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      LookupPlan plan,
      PlanLookup(*ctx_.index, state, spec, hooks_.check_index_ready));
  // Past the token's checks, a page is the lookup after its resume row.
  if (spec.page_token) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        plan.query.after_row,
        page_tokens_->Open(*spec.page_token, descriptor, spec));
  }
  LookupResult out;
  out.routing.servers_in_cluster =
      static_cast<uint32_t>(ctx_.servers->Snapshot()->size());
  out.routing.broadcast_reason = plan.broadcast_reason;
  const std::vector<ServerId>& asked = plan.asked;
  const std::vector<ServerId>& not_current = plan.not_current;
  const uint32_t limit = spec.limit == 0 ? kMaxRowsPerCall : spec.limit;
  uint64_t budget = ctx_.options->max_reply_bytes;
  if (spec.max_bytes != 0) budget = std::min(budget, spec.max_bytes);
  // Each server answers a share of the budget, so that the answers held
  // for the merge are about the budget however many servers are asked.
  const uint64_t share =
      std::max<uint64_t>(1, budget / std::max<size_t>(1, asked.size()));
  IndexQuery query = plan.query;
  query.limit = spec.limit == 0 ? limit : FirstPageRows(limit, asked.size());
  query.columns = spec.columns;
  query.max_bytes = share;
  std::vector<StatusOr<IndexQueryResult>> answers = LookupOnServers(
      asked, *plan.state, std::vector<IndexQuery>(asked.size(), query));
  if (query.limit < limit) {
    AskForTheRest(asked, *plan.state, query, limit, budget, &answers);
  }
  std::vector<IndexQueryResult> parts;
  BLOOMROUTE_RETURN_IF_ERROR(
      CollectAnswers(asked, spec.allow_partial, &answers, &parts, &out));
  for (ServerId id : not_current) {
    out.routing.asked_not_current.push_back(ctx_.servers->Get(id).ref);
  }
  if (!not_current.empty()) ctx_.wake();
  MergeRows(&parts, limit, budget, &out);
  if (out.truncated) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        out.next_page_token,
        page_tokens_->Issue(descriptor, spec, *out.resume_after));
  }
  ctx_.metrics->RecordLookup(table, out.routing, out.rows.size());
  return out;
}

std::vector<StatusOr<IndexQueryResult>> LookupPlanner::LookupOnServers(
    const std::vector<ServerId>& asked, const TableState& state,
    std::vector<IndexQuery> queries) {
  // Each server's query is sent before any answer is read, from this
  // thread: a lookup asking 8 servers handed 7 of them to fan-out threads,
  // and each hand-off costs two context switches (a wake-up and a sleep):
  // about a quarter of the 54 the whole process made per 64-row lookup
  // (lookup_benchmark's `switches`). The servers work in parallel either
  // way; only the decoding of the answers is now one after another.
  // Clients that cannot send without waiting (in-process fakes) still go
  // to the fan-out.
  std::vector<StatusOr<IndexQueryResult>> answers(asked.size(),
                                                  Status::IOError("not asked"));
  std::vector<std::unique_ptr<RegionClient::PendingLookup>> pending(
      asked.size());
  std::vector<size_t> waiting;  // not sent: asked the blocking way
  for (size_t i = 0; i < asked.size(); ++i) {
    const std::vector<uint64_t>* regions = RegionsAsked(state, asked[i]);
    if (regions == nullptr) {
      answers[i] = NotInPlan(asked[i]);
      continue;
    }
    queries[i].region_ids = *regions;
    pending[i] = ctx_.servers->Get(asked[i]).client->StartLookup(queries[i]);
    if (pending[i] == nullptr) waiting.push_back(i);
  }
  ctx_.fan_out->Run(waiting.size(), [&](size_t w) {
    const size_t i = waiting[w];
    answers[i] = LookupOnServer(asked[i], queries[i], nullptr);
  });
  for (size_t i = 0; i < asked.size(); ++i) {
    if (pending[i] == nullptr) continue;
    answers[i] = LookupOnServer(asked[i], queries[i], std::move(pending[i]));
  }
  return answers;
}

void LookupPlanner::AskForTheRest(
    const std::vector<ServerId>& asked, const TableState& state,
    const IndexQuery& query, uint32_t limit, uint64_t budget,
    std::vector<StatusOr<IndexQueryResult>>* answers) {
  // Why this is exact: every row of the merge up to the smallest point a
  // truncated answer covers is held, so when `limit` rows lie there the
  // first round was enough. Otherwise let U be the limit-th key held (the
  // limit-th row of the full answer is at or before it) and H(k) the rows
  // held up to key k: they are rows of the full answer, so a server whose
  // answer covers up to c holds at most limit - H(c) rows after c among the
  // first `limit`, and none when c is at or past U. Asking each server
  // for that many after c leaves every answer covering the first `limit`
  // rows. Rows shipped: never more than every server sending `limit`.
  const HeldRows held(*answers);
  // Past the byte budget the merge cuts the answer anyway (and pages).
  if (!held.cut || held.bytes >= budget || held.UpTo(*held.cut) >= limit) {
    return;
  }
  const std::string* last =
      held.keys.size() >= limit ? held.keys[limit - 1] : nullptr;
  std::vector<size_t> more;
  std::vector<IndexQuery> queries;
  for (size_t i = 0; i < answers->size(); ++i) {
    const StatusOr<IndexQueryResult>& answer = (*answers)[i];
    if (!answer.ok() || !answer->truncated) continue;
    const std::string& covered = Covered(*answer);
    const size_t before = held.UpTo(covered);
    if ((last != nullptr && !(covered < *last)) || before >= limit) continue;
    more.push_back(i);
    queries.push_back(query);
    queries.back().after_row = covered;
    queries.back().limit = static_cast<uint32_t>(limit - before);
  }
  std::vector<ServerId> servers;
  for (size_t i : more) servers.push_back(asked[i]);
  for (IndexQuery& q : queries) {
    q.max_bytes = std::max<uint64_t>(1, (budget - held.bytes) / more.size());
  }
  std::vector<StatusOr<IndexQueryResult>> rest =
      LookupOnServers(servers, state, std::move(queries));
  for (size_t j = 0; j < more.size(); ++j) {
    Extend(&(*answers)[more[j]], std::move(rest[j]));
  }
}

StatusOr<IndexQueryResult> LookupPlanner::LookupOnServer(
    ServerId id, const IndexQuery& query,
    std::unique_ptr<RegionClient::PendingLookup> sent) {
  const ServerEntry& server = ctx_.servers->Get(id);
  // A retry after the server's regions were reopened is a new call.
  StatusOr<IndexQueryResult> answer =
      ctx_.write_path->RetryIfRegionsClosed(server, [&] {
        if (sent == nullptr) return server.client->Lookup(query);
        std::unique_ptr<RegionClient::PendingLookup> first = std::move(sent);
        return first->Finish();
      });
  if (answer.ok()) {
    Status checked = CheckAnswer(*answer, query.after_row);
    if (!checked.ok()) return checked;
  }
  return answer;
}

Status LookupPlanner::CollectAnswers(
    const std::vector<ServerId>& asked, bool allow_partial,
    std::vector<StatusOr<IndexQueryResult>>* answers,
    std::vector<IndexQueryResult>* parts, LookupResult* out) {
  for (size_t i = 0; i < asked.size(); ++i) {
    const ServerEntry& server = ctx_.servers->Get(asked[i]);
    StatusOr<IndexQueryResult>& answer = (*answers)[i];
    out->routing.asked.push_back(server.ref);
    if (!answer.ok()) {
      if (!allow_partial || !answer.status().IsUnavailable()) {
        return WritePath::Named(server, answer.status());
      }
      out->partial = true;
      out->missing.push_back(server.ref);
      continue;
    }
    if (!answer->rows.empty()) out->routing.with_rows.push_back(server.ref);
    parts->push_back(std::move(answer).value());
  }
  return Status::OK();
}

StatusOr<uint64_t> LookupPlanner::CountOnServer(ServerId id, IndexQuery query) {
  const ServerEntry& server = ctx_.servers->Get(id);
  uint64_t count = 0;
  // Each answer covers the keys up to its resume_after and CheckAnswer
  // makes sure that moves on, so every call passes at least one key.
  while (true) {
    StatusOr<IndexQueryResult> answer = ctx_.write_path->RetryIfRegionsClosed(
        server, [&] { return server.client->Lookup(query); });
    if (!answer.ok()) return answer.status();
    if (!answer->rows.empty()) {
      return Status::Corruption("a count answer carries rows");
    }
    BLOOMROUTE_RETURN_IF_ERROR(CheckAnswer(*answer, query.after_row));
    if (count + answer->count < count) {
      return Status::Corruption("a count answer overflows 64 bits");
    }
    count += answer->count;
    if (!answer->truncated) return count;
    query.after_row = *answer->resume_after;
  }
}

StatusOr<router::CountResult> LookupPlanner::Count(std::string_view table,
                                                   const LookupSpec& spec) {
  LookupSpec checked = spec;
  checked.columns.clear();
  checked.limit = 0;
  BLOOMROUTE_RETURN_IF_ERROR(ValidateLookup(checked));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::shared_ptr<const TableState> state,
                              ctx_.tables->Find(table));
  BLOOMROUTE_ASSIGN_OR_RETURN(LookupPlan plan,
                              PlanLookup(*ctx_.index, std::move(state), spec,
                                         hooks_.check_index_ready));
  router::CountResult out;
  out.routing.servers_in_cluster =
      static_cast<uint32_t>(ctx_.servers->Snapshot()->size());
  out.routing.broadcast_reason = plan.broadcast_reason;
  plan.query.count_only = true;
  plan.query.limit = kMaxRowsPerCall;
  std::vector<StatusOr<uint64_t>> counts(plan.asked.size(),
                                         Status::IOError("not asked"));
  ctx_.fan_out->Run(plan.asked.size(), [&](size_t i) {
    IndexQuery query = plan.query;
    const std::vector<uint64_t>* regions =
        RegionsAsked(*plan.state, plan.asked[i]);
    if (regions == nullptr) {
      counts[i] = NotInPlan(plan.asked[i]);
      return;
    }
    query.region_ids = *regions;
    counts[i] = CountOnServer(plan.asked[i], std::move(query));
  });
  for (size_t i = 0; i < plan.asked.size(); ++i) {
    const ServerEntry& server = ctx_.servers->Get(plan.asked[i]);
    out.routing.asked.push_back(server.ref);
    if (!counts[i].ok()) {
      if (!spec.allow_partial || !counts[i].status().IsUnavailable()) {
        return WritePath::Named(server, counts[i].status());
      }
      out.partial = true;
      out.missing.push_back(server.ref);
      continue;
    }
    if (*counts[i] != 0) out.routing.with_rows.push_back(server.ref);
    if (out.count + *counts[i] < out.count) {
      return WritePath::Named(
          server, Status::Corruption("its count overflows 64 bits"));
    }
    out.count += *counts[i];
  }
  for (ServerId id : plan.not_current) {
    out.routing.asked_not_current.push_back(ctx_.servers->Get(id).ref);
  }
  if (!plan.not_current.empty()) ctx_.wake();
  ctx_.metrics->RecordLookup(table, out.routing, 0);
  return out;
}

StatusOr<std::vector<LookupResult>> LookupPlanner::LookupMultiple(
    std::string_view table, const std::vector<LookupSpec>& specs) {
  if (specs.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " lookups per call");
  }
  // Each answer is held until the reply: they share one budget, and the
  // answer stops at the lookup that passes it.
  const uint64_t budget = ctx_.options->max_reply_bytes;
  uint64_t used = 0;
  const auto deadline = ctx_.WorkDeadline();
  std::vector<LookupResult> out;
  for (const LookupSpec& spec : specs) {
    // A prefix once the bytes or the call's time are spent: 20,000 lookups
    // that match nothing held a worker 4.7 s in one call.
    if (!out.empty() &&
        (used >= budget || std::chrono::steady_clock::now() > deadline)) {
      break;
    }
    LookupSpec bounded = spec;
    const uint64_t left = budget - used;
    bounded.max_bytes =
        spec.max_bytes == 0 ? left : std::min(spec.max_bytes, left);
    BLOOMROUTE_ASSIGN_OR_RETURN(LookupResult result, Lookup(table, bounded));
    for (const Row& row : result.rows) used += ReplyBytes(row);
    out.push_back(std::move(result));
    BLOOMROUTE_SYNC_POINT("LookupMultiple:Answered");
  }
  return out;
}

}  // namespace bloomroute::router_internal
