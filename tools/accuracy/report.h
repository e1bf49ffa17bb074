// The files `bloomroute accuracy` writes into its output directory:
//
//   report.md     the run (command line, table, columns, seed, counts), the
//                 summary figures, the per-server table and the fanout
//                 histogram, readable as Markdown.
//   report.csv    one line per server (RFC 4180, header first):
//                   server_id,address,probes_tested,false_positives,
//                   measured_fpr,ci_low,ci_high,estimated_fpr,stage0_target,
//                   compounded_bound,asked_not_current,false_negatives
//   probes.csv    one line per probe: column,value,present,asked,
//                 asked_not_current,truth -- server id lists separated by
//                 ' ' -- so any figure can be recomputed from the raw data.
//   accuracy.dat  the plot's data (one line per server).
//   accuracy.plt  the gnuplot script; accuracy.png the chart: measured FPR
//                 with its 95 % interval next to the filter's estimate and
//                 the compounded bound of its open stages, per server.
//
// Figures are written with enough digits to be read back exactly enough for
// comparisons (%.6g for rates).
//
// Thread-safety: pure functions, and writers of their own files.
#ifndef BLOOMROUTE_TOOLS_ACCURACY_REPORT_H_
#define BLOOMROUTE_TOOLS_ACCURACY_REPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "tools/accuracy/accuracy.h"

namespace bloomroute::accuracy {

// What the run was, for report.md.
struct RunInfo {
  std::string command_line;
  std::string router;
  std::string table;
  std::vector<std::string> columns;
  uint64_t seed = 0;
  uint64_t rows_scanned = 0;
  uint64_t present_requested = 0;  // per column
  uint64_t absent_requested = 0;   // per column
  // The router's cluster filter config (ClusterFilterLine); empty when the
  // router reports none.
  std::string cluster_filter;
  // What the router holds for routing (RouterIndexLine); empty when the
  // router reports nothing.
  std::string router_index;
};

// "N bytes, B bytes per distinct value per server" from the router's
// routing memory (the sum of the servers' shares, ReplicaStats) and the
// servers' element counts; empty when the router reports no bytes.
std::string RouterIndexLine(uint64_t router_bytes, uint64_t values);

// "F false routes per lookup, P per server (r .., s .., n0 ..)" from a
// server's index stats; empty when they carry no cluster config.
std::string ClusterFilterLine(double target_false_routes,
                              const SscbfConfig& config);

// The contents of each file (see the file comment).
std::string ReportMarkdown(const RunInfo& run, const AccuracyFigures& f);
std::string ReportCsv(const AccuracyFigures& f);
std::string ProbesCsv(const std::vector<ProbeOutcome>& probes);
std::string PlotData(const AccuracyFigures& f);
// A gnuplot script reading `data_path` and writing a PNG to `png_path`. The
// paths are written as single-quoted gnuplot strings (a quote doubled), so
// any file name is safe.
std::string PlotScript(const std::string& data_path,
                       const std::string& png_path);

// Writes `text` to `path` (replacing it); IOError naming the path.
Status WriteTextFile(const std::string& path, const std::string& text);

// Runs `gnuplot SCRIPT` as a child process (no shell) and waits for it.
// NotFound when no gnuplot program is on PATH; IOError when it fails (its
// exit code in the message).
Status RunGnuplot(const std::string& script_path);

}  // namespace bloomroute::accuracy

#endif  // BLOOMROUTE_TOOLS_ACCURACY_REPORT_H_
