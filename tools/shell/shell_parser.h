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
//   "text"    with Ruby's escapes: \n \t \r \e \a \b \s \v \f, octal \NNN
//             (one to three digits), \xNN (one or two hex digits), \uNNNN
//             and \u{N...} (UTF-8); any other \c is c
//   123, -5   a 64-bit integer
//   WORD      a bare word: an option name (LIMIT) or a subcommand (add); a
//             bare word may be followed by the next argument without a comma
//   [a, b]    a list
//   {K => V}  a hash; K => V pairs among the arguments gather into one hash
//             (Ruby's trailing hash), so `lookup 't', 'a' => 'b'` has two
//             arguments
// Statements are separated by ';' or by a line end outside brackets (a line
// ending in ',' or '=>' continues on the next); '#' outside quotes starts a
// comment that runs to the line's end. Parentheses are not HBase's
// put('t', ...) call form: write put 't', ...
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
// Lists and hashes nest at most this deep, the outermost counting 1 (the
// parser recurses).
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

// Splits input, fed in pieces of any size, into statements (comments
// dropped, each trimmed, empty ones skipped), in constant time per byte.
//
//   StatementSplitter splitter;
//   Status s = splitter.Feed(chunk);   // as often as input comes
//   for (std::string& statement : splitter.Take()) Run(statement);
//   ...
//   s = splitter.Finish();             // at the end of the input
class StatementSplitter {
 public:
  // Reads `text`; the statements it completes are queued for Take().
  // InvalidArgument when the statement being read passes
  // kMaxStatementBytes: that statement is dropped and the splitter starts
  // afresh after it (with the rest of `text` also dropped).
  Status Feed(std::string_view text);
  // The statements completed so far, in order; empties the queue.
  std::vector<std::string> Take();
  // Whether the text fed so far ends inside a statement: in a quote or a
  // bracket, or after ',' or '=>' (a prompt asks for more).
  bool incomplete() const;
  // The end of the input: queues a last statement not ended by a line end.
  // InvalidArgument when the input ends inside a statement (which is
  // dropped). The splitter is then empty and may be fed again.
  Status Finish();

 private:
  void Flush();
  void Reset();

  std::string current_;
  int depth_ = 0;         // open brackets outside quotes, never below 0
  char quote_ = 0;        // the open quote, or 0
  bool escaped_ = false;  // a backslash in a quote
  bool comment_ = false;  // after '#', to the line's end
  char last_ = 0;         // the last two bytes of current_ that are not
  char before_last_ = 0;  // blank (both 0 when there are none)
  std::vector<std::string> done_;
};

// All of `text` as one input: the statements, or none with `incomplete` set
// when it ends inside a statement.
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
