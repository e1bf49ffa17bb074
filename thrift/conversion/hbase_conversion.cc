#include "thrift/conversion/hbase_conversion.h"

#include <utility>

#include "common/call_context.h"
#include "model/table_attributes.h"
#include "model/table_name.h"
#include "thrift/internal/checked_conversion.h"
#include "thrift/internal/enum_map.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using thrift_internal::At;
using thrift_internal::EachFromThrift;
using thrift_internal::JoinColumn;
using thrift_internal::kBadRequest;
using thrift_internal::Require;
using thrift_internal::RequireAll;

// TDeleteType's values bloomroute has (DELETE_FAMILY_VERSION is refused
// before the lookup, naming the feature).
constexpr thrift_internal::EnumMap<DeleteSpec::Kind, 3> kDeleteTypes(
    {{{DeleteSpec::Kind::kColumn, client::TDeleteType::DELETE_COLUMN},
      {DeleteSpec::Kind::kColumns, client::TDeleteType::DELETE_COLUMNS},
      {DeleteSpec::Kind::kFamily, client::TDeleteType::DELETE_FAMILY}}},
    "{field} {value} is not a TDeleteType");

Status Refused(const std::string& field, const std::string& why) {
  return Status::InvalidArgument(field + ": " + why + " is not supported");
}

// A TGet's timestamp T: the time range [T, T + 1). T is a stored cell's
// timestamp, so neither negative nor kLatestTimestamp (HBase refuses it too).
Status GetTimestampFromHBase(int64_t in, const std::string& f, TimeRange* out) {
  int64_t t = 0;
  BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimestampFromHBase(in, f, &t));
  if (t == kLatestTimestamp) {
    return Status::InvalidArgument(f + " " + std::to_string(t) +
                                   " is no cell's timestamp (the largest is " +
                                   std::to_string(kLatestTimestamp - 1) + ")");
  }
  *out = TimeRange{t, t + 1};
  return Status::OK();
}

// The read options of a TGet or TScan that must keep their defaults.
template <typename Request>
Status CheckReadOptions(const Request& in, const std::string& f) {
  if (in.__isset.authorizations && !in.authorizations.labels.empty()) {
    return Refused(f + ".authorizations", "visibility labels");
  }
  if (in.__isset.consistency &&
      in.consistency != client::TConsistency::STRONG) {
    return Refused(f + ".consistency " + std::to_string(in.consistency),
                   "TIMELINE consistency (region replicas)");
  }
  if (in.__isset.targetReplicaId && in.targetReplicaId != 0) {
    return Refused(f + ".targetReplicaId " + std::to_string(in.targetReplicaId),
                   "reading a region replica");
  }
  if (in.__isset.filterBytes) {
    return Refused(f + ".filterBytes",
                   "a serialized filter (use filterString)");
  }
  if (in.__isset.maxVersions && in.maxVersions != 1) {
    return Refused(f + ".maxVersions " + std::to_string(in.maxVersions),
                   "more than one version per cell");
  }
  return Status::OK();
}

// The filter string and time range of a TGet or TScan (a TGet's timestamp
// is looked at by GetFromThrift).
template <typename Request>
Status ReadFiltersFromThrift(const Request& in, const std::string& f,
                             std::string* filter, TimeRange* range) {
  *filter = in.__isset.filterString ? in.filterString : std::string();
  *range = TimeRange();
  if (!in.__isset.timeRange) return Status::OK();
  return thrift_internal::TimeRangeFromHBase(in.timeRange, f + ".timeRange",
                                             range);
}

// Cells to write (puts, appends).
Status CellsFromThrift(const std::vector<client::TColumnValue>& in,
                       const std::string& f, std::vector<Cell>* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const client::TColumnValue& c = in[i];
    const std::string cf = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(kBadRequest, cf,
                                          {{c.__isset.family, ".family"},
                                           {c.__isset.qualifier, ".qualifier"},
                                           {c.__isset.value, ".value"}}));
    int64_t timestamp = kLatestTimestamp;
    if (c.__isset.timestamp) {
      BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimestampFromHBase(
          c.timestamp, cf + ".timestamp", &timestamp));
    }
    if (c.__isset.tags && !c.tags.empty()) {
      return Refused(cf + ".tags", "cell tags");
    }
    if (c.__isset.type) {
      return Refused(cf + ".type " + std::to_string(c.type),
                     "a cell type on a write");
    }
    out->push_back(Cell{JoinColumn(c.family, c.qualifier), c.value, timestamp});
  }
  return Status::OK();
}

