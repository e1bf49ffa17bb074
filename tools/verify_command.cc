#include "tools/verify_command.h"

#include <iostream>
#include <string>
#include <utility>

#include "thrift/router_client.h"
#include "tools/client_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// How long the router may take to answer a verify, per wait: longer than
// the router waits for each server by default (`router --long-call-timeout`,
// 600 s), so that a server that times out is reported as that server's
// failure rather than this call's.
constexpr int kVerifyTimeoutMs = 11 * 60 * 1000;

// The counts a server reports, summed for the total line.
struct Counts {
  uint64_t rows = 0;
  uint64_t values = 0;
  uint64_t valid = 0;
  uint64_t missing = 0;
  uint64_t extra = 0;
  uint64_t counts_wrong = 0;
  uint64_t not_in_filter = 0;

  void Add(const IndexReport& r) {
    rows += r.rows;
    values += r.values;
    valid += r.index_entries_valid;
    missing += r.index_entries_missing;
    extra += r.index_entries_extra;
    counts_wrong += r.value_counts_wrong;
    not_in_filter += r.values_not_in_filter;
  }
  void Print(std::ostream& out) const {
    out << "rows " << rows << ", values " << values << ", valid " << valid
        << ", missing " << missing << ", extra " << extra << ", invalid "
        << counts_wrong + not_in_filter << " (counts wrong " << counts_wrong
        << ", not in filter " << not_in_filter << ")";
  }
};

const char* AgreementName(router::ReplicaAgreement a) {
  switch (a) {
    case router::ReplicaAgreement::kMatches:
      return "matches";
    case router::ReplicaAgreement::kDiffers:
      return "DIFFERS";
    case router::ReplicaAgreement::kNotCurrent:
      break;
  }
  return "not current";
}

void PrintServer(const router::ServerVerifyReport& s, std::ostream& out) {
  out << "server " << s.server.id << " " << s.server.address << " ("
      << s.regions << (s.regions == 1 ? " region" : " regions") << "): ";
  if (!s.error.empty()) {
    out << "FAILED: " << s.error << "\n";
    return;
  }
  Counts c;
  c.Add(s.index);
  c.Print(out);
  out << "; filter "
      << (s.index.filter_matches_rebuild ? "equals" : "DIFFERS from")
      << " a rebuild; replica " << AgreementName(s.replica.agreement)
      << (s.ok() ? "" : "  <-- disagrees") << "\n";
  if (s.replica.agreement != router::ReplicaAgreement::kMatches) {
    out << "  " << s.replica.detail << "\n";
  }
  for (const std::string& p : s.index.problems)
    out << "  problem: " << p << "\n";
}

}  // namespace

VerifyCommand::VerifyCommand()
    : Command("verify",
              "check a table's rows, index entries, value counts and "
              "filters agree") {}

VerifyCommand::~VerifyCommand() = default;

std::string VerifyCommand::HelpEpilog() const {
  return "Each region server holding regions of the table recomputes its\n"
         "index entries, value counts and filter from its rows (from a\n"
         "snapshot: writes go on), and the router compares its copy of each\n"
         "server's filter. Exit codes: 0 everything agrees; 1 the index\n"
         "disagrees with the rows on a server that finished its check; 3\n"
         "could not verify (a server failed or timed out -- the router waits\n"
         "its --long-call-timeout -- the table is unknown or the router\n"
         "cannot be reached); 2 bad usage.\n";
}

void VerifyCommand::AddOptions(po::options_description* o) {
  connection_.Add(o);
  o->add_options()  //
      ("table", po::value<std::string>(&table_)->required(),
       "the table to verify");
}

Status VerifyCommand::Validate() {
  if (table_.empty()) return Status::InvalidArgument("--table is empty");
  BLOOMROUTE_RETURN_IF_ERROR(connection_.Validate());
  // A verify reads everything each server stores: give the router longer
  // than the default call timeout to answer.
  RouterClientOptions options;
  options.call_timeout_ms = kVerifyTimeoutMs;
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, connection_.Connect(options));
  return Status::OK();
}

Status VerifyCommand::Execute() {
  StatusOr<router::VerifyReport> verified = client_->VerifyIndex(table_);
  if (!verified.ok()) {
    return ExplainTableNotFound(*client_, table_, verified.status())
        .WithContext("could not verify");
  }
  const router::VerifyReport& report = *verified;
  std::cout << "table " << report.table.name << " (id " << report.table.table_id
            << "): " << report.servers.size() << " region servers\n";
  Counts total;
  uint32_t failed = 0, rebuilt_equal = 0, matching = 0, not_current = 0,
           differing = 0;
  for (const router::ServerVerifyReport& s : report.servers) {
    PrintServer(s, std::cout);
    if (!s.error.empty()) {
      ++failed;
      continue;
    }
    total.Add(s.index);
    rebuilt_equal += s.index.filter_matches_rebuild ? 1 : 0;
    matching += s.replica.agreement == router::ReplicaAgreement::kMatches;
    not_current += s.replica.agreement == router::ReplicaAgreement::kNotCurrent;
    differing += s.replica.agreement == router::ReplicaAgreement::kDiffers;
  }
  std::cout << "total: ";
  total.Print(std::cout);
  std::cout << "; filters equal to a rebuild " << rebuilt_equal << "/"
            << report.servers.size() - failed << "; replicas matching "
            << matching << ", not current " << not_current << ", differing "
            << differing << "; servers failed " << failed << "\n";
  // A server that answered and disagrees is a finding, whatever else failed.
  for (const router::ServerVerifyReport& s : report.servers) {
    if (s.error.empty() && !s.ok()) disagrees_ = true;
  }
  const std::string unverified = std::to_string(failed) + " of " +
                                 std::to_string(report.servers.size()) +
                                 " region servers could not be checked";
  if (disagrees_) {
    return Status::Corruption(
        "table " + report.table.name +
        ": the index disagrees with the rows (see above)" +
        (failed > 0 ? "; " + unverified : ""));
  }
  if (failed > 0) {
    return Status::Unavailable("table " + report.table.name +
                               ": could not verify: " + unverified +
                               " (see above); the others agree");
  }
  std::cout << "ok: index entries, value counts and filters agree\n";
  return Status::OK();
}

int VerifyCommand::FailureExitCode() const {
  return disagrees_ ? kExitFailed : kExitNotVerified;
}

}  // namespace bloomroute
