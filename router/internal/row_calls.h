// RowCalls: the router's calls on rows -- writes (Mutate, the atomic row
// operations CheckAndMutate, Increment, Append and MutateRow, BulkLoad) and
// gets -- routed to the regions that hold the rows. Every write goes
// through the WritePath (internal/write_path.h): routed with RouteWrite
// (a region operation's gate), sent with SendWrite / ApplyBatches /
// LoadBulkFile, so that a server's filter ops reach its replica before the
// caller hears of success. Gets ask each server for its part in parallel,
// within the reply budget.
//
// Thread-safe: it keeps no state of its own; the tables are snapshots
// (TableDirectory) and the write path and servers lock themselves.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_ROW_CALLS_H_
#define BLOOMROUTE_ROUTER_INTERNAL_ROW_CALLS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/region_protocol.h"
#include "router/internal/router_context.h"

namespace bloomroute::router_internal {

class RowCalls {
 public:
  // `ctx` outlives the calls.
  explicit RowCalls(const RouterContext& ctx) : ctx_(ctx) {}
  RowCalls(const RowCalls&) = delete;
  RowCalls& operator=(const RowCalls&) = delete;

  // Router::Mutate: puts and deletes (at most kMaxRowsPerCall), each
  // server's part in chunks of kRowsPerRpc rows, servers in parallel.
  // InvalidArgument for a bad mutation (conditions, increments and appends
  // included: they go through the row operations) or family; the first
  // server's failure otherwise (other parts may have been written).
  [[nodiscard]] Status Mutate(std::string_view table,
                              std::vector<Mutation> mutations);
  // Router::CheckAndMutate: the mutations of `row`, applied atomically when
  // `condition` holds; whether they were.
  StatusOr<bool> CheckAndMutate(std::string_view table, const std::string& row,
                                const RowCondition& condition,
                                std::vector<Mutation> mutations);
  // Router::Increment and Router::Append: the row's new cells of the
  // columns named (1 to kMaxMutationsPerRowOperation).
  StatusOr<Row> Increment(std::string_view table, const std::string& row,
                          std::vector<ColumnIncrement> increments);
  StatusOr<Row> Append(std::string_view table, const std::string& row,
                       std::vector<Cell> cells);
  // Router::MutateRow: the mutations of `row` (none conditional) applied
  // atomically.
  [[nodiscard]] Status MutateRow(std::string_view table, const std::string& row,
                                 std::vector<Mutation> mutations);
  // Router::Get: one answer per request in order (nullopt: no such row, or
  // its filter dropped it), or a prefix of them when the reply budget
  // (RouterOptions::max_reply_bytes) is spent.
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view table, std::vector<GetRequest> requests);
  // Router::BulkLoad: `file` loaded into region `region_id` of `table`.
  // InvalidArgument for an empty file or a region not of the table;
  // Unavailable while a region operation covers the region.
  [[nodiscard]] Status BulkLoad(std::string_view table, uint64_t region_id,
                                const std::string& file);

 private:
  // One atomic write of `mutations` (all of row `row`) to the row's region:
  // the server's result, with one outcome per mutation.
  StatusOr<WriteResult> ApplyRowAtomically(std::string_view table,
                                           const std::string& row,
                                           std::vector<Mutation> mutations);
  // One wave of Get: the requests from `begin` (at most kRowsPerRpc), each
  // server's part asked in parallel with a share of `budget` bytes; appends
  // the answered prefix to `out` (counting ReplyBytes in `*used`, stopping
  // after the row that passes `budget`) and returns how many it appended
  // (at least one).
  StatusOr<size_t> GetWave(const std::vector<GetRequest>& requests,
                           const std::vector<ServerId>& server_of, size_t begin,
                           uint64_t budget,
                           std::vector<std::optional<Row>>* out,
                           uint64_t* used);

  const RouterContext& ctx_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_ROW_CALLS_H_