Status CheckNoVisibility(bool isset, const client::TCellVisibility& v,
                         const std::string& f) {
  if (isset && v.__isset.expression) {
    return Refused(f + ".cellVisibility", "visibility labels");
  }
  return Status::OK();
}

Status PutFromThrift(const client::TPut& in, const std::string& f,
                     Mutation* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadRequest, f,
      {{in.__isset.row, ".row"}, {in.__isset.columnValues, ".columnValues"}}));
  int64_t timestamp = kLatestTimestamp;
  if (in.__isset.timestamp) {
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimestampFromHBase(
        in.timestamp, f + ".timestamp", &timestamp));
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckNoVisibility(in.__isset.cellVisibility, in.cellVisibility, f));
  std::vector<Cell> cells;
  BLOOMROUTE_RETURN_IF_ERROR(
      CellsFromThrift(in.columnValues, f + ".columnValues", &cells));
  // The router finds the region: region_id is not the client's to give.
  *out = Mutation::Put(/*region=*/0, in.row, std::move(cells));
  out->timestamp = timestamp;
  return Status::OK();
}

// A column of a delete: with DELETE_FAMILY a family (kFamily), else a
// column deleted as DELETE_COLUMN (kColumn) or DELETE_COLUMNS (kColumns);
// the column's timestamp, else none (the mutation's applies). A column
// without qualifier is the one with the empty qualifier, as HBase 2.x's
// ThriftUtilities.deleteFromThrift has it (Delete.addColumn(family, null)
// and addColumns(family, null)): only DELETE_FAMILY removes a family.
Status DeleteColumnFromThrift(const client::TColumn& in, DeleteSpec::Kind kind,
                              const std::string& f, DeleteSpec* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.family, kBadRequest, f + ".family"));
  out->timestamp = kLatestTimestamp;
  if (in.__isset.timestamp) {
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimestampFromHBase(
        in.timestamp, f + ".timestamp", &out->timestamp));
  }
  if (kind == DeleteSpec::Kind::kFamily && !in.__isset.qualifier) {
    out->kind = DeleteSpec::Kind::kFamily;
    out->column = in.family;
    return Status::OK();
  }
  if (kind == DeleteSpec::Kind::kFamily) {
    return Status::InvalidArgument(
        f + ": deleteType " + std::to_string(kDeleteTypes.ToThrift(kind)) +
        " does not apply to a column with a qualifier (use DELETE_COLUMN or "
        "DELETE_COLUMNS)");
  }
  out->kind = kind;
  out->column = JoinColumn(in.family, in.__isset.qualifier ? in.qualifier : "");
  return Status::OK();
}

Status DeleteFromThrift(const client::TDelete& in, const std::string& f,
                        Mutation* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.row, kBadRequest, f + ".row"));
  int64_t timestamp = kLatestTimestamp;
  if (in.__isset.timestamp) {
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::TimestampFromHBase(
        in.timestamp, f + ".timestamp", &timestamp));
  }
  // An i32 on the wire (the IDL's "Enums"): any value may arrive.
  const int32_t type = in.__isset.deleteType
                           ? in.deleteType
                           : int32_t{client::TDeleteType::DELETE_COLUMNS};
  if (type == client::TDeleteType::DELETE_FAMILY_VERSION) {
    return Refused(f + ".deleteType DELETE_FAMILY_VERSION",
                   "deleting one version of a family");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(
      const DeleteSpec::Kind kind,
      kDeleteTypes.FromThrift(type, kBadRequest, f + ".deleteType"));
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckNoVisibility(in.__isset.cellVisibility, in.cellVisibility, f));
  std::vector<DeleteSpec> deletes(in.columns.size());
  for (size_t i = 0; i < in.columns.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(DeleteColumnFromThrift(
        in.columns[i], kind, At(f + ".columns", i), &deletes[i]));
  }
  *out = Mutation::Delete(/*region=*/0, in.row);
  out->deletes = std::move(deletes);
  out->timestamp = timestamp;
  return Status::OK();
}

