// `bloomroute accuracy`: measures how well the router's filters route
// lookups of a table.
//
//   bloomroute accuracy --router HOST:PORT --table T [--column NAME ...]
//       [--present N] [--absent N] [--sample-rows N] [--seed S] [--out DIR]
//
// For each probed column (default: every indexed column of the table) it
// samples up to --present distinct values the table holds (from at most
// --sample-rows rows, spread over the regions) and generates --absent values
// it does not hold ("absent-<16 hex digits>", checked absent by the
// broadcast lookup), and looks each value up routed and broadcast
// (tools/accuracy/accuracy.h defines every figure). It prints a summary and
// writes report.md, report.csv, probes.csv and accuracy.png (gnuplot; when
// gnuplot is missing the PNG is skipped with a warning) into --out.
//
// Exit codes: 0 no false negatives; 1 a false negative was found (the
// report is still written) or a call failed; 2 bad usage. The same --seed on
// the same table gives the same probes. Run it on a table that is not being
// written to.
#ifndef BLOOMROUTE_TOOLS_ACCURACY_COMMAND_H_
#define BLOOMROUTE_TOOLS_ACCURACY_COMMAND_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "router/router.h"
#include "thrift/router_client.h"
#include "tools/accuracy/accuracy.h"
#include "tools/accuracy/report.h"
#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class AccuracyCommand : public Command {
 public:
  static constexpr int64_t kDefaultProbes = 200;
  static constexpr int64_t kMaxProbes = 1'000'000;
  static constexpr int64_t kDefaultSampleRows = 100'000;
  static constexpr int64_t kMaxSampleRows = 100'000'000;

  AccuracyCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  // The probed columns, qualified; InvalidArgument for one not indexed.
  StatusOr<std::vector<std::string>> ResolveColumns(
      const router::TableInfo& table) const;
  // Every probe of every column, in column order: present values, then
  // absent ones.
  StatusOr<std::vector<accuracy::ProbeOutcome>> Probe(
      RouterClient& router, const router::TableInfo& table,
      const std::vector<std::string>& columns, accuracy::RunInfo* run);
  // The table's servers with their replicas' filter figures.
  // Also sets run->cluster_filter from the router's index stats.
  StatusOr<std::vector<accuracy::ServerFilter>> TableServers(
      RouterClient& router, const router::TableInfo& table,
      accuracy::RunInfo* run) const;
  Status WriteReport(const accuracy::RunInfo& run,
                     const std::vector<accuracy::ProbeOutcome>& probes,
                     const accuracy::AccuracyFigures& figures) const;
  void PrintSummary(const accuracy::RunInfo& run,
                    const accuracy::AccuracyFigures& figures) const;
  // The command line with every option's value (defaults included).
  std::string EffectiveCommandLine() const;

  ClientFlags client_;
  std::vector<std::string> columns_;
  int64_t present_ = 0;
  int64_t absent_ = 0;
  int64_t sample_rows_ = 0;
  int64_t seed_ = 0;  // signed so that a negative number is an error
  std::string out_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ACCURACY_COMMAND_H_
