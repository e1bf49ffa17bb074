// RowMapper: turns a record of an import file into the put that stores it
// (as HBase's ImportTsv does): one field is the row key, every other field a
// cell in column "family:name", where `name` is the field's column name (from
// the file's header or --columns).
//
// Rules.
//   * The row-key field is not stored as a cell (as ImportTsv's
//     HBASE_ROW_KEY) and cannot be indexed.
//   * An empty field writes no cell, so an indexed column never gets "" as a
//     (hot) value; re-importing a row whose field became empty leaves the
//     column's earlier value in place.
//   * A record is bad, with a reason for the bad-lines list, when it has the
//     wrong number of fields, an empty row key, a row key over
//     kMaxRowKeyBytes, a value over max_value_bytes, or nothing but the row
//     key. A bad record gives no put at all.
//
// Example:
//   auto mapper = RowMapper::Create({{"id", "name", "cc"}, "id", {"cc"}});
//   StatusOr<Mutation> put = mapper->Map({"1", "Oslo", "NO"});
//   // put: row "1", cells d:cc = NO, d:name = Oslo
//
// Thread-safety: a RowMapper is immutable; Map may run concurrently.
#ifndef BLOOMROUTE_TOOLS_IMPORT_ROW_MAPPER_H_
#define BLOOMROUTE_TOOLS_IMPORT_ROW_MAPPER_H_

#include <cstddef>
#include <string>
#include <vector>

#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute {

struct RowMapperSpec {
  std::vector<std::string> columns;  // each field's name, in file order
  std::string row_key;               // the name of the row-key field
  std::vector<std::string> indexed;  // names of indexed fields
  std::string family = "d";
  size_t max_value_bytes = kDefaultMaxValueBytes;  // a region server's default
};

class RowMapper {
 public:
  // InvalidArgument, naming the problem, unless: columns are non-empty,
  // distinct and make valid column names with `family`; row_key is one of
  // them and there is at least one other; every indexed name is a column
  // other than the row key, listed once; max_value_bytes > 0.
  static StatusOr<RowMapper> Create(RowMapperSpec spec);

  // The put for a record's fields (region 0: the router places it), or
  // InvalidArgument whose message is the reason the record is bad, e.g.
  // "3 fields, expected 19" or "empty row key".
  StatusOr<Mutation> Map(std::vector<std::string> fields) const;

  size_t field_count() const { return spec_.columns.size(); }
  const RowMapperSpec& spec() const { return spec_; }
  // The indexed columns as "family:name", in the order given.
  std::vector<std::string> IndexedColumns() const;

 private:
  explicit RowMapper(RowMapperSpec spec, size_t row_key_field,
                     std::vector<std::string> column_names);

  RowMapperSpec spec_;
  size_t row_key_field_;
  std::vector<std::string> column_names_;  // "family:name" per field
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_ROW_MAPPER_H_
