// JavaRegex: HBase's table-name patterns (getTableNamesByPattern,
// getTableDescriptorsByPattern take a java.util.regex pattern and list the
// tables whose whole name matches it) over std::regex.
//
// Accepted: the subset of Java's syntax that ECMAScript shares and means the
// same by -- literals, `.`, classes and ranges ([a-z], [^0-9]), \d \D \s \S
// \w \W \b \B, escaped punctuation, \t \n \r \f \v \xhh \uhhhh \cX, groups
// (..) and (?:..), lookahead (?=..) (?!..), alternation, greedy and lazy
// quantifiers (counts at most kMaxCount), ^ and $. Refused with
// InvalidArgument naming the construct, since ECMAScript would read them
// otherwise or not at all: possessive quantifiers (*+ ++ ?+ }+), \p{..} and
// \P{..}, (?<..) (named groups, lookbehind), (?>..) (atomic groups), inline
// flags ((?i) ...), \Q..\E, \A \Z \z \G \h \H \R \X \k \e \a, \0 and other
// digit escapes (backreferences, octal), a class inside a class ([a[b]]),
// class intersection ([a&&b]) and a `]` first in a class.
//
// Matching runs in polynomial time where the standard library offers it
// (libstdc++'s __polynomial: no backtracking, hence no backreferences), so
// a pattern cannot make a call run for ever.
//
// Usage:
//   StatusOr<JavaRegex> re = JavaRegex::Compile("geo_.*");
//   if (!re.ok()) return re.status();
//   if (re->Matches(name)) ...
//
// Thread-safety: a compiled JavaRegex may be matched from several threads.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_JAVA_REGEX_H_
#define BLOOMROUTE_THRIFT_INTERNAL_JAVA_REGEX_H_

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::thrift_internal {

class JavaRegex {
 public:
  static constexpr size_t kMaxPatternBytes = 1024;
  static constexpr unsigned kMaxCount = 255;  // in {n}, {n,}, {n,m}

  // InvalidArgument for a pattern over kMaxPatternBytes, a Java-only
  // construct (named) or one that does not compile (std::regex's reason).
  static StatusOr<JavaRegex> Compile(std::string_view pattern);

  // Whether the whole of `name` matches (Java's Matcher.matches).
  bool Matches(const std::string& name) const;

 private:
  explicit JavaRegex(std::regex re) : re_(std::move(re)) {}
  std::regex re_;
};

// OK, or InvalidArgument naming the first Java-only construct of `pattern`
// (what Compile refuses before compiling).
[[nodiscard]] Status CheckJavaRegexSubset(std::string_view pattern);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_JAVA_REGEX_H_
