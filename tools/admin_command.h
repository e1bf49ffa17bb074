// `bloomroute admin`: the cluster's shape, through the router.
//
//   bloomroute admin servers [--format table|json]
//   bloomroute admin regions --table T [--format table|json]
//   bloomroute admin add-server HOST:PORT [--format table|json]
//   bloomroute admin set-address --server ID HOST:PORT
//   bloomroute admin remove-server --server ID
//       [--router HOST:PORT]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--token-file FILE]]
//
// servers lists every region server the router knows with its regions,
// rows and bytes (router::Router::ListServers); regions lists a table's
// regions in key order with their server, state, rows and bytes
// (router::Router::ListRegions). Rows are exact (each server counts its
// regions' rows when asked: about as slow as reading them); bytes are
// RocksDB's approximation. Formats: tools/admin_format.h. add-server,
// set-address and remove-server change the membership (router::Router::
// AddServer, SetServerAddress, RemoveServer). All need the admin role on a
// secured router.
//
// Subcommands are rows of a table (AdminCommand::kSubcommands): a name,
// a summary, what it needs (--table, --server, a HOST:PORT), and the
// member that runs it. Operations on regions (split, move...) are new rows.
//
// Exit codes: 0 done; 1 the router refused or failed (the reason on
// stderr); 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_
#define BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_

#include <memory>
#include <string>

#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class RouterClient;

class AdminCommand : public Command {
 public:
  AdminCommand();
  ~AdminCommand() override;

  // One admin subcommand.
  struct Subcommand {
    const char* name;
    const char* summary;
    bool needs_table;    // --table T
    bool needs_server;   // --server ID
    bool needs_address;  // HOST:PORT, the second positional argument
    Status (AdminCommand::*run)();
  };

 protected:
  std::string HelpEpilog() const override;
  void AddOptions(boost::program_options::options_description* o) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;

 private:
  Status RunServers();
  Status RunRegions();
  Status RunAddServer();
  Status RunSetAddress();
  Status RunRemoveServer();
  // --table, --server and HOST:PORT as the subcommand needs them.
  Status ValidateArguments() const;

  static constexpr size_t kSubcommandCount = 5;
  static const Subcommand kSubcommands[kSubcommandCount];

  RouterConnectionFlags connection_;
  std::string subcommand_name_;
  std::string table_;
  int64_t server_ = 0;   // --server; 0: not given
  std::string address_;  // HOST:PORT
  std::string format_ = "table";
  const Subcommand* subcommand_ = nullptr;  // set by Validate
  std::unique_ptr<RouterClient> client_;    // set by Validate
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_
