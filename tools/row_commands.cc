#include "tools/row_commands.h"

#include <algorithm>
#include <iostream>
#include <iterator>
#include <memory>
#include <optional>
#include <utility>

#include "tools/query_predicates.h"
#include "tools/server_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;

namespace {

constexpr int64_t kDefaultLimit = 1000;

}  // namespace

void RowsCommand::AddRowOptions(po::options_description* o) {
  client_.Add(o);
  o->add_options()  //
      ("columns", po::value<std::vector<std::string>>(&columns_),
       "columns to print, NAME or family:qualifier, comma-separated; "
       "repeatable (default: every column)")  //
      ("format", po::value<std::string>(&format_name_)->default_value("table"),
       "output format: table, csv or json (JSON Lines)");
}

Status RowsCommand::ValidateRowOptions() {
  BLOOMROUTE_RETURN_IF_ERROR(client_.Validate());
  BLOOMROUTE_ASSIGN_OR_RETURN(format_, ParseRowFormat(format_name_));
  BLOOMROUTE_ASSIGN_OR_RETURN(projection_,
                              ParseColumns(columns_, client_.family()));
  return Status::OK();
}

void RowsCommand::Print(const std::vector<Row>& rows) const {
  PrintRows(rows, ColumnsToPrint(rows, projection_), format_, std::cout);
  std::cout.flush();
}

Status RowsCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              client_.Connect());
  return ExplainTableNotFound(*router, client_.table(), Read(*router));
}

QueryCommand::QueryCommand()
    : RowsCommand("query", "look rows up by indexed column values") {}

void QueryCommand::AddOptions(po::options_description* o) {
  AddRowOptions(o);
  o->add_options()  //
      ("where", po::value<std::vector<std::string>>(&where_),
       "NAME=VALUE, NAME>=VALUE, NAME>VALUE, NAME<=VALUE or NAME<VALUE on an "
       "indexed column (quote it for the shell); the value is taken as "
       "is")  //
      ("in", po::value<std::vector<std::string>>(&in_),
       "NAME=V1,V2,...: the column holds one of the values (at most 1024, "
       "1 MiB in all per query); in a value '\\,' is a comma, '\\\\' a "
       "backslash")  //
      ("prefix", po::value<std::vector<std::string>>(&prefix_),
       "NAME=PREFIX: the column's value starts with PREFIX (as is)")  //
      ("between", po::value<std::vector<std::string>>(&between_),
       "NAME=LOW,HIGH: LOW <= value <= HIGH (escapes as --in)")  //
      ("count", po::bool_switch(&count_),
       "print the number of matching rows instead of the rows (json: "
       "{\"count\":N})")  //
      ("limit", po::value<int64_t>(&limit_)->default_value(kDefaultLimit),
       "most rows to print (1 to 100000; with --page-size, over all pages, "
       "1 to 10000000)")  //
      ("page-size", po::value<int64_t>(&page_size_)->notifier([this](int64_t) {
        paged_ = true;
      }),
       "rows per call, 1 to 100000: fetch every page (up to --limit rows) "
       "and print them as one answer")  //
      ("allow-partial", po::bool_switch(&allow_partial_),
       "print what the answering servers hold when some do not answer");
}

