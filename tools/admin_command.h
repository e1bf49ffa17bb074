// `bloomroute admin`: the cluster's shape, through the router.
//
//   bloomroute admin servers [--format table|json]
//   bloomroute admin regions --table T [--format table|json]
//   bloomroute admin add-server HOST:PORT [--format table|json]
//   bloomroute admin set-address --server ID HOST:PORT
//   bloomroute admin remove-server --server ID
//   bloomroute admin decommission SERVER          (or --server ID)
//   bloomroute admin move --region ID --to SERVER
//   bloomroute admin split (--region ID | --table T) [--row KEY]
//   bloomroute admin merge --region ID --region ID
//   bloomroute admin balance [--max-operations N]
//   bloomroute admin quota set --user U [--table T] [--requests RATE]
//       [--bytes RATE]
//   bloomroute admin quota remove --user U [--table T]
//   bloomroute admin quota list [--user U] [--table T]
//       [--router HOST:PORT] [--format table|json] [--timeout SECONDS]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--token-file FILE]]
//
// servers lists every region server the router knows with its regions,
// rows and bytes (router::Router::ListServers); regions lists a table's
// regions in key order with their server, state, rows and bytes
// (router::Router::ListRegions). Rows are exact (each server counts its
// regions' rows when asked: about as slow as reading them); bytes are
// RocksDB's approximation. add-server, set-address and remove-server change
// the membership (router::Router::AddServer, SetServerAddress,
// RemoveServer); decommission moves a member's regions away, then removes
// it (DecommissionServer). move, split and merge are the region operations
// (MoveRegion, SplitRegion, MergeRegions); balance runs the balancer once
// (Balance). SERVER is a member's id or its HOST:PORT. split --table splits
// every region of the table at its median key, or the one holding --row at
// that row, as HBase's shell `split 'table'` does. quota sets, removes and
// lists the router's per-principal quotas (router/quota.h; Router::SetQuota
// and Quotas), as HBase's shell `set_quota TYPE => THROTTLE` and
// `list_quotas`: RATE is "1000req/sec", "50M/sec", "10K/min" or "none"
// (tools/admin_format.h). Formats:
// tools/admin_format.h. All need the admin role on a secured router.
//
// Subcommands are rows of a table (AdminCommand::kSubcommands): a name,
// its arguments, a summary, which options it takes and needs, and the
// member that runs it.
//
// Exit codes: 0 done; 1 the router refused or failed (the reason on
// stderr; for balance, an operation that failed); 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_
#define BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "router/router.h"
#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class RouterClient;

class AdminCommand : public Command {
 public:
  AdminCommand();
  ~AdminCommand() override;

  // The options a subcommand may be given (a bit each).
  enum Arg : unsigned {
    kTable = 1,    // --table T
    kServer = 2,   // --server ID
    kAddress = 4,  // HOST:PORT (or SERVER), the second positional
    kRegion = 8,   // --region ID (merge: twice)
    kTo = 16,      // --to SERVER
    kRow = 32,     // --row KEY
    kMaxOps = 64,  // --max-operations N
    kUser = 128,   // --user U
    kRates = 256,  // --requests RATE, --bytes RATE
  };

  // One admin subcommand.
  struct Subcommand {
    const char* name;
    const char* usage;  // its arguments, for the help
    const char* summary;
    unsigned takes;  // Arg bits it accepts
    unsigned needs;  // of those, the ones it requires
    // Runs a region operation: waits up to --timeout for the router.
    bool long_running;
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
  Status RunRouters();
  Status RunRegions();
  Status RunAddServer();
  Status RunSetAddress();
  Status RunRemoveServer();
  Status RunDecommission();
  Status RunMove();
  Status RunSplit();
  Status RunMerge();
  Status RunBalance();
  Status RunQuota();
  // The options as the subcommand takes and needs them; then their values
  // (ValidateValues, told which were given: Arg bits).
  Status ValidateArguments() const;
  Status ValidateValues(unsigned given) const;
  // quota: the action and, for set and remove, quota_.
  Status ValidateQuota();
  // SERVER: a member's id, or the member at HOST:PORT (asked of the
  // router). InvalidArgument for neither.
  StatusOr<router::ServerId> ResolveServer(const std::string& server);
  // Prints one operation's result.
  void PrintOp(const std::string& kind, const std::vector<uint64_t>& from,
               const router::RegionOpResult& result) const;

  static constexpr size_t kSubcommandCount = 12;
  static const Subcommand kSubcommands[kSubcommandCount];

  RouterConnectionFlags connection_;
  std::string subcommand_name_;
  std::string table_;
  int64_t server_ = 0;            // --server; 0: not given
  std::string address_;           // HOST:PORT, or SERVER for decommission
  std::vector<int64_t> regions_;  // --region
  std::string to_;                // --to
  std::string row_;               // --row; row keys are never empty
  int64_t max_operations_ = -1;   // -1: not given
  std::string action_;            // quota: set, remove or list
  std::string user_;              // --user
  std::string requests_;          // --requests RATE
  std::string bytes_;             // --bytes RATE
  router::Quota quota_;           // quota set / remove, parsed by Validate
  int64_t timeout_seconds_ = 0;
  std::string format_ = "table";
  const Subcommand* subcommand_ = nullptr;  // set by Validate
  std::unique_ptr<RouterClient> client_;    // set by Validate
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ADMIN_COMMAND_H_
