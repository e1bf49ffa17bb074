#include "tools/client_command_util.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

namespace bloomroute {
namespace po = boost::program_options;

StatusOr<std::string> QualifyColumn(std::string_view name,
                                    std::string_view family) {
  if (name.empty()) return Status::InvalidArgument("empty column name");
  std::string column(name);
  if (name.find(':') == std::string_view::npos) {
    column = std::string(family) + ":" + column;
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(column).WithContext(
      "column " + QuoteForMessage(column)));
  return column;
}

StatusOr<EqualityPredicate> ParseWhere(std::string_view arg,
                                       std::string_view family) {
  const size_t eq = arg.find('=');
  if (eq == std::string_view::npos) {
    return Status::InvalidArgument("--where " + QuoteForMessage(arg) +
                                   " is not NAME=VALUE");
  }
  StatusOr<std::string> column = QualifyColumn(arg.substr(0, eq), family);
  if (!column.ok()) {
    return column.status().WithContext("--where " + QuoteForMessage(arg));
  }
  EqualityPredicate p;
  p.column = std::move(column).value();
  p.value = std::string(arg.substr(eq + 1));
  return p;
}

StatusOr<Projection> ParseColumns(const std::vector<std::string>& args,
                                  std::string_view family) {
  Projection out;
  std::set<std::string> seen;
  for (const std::string& arg : args) {
    size_t begin = 0;
    while (true) {
      const size_t end = std::min(arg.find(',', begin), arg.size());
      StatusOr<std::string> column = QualifyColumn(
          std::string_view(arg).substr(begin, end - begin), family);
      if (!column.ok()) {
        return column.status().WithContext("--columns " + QuoteForMessage(arg));
      }
      if (seen.insert(*column).second) out.push_back(std::move(*column));
      if (end == arg.size()) break;
      begin = end + 1;
    }
  }
  return out;
}

std::string RoutingLine(const router::LookupResult& result) {
  return RoutingLine(result.routing, result.partial, result.missing);
}

std::string RoutingLine(const router::RoutingInfo& r, bool partial,
                        const std::vector<router::ServerRef>& missing) {
  std::string line = "routing: asked " + std::to_string(r.asked.size()) +
                     " of " + std::to_string(r.servers_in_cluster) +
                     " servers, " + std::to_string(r.with_rows.size()) +
                     " with rows (" +
                     std::to_string(r.asked_not_current.size()) +
                     " asked because not current)";
  if (partial) {
    line += ", partial: missing";
    for (const router::ServerRef& s : missing) line += " " + s.address;
  }
  if (!r.broadcast_reason.empty()) line += "; " + r.broadcast_reason;
  return line;
}

namespace {

// One scanner's rows, read until the scan ends, `limit` rows are read in all,
// or a failure: `scanner_failed` tells ScannerNext's failure from `each`'s.
struct ScanPass {
  Status status;
  bool scanner_failed = false;
};

ScanPass ReadScanner(RouterClient& router, int64_t scanner, uint64_t limit,
                     const std::function<Status(std::vector<Row>&)>& each,
                     uint64_t* read, std::string* last_row) {
  while (*read < limit) {
    const uint64_t want = std::min<uint64_t>(kScanBatchRows, limit - *read);
    StatusOr<std::vector<Row>> batch =
        router.ScannerNext(scanner, static_cast<uint32_t>(want));
    if (!batch.ok()) return {batch.status(), true};
    if (batch->empty()) break;
    if (batch->size() > limit - *read) batch->resize(limit - *read);
    *read += batch->size();
    *last_row = batch->back().key;  // before `each` may move the rows
    Status status = each(*batch);
    if (!status.ok()) return {std::move(status), false};
  }
  return {};
}

// Whether a scan may go on from a new scanner after `pass` failed: the
// scanner's router did not answer and is lost with the scanner (a router's
// own Unavailable, for a region server behind it, would be every router's),
// and the filter holds no PageFilter, whose count would start again.
bool MayReopen(RouterClient& router, int64_t scanner, const ScanPass& pass,
               const router::ScanSpec& spec) {
  return pass.scanner_failed && pass.status.IsUnavailable() &&
         router.ScannerLost(scanner) &&
         spec.filter.find("PageFilter") == std::string::npos;
}

}  // namespace

StatusOr<uint64_t> ScanEach(
    RouterClient& router, std::string_view table, const router::ScanSpec& spec,
    uint64_t limit, const std::function<Status(std::vector<Row>&)>& each) {
  router::ScanSpec resume = spec;
  uint64_t read = 0;
  std::string last_row;
  int fruitless = 0;  // reopens in a row that read no row
  while (true) {
    BLOOMROUTE_ASSIGN_OR_RETURN(int64_t scanner,
                                router.OpenScanner(table, resume));
    const uint64_t before = read;
    const ScanPass pass =
        ReadScanner(router, scanner, limit, each, &read, &last_row);
    // The router expires a scanner it is not told to close; nothing to do.
    (void)router.CloseScanner(scanner);
    if (pass.status.ok()) return read;
    fruitless = read > before ? 0 : fruitless + 1;
    if (!MayReopen(router, scanner, pass, spec) ||
        fruitless > kMaxScanReopens) {
      return pass.status;
    }
    // As HBase's client does: start again right after the last row handed
    // out (the smallest key above it), so no row is given twice.
    if (read > 0) resume.start_row = last_row + '\0';
    if (!spec.stop_row.empty() && resume.start_row >= spec.stop_row) {
      return read;
    }
  }
}

StatusOr<std::vector<Row>> ScanRows(RouterClient& router,
                                    std::string_view table,
                                    const router::ScanSpec& spec,
                                    uint64_t limit) {
  std::vector<Row> rows;
  BLOOMROUTE_RETURN_IF_ERROR(
      ScanEach(router, table, spec, limit, [&](std::vector<Row>& batch) {
        for (Row& row : batch) rows.push_back(std::move(row));
        return Status::OK();
      }).status());
  return rows;
}

Status ExplainTableNotFound(RouterClient& router, std::string_view table,
                            Status failure) {
  if (!failure.IsNotFound()) return failure;
  StatusOr<std::vector<TableDescriptor>> tables = router.ListTables();
  if (!tables.ok()) return failure;
  for (const TableDescriptor& t : *tables) {
    if (t.name == table) return failure;
  }
  std::string message = failure.message();
  if (tables->empty()) {
    message += "; there are no tables";
  } else if (tables->size() > kTablesListed) {
    message += "; " + std::to_string(tables->size()) +
               " tables exist (bloomroute shell -e list shows them)";
  } else {
    message += "; the tables are ";
    for (size_t i = 0; i < tables->size(); ++i) {
      if (i > 0) message += ", ";
      message += QuoteForMessage((*tables)[i].name);
    }
  }
  return Status::NotFound(message);
}

namespace {

constexpr char kRouterHelp[] =
    "HOST:PORT of the router, or a comma-separated list of the cluster's "
    "routers (at most 64): calls spread over them and move to the next "
    "when one does not answer";
constexpr char kRouterValue[] = "HOST:PORT[,HOST:PORT...]";
constexpr char kTokenFileHelp[] =
    "authenticate with the token on this file's first line (needs --tls-ca)";

}  // namespace

void RouterConnectionFlags::Add(po::options_description* o) {
  o->add_options()  //
      ("router",
       po::value<std::string>(&router_)
           ->default_value(std::string(kDefaultRouterAddress))
           ->value_name(kRouterValue),
       kRouterHelp);
  tls_flags_.Add(o);
  o->add_options()  //
      ("token-file", po::value<std::string>(&token_file_)->value_name("FILE"),
       kTokenFileHelp);
}

void RouterConnectionFlags::Add(OptionTable* table) {
  table->String("router", &router_, kRouterHelp)
      .Default(kDefaultRouterAddress)
      .ValueName(kRouterValue);
  tls_flags_.Add(table);
  table->String("token-file", &token_file_, kTokenFileHelp).ValueName("FILE");
}

Status RouterConnectionFlags::Validate() {
  StatusOr<std::vector<std::string>> routers = ParseRouterList(router_);
  if (!routers.ok()) return routers.status().WithContext("--router");
  BLOOMROUTE_ASSIGN_OR_RETURN(tls_, tls_flags_.ToOptions());
  token_.clear();
  if (token_file_.empty()) return Status::OK();
  if (!tls_.enabled()) {
    return Status::InvalidArgument(
        "--token-file needs --tls-ca: a token must not travel in the clear");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(token_, ReadClientToken(token_file_));
  return Status::OK();
}

std::vector<std::string> RouterConnectionFlags::AsArgs() const {
  // FLAG=VALUE: a value may start with '-'.
  std::vector<std::string> args = {"--router=" + router_};
  const std::pair<const char*, const std::string*> files[] = {
      {"--tls-ca", &tls_.ca_file},
      {"--tls-cert", &tls_.cert_file},
      {"--tls-key", &tls_.key_file},
      {"--token-file", &token_file_}};
  for (const auto& [flag, file] : files) {
    if (!file->empty()) args.push_back(std::string(flag) + "=" + *file);
  }
  return args;
}

RouterClientOptions RouterConnectionFlags::ClientOptions(
    RouterClientOptions base) const {
  base.tls = tls_;
  base.token = token_;
  return base;
}

StatusOr<std::unique_ptr<RouterClient>> RouterConnectionFlags::Connect(
    const RouterClientOptions& base) const {
  return ConnectRouter(router_, ClientOptions(base));
}

void ClientFlags::Add(po::options_description* o) {
  connection_.Add(o);
  o->add_options()                                                         //
      ("table", po::value<std::string>(&table_)->required(), "the table")  //
      ("family",
       po::value<std::string>(&family_)->default_value(
           std::string(kDefaultFamily)),
       "column family of column names given without one");
}

Status ClientFlags::Validate() {
  if (table_.empty()) return Status::InvalidArgument("--table is empty");
  if (family_.empty() || family_.find(':') != std::string::npos) {
    return Status::InvalidArgument("--family " + QuoteForMessage(family_) +
                                   " is empty or holds ':'");
  }
  return connection_.Validate();
}

StatusOr<std::unique_ptr<RouterClient>> ClientFlags::Connect() const {
  return connection_.Connect();
}

}  // namespace bloomroute
