#include "common/java_regex.h"

#include <cctype>
#include <string>
#include <utility>

namespace bloomroute {
namespace {

constexpr std::string_view kJavaOnlyEscapes = "AZzGhHRXkQEae";

Status JavaOnly(const std::string& what, size_t at) {
  return Status::InvalidArgument("regex: " + what + " at offset " +
                                 std::to_string(at) +
                                 " is Java-only syntax bloomroute does not "
                                 "accept");
}

// The escape at `at` (pattern[at] == '\\').
Status CheckEscape(std::string_view p, size_t at) {
  if (at + 1 >= p.size()) return JavaOnly("a trailing \\", at);
  const char d = p[at + 1];
  if (d == 'p' || d == 'P') return JavaOnly("a \\p{..} class", at);
  if (std::isdigit(static_cast<unsigned char>(d))) {
    return JavaOnly(std::string("\\") + d + " (backreference or octal)", at);
  }
  if (kJavaOnlyEscapes.find(d) != std::string_view::npos) {
    return JavaOnly(std::string("\\") + d, at);
  }
  return Status::OK();
}

// "(?" at `at`: only (?: (?= (?! mean the same in ECMAScript.
Status CheckGroup(std::string_view p, size_t at) {
  const char t = at + 2 < p.size() ? p[at + 2] : '\0';
  if (t == ':' || t == '=' || t == '!') return Status::OK();
  if (t == '<') return JavaOnly("a named group or lookbehind (?<", at);
  if (t == '>') return JavaOnly("an atomic group (?>", at);
  return JavaOnly(std::string("an inline flag (?") + t, at);
}

// "{" at `at`: its counts are at most kMaxCount.
Status CheckCount(std::string_view p, size_t at) {
  unsigned value = 0;
  for (size_t i = at + 1; i < p.size() && p[i] != '}'; ++i) {
    if (p[i] == ',') {
      value = 0;
    } else if (std::isdigit(static_cast<unsigned char>(p[i]))) {
      value = value * 10 + static_cast<unsigned>(p[i] - '0');
      if (value > JavaRegex::kMaxCount) {
        return Status::InvalidArgument("regex: a count above " +
                                       std::to_string(JavaRegex::kMaxCount) +
                                       " at offset " + std::to_string(at));
      }
    }
  }
  return Status::OK();
}

// A class body from `at` (just after '['); sets *end to its ']'.
Status CheckClass(std::string_view p, size_t at, size_t* end) {
  size_t i = at;
  if (i < p.size() && p[i] == '^') ++i;
  if (i < p.size() && p[i] == ']') return JavaOnly("a ] first in a class", i);
  for (; i < p.size(); ++i) {
    if (p[i] == '\\') {
      BLOOMROUTE_RETURN_IF_ERROR(CheckEscape(p, i));
      ++i;
    } else if (p[i] == '[') {
      return JavaOnly("a class inside a class ([a[b]])", i);
    } else if (p[i] == '&' && i + 1 < p.size() && p[i + 1] == '&') {
      return JavaOnly("a class intersection (&&)", i);
    } else if (p[i] == ']') {
      *end = i;
      return Status::OK();
    }
  }
  *end = p.size();  // unterminated: std::regex says so
  return Status::OK();
}

// `.` outside classes becomes [\s\S]: ECMAScript's `.` stops at line
// terminators, DOTALL's does not. Run on a pattern CheckJavaRegexSubset
// accepted, so escapes and classes are well formed.
std::string WithDotAll(std::string_view p) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '\\' && i + 1 < p.size()) {
      out += p.substr(i, 2);
      ++i;
      continue;
    }
    if (in_class && p[i] == ']') in_class = false;
    if (!in_class && p[i] == '[') in_class = true;
    if (!in_class && p[i] == '.') {
      out += "[\\s\\S]";
    } else {
      out += p[i];
    }
  }
  return out;
}

}  // namespace

Status CheckJavaRegexSubset(std::string_view p) {
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    const char next = i + 1 < p.size() ? p[i + 1] : '\0';
    if (c == '\\') {
      BLOOMROUTE_RETURN_IF_ERROR(CheckEscape(p, i));
      ++i;
    } else if (c == '[') {
      BLOOMROUTE_RETURN_IF_ERROR(CheckClass(p, i + 1, &i));
    } else if (c == '(' && next == '?') {
      BLOOMROUTE_RETURN_IF_ERROR(CheckGroup(p, i));
    } else if (c == '{') {
      BLOOMROUTE_RETURN_IF_ERROR(CheckCount(p, i));
    } else if ((c == '*' || c == '+' || c == '?' || c == '}') && next == '+') {
      return JavaOnly(std::string("a possessive quantifier ") + c + "+", i);
    }
  }
  return Status::OK();
}

StatusOr<JavaRegex> JavaRegex::Compile(std::string_view pattern, bool dot_all) {
  if (pattern.size() > kMaxPatternBytes) {
    return Status::InvalidArgument(
        "regex: " + std::to_string(pattern.size()) + " bytes, over the " +
        std::to_string(kMaxPatternBytes) + " accepted");
  }
  BLOOMROUTE_RETURN_IF_ERROR(CheckJavaRegexSubset(pattern));
  auto flags = std::regex::ECMAScript;
#ifdef __GLIBCXX__
  // Thompson-style matching: time linear in the name times the pattern.
  flags |= std::regex_constants::__polynomial;
#endif
  try {
    const std::string text =
        dot_all ? WithDotAll(pattern) : std::string(pattern);
    return JavaRegex(std::regex(text.begin(), text.end(), flags));
  } catch (const std::regex_error& e) {
    return Status::InvalidArgument("regex '" + std::string(pattern) +
                                   "' does not compile: " + e.what());
  }
}

bool JavaRegex::Matches(const std::string& name) const {
  return std::regex_match(name, re_);
}

bool JavaRegex::Finds(std::string_view subject) const {
  return std::regex_search(subject.begin(), subject.end(), re_);
}

}  // namespace bloomroute
