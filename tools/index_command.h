// `bloomroute index`: the index lifecycle of a table, through the router.
//
//   bloomroute index add    --table T --column NAME [--no-wait]
//   bloomroute index drop   --table T --column NAME [--no-wait]
//   bloomroute index status --table T [--format text|json]
//       [--router HOST:PORT] [--family F] [--poll-ms N]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--token-file FILE]]
//
// add declares NAME (qualified with --family as the row commands do)
// indexed on a table that may hold rows; the router backfills it online
// (router::Router::AddIndex). The command then waits until the index is
// ready, drawing its progress on stderr (a bar on a terminal, a line every
// few seconds otherwise), unless --no-wait. drop removes the index and,
// unless --no-wait, waits until its entries are gone. status prints every
// index of the table with its state and progress.
//
// Exit codes: 0 done; 1 the router refused or failed (the reason on
// stderr); 2 bad usage.
//
// Usage of the parts, for tests:
//   std::string line = FormatIndexProgress(state);  // one line, no '\r'
//   Status done = WaitForIndex(client, "cities", "d:cc", wait, &std::cerr);
#ifndef BLOOMROUTE_TOOLS_INDEX_COMMAND_H_
#define BLOOMROUTE_TOOLS_INDEX_COMMAND_H_

#include <chrono>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "router/router.h"
#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class RouterClient;

// "d:cc building: 3 of 8 regions, 12,345 entries added [#####-----]", or
// "... ready", "... dropping: 2 of 8 regions, 120 entries removed".
std::string FormatIndexProgress(const router::IndexState& state);
// The status table (one line per index, a header first), or JSON:
// {"table":"T","indexes":[{"column":..,"column_id":..,"state":..,
//  "regions_done":..,"regions_total":..,"rows":..}]}.
std::string FormatIndexStatusText(const std::string& table,
                                  const std::vector<router::IndexState>& s);
std::string FormatIndexStatusJson(const std::string& table,
                                  const std::vector<router::IndexState>& s);

struct IndexWait {
  enum class Until { kReady, kGone };
  Until until = Until::kReady;
  int poll_ms = 500;
  bool terminal = false;  // redraw one line; else a line every few seconds
  // Between polls (tests pass one that does not sleep).
  std::function<void(std::chrono::milliseconds)> sleep;
};

// Polls client.IndexStatus(table) until `column` is ready (or, kGone, is no
// longer listed), drawing progress on `progress` (may be null). The
// router's error for a failed poll; NotFound when waiting for ready and
// the column is not listed (it was dropped meanwhile).
Status WaitForIndex(RouterClient& client, const std::string& table,
                    const std::string& column, const IndexWait& wait,
                    std::ostream* progress);

class IndexCommand : public Command {
 public:
  IndexCommand();
  ~IndexCommand() override;

 protected:
  std::string HelpEpilog() const override;
  void AddOptions(boost::program_options::options_description* o) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;

 private:
  ClientFlags flags_;
  std::string action_;
  std::string column_;  // qualified by Validate
  std::string format_ = "text";
  bool no_wait_ = false;
  int poll_ms_ = 500;
  std::unique_ptr<RouterClient> client_;  // set by Validate
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_INDEX_COMMAND_H_
