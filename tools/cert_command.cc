#include "tools/cert_command.h"

#include <ctime>
#include <iostream>

#include "tools/server_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

constexpr int64_t kMaxLifetimeDays = 100 * 366;

const char* const kActions[] = {"create-ca",    "create-node", "create-client",
                                "create-token", "revoke",      "list"};

std::string FormatTime(CertClock::time_point t) {
  const std::time_t seconds = CertClock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&seconds, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

void PrintCertInfo(const CertInfo& info, std::ostream& out) {
  out << info.file << ": ";
  if (!info.error.empty()) {
    out << "cannot read: " << info.error << "\n";
    return;
  }
  out << info.subject;
  if (!info.role.empty()) out << "; role " << info.role;
  for (size_t i = 0; i < info.hosts.size(); ++i) {
    out << (i == 0 ? "; hosts " : ", ") << info.hosts[i];
  }
  out << (info.expired ? "; EXPIRED " : "; not after ")
      << FormatTime(info.not_after)
      << (info.signed_by_ca ? "" : "; NOT signed by ca.crt") << "\n";
}

Status PrintWritten(const StatusOr<std::vector<std::string>>& written) {
  if (!written.ok()) return written.status();
  for (const std::string& path : *written)
    std::cout << "wrote " << path << "\n";
  return Status::OK();
}

}  // namespace

CertCommand::CertCommand()
    : Command("cert",
              "make the cluster's CA, node and client certificates and "
              "tokens; list them") {}

void CertCommand::AddOptions(po::options_description* o) {
  o->add_options()  //
      ("action", po::value<std::string>(&action_),
       "create-ca, create-node, create-client, create-token, revoke or list "
       "(positional)")  //
      ("certs-dir", po::value<std::string>(&certs_dir_)->required(),
       "directory of the certificates (created, mode 0700, when missing)")  //
      ("ca-key", po::value<std::string>(&ca_key_),
       "the CA's key file (default: CERTS-DIR/ca.key); keep it elsewhere to "
       "keep it off the servers")  //
      ("lifetime", po::value<int64_t>()->notifier([this](int64_t days) {
        lifetime_days_ = days;
        lifetime_given_ = true;
      }),
       "days the certificate is valid, in [1, 36600] (default: 3660 for "
       "create-ca, 1830 for create-node and create-client)")  //
      ("overwrite", po::bool_switch(&overwrite_),
       "replace files that exist (atomically); without it they are never "
       "touched")  //
      ("host", po::value<std::vector<std::string>>(&hosts_)->composing(),
       "create-node: an IP address or DNS name the node is reached by; "
       "repeat for each")  //
      ("kind", po::value<std::string>(&kind_name_)->default_value("node"),
       "create-node: router (router.crt), regionserver (regionserver.crt), "
       "or node (node.crt, one certificate for both, as before); region "
       "servers serve router and node certificates only")  //
      ("user", po::value<std::string>(&user_),
       "create-client, create-token: the user (the certificate's CN; "
       "[A-Za-z0-9._-], at most 64 bytes); revoke: revoke client.USER.crt")  //
      ("cert", po::value<std::string>(&cert_file_)->value_name("FILE"),
       "revoke: the certificate to revoke (a path, or a name in "
       "--certs-dir such as node.crt)")  //
      ("role", po::value<std::string>(&role_name_),
       "create-client, create-token: read, write or admin");
}

void CertCommand::AddPositional(po::positional_options_description* p) {
  p->add("action", 1);
}

Status CertCommand::ValidateOptionsOfAction() const {
  const bool takes_ca = action_ != "create-token" && action_ != "list";
  const bool takes_user =
      action_ == "create-client" || action_ == "create-token";
  const bool revoke = action_ == "revoke";
  const std::string of = " is not an option of " + action_;
  if (revoke) {
    if (!role_name_.empty()) return Status::InvalidArgument("--role" + of);
    if (overwrite_) {
      return Status::InvalidArgument("--overwrite" + of +
                                     " (the list is always replaced)");
    }
    if (!hosts_.empty()) return Status::InvalidArgument("--host" + of);
    if (user_.empty() == cert_file_.empty()) {
      return Status::InvalidArgument("revoke needs --user or --cert (one)");
    }
    return Status::OK();
  }
  if (!cert_file_.empty()) return Status::InvalidArgument("--cert" + of);
  if (kind_name_ != "node" && action_ != "create-node") {
    return Status::InvalidArgument("--kind" + of);
  }
  if (!hosts_.empty() && action_ != "create-node")
    return Status::InvalidArgument("--host" + of);
  if (!takes_user && !user_.empty())
    return Status::InvalidArgument("--user" + of);
  if (!takes_user && !role_name_.empty())
    return Status::InvalidArgument("--role" + of);
  if (!takes_ca && !ca_key_.empty())
    return Status::InvalidArgument("--ca-key" + of);
  if (!takes_ca && lifetime_given_)
    return Status::InvalidArgument("--lifetime" + of);
  if (action_ == "list" && overwrite_)
    return Status::InvalidArgument("--overwrite" + of);
  if (action_ == "create-node" && hosts_.empty())
    return Status::InvalidArgument("create-node needs at least one --host");
  if (takes_user && (user_.empty() || role_name_.empty()))
    return Status::InvalidArgument(action_ + " needs --user and --role");
  return Status::OK();
}

