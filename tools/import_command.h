// `bloomroute import`: loads a CSV or TSV file into a table through the
// router's client API (as HBase's ImportTsv), creating the table pre-split
// when it does not exist.
//
//   bloomroute import --router HOST:PORT --table T --file F [--format csv|tsv]
//       [--header | --columns NAME,NAME,...] --row-key NAME --index NAME,...
//       [--family d] [--on-bad-line skip|fail] [--bad-lines FILE]
//       [--batch-rows N] [--in-flight N] [--regions N] [--max-value-bytes N]
//       [--bulk] [--tls-ca FILE [--tls-cert FILE --tls-key FILE]
//       [--token-file FILE]]
//
// The work is done by tools/import/ (RunImportJob); this class parses and
// checks the options. Exit codes: 0 imported (bad lines skipped are not a
// failure), 1 failed (a bad line under --on-bad-line fail, a write the router
// refused, an unreachable router, a table with other indexed columns), 2 bad
// usage.
#ifndef BLOOMROUTE_TOOLS_IMPORT_COMMAND_H_
#define BLOOMROUTE_TOOLS_IMPORT_COMMAND_H_

#include <cstdint>
#include <memory>
#include <string>

#include "thrift/router_client.h"
#include "tools/client_command_util.h"
#include "tools/command.h"
#include "tools/import/import_job.h"

namespace bloomroute {

class ImportCommand : public Command {
 public:
  ImportCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  // DeclareOptions' rows: how columns and bad lines are treated, batches,
  // and bounds on the input.
  void AddLineRows(OptionTable* table);
  void AddBatchRows(OptionTable* table);
  void AddInputRows(OptionTable* table);

  RouterConnectionFlags connection_;
  std::string format_;
  std::string columns_;
  std::string index_;
  std::string on_bad_line_;

  // The table sets their flags' fields; Validate() the rest.
  ImportJobOptions options_;
  std::unique_ptr<RouterClient> client_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_COMMAND_H_
