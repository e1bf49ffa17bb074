// IndexReport: the result of checking everything a region server derives
// from its rows (its index entries, value counts and filter) against the rows.
// Region servers produce it (RegionStore::VerifyIndex) and the router's
// verify report (router/router_reports.h) shows it to clients, so it lives
// apart from the region protocol.
#ifndef BLOOMROUTE_MODEL_INDEX_REPORT_H_
#define BLOOMROUTE_MODEL_INDEX_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bloomroute {

// A verification pass over what a region server stores (RegionStore::
// VerifyIndex): everything derived from the rows recomputed and compared.
struct IndexReport {
  // The table checked; nullopt: every table on the server.
  std::optional<uint64_t> table_id;
  uint64_t rows = 0;
  uint64_t index_entries_valid = 0;
  uint64_t index_entries_missing = 0;  // implied by a row, absent
  uint64_t index_entries_extra = 0;    // present, not implied by any row
  uint64_t values = 0;                 // distinct (table, column, value)
  uint64_t value_counts_wrong = 0;     // count differs from the rows
  // Values whose element the filter does not contain at the stage recorded
  // with the value (a false negative waiting to happen).
  uint64_t values_not_in_filter = 0;
  // The server's filter equals one rebuilt from every value record at its
  // recorded stage (server-wide: the filter is shared by all tables).
  bool filter_matches_rebuild = false;
  // Indexed columns of the tables checked that are still building: their
  // rows are not checked for entries, nor their value counts against rows
  // (their entries must still each be implied by a row).
  uint64_t building_columns = 0;
  std::vector<std::string> problems;  // the first few, for the log
  // Entries that are wrong rather than missing or extra.
  uint64_t invalid() const { return value_counts_wrong + values_not_in_filter; }
  bool ok() const {
    return index_entries_missing == 0 && index_entries_extra == 0 &&
           invalid() == 0 && filter_matches_rebuild;
  }
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_INDEX_REPORT_H_
