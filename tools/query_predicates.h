// The predicate flags of `bloomroute query`, parsed into IndexPredicate
// (model/index_predicate.h). NAME is a column as QualifyColumn takes it
// ("cc" gets the default family).
//
//   --where NAME=VALUE  NAME>=VALUE  NAME>VALUE  NAME<=VALUE  NAME<VALUE
//       NAME ends at the first '<', '>' or '='; the value is the rest, taken
//       as is (it may hold ',', '=' and '\').
//   --in NAME=V1,V2,...      --between NAME=LOW,HIGH (both ends included)
//       NAME ends at the first '='; values are separated by ','. In a value,
//       '\,' is a comma, '\\' a backslash and '\=' an '=' ('=' may also be
//       given bare); any other '\' is an error. Empty values are allowed.
//   --prefix NAME=P          P taken as is, non-empty.
//
// Every error is InvalidArgument naming the flag and the argument.
#ifndef BLOOMROUTE_TOOLS_QUERY_PREDICATES_H_
#define BLOOMROUTE_TOOLS_QUERY_PREDICATES_H_

#include <string_view>

#include "common/statusor.h"
#include "model/index_predicate.h"

namespace bloomroute {

StatusOr<IndexPredicate> ParseWherePredicate(std::string_view arg,
                                             std::string_view family);
StatusOr<IndexPredicate> ParseInPredicate(std::string_view arg,
                                          std::string_view family);
StatusOr<IndexPredicate> ParsePrefixPredicate(std::string_view arg,
                                              std::string_view family);
StatusOr<IndexPredicate> ParseBetweenPredicate(std::string_view arg,
                                               std::string_view family);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_QUERY_PREDICATES_H_
