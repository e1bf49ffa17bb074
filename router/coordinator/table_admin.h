// TableAdmin: the tables' DDL -- create, delete, enable and disable,
// truncate -- and what a table is and where its regions are (describe,
// list, locate). Admin calls: with many routers they run on the
// coordinator, which is why this lives in coordinator/.
//
// Every change is written to the catalog before any region server hears of
// it, and published to the TableDirectory after; changes are serialized by
// the context's DDL lock (taken here). Regions are placed, opened and
// dropped through RegionPlacement; what a server did not do now (it did not
// answer) maintenance finishes (RegionPlacement::Maintain).
//
// Thread-safe: reads work on published snapshots; changes take ddl_mu.
#ifndef BLOOMROUTE_ROUTER_COORDINATOR_TABLE_ADMIN_H_
#define BLOOMROUTE_ROUTER_COORDINATOR_TABLE_ADMIN_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "router/coordinator/region_placement.h"
#include "router/internal/router_context.h"
#include "router/router.h"

namespace bloomroute::router_internal {

// What Router::ModifyTable changes, as TableAdmin::PlanSchemaChange finds
// it: the new families and attributes (the index attribute apart), the
// indexed columns to drop and to add, and the families whose cells must be
// gone first.
struct SchemaChange {
  std::string table;  // canonical name
  std::vector<std::string> families;
  std::map<std::string, std::string> attributes;  // without bloomroute.index
  bool index_attribute = false;   // the spec named its columns by attribute
  std::vector<std::string> drop;  // indexed (or building) columns
  std::vector<std::string> add;
  // Families declared before and not after. With `narrowed` (the table
  // declared none and now declares some) every row must be gone first.
  std::vector<std::string> removed_families;
  bool narrowed = false;
};

class TableAdmin {
 public:
  // `ctx` and `placement` outlive the admin.
  TableAdmin(const RouterContext& ctx, RegionPlacement* placement);
  TableAdmin(const TableAdmin&) = delete;
  TableAdmin& operator=(const TableAdmin&) = delete;

  // The contracts of these calls are Router's (router/router.h).
  StatusOr<router::TableInfo> CreateTable(const router::TableSpec& spec);
  [[nodiscard]] Status DeleteTable(std::string_view table);
  std::vector<TableDescriptor> ListTables() const;
  StatusOr<router::TableInfo> DescribeTable(std::string_view table) const;
  [[nodiscard]] Status DisableTable(std::string_view table);
  [[nodiscard]] Status EnableTable(std::string_view table);
  StatusOr<bool> IsTableEnabled(std::string_view table) const;
  [[nodiscard]] Status DeleteTableIfDisabled(std::string_view table);
  [[nodiscard]] Status TruncateTable(std::string_view table,
                                     bool preserve_splits);
  StatusOr<router::RegionLocation> LocateRegion(std::string_view table,
                                                std::string_view row) const;
  // Router::ModifyTable in steps (RouterImpl runs them with the index
  // calls between): validates `spec` as CreateTable does, against the
  // table as it is (NotFound for an unknown one; split keys and a region
  // count are InvalidArgument), and says what changes.
  StatusOr<SchemaChange> PlanSchemaChange(const router::TableSpec& spec) const;
  // Writes the change's families and attributes to the table (its index
  // attribute, when the change has one, names the ready columns).
  [[nodiscard]] Status ApplySchema(const SchemaChange& change);

 private:
  // DeleteTable of a table found; needs ddl_mu held.
  [[nodiscard]] Status DeleteTableLocked(const TableState& state);
  // Sets the table's enabled flag (persisted); the errors of DisableTable.
  [[nodiscard]] Status SetEnabled(std::string_view table, bool enabled);
  router::TableInfo Describe(const TableState& table) const;
  // `given` under its canonical name with its index attribute resolved,
  // checked as CreateTable and PlanSchemaChange take it (ValidateSpec and
  // the table's byte bound).
  StatusOr<router::TableSpec> CheckedSpec(const router::TableSpec& given) const;

  const RouterContext& ctx_;
  RegionPlacement* const placement_;
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_COORDINATOR_TABLE_ADMIN_H_
