// JavaRegex: java.util.regex patterns over std::regex, for HBase's table-name
// patterns (getTableNamesByPattern, getTableDescriptorsByPattern: the tables
// whose whole name matches) and its filter language's `regexstring:`
// comparator (RegexStringComparator: a value matches when the pattern is
// found in it, with Pattern.DOTALL, HBase's default flag).
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
// Subjects are matched byte by byte: a non-ASCII character (several bytes
// in UTF-8) is several characters to `.`, classes and counts, where Java
// decodes it to one; ASCII subjects match exactly as in Java.
//
// Thread-safety: a compiled JavaRegex may be matched from several threads.
#ifndef BLOOMROUTE_COMMON_JAVA_REGEX_H_
#define BLOOMROUTE_COMMON_JAVA_REGEX_H_

#include <cstddef>
#include <regex>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute {

class JavaRegex {
 public:
  static constexpr size_t kMaxPatternBytes = 1024;
  static constexpr unsigned kMaxCount = 255;  // in {n}, {n,}, {n,m}

  // InvalidArgument for a pattern over kMaxPatternBytes, a Java-only
  // construct (named) or one that does not compile (std::regex's reason).
  // dot_all: `.` also matches line terminators (Java's Pattern.DOTALL),
  // which ECMAScript's `.` does not.
  static StatusOr<JavaRegex> Compile(std::string_view pattern,
                                     bool dot_all = false);

  // Whether the whole of `name` matches (Java's Matcher.matches).
  bool Matches(const std::string& name) const;

  // Whether the pattern matches somewhere in `subject` (Matcher.find).
  bool Finds(std::string_view subject) const;

 private:
  explicit JavaRegex(std::regex re) : re_(std::move(re)) {}
  std::regex re_;
};

// OK, or InvalidArgument naming the first Java-only construct of `pattern`
// (what Compile refuses before compiling).
[[nodiscard]] Status CheckJavaRegexSubset(std::string_view pattern);

}  // namespace bloomroute

#endif  // BLOOMROUTE_COMMON_JAVA_REGEX_H_