Status QueryCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRowOptions());
  if (paged_ || limit_ > kMaxRowsPerCall) {
    BLOOMROUTE_RETURN_IF_ERROR(
        InRange("page-size", page_size_, 1, kMaxRowsPerCall));
    BLOOMROUTE_RETURN_IF_ERROR(InRange("limit", limit_, 1, kMaxPagedLimit));
  } else {
    BLOOMROUTE_RETURN_IF_ERROR(InRange("limit", limit_, 1, kMaxRowsPerCall));
  }
  using Parser =
      StatusOr<IndexPredicate> (*)(std::string_view, std::string_view);
  const std::pair<const std::vector<std::string>*, Parser> flags[] = {
      {&where_, ParseWherePredicate},
      {&in_, ParseInPredicate},
      {&prefix_, ParsePrefixPredicate},
      {&between_, ParseBetweenPredicate}};
  spec_.equals.clear();
  spec_.where.clear();
  for (const auto& [args, parse] : flags) {
    for (const std::string& arg : *args) {
      BLOOMROUTE_ASSIGN_OR_RETURN(IndexPredicate p,
                                  parse(arg, client_.family()));
      spec_.where.push_back(std::move(p));
    }
  }
  if (spec_.where.empty()) {
    return Status::InvalidArgument(
        "give at least one of --where, --in, --prefix or --between");
  }
  spec_.limit = static_cast<uint32_t>(limit_);
  spec_.columns = projection_;
  spec_.allow_partial = allow_partial_;
  return Status::OK();
}

Status QueryCommand::Read(RouterClient& router) {
  if (count_) {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::CountResult counted,
                                router.Count(client_.table(), spec_));
    if (format_ == RowFormat::kJson) {
      std::cout << "{\"count\":" << counted.count << "}\n";
    } else {
      std::cout << counted.count << "\n";
    }
    std::cout.flush();
    std::cerr << RoutingLine(counted.routing, counted.partial, counted.missing)
              << "\n";
    return Status::OK();
  }
  return paged_ ? ExecutePaged(router) : ExecuteOnce(router);
}

Status QueryCommand::ExecuteOnce(RouterClient& router) {
  BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult result,
                              router.Lookup(client_.table(), spec_));
  Print(result.rows);
  std::cerr << RoutingLine(result) << "\n";
  if (result.truncated) {
    std::cerr << "more rows matched than the " << result.rows.size()
              << " printed (raise --limit)\n";
  }
  return Status::OK();
}

Status QueryCommand::ExecutePaged(RouterClient& router) {
  // JSON Lines has no header: each page is printed as it comes. A table or
  // CSV header names every column of every row, so those pages are held
  // (at most --limit rows, as scan holds its rows) and printed at the end.
  const bool stream = format_ == RowFormat::kJson;
  const uint64_t limit = static_cast<uint64_t>(limit_);
  router::LookupSpec spec = spec_;
  std::vector<Row> held;
  uint64_t printed = 0;
  uint64_t pages = 0;
  std::optional<router::LookupResult> shown;  // whose routing line is shown
  bool more = false;
  while (printed < limit) {
    spec.limit = static_cast<uint32_t>(
        std::min<uint64_t>(static_cast<uint64_t>(page_size_), limit - printed));
    BLOOMROUTE_ASSIGN_OR_RETURN(router::LookupResult page,
                                router.Lookup(client_.table(), spec));
    ++pages;
    printed += page.rows.size();
    more = page.next_page_token.has_value();
    spec.page_token = page.next_page_token;
    if (stream) {
      Print(page.rows);
    } else {
      std::move(page.rows.begin(), page.rows.end(), std::back_inserter(held));
    }
    // The first page's routing, or the first partial page's (it names the
    // servers missing).
    if (!shown || (page.partial && !shown->partial)) {
      page.rows.clear();
      shown = std::move(page);
    }
    if (!more) break;
  }
  if (!stream) Print(held);
  std::cerr << RoutingLine(*shown) << "\n";
  std::cerr << printed << (printed == 1 ? " row" : " rows") << " in " << pages
            << (pages == 1 ? " page" : " pages") << "\n";
  if (more) {
    std::cerr << "more rows matched than the " << printed
              << " printed (raise --limit)\n";
  }
  return Status::OK();
}

