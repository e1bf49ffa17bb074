// `bloomroute cert`: makes and lists a cluster's certificates, keys and
// bearer tokens (tools/certs.h), in the style of `cockroach cert`:
//
//   bloomroute cert create-ca     --certs-dir DIR [--ca-key F] [--lifetime D]
//   bloomroute cert create-node   --certs-dir DIR --host H [--host H...] ...
//   bloomroute cert create-client --certs-dir DIR --user U --role R ...
//   bloomroute cert create-token  --certs-dir DIR --user U --role R
//   bloomroute cert list          --certs-dir DIR
//
// (create-* take [--ca-key F] [--lifetime DAYS] [--overwrite] where they
// apply.) A create action prints the paths it wrote, one per line, and never
// a key or a token: those only go to their files (keys and token files mode
// 0600). `list` prints one line per certificate: subject, role, hosts,
// not-after, EXPIRED when it is, and whether ca.crt signed it.
//
// Exit codes: 0 done; 1 failed (a file exists without --overwrite, the CA
// key does not match ca.crt, ...); 2 bad usage (unknown action, an option
// the action does not take, a bad user name, role, host or lifetime).
#ifndef BLOOMROUTE_TOOLS_CERT_COMMAND_H_
#define BLOOMROUTE_TOOLS_CERT_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tools/certs.h"
#include "tools/command.h"

namespace bloomroute {

class CertCommand : public Command {
 public:
  CertCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  Status ValidateOptionsOfAction() const;
  Status List() const;

  // As parsed.
  std::string action_;
  std::string certs_dir_;
  std::string ca_key_;
  int64_t lifetime_days_ = 0;
  bool lifetime_given_ = false;  // otherwise the action's default
  bool overwrite_ = false;
  std::vector<std::string> hosts_;
  std::string user_;
  std::string role_name_;
  std::string cert_file_;           // revoke --cert
  std::string kind_name_ = "node";  // create-node --kind
  Role kind_ = Role::kNode;

  // Filled by Validate().
  CertOptions options_;
  Role role_ = Role::kNone;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CERT_COMMAND_H_
