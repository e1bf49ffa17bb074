#include "tools/shell/shell_commands.h"

#include <iostream>
#include <memory>

#include "tools/accuracy_command.h"
#include "tools/admin_command.h"
#include "tools/client_command_util.h"
#include "tools/index_command.h"
#include "tools/shell/shell_args.h"

namespace bloomroute::shell {
namespace {

constexpr char kIndexUsage[] =
    "index add 't', 'd:x'  |  index drop 't', 'd:x'  |  index status 't'";

// Runs a `bloomroute` subcommand with `args` and the shell's connection;
// its output goes to the process's stdout and stderr as the command's own.
Status RunSubcommand(Context& c, Command& command,
                     std::vector<std::string> args) {
  args.insert(args.end(), c.connection_args.begin(), c.connection_args.end());
  c.out.flush();
  const int code = command.Run(args);
  if (code == Command::kExitOk) return Status::OK();
  // The command printed its reason.
  return Status::IOError(command.name() + " failed (exit code " +
                         std::to_string(code) + ")");
}

Status WordsCommand(Context& c, const Statement& s, Command& command) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> words,
                              SplitWords(s.rest));
  return RunSubcommand(c, command, std::move(words));
}

Status Admin(Context& c, const Statement& s) {
  AdminCommand command;
  return WordsCommand(c, s, command);
}

Status Accuracy(Context& c, const Statement& s) {
  AccuracyCommand command;
  return WordsCommand(c, s, command);
}

Status Index(Context& c, const Statement& s) {
  Args args(s, "index", kIndexUsage);
  if (args.size() < 2 || args.at(0).kind != Value::Kind::kWord) {
    return args.Error("name what to do: add, drop or status");
  }
  const std::string& what = args.at(0).text;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(1, "table name"));
  // --table=T: a table name may start with '-'.
  std::vector<std::string> words = {what, "--table=" + table};
  if (what == "add" || what == "drop") {
    BLOOMROUTE_RETURN_IF_ERROR(args.Count(3, 3));
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string column, args.String(2, "column"));
    BLOOMROUTE_ASSIGN_OR_RETURN(column, ShellColumn(column));
    words.push_back("--column=" + column);
  } else if (what == "status") {
    BLOOMROUTE_RETURN_IF_ERROR(args.Count(2, 2));
  } else {
    return args.Error("unknown action " + args.at(0).Describe() +
                      " (add, drop or status)");
  }
  IndexCommand command;
  return RunSubcommand(c, command, std::move(words));
}

void PrintGroups(std::ostream& out) {
  out << "bloomroute shell: HBase shell's everyday commands over a bloomroute "
         "router.\n\n";
  const char* groups[] = {"general", "ddl", "dml", "index", "admin"};
  for (const char* group : groups) {
    out << "  " << group << ":";
    bool first = true;
    for (const CommandSpec& spec : Commands()) {
      if (std::string_view(spec.group) != group) continue;
      out << (first ? " " : ", ") << spec.name;
      first = false;
    }
    out << "\n";
  }
  out << "\nStrings are quoted ('d:cc' or \"a\\x00b\"); options are "
         "{NAME => value}.\nType help 'COMMAND' for a command's usage, e.g. "
         "help 'scan'.\n";
}

Status Help(Context& c, const Statement& s) {
  Args args(s, "help", "help [ 'command' ]");
  BLOOMROUTE_RETURN_IF_ERROR(args.Count(0, 1));
  if (args.size() == 0) {
    PrintGroups(c.out);
    return Status::OK();
  }
  const std::string name = args.at(0).text;  // 'scan' or scan
  const CommandSpec* spec = FindCommand(name);
  if (spec == nullptr) {
    return Status::InvalidArgument("unknown command " + args.at(0).Describe() +
                                   " (type help for the list)");
  }
  c.out << "usage: " << spec->usage << "\n\n" << spec->help << "\n";
  return Status::OK();
}

Status Quit(Context& c, const Statement&) {
  c.quit = true;
  return Status::OK();
}

std::vector<CommandSpec> MakeCommands() {
  std::vector<CommandSpec> out = {
      {"help", "general", "help [ 'command' ]",
       "Lists the commands, or shows one command's usage.", false, Help},
      {"exit", "general", "exit", "Leaves the shell.", false, Quit},
      {"quit", "general", "quit", "Leaves the shell.", false, Quit},
  };
  AddTableCommands(&out);
  AddRowCommands(&out);
  out.push_back({"index", "index", kIndexUsage,
                 "Adds an index to a table that holds rows (backfilled "
                 "online; the command waits until it is ready), drops one, "
                 "or shows each index's state (bloomroute index).",
                 false, Index});
  out.push_back({"admin", "admin", "admin servers  |  admin regions --table t",
                 "Runs `bloomroute admin` with the rest of the line as its "
                 "arguments (words as a POSIX shell splits them) on the "
                 "shell's router: servers, regions, move, split, merge, "
                 "balance, quota ... (admin --help lists them).",
                 true, Admin});
  out.push_back({"accuracy", "admin", "accuracy --table t [--out DIR]",
                 "Runs `bloomroute accuracy` with the rest of the line as its "
                 "arguments on the shell's router: how well the filters "
                 "route lookups of a table.",
                 true, Accuracy});
  return out;
}

}  // namespace

const std::vector<CommandSpec>& Commands() {
  static const std::vector<CommandSpec>* commands =
      new std::vector<CommandSpec>(MakeCommands());
  return *commands;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& spec : Commands()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

Status RunStatement(Context& context, std::string_view text) {
  BLOOMROUTE_ASSIGN_OR_RETURN(Statement head,
                              ParseStatement(text, /*parse_arguments=*/false));
  const CommandSpec* spec = FindCommand(head.command);
  if (spec == nullptr) {
    return Status::InvalidArgument("unknown command '" + head.command +
                                   "' (type help for the list)");
  }
  if (spec->takes_words) return spec->run(context, head);
  BLOOMROUTE_ASSIGN_OR_RETURN(Statement statement, ParseStatement(text));
  Status status = spec->run(context, statement);
  // Every command that names a table names it first.
  if (!status.ok() && !statement.args.empty() &&
      statement.args[0].kind == Value::Kind::kString) {
    status = ExplainTableNotFound(context.router, statement.args[0].text,
                                  std::move(status));
  }
  return status;
}

}  // namespace bloomroute::shell
