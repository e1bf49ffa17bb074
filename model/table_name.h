// Table names and namespaces, with HBase's rules (TableName,
// NamespaceDescriptor): a table lives in a namespace, named "ns:qualifier";
// a name without ':' is in namespace `default`, so "t" and "default:t" name
// the same table. The router keeps a table of `default` under its bare
// qualifier ("t", as tables made before namespaces existed are stored) and
// a table of another namespace under "ns:qualifier": CanonicalTableName
// gives that form, and every lookup by name goes through it.
//
// Namespaces `default` and `hbase` always exist; `hbase` holds HBase's
// system tables, none of which a user can create.
//
// Usage:
//   std::string name = CanonicalTableName("default:t");  // "t"
//   NamespaceOf("geo:cities");                           // "geo"
//   Status s = ValidateNamespaceName("geo-1");           // InvalidArgument
#ifndef BLOOMROUTE_MODEL_TABLE_NAME_H_
#define BLOOMROUTE_MODEL_TABLE_NAME_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace bloomroute {

inline constexpr std::string_view kDefaultNamespace = "default";
inline constexpr std::string_view kSystemNamespace = "hbase";
// A namespace name's bytes at most (HBase has no bound of its own; a table
// name's qualifier keeps its 255).
inline constexpr size_t kMaxNamespaceNameBytes = 128;
inline constexpr size_t kMaxTableQualifierBytes = 255;

// The namespace of `table`: what precedes its first ':', or "default".
std::string_view NamespaceOf(std::string_view table);
// The table's name within its namespace: what follows the first ':'.
std::string_view QualifierOf(std::string_view table);
// `table` as the router keeps it: "default:t" is "t"; other names as given.
std::string CanonicalTableName(std::string_view table);
// The full name of `qualifier` in namespace `ns` ("default" or empty: the
// bare qualifier).
std::string JoinTableName(std::string_view ns, std::string_view qualifier);

// HBase's TableName.isLegalNamespaceName: 1 to kMaxNamespaceNameBytes of
// [A-Za-z0-9_]. InvalidArgument naming the first illegal character.
[[nodiscard]] Status ValidateNamespaceName(std::string_view ns);
// A table name a table can be created under: a legal namespace (when one
// is named) and a qualifier of 1 to 255 of [A-Za-z0-9_.-], not '.' or '..'.
// InvalidArgument naming the part at fault.
[[nodiscard]] Status ValidateTableName(std::string_view table);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_TABLE_NAME_H_
