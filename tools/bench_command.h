// `bloomroute bench ycsb`: YCSB's core workloads against a running cluster,
// through its routers, reported in YCSB's own summary format.
//
//   bloomroute bench ycsb --router HOST:PORT[,HOST:PORT...]
//       [--workload a|b|c|d|e|f|i] [--phase load|run|both]
//       [--recordcount N] [--operationcount N] [--threads N]
//       [--fieldcount N] [--fieldlength N] [--maxscanlength N]
//       [--requestdistribution zipfian|uniform|latest] [--indexdomain N]
//       [--table T] [--family F] [--regions N] [--seed S]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE] [--token-file FILE]]
//
// The load phase creates the table when it is missing (one column family,
// --family; split into --regions regions at keys spread over YCSB's hashed
// key space; workload I's with FAMILY:field0 indexed) and inserts
// --recordcount records; the run phase does --operationcount operations of
// the workload (tools/bench/ycsb_workload.h defines them; the generators
// are tools/bench/ycsb_generators.h). Each phase prints its report to
// stdout (tools/bench/ycsb_measurements.h), after a line
// "# bloomroute bench ycsb: PHASE phase, workload W".
//
// Exit codes: 0 every operation ended OK; 1 a call failed before the
// phase began, or any operation failed or found no row (the count and the
// first reason on stderr; the report is still printed); 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_BENCH_COMMAND_H_
#define BLOOMROUTE_TOOLS_BENCH_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "thrift/router_client.h"
#include "tools/bench/ycsb_driver.h"
#include "tools/bench/ycsb_workload.h"
#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

// Split keys for `regions` regions (>= 1) of a table of YCSB's hashed keys
// ("user" + decimal FnvHash64, uniform in [0, 2^63)): "user" followed by
// the leading digits of i * 2^63 / regions, i = 1..regions-1. 19-digit
// hashes (89% of them) spread evenly; shorter ones sort by their leading
// digits among them.
std::vector<std::string> YcsbSplitKeys(uint32_t regions);

class BenchCommand : public Command {
 public:
  BenchCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  // The rows of YCSB's sizes and counts, and of the table.
  void DeclareSizeRows(OptionTable* table);
  void DeclareTableRows(OptionTable* table);
  // InvalidArgument when workload I runs on a table without field0 indexed.
  Status CheckTable(const router::TableInfo& existing) const;
  // Checks the table (CheckTable) or creates it.
  Status EnsureTable(RouterClient& router) const;
  // Runs one phase and prints its report; the failed operations as an error.
  Status RunPhase(const std::string& phase);

  RouterConnectionFlags connection_;
  std::string subcommand_;
  std::string workload_name_ = "a";
  std::string distribution_name_;
  std::string phase_ = "both";
  std::string table_ = "usertable";
  uint32_t regions_ = 0;
  ycsb::Options options_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_BENCH_COMMAND_H_
