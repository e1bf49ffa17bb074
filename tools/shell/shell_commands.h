// The commands of `bloomroute shell`, as HBase shell names and spells them
// (tools/shell/shell_parser.h gives the syntax):
//
//   general  help, exit, quit
//   ddl      create, list, describe, exists, is_enabled, disable, enable,
//            drop, truncate, truncate_preserve
//   dml      put, get, scan, delete, deleteall, count
//   index    lookup, index add|drop|status
//   admin    admin, accuracy (the rest of the line is `bloomroute admin` /
//            `bloomroute accuracy` arguments, the shell's connection added)
//
// Each command is a row of a table (Commands()): its name, group, usage
// lines, help and the function that runs it. Output goes to the context's
// streams as HBase shell prints it (a header, one line per cell, "N row(s)");
// a failed command returns its reason and prints nothing after what it
// printed.
//
// Thread-safety: a Context is used by one thread.
#ifndef BLOOMROUTE_TOOLS_SHELL_SHELL_COMMANDS_H_
#define BLOOMROUTE_TOOLS_SHELL_SHELL_COMMANDS_H_

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "thrift/router_client.h"
#include "tools/shell/shell_parser.h"

namespace bloomroute::shell {

struct Context {
  RouterClient& router;
  std::ostream& out;
  // The flags that reach the same router as `router` (--router, TLS,
  // token), for the commands that run a `bloomroute` subcommand.
  std::vector<std::string> connection_args;
  // When set and true, a statement reading rows in batches stops (Ctrl-C).
  std::function<bool()> interrupted;
  bool quit = false;            // set by exit / quit
  bool tables_changed = false;  // set by create, drop (completion reloads)
};

struct CommandSpec {
  using RunFn = Status (*)(Context&, const Statement&);
  const char* name;
  const char* group;  // "general", "ddl", "dml", "index", "admin"
  const char* usage;  // lines, each a complete example
  const char* help;   // a paragraph
  // The arguments are command-line words (SplitWords), not shell values.
  bool takes_words;
  RunFn run;
};

// Every command, in the order `help` lists them.
const std::vector<CommandSpec>& Commands();
// The command named `name`, or nullptr.
const CommandSpec* FindCommand(std::string_view name);

// Runs one statement (from SplitStatements). InvalidArgument for a syntax
// error, an unknown command ("unknown command 'x' (try help)") or bad
// arguments (naming the command's usage); the router's error otherwise.
Status RunStatement(Context& context, std::string_view statement);

// The commands of each group (shell_table_commands.cc,
// shell_row_commands.cc, shell_commands.cc).
void AddTableCommands(std::vector<CommandSpec>* out);
void AddRowCommands(std::vector<CommandSpec>* out);

}  // namespace bloomroute::shell

#endif  // BLOOMROUTE_TOOLS_SHELL_SHELL_COMMANDS_H_
