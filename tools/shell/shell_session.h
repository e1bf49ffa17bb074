// Running `bloomroute shell`'s statements: from a string (-e), from a stream
// (a script file or standard input), or interactively with line editing,
// history and tab completion (libedit's readline interface).
//
// Scripts and -e stop at the first failing statement, as `hbase shell -n`
// does, returning its error with the statement as context
// ("get 'nope', 'x': table 'nope' does not exist"); the interactive shell
// prints "ERROR: <reason>" on the error stream and goes on, unless told to
// stop. Statements span lines as tools/shell/shell_parser.h says; one
// longer than kMaxStatementBytes is an error (and is skipped by the
// interactive shell). Ctrl-C in the interactive shell stops a statement
// reading rows at its next batch; at the prompt it ends the shell (the
// history is saved after each line).
//
// Thread-safety: one session per thread, and one interactive session per
// process (readline's state is global).
#ifndef BLOOMROUTE_TOOLS_SHELL_SHELL_SESSION_H_
#define BLOOMROUTE_TOOLS_SHELL_SHELL_SESSION_H_

#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"
#include "tools/shell/shell_commands.h"

namespace bloomroute::shell {

class Session {
 public:
  Session(Context& context, std::ostream& err) : context_(context), err_(err) {}
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Runs every statement of `text`. With `stop_on_error` the first
  // failure's status (with the statement as context), and InvalidArgument
  // for text ending inside a statement; without it OK, each failure printed.
  // A statement that quits ends the run (OK).
  Status RunText(std::string_view text, bool stop_on_error);
  // As RunText, reading `in` a line at a time.
  Status RunStream(std::istream& in, bool stop_on_error);
  // Prompts on the terminal until end of input (Ctrl-D), exit or quit; with
  // `stop_on_error` until the first failure, whose status is returned.
  // Keeps the history in `history_file` (none when empty); prints how long
  // each statement took, as HBase's shell does.
  Status RunInteractive(bool stop_on_error, const std::string& history_file);

 private:
  // Feeds `text` to the splitter and runs the statements it completes.
  Status Feed(std::string_view text, bool stop_on_error, bool timed);
  // The end of the input: runs a last statement, or fails on one left open.
  Status Finish(bool stop_on_error);
  // Runs the statements the splitter completed, in order.
  Status RunStatements(bool stop_on_error, bool timed);
  Status RunOne(std::string_view statement, bool timed);
  // "ERROR: <reason>" on err_.
  void Report(const Status& s);

  Context& context_;
  std::ostream& err_;
  StatementSplitter splitter_;
};

}  // namespace bloomroute::shell

#endif  // BLOOMROUTE_TOOLS_SHELL_SHELL_SESSION_H_
