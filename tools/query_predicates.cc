#include "tools/query_predicates.h"

#include <string>
#include <utility>
#include <vector>

#include "tools/client_command_util.h"

namespace bloomroute {
namespace {

Status Bad(std::string_view flag, std::string_view arg, std::string_view why) {
  return Status::InvalidArgument(
      std::string(flag) + " " + QuoteForMessage(arg) + ": " + std::string(why));
}

// The column of `name`, or an error naming the flag.
StatusOr<std::string> Column(std::string_view flag, std::string_view arg,
                             std::string_view name, std::string_view family) {
  StatusOr<std::string> column = QualifyColumn(name, family);
  if (!column.ok()) {
    return column.status().WithContext(std::string(flag) + " " +
                                       QuoteForMessage(arg));
  }
  return column;
}

// "V1,V2,..." with the escapes of the header.
StatusOr<std::vector<std::string>> SplitValues(std::string_view flag,
                                               std::string_view arg,
                                               std::string_view list) {
  std::vector<std::string> values(1);
  for (size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (c == ',') {
      values.emplace_back();
    } else if (c != '\\') {
      values.back().push_back(c);
    } else if (i + 1 < list.size() &&
               (list[i + 1] == ',' || list[i + 1] == '\\' ||
                list[i + 1] == '=')) {
      values.back().push_back(list[++i]);
    } else {
      return Bad(flag, arg,
                 "a '\\' must start an escape: '\\,' '\\=' or '\\\\'");
    }
  }
  return values;
}

// NAME=VALUES split at the first '='.
StatusOr<std::pair<std::string, std::string_view>> NameAndRest(
    std::string_view flag, std::string_view arg, std::string_view family,
    std::string_view form) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos) {
    return Bad(flag, arg, "is not " + std::string(form));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string column,
                              Column(flag, arg, arg.substr(0, eq), family));
  return std::make_pair(std::move(column), arg.substr(eq + 1));
}

}  // namespace

StatusOr<IndexPredicate> ParseWherePredicate(std::string_view arg,
                                             std::string_view family) {
  const size_t at = arg.find_first_of("<>=");
  if (at == std::string_view::npos) {
    return Bad("--where", arg,
               "is not NAME=VALUE, NAME>=VALUE, NAME>VALUE, "
               "NAME<=VALUE or NAME<VALUE");
  }
  IndexPredicate p;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      p.column, Column("--where", arg, arg.substr(0, at), family));
  std::string_view rest = arg.substr(at);
  const bool or_equal = rest.size() > 1 && rest[0] != '=' && rest[1] == '=';
  switch (rest[0]) {
    case '<':
      p.op = or_equal ? IndexOp::kLessOrEqual : IndexOp::kLess;
      break;
    case '>':
      p.op = or_equal ? IndexOp::kGreaterOrEqual : IndexOp::kGreater;
      break;
    default:
      p.op = IndexOp::kEqual;
  }
  p.values = {std::string(rest.substr(or_equal ? 2 : 1))};
  return p;
}

StatusOr<IndexPredicate> ParseInPredicate(std::string_view arg,
                                          std::string_view family) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      auto name_rest, NameAndRest("--in", arg, family, "NAME=V1,V2,..."));
  IndexPredicate p{std::move(name_rest.first), IndexOp::kIn, {}};
  BLOOMROUTE_ASSIGN_OR_RETURN(p.values,
                              SplitValues("--in", arg, name_rest.second));
  return p;
}

StatusOr<IndexPredicate> ParsePrefixPredicate(std::string_view arg,
                                              std::string_view family) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      auto name_rest, NameAndRest("--prefix", arg, family, "NAME=PREFIX"));
  if (name_rest.second.empty()) {
    return Bad("--prefix", arg, "the prefix is empty");
  }
  return IndexPredicate{std::move(name_rest.first),
                        IndexOp::kPrefix,
                        {std::string(name_rest.second)}};
}

StatusOr<IndexPredicate> ParseBetweenPredicate(std::string_view arg,
                                               std::string_view family) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      auto name_rest, NameAndRest("--between", arg, family, "NAME=LOW,HIGH"));
  IndexPredicate p{std::move(name_rest.first), IndexOp::kBetween, {}};
  BLOOMROUTE_ASSIGN_OR_RETURN(p.values,
                              SplitValues("--between", arg, name_rest.second));
  if (p.values.size() != 2) {
    return Bad("--between", arg,
               "is not NAME=LOW,HIGH (escape a comma in a value as '\\,')");
  }
  return p;
}

}  // namespace bloomroute
