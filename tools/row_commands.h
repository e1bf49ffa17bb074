// `bloomroute query`, `get` and `scan`: read rows through the router and
// print them (tools/row_format.h says how each --format looks).
//
//   bloomroute query --router HOST:PORT --table T [--where 'NAME>=VALUE']
//       [--in NAME=V1,V2] [--prefix NAME=P] [--between NAME=LOW,HIGH]
//       [--count] [--limit N] [--page-size N] [--columns A,B]
//       [--format table|csv|json] [--allow-partial]   (at least one
//       predicate; repeat any for AND; tools/query_predicates.h gives the
//       forms and the quoting)
//   bloomroute get  --table T --row KEY [--row ...] [--columns ..]
//       [--format ..]
//   bloomroute scan --table T [--start KEY] [--stop KEY] [--limit N]
//       [--columns ..] [--format ..]
//
// Rows go to stdout, which stays machine-readable in every format; anything
// else goes to stderr, always: query's routing line ("routing: asked 1 of 4
// servers, 1 with rows (0 asked because not current)"), a note when the
// limit cut the answer, and get's count of rows not found. Column names
// without a family get --family (default "d"). Exit codes: 0 ok (also for no
// rows), 1 the router failed the call (its message on stderr), 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_ROW_COMMANDS_H_
#define BLOOMROUTE_TOOLS_ROW_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/rows.h"
#include "tools/client_command_util.h"
#include "tools/command.h"
#include "tools/row_format.h"

namespace bloomroute {

// The options and output every row-printing command shares.
class RowsCommand : public Command {
 protected:
  using Command::Command;
  // Adds the client flags, --columns and --format.
  void AddRowOptions(boost::program_options::options_description* o);
  // Checks them and fills projection_ and format_.
  Status ValidateRowOptions();
  // Prints `rows` to stdout in format_.
  void Print(const std::vector<Row>& rows) const;
  // Connects and runs Read; a table the router does not know is told with
  // the tables that exist (ExplainTableNotFound).
  Status Execute() final;
  // What the command does with its connection to the router.
  virtual Status Read(RouterClient& router) = 0;

  ClientFlags client_;
  Projection projection_;
  RowFormat format_ = RowFormat::kTable;

 private:
  std::vector<std::string> columns_;
  std::string format_name_;
};

class QueryCommand : public RowsCommand {
 public:
  // --limit with --page-size (rows printed over every page), as scan's.
  static constexpr int64_t kMaxPagedLimit = 10'000'000;

  QueryCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Read(RouterClient& router) override;
  std::string HelpEpilog() const override;

 private:
  // One call (no --page-size).
  Status ExecuteOnce(RouterClient& router);
  // Every page, with the router's page tokens, up to --limit rows.
  Status ExecutePaged(RouterClient& router);

  std::vector<std::string> where_;
  std::vector<std::string> in_;
  std::vector<std::string> prefix_;
  std::vector<std::string> between_;
  bool count_ = false;
  int64_t limit_ = 0;
  bool paged_ = false;  // --page-size given
  int64_t page_size_ = 0;
  bool allow_partial_ = false;
  router::LookupSpec spec_;  // filled by Validate()
};

class GetCommand : public RowsCommand {
 public:
  GetCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Read(RouterClient& router) override;

 private:
  std::vector<std::string> rows_;
};

class ScanCommand : public RowsCommand {
 public:
  static constexpr int64_t kMaxLimit = 10'000'000;

  ScanCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Read(RouterClient& router) override;

 private:
  std::string start_;
  std::string stop_;
  int64_t limit_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ROW_COMMANDS_H_
