#include "model/table_name.h"

#include <algorithm>

#include "model/rows.h"

namespace bloomroute {
namespace {

bool IsNamespaceChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_';
}

bool IsQualifierChar(char c) {
  return IsNamespaceChar(c) || c == '-' || c == '.';
}

}  // namespace

std::string_view NamespaceOf(std::string_view table) {
  const size_t colon = table.find(':');
  return colon == std::string_view::npos ? kDefaultNamespace
                                         : table.substr(0, colon);
}

std::string_view QualifierOf(std::string_view table) {
  const size_t colon = table.find(':');
  return colon == std::string_view::npos ? table : table.substr(colon + 1);
}

std::string CanonicalTableName(std::string_view table) {
  if (table.find(':') == std::string_view::npos) return std::string(table);
  return JoinTableName(NamespaceOf(table), QualifierOf(table));
}

std::string JoinTableName(std::string_view ns, std::string_view qualifier) {
  if (ns.empty() || ns == kDefaultNamespace) return std::string(qualifier);
  std::string name(ns);
  name += ':';
  name += qualifier;
  return name;
}

Status ValidateNamespaceName(std::string_view ns) {
  if (ns.empty() || ns.size() > kMaxNamespaceNameBytes) {
    return Status::InvalidArgument(
        "namespace name " + QuoteForMessage(ns) + " must be 1 to " +
        std::to_string(kMaxNamespaceNameBytes) + " of [A-Za-z0-9_]");
  }
  auto bad = std::find_if_not(ns.begin(), ns.end(), IsNamespaceChar);
  if (bad != ns.end()) {
    return Status::InvalidArgument(
        "namespace name " + QuoteForMessage(ns) + ": illegal character at " +
        std::to_string(bad - ns.begin()) +
        " (namespaces may only contain [A-Za-z0-9_], as HBase's)");
  }
  return Status::OK();
}

Status ValidateTableName(std::string_view table) {
  if (table.find(':') != std::string_view::npos) {
    BLOOMROUTE_RETURN_IF_ERROR(
        ValidateNamespaceName(NamespaceOf(table))
            .WithContext("table " + QuoteForMessage(table)));
  }
  const std::string_view q = QualifierOf(table);
  if (q.empty() || q.size() > kMaxTableQualifierBytes || q == "." ||
      q == ".." || !std::all_of(q.begin(), q.end(), IsQualifierChar)) {
    return Status::InvalidArgument(
        "table name " + QuoteForMessage(table) +
        ": the name within its namespace must be 1 to 255 of [A-Za-z0-9_.-] "
        "(and not '.' or '..')");
  }
  return Status::OK();
}

}  // namespace bloomroute
