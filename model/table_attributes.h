// Column families and table attributes, as HBase's table calls carry them
// (TTableDescriptor.columns and .attributes), and the attribute through
// which an HBase client declares bloomroute's indexed columns.
//
// `bloomroute.index`: the indexed columns as "family:qualifier" separated by
// commas, e.g. "d:country,d:feature". Spaces around an entry are dropped;
// the qualifier may be empty or hold ':' (the family ends at the first one).
//
// Families. A table that declares families accepts only columns of those
// families in every data call (HBase's NoSuchColumnFamilyException); a table
// that declares none accepts any family. The families and attributes are the
// router's: the descriptors region servers get carry neither.
//
// Usage:
//   StatusOr<std::vector<std::string>> cols =
//       ParseIndexAttribute("d:country,d:feature");
//   Status s = CheckColumnFamily(table, "x:q");  // InvalidArgument naming x
#ifndef BLOOMROUTE_MODEL_TABLE_ATTRIBUTES_H_
#define BLOOMROUTE_MODEL_TABLE_ATTRIBUTES_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute {

inline constexpr std::string_view kIndexAttribute = "bloomroute.index";

// Indexed columns of one table, and their names together in bytes.
inline constexpr uint32_t kMaxIndexedColumnsPerTable = 256;
inline constexpr uint64_t kMaxIndexedColumnBytesPerTable = 16 << 10;
// The attribute's value: the column names, one separator each and a few
// spaces.
inline constexpr uint64_t kMaxIndexAttributeBytes =
    2 * kMaxIndexedColumnBytesPerTable;
// Declared families of one table, and their names together in bytes.
inline constexpr uint32_t kMaxFamilies = 256;
inline constexpr uint64_t kMaxFamilyBytes = 16 << 10;
// Attributes of one table, and their names and values together in bytes.
inline constexpr uint32_t kMaxAttributes = 256;
inline constexpr uint64_t kMaxAttributeBytes = 64 << 10;

// The indexed columns `value` names, in order. InvalidArgument naming the
// entry (1-based) for an empty entry, a name that is not a valid
// "family:qualifier" (ValidateColumnName), a column named twice, more than
// kMaxIndexedColumnsPerTable columns or kMaxIndexedColumnBytesPerTable bytes
// of names, or a value over kMaxIndexAttributeBytes (checked first).
StatusOr<std::vector<std::string>> ParseIndexAttribute(std::string_view value);
// The attribute value naming `columns`: ParseIndexAttribute gives them back.
std::string FormatIndexAttribute(const std::vector<std::string>& columns);

// InvalidArgument naming the first bad family: empty, holding ':', over
// kMaxColumnNameBytes or declared twice; or over kMaxFamilies /
// kMaxFamilyBytes (the message names the limit).
Status ValidateFamilies(const std::vector<std::string>& families);
// InvalidArgument for an empty attribute name or over kMaxAttributes /
// kMaxAttributeBytes (names and values together).
Status ValidateAttributes(const std::map<std::string, std::string>& attributes);
// Bytes of names and values of `attributes`.
uint64_t AttributeBytes(const std::map<std::string, std::string>& attributes);

// OK when `table` declares no families or declares the family of `column`
// ("family:qualifier", or a bare "family" as a projection holds it);
// otherwise InvalidArgument "column family 'x' does not exist in table 't'".
Status CheckColumnFamily(const TableDescriptor& table, std::string_view column);
// CheckColumnFamily for every entry.
Status CheckProjectionFamilies(const TableDescriptor& table,
                               const Projection& columns);
// CheckColumnFamily for every column a mutation writes, deletes, increments
// or checks.
Status CheckMutationFamilies(const TableDescriptor& table,
                             const Mutation& mutation);

// ---- Family settings ----
//
// What an HBase client declared of a column family beyond its name
// (TColumnFamilyDescriptor) that changes no answer here: storage settings
// by their field name in the IDL ("blockSize", "inMemory", ...) with the
// value sent (booleans as 0 and 1), and the family's attributes and
// configuration as given. bloomroute acts on none of them; a table keeps
// them, for the families that have some, in the attribute
// kFamilySettingsAttribute, which getTableDescriptor turns back into the
// families' fields (and leaves out of the table's attributes).
struct FamilySettings {
  std::map<std::string, int64_t> settings = {};
  std::map<std::string, std::string> attributes = {};
  std::map<std::string, std::string> configuration = {};

  bool empty() const {
    return settings.empty() && attributes.empty() && configuration.empty();
  }
  friend bool operator==(const FamilySettings& a, const FamilySettings& b) {
    return a.settings == b.settings && a.attributes == b.attributes &&
           a.configuration == b.configuration;
  }
};

inline constexpr std::string_view kFamilySettingsAttribute =
    "bloomroute.families";

// The attribute value for `families` (by family name; empty settings are
// left out): a format version byte, then counts and length-prefixed strings
// (common/coding.h). ParseFamilySettings gives them back; Corruption for
// bytes it did not write (an unknown version, a truncated or trailing
// field, a name twice).
std::string FormatFamilySettings(
    const std::map<std::string, FamilySettings>& families);
StatusOr<std::map<std::string, FamilySettings>> ParseFamilySettings(
    std::string_view value);

// `table` with the bloomroute.index attribute naming its indexed columns
// (replacing any value it had) when it has indexed columns; unchanged
// otherwise. What an HBase client's getTableDescriptor shows of a table
// created by bloomroute's own createTable (which sets no attribute).
TableDescriptor WithIndexAttribute(const TableDescriptor& table);

// `table` as region servers get it: with its families (a region server
// checks bulk loads against them) but without attributes, which only the
// router uses.
TableDescriptor ServerDescriptor(const TableDescriptor& table);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_TABLE_ATTRIBUTES_H_
