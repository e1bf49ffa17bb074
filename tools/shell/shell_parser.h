// The syntax of `bloomroute shell`: HBase shell's (a Ruby method call per
// line) as far as its everyday commands use it.
//
//   put 't', 'r1', 'd:cc', 'NO'
//   scan 't', {FILTER => "ValueFilter(=, 'binary:NO')", LIMIT => 10}
//   lookup 't', 'd:cc' => 'NO', 'd:fc' => 'PPLA'
//   index add 't', 'd:x'
//
// A statement is a command name and its arguments, separated by commas:
//   'text'    bytes as written; only \' and \\ are escapes (Ruby's rule)
//   "text"    with \n \t \r \e \a \0 \\ \" \' and \xNN (one or two hex
//             digits) as escapes, any other \c is c
//   123, -5   a 64-bit integer
//   WORD      a bare word: an option name (LIMIT) or a subcommand (add); a
//             bare word may be followed by the next argument without a comma
//   [a, b]    a list
//   {K => V}  a hash; K => V pairs among the arguments gather into one hash
//             (Ruby's trailing hash), so `lookup 't', 'a' => 'b'` has two
//             arguments
// Statements are separated by ';' or by a line end outside brackets (a line
// ending in ',' or '=>' continues on the next); '#' outside quotes starts a
// comment that runs to the line's end.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_SHELL_SHELL_PARSER_H_
#define BLOOMROUTE_TOOLS_SHELL_SHELL_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/statusor.h"

namespace bloomroute::shell {

// A statement's text is at most this long: a script with an unterminated
// quote cannot make the shell hold its whole input.
inline constexpr size_t kMaxStatementBytes = 16 << 20;
// Lists and hashes nest at most this deep (the parser recurses).
inline constexpr int kMaxNesting = 32;

struct Value {
  enum class Kind { kString, kInteger, kWord, kList, kHash };
  Value() = default;
  explicit Value(Kind k, std::string t = {}) : kind(k), text(std::move(t)) {}

  Kind kind = Kind::kString;
  std::string text;          // kString: the bytes; kWord: the word
  int64_t integer = 0;       // kInteger
  std::vector<Value> items;  // kList
  std::vector<std::pair<Value, Value>> pairs;  // kHash, in the order given

  // As the user would write it again, for messages: 'a', 5, LIMIT, [..].
  std::string Describe() const;
  // "a string", "an integer", "a word", "a list", "a hash".
  const char* KindName() const;
};

struct Statement {
  std::string command;      // the first word
  std::vector<Value> args;  // in order
  std::string rest;         // the text after the command name, trimmed
};

// Splits the text read so far into statements (comments dropped, each
// trimmed, empty ones skipped). `incomplete` is set, and no statement
// returned, when the text ends inside a quote or a bracket or after ',' or
// '=>': the caller reads another line and splits the whole text again.
struct Split {
  std::vector<std::string> statements;
  bool incomplete = false;
};
Split SplitStatements(std::string_view text);

// Parses one statement from SplitStatements. InvalidArgument naming the
// position for a syntax error: "unterminated string", "expected ',' after
// 't'", an integer out of range, nesting deeper than kMaxNesting. Without
// `parse_arguments` only the command name and `rest` are filled (for the
// commands that take command-line words instead).
StatusOr<Statement> ParseStatement(std::string_view text,
                                   bool parse_arguments = true);

// Splits `text` into words as a POSIX shell would for the commands that
// take `bloomroute` command-line arguments (admin, accuracy): blanks
// separate, '...' is literal, "..." keeps \" and \\ escapes, \ escapes the
// next character outside quotes. InvalidArgument for an unterminated quote.
StatusOr<std::vector<std::string>> SplitWords(std::string_view text);

}  // namespace bloomroute::shell

#endif  // BLOOMROUTE_TOOLS_SHELL_SHELL_PARSER_H_