Status GetFromThrift(const client::TGet& in, const std::string& f,
                     HBaseGet* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.row, kBadRequest, f + ".row"));
  if (in.__isset.storeLimit) {
    return Refused(f + ".storeLimit", "a per-family cell limit");
  }
  if (in.__isset.storeOffset) {
    return Refused(f + ".storeOffset", "a per-family cell offset");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadOptions(in, f));
  BLOOMROUTE_RETURN_IF_ERROR(ReadFiltersFromThrift(in, f, &out->request.filter,
                                                   &out->request.time_range));
  // A timestamp T is [T, T + 1) and wins over timeRange (HBase's rule).
  if (in.__isset.timestamp) {
    BLOOMROUTE_RETURN_IF_ERROR(GetTimestampFromHBase(
        in.timestamp, f + ".timestamp", &out->request.time_range));
  }
  out->request.region_id = 0;
  out->request.row_key = in.row;
  out->existence_only = in.__isset.existence_only && in.existence_only;
  return ProjectionFromThrift(in.columns, f + ".columns",
                              &out->request.columns);
}

}  // namespace

// ---- Projections ----

Status ProjectionFromThrift(const std::vector<client::TColumn>& in,
                            const std::string& f, Projection* out) {
  out->assign(in.size(), std::string());
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string cf = At(f, i);
    BLOOMROUTE_RETURN_IF_ERROR(
        Require(in[i].__isset.family, kBadRequest, cf + ".family"));
    (*out)[i] = in[i].__isset.qualifier
                    ? JoinColumn(in[i].family, in[i].qualifier)
                    : in[i].family;
  }
  return Status::OK();
}

// ---- Table names ----

Status TableFromThrift(const std::string& table, std::string* out) {
  NoteCallTable(table);
  *out = CanonicalTableName(table);
  return Status::OK();
}

Status TableFromThrift(const client::TTableName& in, const std::string& f,
                       std::string* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.qualifier, kBadRequest, f + ".qualifier"));
  *out = JoinTableName(in.__isset.ns ? in.ns : std::string(), in.qualifier);
  NoteCallTable(*out);
  return Status::OK();
}

client::TTableName TableNameToThrift(std::string_view table) {
  client::TTableName name;
  name.__set_ns(std::string(NamespaceOf(table)));
  name.__set_qualifier(std::string(QualifierOf(table)));
  name.__isset.qualifier = true;  // __set_ does not mark a default field
  return name;
}

// ---- Namespaces ----

Status FromThrift(const client::TNamespaceDescriptor& in,
                  router::NamespaceDescriptor* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.name, kBadRequest, "namespaceDesc.name"));
  out->name = in.name;
  out->configuration.clear();
  for (const auto& [k, v] : in.configuration) out->configuration[k] = v;
  return Status::OK();
}

client::TNamespaceDescriptor ToThrift(const router::NamespaceDescriptor& in) {
  client::TNamespaceDescriptor out;
  out.__set_name(in.name);
  std::map<std::string, std::string> configuration(in.configuration.begin(),
                                                   in.configuration.end());
  out.__set_configuration(std::move(configuration));
  return out;
}

// ---- Rows ----

Status FromThrift(const client::TPut& in, Mutation* out) {
  return PutFromThrift(in, "tput", out);
}

Status FromThrift(const std::vector<client::TPut>& in,
                  std::vector<Mutation>* out) {
  return EachFromThrift(in, "tputs", PutFromThrift, out);
}

Status FromThrift(const client::TDelete& in, Mutation* out) {
  return DeleteFromThrift(in, "tdelete", out);
}

Status FromThrift(const std::vector<client::TDelete>& in,
                  std::vector<Mutation>* out) {
  return EachFromThrift(in, "tdeletes", DeleteFromThrift, out);
}

