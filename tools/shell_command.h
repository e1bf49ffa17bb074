// `bloomroute shell`: HBase shell's everyday commands over a router.
//
//   bloomroute shell [--router HOST:PORT] [-e STATEMENTS] [-n] [FILE]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] [--token-file FILE]
//
// On a terminal it prompts, with line editing, history (~/.bloomroute_history)
// and tab completion of command and table names. With -e it runs the
// statements given and exits; with FILE, or when standard input is not a
// terminal, it runs that script. tools/shell/shell_commands.h lists the
// commands, tools/shell/shell_parser.h the syntax.
//
// Exit codes: 0 every statement succeeded (the interactive shell: it ended
// normally); 1 a statement failed (-e and scripts stop at the first, as
// `hbase shell -n` does; with -n the interactive shell stops there too);
// 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_SHELL_COMMAND_H_
#define BLOOMROUTE_TOOLS_SHELL_COMMAND_H_

#include <string>
#include <vector>

#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class ShellCommand : public Command {
 public:
  ShellCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  RouterConnectionFlags connection_;
  std::vector<std::string> execute_;
  std::string script_;
  bool stop_on_error_ = false;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_SHELL_COMMAND_H_