std::string QueryCommand::HelpEpilog() const {
  return "Predicates combine by AND; repeat any flag. Equalities and --in\n"
         "lists are routed through the router's filters (an --in list to the\n"
         "servers of any of its values); a query of ranges and prefixes\n"
         "alone asks every server of the table, and the routing line says\n"
         "so. A range whose low end is above its high end matches nothing.\n"
         "--where NAME<op>VALUE: NAME ends at the first '<', '>' or '='.\n"
         "--in and --between values are separated by ','; write '\\,' for a\n"
         "comma, '\\\\' for a backslash ('\\=' or '=' for an equals sign).\n"
         "Rows go to stdout; the routing line (servers asked, with rows, and\n"
         "asked only because the router's filter replica was not current)\n"
         "goes to stderr in every format. A server that does not answer\n"
         "fails the query (exit 1) unless --allow-partial is given; the\n"
         "routing line then names the missing servers.\n"
         "\n"
         "--page-size N asks for N rows a call and follows the router's page\n"
         "tokens until --limit rows are printed or none remain: the output\n"
         "is one answer (one header) whatever N is, and every row that\n"
         "matched throughout is printed exactly once, in row-key order. Rows\n"
         "written meanwhile show when they sort after the page being read.\n"
         "json prints each page as it arrives; table and csv hold the rows\n"
         "(at most --limit) to print one header. stderr gets the routing\n"
         "line of the first page (or of the first partial one) and the\n"
         "count of rows and pages. With --allow-partial a page a server did\n"
         "not answer lacks that server's rows for good.\n";
}

GetCommand::GetCommand() : RowsCommand("get", "read rows by row key") {}

void GetCommand::AddOptions(po::options_description* o) {
  AddRowOptions(o);
  o->add_options()  //
      ("row", po::value<std::vector<std::string>>(&rows_)->required(),
       "row key; repeat for several (printed in the order given)");
}

Status GetCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRowOptions());
  if (rows_.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " --row keys");
  }
  for (const std::string& key : rows_) {
    if (key.empty() || key.size() > kMaxRowKeyBytes) {
      return Status::InvalidArgument(
          "--row must be 1 to " + std::to_string(kMaxRowKeyBytes) + " bytes");
    }
  }
  return Status::OK();
}

Status GetCommand::Read(RouterClient& router) {
  std::vector<GetRequest> requests;
  for (const std::string& key : rows_) {
    requests.push_back(GetRequest{0, key, projection_});
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::optional<Row>> found,
                              router.Get(client_.table(), requests));
  std::vector<Row> rows;
  for (std::optional<Row>& row : found) {
    if (row) rows.push_back(std::move(*row));
  }
  Print(rows);
  if (rows.size() < requests.size()) {
    std::cerr << requests.size() - rows.size() << " of " << requests.size()
              << " rows not found\n";
  }
  return Status::OK();
}

ScanCommand::ScanCommand()
    : RowsCommand("scan", "read rows of a row-key range in key order") {}

void ScanCommand::AddOptions(po::options_description* o) {
  AddRowOptions(o);
  o->add_options()  //
      ("start", po::value<std::string>(&start_)->default_value(""),
       "first row key (inclusive; default: the first row)")  //
      ("stop", po::value<std::string>(&stop_)->default_value(""),
       "row key to stop before (exclusive; default: the last row)")  //
      ("limit", po::value<int64_t>(&limit_)->default_value(kDefaultLimit),
       "most rows to print");
}

Status ScanCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateRowOptions());
  BLOOMROUTE_RETURN_IF_ERROR(InRange("limit", limit_, 1, kMaxLimit));
  if (!start_.empty() && !stop_.empty() && stop_ <= start_) {
    return Status::InvalidArgument("--stop must sort after --start");
  }
  return Status::OK();
}

Status ScanCommand::Read(RouterClient& router) {
  router::ScanSpec spec{start_, stop_, projection_};
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::vector<Row> rows,
      ScanRows(router, client_.table(), spec, static_cast<uint64_t>(limit_)));
  Print(rows);
  if (rows.size() == static_cast<uint64_t>(limit_)) {
    std::cerr << "stopped at --limit " << limit_ << " rows\n";
  }
  return Status::OK();
}

}  // namespace bloomroute