Status FromThrift(const client::TGet& in, HBaseGet* out) {
  return GetFromThrift(in, "tget", out);
}

Status FromThrift(const std::vector<client::TGet>& in,
                  std::vector<HBaseGet>* out) {
  return EachFromThrift(in, "tgets", GetFromThrift, out);
}

Status FromThrift(const client::TScan& in, HBaseScan* out) {
  const std::string f = "tscan";
  if (in.__isset.colFamTimeRangeMap && !in.colFamTimeRangeMap.empty()) {
    return Refused(f + ".colFamTimeRangeMap", "a per-family time range");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckReadOptions(in, f));
  BLOOMROUTE_RETURN_IF_ERROR(
      ReadFiltersFromThrift(in, f, &out->spec.filter, &out->spec.time_range));
  out->limit = 0;
  if (in.__isset.limit) {
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::Narrow(
        in.limit, kBadRequest, f + ".limit", &out->limit));
  }
  // HBase batches only when batchSize > 0 (its Scan's default is -1, which
  // HBase's own Thrift client sends).
  out->batch_cells = in.__isset.batchSize && in.batchSize > 0
                         ? static_cast<uint32_t>(in.batchSize)
                         : 0;
  const std::string start = in.__isset.startRow ? in.startRow : "";
  const std::string stop = in.__isset.stopRow ? in.stopRow : "";
  out->spec.reversed = in.__isset.reversed && in.reversed;
  if (out->spec.reversed) {
    // HBase's reversed scan reads from startRow (inclusive, the largest
    // key; empty: the table's last row) down to stopRow (exclusive, the
    // smallest; empty: the first row): the range [stopRow + 0x00,
    // startRow + 0x00), each bound's successor, in descending order.
    out->spec.start_row = stop.empty() ? "" : stop + '\0';
    out->spec.stop_row = start.empty() ? "" : start + '\0';
  } else {
    out->spec.start_row = start;
    out->spec.stop_row = stop;
  }
  return ProjectionFromThrift(in.columns, f + ".columns", &out->spec.columns);
}

// ---- Tables ----

Status FromThrift(const client::TTableDescriptor& in,
                  const std::vector<std::string>& split_keys,
                  router::TableSpec* out) {
  BLOOMROUTE_RETURN_IF_ERROR(
      Require(in.__isset.tableName, kBadRequest, "desc.tableName"));
  BLOOMROUTE_RETURN_IF_ERROR(
      TableFromThrift(in.tableName, "desc.tableName", &out->name));
  if (in.attributes.count(std::string(kFamilySettingsAttribute)) != 0) {
    return Status::InvalidArgument(
        "desc.attributes: " +
        QuoteForMessage(std::string(kFamilySettingsAttribute)) +
        " is reserved (it keeps the TColumnFamilyDescriptor fields)");
  }
  out->families.assign(in.columns.size(), std::string());
  std::map<std::string, FamilySettings> settings;
  for (size_t i = 0; i < in.columns.size(); ++i) {
    FamilySettings family;
    BLOOMROUTE_RETURN_IF_ERROR(thrift_internal::FamilyFromThrift(
        in.columns[i], At("desc.columns", i), &family));
    out->families[i] = in.columns[i].name;
    if (!family.empty()) settings[in.columns[i].name] = std::move(family);
  }
  out->attributes = in.attributes;
  // Kept with the table's attributes: the router stores those as given.
  if (!settings.empty()) {
    out->attributes[std::string(kFamilySettingsAttribute)] =
        FormatFamilySettings(settings);
  }
  // The router resolves the index attribute into the indexed columns.
  out->indexed_columns.clear();
  const std::string index_key(kIndexAttribute);
  auto index = in.attributes.find(index_key);
  if (index != in.attributes.end()) {
    BLOOMROUTE_RETURN_IF_ERROR(ParseIndexAttribute(index->second)
                                   .status()
                                   .WithContext("desc.attributes"));
  }
  out->split_keys = split_keys;
  // HBase's createTable without split keys makes one region.
  out->region_count = split_keys.empty() ? 1 : 0;
  return Status::OK();
}

