// `bloomroute verify`: index scrutiny of one table through the router.
//
//   bloomroute verify --router HOST:PORT --table T
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--token-file FILE]]
//
// Every region server holding regions of the table recomputes, from its rows,
// the local index entries, the per-server value counts and its filter, and
// the router compares its replica of each server's filter with the server's
// (router::Router::VerifyIndex). Printed, per server and in total:
//   valid    index entries a row implies and that exist
//   missing  index entries a row implies that do not exist
//   extra    index entries no row implies
//   invalid  values counted wrong, plus values whose element is not in the
//            server's filter at the stage recorded with the value
//   filter   whether the filter equals a rebuild from the value records
//            (server-wide: every table shares it), and whether the router's
//            replica equals it ("not current" is not an error: the replica
//            is catching up and lookups ask that server meanwhile)
// followed by the first problems each server named.
//
// Exit codes: 0 when everything agrees; 1 when the index disagrees with the
// rows on a server that completed its check (also when others could not be
// checked); 3 when nothing disagrees but the table could not be verified: a
// server did not complete its check (down, timed out: the router waits
// --long-call-timeout for each) or the router call failed (unknown table,
// router unreachable); 2 bad usage. The reason is on stderr.
#ifndef BLOOMROUTE_TOOLS_VERIFY_COMMAND_H_
#define BLOOMROUTE_TOOLS_VERIFY_COMMAND_H_

#include <memory>
#include <string>

#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class RouterClient;

class VerifyCommand : public Command {
 public:
  static constexpr int kExitNotVerified = 3;

  VerifyCommand();
  ~VerifyCommand() override;

 protected:
  std::string HelpEpilog() const override;
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Execute() override;
  int FailureExitCode() const override;

 private:
  RouterConnectionFlags connection_;
  std::string table_;
  std::unique_ptr<RouterClient> client_;  // set by Validate
  bool disagrees_ = false;                // set by Execute
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_VERIFY_COMMAND_H_
