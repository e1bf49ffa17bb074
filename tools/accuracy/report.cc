#include "tools/accuracy/report.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "tools/row_format.h"

extern char** environ;

namespace bloomroute::accuracy {
namespace {

std::string Rate(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", x);
  return buf;
}

std::string Ids(const std::vector<ServerId>& ids) {
  std::string out;
  for (ServerId id : ids) {
    if (!out.empty()) out += ' ';
    out += std::to_string(id);
  }
  return out;
}

// Markdown table cells: '|' would end the cell, newlines the row.
std::string MarkdownCell(const std::string& text) {
  std::string out;
  for (char c : TableField(text)) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string GnuplotQuoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

void AddSummary(const AccuracyFigures& f, std::string* md) {
  *md += "## Summary\n\n";
  *md += "| figure | value |\n|---|---|\n";
  *md += "| probes | " + std::to_string(f.probes) + " |\n";
  *md += "| false negatives (probe, server) | " +
         std::to_string(f.false_negatives) + " |\n";
  *md += "| false routes per lookup, all | " + Rate(f.all.mean) + " (" +
         std::to_string(f.all.false_routes) + " in " +
         std::to_string(f.all.probes) + ") |\n";
  *md += "| false routes per lookup, present values | " + Rate(f.present.mean) +
         " (" + std::to_string(f.present.false_routes) + " in " +
         std::to_string(f.present.probes) + ") |\n";
  *md += "| false routes per lookup, absent values | " + Rate(f.absent.mean) +
         " (" + std::to_string(f.absent.false_routes) + " in " +
         std::to_string(f.absent.probes) + ") |\n";
  *md += "| mean fanout (servers the filters chose) | " + Rate(f.mean_fanout) +
         " |\n";
  *md += "| asked because not current (probe, server) | " +
         std::to_string(f.asked_not_current) + " |\n\n";
}

void AddServerTable(const AccuracyFigures& f, std::string* md) {
  *md +=
      "## Per server\n\n"
      "probes: lookups where the filter alone decided about the server (it "
      "holds no match and its replica was current); measured FPR: false "
      "positives / probes, with the 95 % Wilson interval; estimated FPR: the "
      "filter's own estimate now (1 - prod over stages of (1 - product of "
      "slice fills)); P0: the oldest open stage's target FPR (stage 0's, "
      "unless a compaction started the filter further up the ladder of "
      "stages); bound: 1 - prod (1 - P_i) "
      "over the open stages, the target the geometry guarantees.\n\n"
      "| server | address | stages | elements | probes | false positives | "
      "measured FPR | 95 % CI | estimated FPR | P0 | bound | "
      "asked not current | false negatives |\n"
      "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const ServerAccuracy& s : f.servers) {
    *md += "| " + std::to_string(s.filter.id) + " | " +
           MarkdownCell(s.filter.address) + " | " +
           std::to_string(s.filter.stages) + " | " +
           std::to_string(s.filter.elements) + " | " +
           std::to_string(s.probes_tested) + " | " +
           std::to_string(s.false_positives) + " | " + Rate(s.measured_fpr) +
           " | [" + Rate(s.ci_low) + ", " + Rate(s.ci_high) + "] | " +
           Rate(s.filter.estimated_fpr) + " | " + Rate(s.filter.stage0_target) +
           " | " + Rate(s.filter.compounded_bound) + " | " +
           std::to_string(s.asked_not_current) + " | " +
           std::to_string(s.false_negatives) + " |\n";
  }
  *md += "\n";
}

}  // namespace

std::string ClusterFilterLine(double target_false_routes,
                              const SscbfConfig& config) {
  if (!(target_false_routes > 0)) return "";
  std::ostringstream line;
  line << "target " << target_false_routes
       << " false routes per lookup, P = " << config.target_fpr
       << " per server (r " << config.tightening_ratio << ", s "
       << config.growth_factor << ", n0 " << config.initial_capacity << ")";
  return line.str();
}

std::string RouterIndexLine(uint64_t router_bytes, uint64_t values) {
  if (router_bytes == 0) return "";
  std::ostringstream line;
  line << router_bytes << " bytes";
  if (values > 0) {
    line << ", " << static_cast<double>(router_bytes) / values
         << " bytes per distinct value per server";
  }
  return line.str();
}

std::string ReportMarkdown(const RunInfo& run, const AccuracyFigures& f) {
  std::string md =
      "# Routing accuracy of table " + MarkdownCell(run.table) + "\n\n";
  md += "- command: `" + TableField(run.command_line) + "`\n";
  md += "- router: " + MarkdownCell(run.router) + "\n";
  if (!run.cluster_filter.empty()) {
    md += "- cluster filter: " + MarkdownCell(run.cluster_filter) + "\n";
  }
  if (!run.router_index.empty()) {
    md += "- router index: " + MarkdownCell(run.router_index) + "\n";
  }
  md += "- columns:";
  for (const std::string& c : run.columns) md += " " + MarkdownCell(c);
  md += "\n- seed: " + std::to_string(run.seed) + "\n";
  md += "- rows scanned for values: " + std::to_string(run.rows_scanned) + "\n";
  md += "- probes requested per column: " +
        std::to_string(run.present_requested) + " present, " +
        std::to_string(run.absent_requested) +
        " absent (fewer present when the table has fewer distinct values)\n";
  md += "- verdict: " +
        std::string(f.false_negatives == 0
                        ? "no false negatives"
                        : "FALSE NEGATIVES: the routing missed servers "
                          "holding matches") +
        "\n\n";
  AddSummary(f, &md);
  AddServerTable(f, &md);
  md +=
      "## Fanout\n\nServers the filters sent a probe to (not counting "
      "servers asked because not current).\n\n| fanout | probes |\n|---|---|"
      "\n";
  for (const auto& [fanout, n] : f.fanout) {
    md += "| " + std::to_string(fanout) + " | " + std::to_string(n) + " |\n";
  }
  md += "\n![measured vs estimated FPR](accuracy.png)\n";
  return md;
}

std::string ReportCsv(const AccuracyFigures& f) {
  std::string csv =
      "server_id,address,probes_tested,false_positives,measured_fpr,ci_low,"
      "ci_high,estimated_fpr,stage0_target,compounded_bound,asked_not_current,"
      "false_negatives\r\n";
  for (const ServerAccuracy& s : f.servers) {
    csv += std::to_string(s.filter.id) + "," + CsvField(s.filter.address) +
           "," + std::to_string(s.probes_tested) + "," +
           std::to_string(s.false_positives) + "," + Rate(s.measured_fpr) +
           "," + Rate(s.ci_low) + "," + Rate(s.ci_high) + "," +
           Rate(s.filter.estimated_fpr) + "," + Rate(s.filter.stage0_target) +
           "," + Rate(s.filter.compounded_bound) + "," +
           std::to_string(s.asked_not_current) + "," +
           std::to_string(s.false_negatives) + "\r\n";
  }
  return csv;
}

std::string ProbesCsv(const std::vector<ProbeOutcome>& probes) {
  std::string csv = "column,value,present,asked,asked_not_current,truth\r\n";
  for (const ProbeOutcome& p : probes) {
    csv += CsvField(p.column) + "," + CsvField(p.value) + "," +
           (p.present ? "1" : "0") + "," + Ids(p.asked) + "," +
           Ids(p.asked_not_current) + "," + Ids(p.truth) + "\r\n";
  }
  return csv;
}

std::string PlotData(const AccuracyFigures& f) {
  std::string data =
      "# index label measured ci_low ci_high estimated compounded_bound\n";
  for (size_t i = 0; i < f.servers.size(); ++i) {
    const ServerAccuracy& s = f.servers[i];
    // The label is the server id: addresses would crowd the axis, and an id
    // needs no quoting.
    data += std::to_string(i) + " " + std::to_string(s.filter.id) + " " +
            Rate(s.measured_fpr) + " " + Rate(s.ci_low) + " " +
            Rate(s.ci_high) + " " + Rate(s.filter.estimated_fpr) + " " +
            Rate(s.filter.compounded_bound) + "\n";
  }
  return data;
}

std::string PlotScript(const std::string& data_path,
                       const std::string& png_path) {
  const std::string data = GnuplotQuoted(data_path);
  return "set terminal png size 900,500\n"
         "set output " +
         GnuplotQuoted(png_path) +
         "\n"
         "set title 'False-positive rate per region server'\n"
         "set xlabel 'region server id'\n"
         "set ylabel 'false-positive rate'\n"
         "set key below horizontal\n"
         "set grid ytics\n"
         "set offsets 0.5, 0.5, 0, 0\n"
         "set yrange [0:*]\n"
         "plot " +
         data +
         " using ($1-0.15):3:4:5 with yerrorbars pt 7 "
         "title 'measured (95% CI)', \\\n  " +
         data +
         " using ($1+0.15):6 with points pt 5 title 'estimated by the "
         "filter', \\\n  " +
         data +
         " using 1:7:xticlabels(2) with points pt 2 title 'bound of open "
         "stages'\n";
}

Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IOError("cannot write " + path);
  return Status::OK();
}

Status RunGnuplot(const std::string& script_path) {
  std::string program = "gnuplot";
  // A relative path that starts with '-' would be read as an option.
  std::string script = script_path;
  if (!script.empty() && script[0] != '/') script = "./" + script;
  std::vector<char*> argv = {program.data(), script.data(), nullptr};
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv.data(), environ);
  if (rc == ENOENT) return Status::NotFound("gnuplot is not installed");
  if (rc != 0) {
    return Status::IOError(std::string("cannot run gnuplot: ") +
                           std::strerror(rc));
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status::IOError("waiting for gnuplot failed");
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    return Status::NotFound("gnuplot is not installed");
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return Status::IOError("gnuplot failed (wait status " +
                           std::to_string(status) + ")");
  }
  return Status::OK();
}

}  // namespace bloomroute::accuracy
