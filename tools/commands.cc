// The list of subcommands. Adding one: write its class in its own file and
// append it here.
#include <iostream>

#include "tools/accuracy_command.h"
#include "tools/admin_command.h"
#include "tools/bench_command.h"
#include "tools/cert_command.h"
#include "tools/command.h"
#include "tools/import_command.h"
#include "tools/index_command.h"
#include "tools/lab_command.h"
#include "tools/local_command.h"
#include "tools/members_command.h"
#include "tools/migrate_command.h"
#include "tools/mutate_commands.h"
#include "tools/regionserver_command.h"
#include "tools/router_command.h"
#include "tools/row_commands.h"
#include "tools/shell_command.h"
#include "tools/verify_command.h"

namespace bloomroute {
namespace {

class VersionCommand : public Command {
 public:
  VersionCommand() : Command("version", "print the bloomroute version") {}

 protected:
  void AddOptions(boost::program_options::options_description*) override {}
  Status Execute() override {
    std::cout << "bloomroute " << BLOOMROUTE_VERSION << "\n";
    return Status::OK();
  }
};

}  // namespace

std::vector<std::unique_ptr<Command>> AllCommands() {
  std::vector<std::unique_ptr<Command>> commands;
  // Servers, then the tools users run against them, then the lab.
  commands.push_back(std::make_unique<LocalCommand>());
  commands.push_back(std::make_unique<RouterCommand>());
  commands.push_back(std::make_unique<RegionServerCommand>());
  commands.push_back(std::make_unique<ShellCommand>());
  commands.push_back(std::make_unique<ImportCommand>());
  commands.push_back(std::make_unique<QueryCommand>());
  commands.push_back(std::make_unique<GetCommand>());
  commands.push_back(std::make_unique<ScanCommand>());
  commands.push_back(std::make_unique<PutCommand>());
  commands.push_back(std::make_unique<DeleteCommand>());
  commands.push_back(std::make_unique<AccuracyCommand>());
  commands.push_back(std::make_unique<BenchCommand>());
  commands.push_back(std::make_unique<VerifyCommand>());
  commands.push_back(std::make_unique<IndexCommand>());
  commands.push_back(std::make_unique<AdminCommand>());
  commands.push_back(std::make_unique<CertCommand>());
  commands.push_back(std::make_unique<MigrateCommand>());
  commands.push_back(std::make_unique<MembersCommand>());
  commands.push_back(MakeLabCommand());
  commands.push_back(std::make_unique<VersionCommand>());
  return commands;
}

}  // namespace bloomroute
