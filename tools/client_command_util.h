// What the client subcommands (query, get, scan, accuracy, import, verify)
// share: the options naming the router and how to reach it securely, the
// table and the column family, the parsing of column names and predicates,
// and the routing line a lookup prints.
//
// Column names. Users name a column NAME, meaning `family:NAME` with the
// family from --family (default "d", where the import tool puts CSV columns),
// or give a full "family:qualifier" (anything holding ':'), used as is.
//
// Example:
//   ClientFlags flags;          // in AddOptions: flags.Add(o);
//   auto router = flags.Connect();
//   auto p = ParseWhere("country=NO", flags.family());  // d:country = "NO"
#ifndef BLOOMROUTE_TOOLS_CLIENT_COMMAND_UTIL_H_
#define BLOOMROUTE_TOOLS_CLIENT_COMMAND_UTIL_H_

#include <boost/program_options.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "model/index_query.h"
#include "model/rows.h"
#include "router/router.h"
#include "thrift/router_client.h"
#include "tools/option_table.h"
#include "tools/security_flags.h"

namespace bloomroute {

inline constexpr char kDefaultFamily[] = "d";
inline constexpr char kDefaultRouterAddress[] = "127.0.0.1:9090";

// `name` when it holds ':', else "family:name". InvalidArgument (naming the
// column) when the result is not a valid column name (empty name, empty
// family, too long).
StatusOr<std::string> QualifyColumn(std::string_view name,
                                    std::string_view family);

// "NAME=VALUE", split at the first '=' (the value may hold '=' and may be
// empty); NAME is qualified as by QualifyColumn. InvalidArgument for a
// missing '=' or a bad name.
StatusOr<EqualityPredicate> ParseWhere(std::string_view arg,
                                       std::string_view family);

// Each argument is a comma-separated list of column names (as QualifyColumn);
// duplicates are dropped, order kept. Empty input gives an empty projection
// (every column); InvalidArgument for an empty name ("a,,b") or a bad one.
StatusOr<Projection> ParseColumns(const std::vector<std::string>& args,
                                  std::string_view family);

// The routing line of a lookup, e.g.
//   "routing: asked 1 of 4 servers, 1 with rows (0 asked because not current)"
// followed by ", partial: missing 127.0.0.1:9092" when servers did not answer.
// When every server of the table was asked unrouted, the reason follows:
//   "...; a range alone cannot be routed: asked every server of the table".
std::string RoutingLine(const router::LookupResult& result);
std::string RoutingLine(const router::RoutingInfo& routing, bool partial,
                        const std::vector<router::ServerRef>& missing);

// Reads up to `limit` rows (>= 1) of `spec`'s range in key order, through a
// scanner read in batches of up to kScanBatchRows rows, handing each batch
// to `each`; a batch `each` fails ends the scan with its error. Returns the
// rows read. The scanner is closed before returning (a failure to close is
// ignored: the router expires it). The router's error otherwise.
// When the scanner's router dies (ScannerNext fails with Unavailable and
// RouterClient::ScannerLost), the scan is opened again, on whichever
// router of the list answers, right after the last row handed to `each`, as
// HBase's client restarts a scan after the last row it returned: each row
// is handed out exactly once. At most kMaxScanReopens reopens in a row that
// read no row; a filter holding PageFilter is not reopened (its count would
// start again): its Unavailable is returned.
inline constexpr uint32_t kScanBatchRows = 1000;
inline constexpr int kMaxScanReopens = 3;
StatusOr<uint64_t> ScanEach(
    RouterClient& router, std::string_view table, const router::ScanSpec& spec,
    uint64_t limit, const std::function<Status(std::vector<Row>&)>& each);
// ScanEach's rows, all of them.
StatusOr<std::vector<Row>> ScanRows(RouterClient& router,
                                    std::string_view table,
                                    const router::ScanSpec& spec,
                                    uint64_t limit);

// `failure`, told which tables exist when it is the router's NotFound for
// `table` ("table 'T' does not exist"): ListTables is asked (with the
// caller's own access), and when `table` is not among the tables the
// message goes on with "; the tables are 'a', 'b'" (in the router's order,
// when there are at most kTablesListed), "; there are no tables", or
// "; 57 tables exist (bloomroute shell -e list shows them)" (when there
// are more). `failure` as it is otherwise:
// OK, another code, a table that exists (the NotFound was of something
// else), or a ListTables that fails.
inline constexpr size_t kTablesListed = 10;
Status ExplainTableNotFound(RouterClient& router, std::string_view table,
                            Status failure);
// `result`, or its failure told as above.
template <typename T>
StatusOr<T> ExplainTableNotFound(RouterClient& router, std::string_view table,
                                 StatusOr<T> result) {
  if (result.ok()) return result;
  return ExplainTableNotFound(router, table, result.status());
}

// How a client command reaches the router:
//   --router HOST:PORT[,HOST:PORT...] (default 127.0.0.1:9090): one router
//     or a list of the cluster's routers (ParseRouterList, router_client.h:
//     the client spreads over them and fails over)
//   --tls-ca FILE [--tls-cert FILE --tls-key FILE]  --token-file FILE
// With --tls-ca the connection is TLS to a router whose certificate that CA
// signed, presenting --tls-cert when given; with --token-file the client
// authenticates with the token in that file's first line
// (RouterService.authenticate), which needs TLS.
class RouterConnectionFlags {
 public:
  // Declares the options on a description, or as rows of a command's table.
  void Add(boost::program_options::options_description* o);
  void Add(OptionTable* table);
  // Checks the router list (ParseRouterList: "--router: router 'h:0' has
  // port 0"), the TLS files (TlsFlags::ToOptions) and reads the token
  // (ReadClientToken); InvalidArgument naming the option, also for
  // --token-file without --tls-ca. Call once, before ClientOptions/Connect.
  Status Validate();

  const std::string& router() const { return router_; }
  // The flags as given (--router and those of TLS and the token that were
  // set), to run another client command on the same router the same way.
  std::vector<std::string> AsArgs() const;
  // `base` (timeouts, limits) with the TLS files and the token set.
  RouterClientOptions ClientOptions(RouterClientOptions base = {}) const;
  // ConnectRouter(router(), ClientOptions(base)) over the list; the
  // connection is made by the first call.
  StatusOr<std::unique_ptr<RouterClient>> Connect(
      const RouterClientOptions& base = {}) const;

 private:
  std::string router_;
  TlsFlags tls_flags_{TlsFlags::Side::kClient};
  std::string token_file_;
  // Filled by Validate().
  TlsOptions tls_;
  std::string token_;
};

// The options of the row commands and accuracy: RouterConnectionFlags'
// and --table T  --family F
class ClientFlags {
 public:
  void Add(boost::program_options::options_description* o);
  // InvalidArgument for an empty table or a family that is empty or holds
  // ':', or as RouterConnectionFlags::Validate.
  Status Validate();

  const std::string& router() const { return connection_.router(); }
  const std::string& table() const { return table_; }
  const std::string& family() const { return family_; }
  const RouterConnectionFlags& connection() const { return connection_; }

  // connection().Connect(); the connection is made by the first call.
  StatusOr<std::unique_ptr<RouterClient>> Connect() const;

 private:
  RouterConnectionFlags connection_;
  std::string table_;
  std::string family_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CLIENT_COMMAND_UTIL_H_
