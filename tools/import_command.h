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
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  // As parsed; numbers signed so that a negative one is an error, not a wrap.
  RouterConnectionFlags connection_;
  std::string format_;
  std::string columns_;
  std::string index_;
  std::string on_bad_line_;
  int64_t batch_rows_ = 0;
  int64_t in_flight_ = 0;
  int64_t regions_ = 0;
  int64_t max_value_bytes_ = 0;
  int64_t max_spool_bytes_ = 0;
  int64_t max_field_bytes_ = 0;
  int64_t max_quoted_lines_ = 0;

  // Filled by Validate().
  ImportJobOptions options_;
  std::unique_ptr<RouterClient> client_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_COMMAND_H_
