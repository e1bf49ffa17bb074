// RegionCopy: the rows of a region operation's sources copied into its
// targets (region_ops.cc has the operation and its steps): the targets
// opened staged (step 2), the sources' fences raised and the first copy of
// their rows as bulk files (step 3), the catch-up rounds that copy again
// the rows written meanwhile (step 4), and the targets' WALs synced before
// the switch and the drop.
//
// Every call goes to region servers through the context's WritePath (a
// write's fence token, its filter ops applied to the replica) and names
// the server that failed (WritePath::ServerFailed). Stateless apart from
// the context: thread-safe, but RegionOps calls it for the one running
// operation only.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_REGION_COPY_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_REGION_COPY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/region_protocol.h"
#include "router/internal/catalog.h"
#include "router/internal/reshape_state.h"
#include "router/internal/router_context.h"
#include "router/router_reports.h"

namespace bloomroute::router_internal {

// Region `r` of `table` as its server opens it.
RegionDescriptor DescriptorOf(const CatalogTable& table,
                              const CatalogRegion& r);

class RegionCopy {
 public:
  // `ctx` outlives this object.
  explicit RegionCopy(const RouterContext& ctx) : ctx_(ctx) {}
  RegionCopy(const RegionCopy&) = delete;
  RegionCopy& operator=(const RegionCopy&) = delete;

  // Opens each target of `op` (on table `table_id`, as the catalog has it)
  // staged on its server; the first failure, named.
  [[nodiscard]] Status OpenTargets(uint64_t table_id,
                                   const CatalogRegionOp& op);
  // Raises the fence of each source's server past every write to it that
  // went in doubt before the operation (a catch-up of a replica that is not
  // current), so that none can still commit behind the copy; the failure of
  // a server that did not answer.
  [[nodiscard]] Status FenceSources(const CatalogRegionOp& op);
  // Copies every row of the sources into the targets; counts into *result.
  [[nodiscard]] Status CopyRegionRows(const CatalogRegionOp& op,
                                      router::RegionOpResult* result);
  // Copies the rows noted in `state` since the last call again (a missing
  // row is deleted in its target); their number in *noted, one more
  // catch-up round in *result. Unavailable when the note overflowed or a
  // write went in doubt; Corruption for a noted row outside the sources.
  [[nodiscard]] Status CopyWrittenRows(const CatalogRegionOp& op,
                                       ReshapeState& state,
                                       router::RegionOpResult* result,
                                       size_t* noted);
  // Syncs the WAL of each server of op's targets (RegionClient::SyncWal);
  // the first failure, named.
  [[nodiscard]] Status SyncTargets(const CatalogRegionOp& op);

 private:
  // The rows of `source` in [low, high) (empty high: to its end) into
  // `target`, as bulk files.
  [[nodiscard]] Status CopyRange(const CatalogRegion& source,
                                 const CatalogRegion& target,
                                 const std::string& low,
                                 const std::string& high,
                                 router::RegionOpResult* result);
  // Copies the rows of `requests` (of one source on `from`) again into
  // the targets (CopyWrittenRows), in as many gets as the replies take.
  [[nodiscard]] Status CopyRowsAgain(const CatalogRegionOp& op,
                                     const ServerEntry& from,
                                     const std::vector<GetRequest>& requests,
                                     router::RegionOpResult* result);
  // Writes `rows` (each whole, replacing what the target has when
  // `replace`; nullopt: deleted) of `keys` into the targets.
  [[nodiscard]] Status WriteToTargets(
      const CatalogRegionOp& op, const std::vector<std::string>& keys,
      const std::vector<std::optional<Row>>& rows, bool replace);

  const RouterContext& ctx_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_REGION_COPY_H_
