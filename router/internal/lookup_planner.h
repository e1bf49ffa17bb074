// LookupPlanner: where an index lookup is planned, fanned out and merged
// (Router::Lookup, Count and LookupMultiple).
//
// Planning. A lookup's predicates are validated and turned into the region
// servers' IndexQuery (every column indexed and its index complete). The
// plan asks the global index (router/global_index.h, GlobalIndex::
// Candidates) which servers' filters cannot rule the lookup out: the
// equalities in one call (a server must hold every element), each IN list
// the union of its values' candidates, and the intersection of those;
// only servers holding regions of the table are asked. A server whose
// replica is not current is always a candidate (RoutingInfo::
// asked_not_current) and maintenance is woken to catch it up. A range
// alone cannot be routed, and broadcast asks for it: every server of the
// table is asked.
//
// Fan-out and merge. Each asked server gets the query for its regions of
// the table, all sent before any answer is read (RegionClient::
// StartLookup; FanOut for clients that cannot), with a share of the reply's
// byte budget; its answer is untrusted input, checked (rows in strictly
// ascending key order after the row resumed after, a truncated answer
// saying where it stopped, past its rows) or refused as Corruption. The
// answers merge into a prefix, in row-key order, of the full answer: rows
// past the smallest point where a truncated answer stopped are dropped,
// then the limit and the byte budget cut it shorter; a truncated answer
// gets a signed page token that resumes after its last key.
//
// A lookup with a limit, asking several servers, asks each for a share of
// the limit first (FirstPageRows), then, in one more round, only the
// servers that may hold rows among the first `limit` for at most as many
// as they can add (AskForTheRest): the first N rows no longer cost N rows
// from every server asked, and the answer is the same.
//
// Limits. At most kMaxRowsPerCall rows and kMaxIndexPredicates predicates
// per lookup, RouterOptions::max_reply_bytes per reply (LookupMultiple
// shares it between its lookups and answers a prefix of them once it or
// call_work_budget_ms is spent). A server that fails fails the lookup,
// named, unless the spec allows a partial answer and the failure is
// Unavailable.
//
// Thread-safety: no state of its own beyond the context's pieces (which
// lock themselves); every method may be called from any thread at once.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_LOOKUP_PLANNER_H_
#define BLOOMROUTE_ROUTER_INTERNAL_LOOKUP_PLANNER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/index_query.h"
#include "router/internal/router_context.h"
#include "router/page_token.h"
#include "router/region_client.h"
#include "router/router.h"

namespace bloomroute::router_internal {

class LookupPlanner {
 public:
  // What the planner asks of the rest of the router.
  struct Hooks {
    // InvalidArgument when `column` of `table` is an index still building
    // (its lookups would miss rows); OK otherwise.
    std::function<Status(const CatalogTable& table, std::string_view column)>
        check_index_ready;
  };

  // `ctx` and `page_tokens` outlive the planner.
  LookupPlanner(const RouterContext& ctx,
                const router::PageTokenCodec* page_tokens, Hooks hooks);
  LookupPlanner(const LookupPlanner&) = delete;
  LookupPlanner& operator=(const LookupPlanner&) = delete;

  // Router::Lookup: the matching rows of the enabled table `table`, in
  // row-key order. InvalidArgument for a bad spec (a column not indexed, an
  // index building, a bad page token); NotFound for an unknown table; the
  // first failing server's error, named (see the header comment).
  StatusOr<router::LookupResult> Lookup(std::string_view table,
                                        const router::LookupSpec& spec);
  // Router::Count: the number of rows the lookup matches, routed as Lookup
  // is; each server counts, asked again from where it stopped until its
  // count is complete. Errors as Lookup; Corruption naming a server whose
  // count overflows 64 bits.
  StatusOr<router::CountResult> Count(std::string_view table,
                                      const router::LookupSpec& spec);
  // Router::LookupMultiple: the lookups in order, a prefix of them once the
  // reply's bytes or the call's time are spent (at least one answer).
  // InvalidArgument for more than kMaxRowsPerCall specs; the first failing
  // lookup's error.
  StatusOr<std::vector<router::LookupResult>> LookupMultiple(
      std::string_view table, const std::vector<router::LookupSpec>& specs);

 private:
  // The servers' answers to `queries` (one each), each for its regions of
  // `state`, checked (CheckAnswer), in the order of `asked`; NotInPlan's
  // error for a server that holds none.
  std::vector<StatusOr<IndexQueryResult>> LookupOnServers(
      const std::vector<ServerId>& asked, const TableState& state,
      std::vector<IndexQuery> queries);
  // The second round of a lookup whose first asked each server for less
  // than `limit` rows: each answer of `answers` (of the servers `asked`,
  // for `query`) that stopped before rows that may be among the first
  // `limit` of the merge is extended with the server's next rows, as many
  // as it may add, or replaced by the error asking for them gave.
  void AskForTheRest(const std::vector<ServerId>& asked,
                     const TableState& state, const IndexQuery& query,
                     uint32_t limit, uint64_t budget,
                     std::vector<StatusOr<IndexQueryResult>>* answers);
  // One server's checked answer to `query`: that of `sent` (the query sent
  // already) or, when null, of a blocking call.
  StatusOr<IndexQueryResult> LookupOnServer(
      ServerId id, const IndexQuery& query,
      std::unique_ptr<router::RegionClient::PendingLookup> sent);
  // The answers of the servers `asked` (consumed) into *parts, and the
  // routing and partial-result fields of *out; the first error named,
  // unless `allow_partial` and it is Unavailable.
  [[nodiscard]] Status CollectAnswers(
      const std::vector<ServerId>& asked, bool allow_partial,
      std::vector<StatusOr<IndexQueryResult>>* answers,
      std::vector<IndexQueryResult>* parts, router::LookupResult* out);
  // One server's count for Count: its answers to `query` (count_only)
  // summed, asked again after each truncated one.
  StatusOr<uint64_t> CountOnServer(ServerId id, IndexQuery query);

  const RouterContext& ctx_;
  const router::PageTokenCodec* const page_tokens_;
  const Hooks hooks_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_LOOKUP_PLANNER_H_
