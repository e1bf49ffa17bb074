#include "tools/command.h"

#include <exception>
#include <iostream>

#include "thrift/thrift_logging.h"
#include "tools/config_file.h"

namespace bloomroute {
namespace po = boost::program_options;

namespace {

void AddConfigOptions(po::options_description* options, bool* print_config) {
  options->add_options()  //
      ("config", po::value<std::string>()->value_name("FILE"),
       "read settings from FILE: `name = value` lines, names as the flags "
       "without --; flags given here override it")  //
      ("print-config", po::bool_switch(print_config),
       "print the effective configuration in --config's format and exit");
}

}  // namespace

std::optional<int> Command::Parse(const std::vector<std::string>& args,
                                  OptionTable* table,
                                  po::options_description* options,
                                  bool* print_config) {
  options->add_options()("help,h", "show this help and exit");
  po::positional_options_description positional;
  po::variables_map vm;
  try {
    AddOptions(options);
    DeclareOptions(table);
    table->AddTo(options);
    AddPositional(&positional);
    if (ReadsConfigFile()) AddConfigOptions(options, print_config);
    po::store(po::command_line_parser(args)
                  .options(*options)
                  .positional(positional)
                  .run(),
              vm);
    if (vm.count("help")) {
      std::cout << "bloomroute " << name_ << ": " << summary_ << "\n\n"
                << *options;
      const std::string epilog = HelpEpilog();
      if (!epilog.empty()) std::cout << "\n" << epilog;
      return kExitOk;
    }
    if (vm.count("config")) {
      // After the command line: what it gave wins (po::store keeps the
      // first value stored).
      Status s = StoreConfigFile(vm["config"].as<std::string>(), *options,
                                 *table, &vm);
      if (!s.ok()) {
        std::cerr << "bloomroute " << name_ << ": " << s.message() << "\n";
        return kExitUsage;
      }
    }
    po::notify(vm);  // required options and value storage
  } catch (const std::exception& e) {
    std::cerr << "bloomroute " << name_ << ": " << e.what()
              << " (see bloomroute " << name_ << " --help)\n";
    return kExitUsage;
  }
  return std::nullopt;
}

int Command::ExecuteAndReport() {
  Status s;
  try {
    s = Execute();
  } catch (const std::exception& e) {
    // Core code returns Status; this only catches library exceptions such as
    // std::bad_alloc so that the process still exits with a reason.
    s = Status::IOError(e.what());
  }
  if (!s.ok()) {
    std::cerr << "bloomroute " << name_ << ": " << s.ToString() << "\n";
    return FailureExitCode();
  }
  return kExitOk;
}

int Command::Run(const std::vector<std::string>& args) {
  OptionTable table;
  po::options_description options("Options for bloomroute " + name_);
  bool print_config = false;
  if (std::optional<int> done = Parse(args, &table, &options, &print_config)) {
    return *done;
  }
  Status valid = table.Check();
  if (valid.ok()) valid = Validate();
  if (!valid.ok()) {
    std::cerr << "bloomroute " << name_ << ": " << valid.message()
              << " (see bloomroute " << name_ << " --help)\n";
    return kExitUsage;
  }
  if (!print_config) return ExecuteAndReport();
  Status printed = PrintConfig(name_, table, std::cout);
  if (!printed.ok()) {
    std::cerr << "bloomroute " << name_ << ": " << printed.message() << "\n";
    return kExitFailed;
  }
  return kExitOk;
}

namespace {

void PrintUsage(std::ostream& out,
                const std::vector<std::unique_ptr<Command>>& commands) {
  out << "usage: bloomroute COMMAND [OPTIONS]\n\n"
         "A secondary-index router for HBase-style tables.\n\ncommands:\n";
  for (const auto& c : commands) {
    out << "  " << c->name()
        << std::string(c->name().size() < 14 ? 14 - c->name().size() : 1, ' ')
        << c->summary() << "\n";
  }
  out << "\nRun `bloomroute COMMAND --help` for a command's options.\n";
}

}  // namespace

int RunBloomroute(int argc, char** argv) {
  // A command's error is its own one line: Thrift's messages (a refused
  // connection) are debug lines. Server commands route them as warnings.
  RouteThriftOutputToLog(ThriftOutput::kClient);
  std::vector<std::unique_ptr<Command>> commands = AllCommands();
  if (argc < 2) {
    PrintUsage(std::cerr, commands);
    return Command::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(std::cout, commands);
    return Command::kExitOk;
  }
  for (auto& c : commands) {
    if (c->name() == name) {
      return c->Run(std::vector<std::string>(argv + 2, argv + argc));
    }
  }
  std::cerr << "bloomroute: unknown command '" << name
            << "' (see bloomroute --help)\n";
  return Command::kExitUsage;
}

}  // namespace bloomroute