// ---- Atomic row operations ----

Status CheckFromThrift(const std::string& row, const std::string& family,
                       const std::string& qualifier, const std::string& value,
                       int32_t compare, HBaseCheck* out) {
  if (family.empty()) return Status::InvalidArgument("family is empty");
  if (compare != client::TCompareOperator::NO_OP) {
    BLOOMROUTE_RETURN_IF_ERROR(
        kHBaseCompareOps.FromThrift(compare, kBadRequest, "compareOperator")
            .status());
  }
  out->row = row;
  out->column = JoinColumn(family, qualifier);
  out->value = value;
  out->compare = static_cast<client::TCompareOperator::type>(compare);
  return Status::OK();
}

Status RowMutationFromThrift(const Mutation& mutation, const std::string& row,
                             const std::string& f) {
  if (mutation.row_key != row) {
    return Status::InvalidArgument(
        f + ".row " + QuoteForMessage(mutation.row_key) +
        " is not the row of the call (" + QuoteForMessage(row) + ")");
  }
  return Status::OK();
}

Status FromThrift(const client::TRowMutations& in, const std::string& f,
                  std::vector<Mutation>* out) {
  BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
      kBadRequest, f,
      {{in.__isset.row, ".row"}, {in.__isset.mutations, ".mutations"}}));
  out->assign(in.mutations.size(), Mutation());
  for (size_t i = 0; i < in.mutations.size(); ++i) {
    const client::TMutation& m = in.mutations[i];
    const std::string mf = At(f + ".mutations", i);
    if (m.__isset.put == m.__isset.deleteSingle) {
      return Status::InvalidArgument(
          mf + " must have exactly one of put and deleteSingle");
    }
    BLOOMROUTE_RETURN_IF_ERROR(
        m.__isset.put ? PutFromThrift(m.put, mf + ".put", &(*out)[i])
                      : DeleteFromThrift(m.deleteSingle, mf + ".deleteSingle",
                                         &(*out)[i]));
    BLOOMROUTE_RETURN_IF_ERROR(RowMutationFromThrift((*out)[i], in.row, mf));
  }
  return Status::OK();
}

Status FromThrift(const client::TIncrement& in, HBaseIncrement* out) {
  const std::string f = "tincrement";
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadRequest, f,
                 {{in.__isset.row, ".row"}, {in.__isset.columns, ".columns"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckNoVisibility(in.__isset.cellVisibility, in.cellVisibility, f));
  out->row = in.row;
  out->amounts.clear();
  for (size_t i = 0; i < in.columns.size(); ++i) {
    const client::TColumnIncrement& c = in.columns[i];
    const std::string cf = At(f + ".columns", i);
    BLOOMROUTE_RETURN_IF_ERROR(RequireAll(
        kBadRequest, cf,
        {{c.__isset.family, ".family"}, {c.__isset.qualifier, ".qualifier"}}));
    // An unset amount is the IDL's default, 1.
    out->amounts.emplace_back(JoinColumn(c.family, c.qualifier), c.amount);
  }
  // Unset is HBase's default: true (ThriftUtilities sets it only when set).
  out->return_results = !in.__isset.returnResults || in.returnResults;
  return Status::OK();
}

Status FromThrift(const client::TAppend& in, HBaseAppend* out) {
  const std::string f = "tappend";
  BLOOMROUTE_RETURN_IF_ERROR(
      RequireAll(kBadRequest, f,
                 {{in.__isset.row, ".row"}, {in.__isset.columns, ".columns"}}));
  BLOOMROUTE_RETURN_IF_ERROR(
      CheckNoVisibility(in.__isset.cellVisibility, in.cellVisibility, f));
  std::vector<Cell> cells;
  BLOOMROUTE_RETURN_IF_ERROR(
      CellsFromThrift(in.columns, f + ".columns", &cells));
  out->cells = Mutation::Put(/*region=*/0, in.row, std::move(cells));
  // Unset is HBase's default: true (ThriftUtilities sets it only when set).
  out->return_results = !in.__isset.returnResults || in.returnResults;
  return Status::OK();
}

}  // namespace bloomroute
