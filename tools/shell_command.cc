#include "tools/shell_command.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>

#include "tools/shell/shell_session.h"

namespace bloomroute {
namespace po = boost::program_options;

ShellCommand::ShellCommand()
    : Command("shell",
              "an HBase-style shell: create, put, get, scan, lookup, "
              "...") {}

void ShellCommand::AddOptions(po::options_description* o) {
  connection_.Add(o);
  o->add_options()  //
      ("execute,e", po::value<std::vector<std::string>>(&execute_),
       "run these statements (';' or newlines between them) and exit; "
       "repeatable")  //
      ("non-interactive,n", po::bool_switch(&stop_on_error_),
       "stop at the first failing statement with exit code 1 (always so "
       "for -e and scripts)")  //
      ("script", po::value<std::string>(&script_)->value_name("FILE"),
       "run the statements of this file and exit (also given as the only "
       "positional argument; default: standard input when it is not a "
       "terminal)");
}

void ShellCommand::AddPositional(po::positional_options_description* p) {
  p->add("script", 1);
}

Status ShellCommand::Validate() {
  if (!execute_.empty() && !script_.empty()) {
    return Status::InvalidArgument("give -e or a script file, not both");
  }
  return connection_.Validate();
}

Status ShellCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              connection_.Connect());
  shell::Context context{*router, std::cout, connection_.AsArgs(), nullptr};
  shell::Session session(context, std::cerr);
  // The first failing statement's error is the command's (Command::Run
  // prints it as the one-line reason).
  if (!execute_.empty()) {
    for (const std::string& text : execute_) {
      BLOOMROUTE_RETURN_IF_ERROR(session.RunText(text, true));
      if (context.quit) break;
    }
    return Status::OK();
  }
  if (!script_.empty()) {
    std::ifstream in(script_);
    if (!in) return Status::IOError("cannot read " + script_);
    return session.RunStream(in, true);
  }
  if (!isatty(STDIN_FILENO)) return session.RunStream(std::cin, true);
  const char* home = std::getenv("HOME");
  const std::string history = home != nullptr && home[0] != '\0'
                                  ? std::string(home) + "/.bloomroute_history"
                                  : "";
  std::cout << "bloomroute shell on " << router->address()
            << "; type help for the commands, exit or Ctrl-D to leave.\n";
  return session.RunInteractive(stop_on_error_, history);
}

std::string ShellCommand::HelpEpilog() const {
  return "Statements are HBase shell's, e.g.\n"
         "  create 'geo', 'd', {INDEX => ['d:cc', 'd:fc']}\n"
         "  put 'geo', 'oslo', 'd:cc', 'NO'\n"
         "  get 'geo', 'oslo'\n"
         "  scan 'geo', {FILTER => \"SingleColumnValueFilter('d', 'cc', =, "
         "'binary:NO')\", LIMIT => 10}\n"
         "  lookup 'geo', 'd:cc' => 'NO'\n"
         "Type help in the shell for every command, help 'scan' for one.\n"
         "On a terminal: line editing, history in ~/.bloomroute_history and\n"
         "tab completion of command and table names.\n";
}

}  // namespace bloomroute
