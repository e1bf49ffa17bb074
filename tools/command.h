// The `bloomroute` command line: one binary, one class per subcommand.
//
// Modelled on RocksDB's ldb tool (tools/ldb_cmd_impl.h): main() only picks the
// subcommand by name and hands it the remaining arguments. Each subcommand
// declares its options in an OptionTable (tools/option_table.h: name, typed
// field, default, bounds, help), or directly with Boost.Program_options, and
// implements Execute(); the base class parses, checks the table's bounds,
// answers --help, and turns a failed Status or a parse error into a one-line
// reason on stderr and a non-zero exit code.
//
// Exit codes: 0 success, 1 the command failed, 2 bad usage (unknown option,
// missing or invalid argument).
//
// Example:
//   class EchoCommand : public Command {
//    public:
//     EchoCommand() : Command("echo", "print a word") {}
//    protected:
//     void DeclareOptions(OptionTable* table) override {
//       table->String("word", &word_, "the word to print").Required();
//     }
//     Status Execute() override { std::cout << word_ << "\n"; return OK(); }
//    private:
//     std::string word_;
//   };
#ifndef BLOOMROUTE_TOOLS_COMMAND_H_
#define BLOOMROUTE_TOOLS_COMMAND_H_

#include <boost/program_options.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/option_table.h"

namespace bloomroute {

class Command {
 public:
  static constexpr int kExitOk = 0;
  static constexpr int kExitFailed = 1;
  static constexpr int kExitUsage = 2;

  Command(std::string name, std::string summary)
      : name_(std::move(name)), summary_(std::move(summary)) {}
  virtual ~Command() = default;
  Command(const Command&) = delete;
  Command& operator=(const Command&) = delete;

  const std::string& name() const { return name_; }
  // One line, shown by `bloomroute --help`.
  const std::string& summary() const { return summary_; }

  // Parses `args` (the arguments after the subcommand name), then runs the
  // command. Returns the process exit code; never throws.
  int Run(const std::vector<std::string>& args);

 protected:
  // Declares the command's options in Boost.Program_options' terms (before
  // the table's in --help). --help is added by the base class.
  virtual void AddOptions(
      boost::program_options::options_description* /*options*/) {}
  // Declares the command's options as rows of `table`: their --help text,
  // bounds (checked before Validate, which sees the targets set) and, for a
  // command that ReadsConfigFile, its config file's keys. A command that
  // reads a config file declares every option here.
  virtual void DeclareOptions(OptionTable* /*table*/) {}
  // Positional arguments, if the command takes any (default: none).
  virtual void AddPositional(
      boost::program_options::positional_options_description* /*positional*/) {}
  // Called after parsing and the table's checks; InvalidArgument here is
  // reported as bad usage.
  virtual Status Validate() { return Status::OK(); }
  // Does the work. A non-OK status is printed as the one-line reason.
  virtual Status Execute() = 0;
  // The exit code for a failed Execute (default kExitFailed); a command
  // whose failures mean different things to a script overrides it.
  virtual int FailureExitCode() const { return kExitFailed; }
  // Extra text printed after the option list by --help.
  virtual std::string HelpEpilog() const { return ""; }
  // Whether the command takes --config FILE and --print-config
  // (tools/config_file.h): the commands that run servers.
  virtual bool ReadsConfigFile() const { return false; }

 private:
  // Declares the options into `table` and `options`, parses `args` (and a
  // --config file) and stores the values. An exit code when the run ends
  // here (--help, bad usage), nullopt to go on.
  std::optional<int> Parse(const std::vector<std::string>& args,
                           OptionTable* table,
                           boost::program_options::options_description* options,
                           bool* print_config);
  // Execute(), its failure (or an exception) reported on stderr.
  int ExecuteAndReport();

  const std::string name_;
  const std::string summary_;
};

// Every subcommand, in the order `bloomroute --help` lists them.
std::vector<std::unique_ptr<Command>> AllCommands();

// The whole command line: argv[1] names the subcommand. Returns the exit code.
int RunBloomroute(int argc, char** argv);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_COMMAND_H_