Status CertCommand::Validate() {
  bool known = false;
  for (const char* action : kActions) known = known || action_ == action;
  if (!known) {
    return Status::InvalidArgument(
        (action_.empty() ? std::string("no action")
                         : "unknown action '" + action_ + "'") +
        " (create-ca, create-node, create-client, create-token, revoke, "
        "list)");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateOptionsOfAction());
  for (const std::string& host : hosts_) {
    BLOOMROUTE_RETURN_IF_ERROR(ValidateHost(host));
  }
  if (!user_.empty()) BLOOMROUTE_RETURN_IF_ERROR(ValidateUserName(user_));
  if (!role_name_.empty()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(role_, ParseClientRole(role_name_));
  }
  {
    StatusOr<Role> kind = ParseRole(kind_name_);
    if (!kind.ok() || !IsNodeRole(*kind)) {
      return Status::InvalidArgument(
          "--kind is router, regionserver or node, "
          "not '" +
          kind_name_ + "'");
    }
    kind_ = *kind;
  }
  options_.certs_dir = certs_dir_;
  options_.ca_key = ca_key_;
  options_.overwrite = overwrite_;
  std::chrono::hours lifetime =
      action_ == "create-ca" ? kDefaultCaLifetime : kDefaultCertLifetime;
  if (lifetime_given_) {
    BLOOMROUTE_RETURN_IF_ERROR(
        InRange("lifetime", lifetime_days_, 1, kMaxLifetimeDays));
    lifetime = std::chrono::hours(24 * lifetime_days_);
  }
  options_.validity = CertValidity::For(lifetime);
  return Status::OK();
}

Status CertCommand::Execute() {
  if (action_ == "create-ca") return PrintWritten(CreateCa(options_));
  if (action_ == "create-node") {
    return PrintWritten(CreateNodeCert(options_, hosts_, kind_));
  }
  if (action_ == "create-client") {
    return PrintWritten(CreateClientCert(options_, user_, role_));
  }
  if (action_ == "revoke") {
    BLOOMROUTE_RETURN_IF_ERROR(PrintWritten(RevokeCert(
        options_, cert_file_.empty() ? ClientCertFile(user_) : cert_file_)));
    std::cout << "the list is valid until "
              << FormatTime(options_.validity.not_after)
              << ": servers refuse every peer after that, so renew it "
                 "before (revoke again); give it to every server "
                 "(--tls-crl) and send them SIGHUP\n";
    return Status::OK();
  }
  if (action_ == "create-token") {
    BLOOMROUTE_RETURN_IF_ERROR(
        PrintWritten(CreateToken(options_, user_, role_)));
    std::cout << "give " << certs_dir_ << "/" << TokenFile(user_)
              << " to the client (its --token-file); the router's "
                 "--token-file is "
              << certs_dir_ << "/" << kTokensFile << "\n";
    return Status::OK();
  }
  return List();
}

Status CertCommand::List() const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<CertInfo> listed,
                              ListCerts(certs_dir_));
  if (listed.empty()) std::cout << "no certificates in " << certs_dir_ << "\n";
  for (const CertInfo& info : listed) PrintCertInfo(info, std::cout);
  return Status::OK();
}

std::string CertCommand::HelpEpilog() const {
  return "Actions (the first argument):\n"
         "  create-ca      ca.crt and the CA key (O=bloomroute, CN=bloomroute "
         "CA)\n"
         "  create-node    a machine's certificate, one subjectAltName per "
         "--host:\n"
         "                 --kind router: router.crt, router.key (OU=router)\n"
         "                 --kind regionserver: regionserver.crt, .key\n"
         "                 --kind node: node.crt, node.key, both kinds' "
         "(default)\n"
         "  create-client  client.USER.crt, client.USER.key (OU=ROLE, "
         "CN=USER)\n"
         "  create-token   token.USER (the client's --token-file) and a line "
         "in tokens\n"
         "                 (the router's --token-file; it holds hashes only)\n"
         "  revoke         adds --cert FILE (or client.USER.crt) to crl.pem, "
         "the CA's\n"
         "                 revocation list (servers' --tls-crl, read again "
         "on SIGHUP);\n"
         "                 valid for --lifetime days (default 1830): renew it "
         "before then\n"
         "  list           every *.crt: subject, role, hosts, expiry, signer\n"
         "Keys are P-256, certificates signed with SHA-256. Keys and token "
         "files are\n"
         "written with mode 0600 and never printed. Files read are at most "
         "64 KiB\n"
         "(kMaxPemFileBytes); the tokens file at most 1 MiB "
         "(kMaxTokenFileBytes).\n"
         "Exit codes: 0 done, 1 failed (e.g. a file exists: --overwrite), 2 "
         "bad usage.\n";
}

}  // namespace bloomroute
