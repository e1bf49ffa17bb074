#include "tools/accuracy_command.h"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <utility>

#include "tools/accuracy/probe.h"
#include "tools/server_command_util.h"

namespace bloomroute {
namespace po = boost::program_options;
using accuracy::ProbeOutcome;

namespace {

constexpr int64_t kDefaultSeed = 1;
// Generated absent values that turn out to be held before giving up; with
// 64 random bits each, even one is a surprise.
constexpr int kMaxAbsentAttempts = 100;

std::string ShellWord(const std::string& word) {
  if (!word.empty() &&
      word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUV"
                             "WXYZ0123456789-_.,:/=@") == std::string::npos) {
    return word;
  }
  std::string out = "'";
  for (char c : word)
    out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string Percent(double rate) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f%%", rate * 100);
  return buf;
}

// A generated value that no server holds, probed.
StatusOr<ProbeOutcome> ProbeAbsent(RouterClient& router, std::string_view table,
                                   const std::string& column,
                                   const std::set<std::string>& seen,
                                   std::mt19937_64& rng) {
  for (int attempt = 0; attempt < kMaxAbsentAttempts; ++attempt) {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        ProbeOutcome p,
        accuracy::RunProbe(router, table, column,
                           accuracy::AbsentValue(seen, rng), false));
    if (p.truth.empty()) return p;
  }
  return Status::IOError("every generated absent value of " + column +
                         " is held by the table");
}

}  // namespace

AccuracyCommand::AccuracyCommand()
    : Command("accuracy",
              "measure routing accuracy: false routes and FPR per server") {}

void AccuracyCommand::AddOptions(po::options_description* o) {
  client_.Add(o);
  o->add_options()  //
      ("column", po::value<std::vector<std::string>>(&columns_),
       "indexed column to probe, NAME or family:qualifier; repeatable "
       "(default: every indexed column)")  //
      ("present", po::value<int64_t>(&present_)->default_value(kDefaultProbes),
       "values the table holds to probe, per column")  //
      ("absent", po::value<int64_t>(&absent_)->default_value(kDefaultProbes),
       "values the table does not hold to probe, per column")  //
      ("sample-rows",
       po::value<int64_t>(&sample_rows_)->default_value(kDefaultSampleRows),
       "rows to scan (spread over the regions) for present values")  //
      ("seed", po::value<int64_t>(&seed_)->default_value(kDefaultSeed),
       "seed of the random choices; the same seed repeats a run")  //
      ("out", po::value<std::string>(&out_)->default_value("accuracy-report"),
       "directory for the report (created if missing)");
}

Status AccuracyCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(client_.Validate());
  BLOOMROUTE_RETURN_IF_ERROR(InRange("present", present_, 0, kMaxProbes));
  BLOOMROUTE_RETURN_IF_ERROR(InRange("absent", absent_, 0, kMaxProbes));
  if (present_ + absent_ == 0) {
    return Status::InvalidArgument("--present and --absent are both 0");
  }
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("sample-rows", sample_rows_, 1, kMaxSampleRows));
  BLOOMROUTE_RETURN_IF_ERROR(
      InRange("seed", seed_, 0, std::numeric_limits<int64_t>::max()));
  if (out_.empty()) return Status::InvalidArgument("--out is empty");
  for (const std::string& c : columns_) {
    BLOOMROUTE_RETURN_IF_ERROR(QualifyColumn(c, client_.family()).status());
  }
  return Status::OK();
}

Status AccuracyCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              client_.Connect());
  BLOOMROUTE_ASSIGN_OR_RETURN(
      router::TableInfo table,
      ExplainTableNotFound(*router, client_.table(),
                           router->DescribeTable(client_.table())));
  accuracy::RunInfo run;
  run.command_line = EffectiveCommandLine();
  run.router = client_.router();
  run.table = client_.table();
  run.seed = static_cast<uint64_t>(seed_);
  run.present_requested = static_cast<uint64_t>(present_);
  run.absent_requested = static_cast<uint64_t>(absent_);
  BLOOMROUTE_ASSIGN_OR_RETURN(run.columns, ResolveColumns(table));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<ProbeOutcome> probes,
                              Probe(*router, table, run.columns, &run));
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<accuracy::ServerFilter> servers,
                              TableServers(*router, table, &run));
  const accuracy::AccuracyFigures figures =
      accuracy::ComputeAccuracy(probes, servers);
  BLOOMROUTE_RETURN_IF_ERROR(WriteReport(run, probes, figures));
  PrintSummary(run, figures);
  if (figures.false_negatives > 0) {
    return Status::Corruption(
        std::to_string(figures.false_negatives) +
        " false negatives: the routing skipped servers holding matches (see " +
        out_ + "/report.md)");
  }
  return Status::OK();
}

StatusOr<std::vector<std::string>> AccuracyCommand::ResolveColumns(
    const router::TableInfo& table) const {
  std::vector<std::string> out;
  if (columns_.empty()) {
    for (const IndexedColumn& c : table.descriptor.indexed_columns) {
      out.push_back(c.name);
    }
    if (out.empty()) {
      return Status::InvalidArgument("table '" + table.descriptor.name +
                                     "' has no indexed columns");
    }
    return out;
  }
  std::set<std::string> seen;
  for (const std::string& name : columns_) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::string column,
                                QualifyColumn(name, client_.family()));
    if (table.descriptor.FindIndexed(column) == nullptr) {
      return Status::InvalidArgument("column " + QuoteForMessage(column) +
                                     " is not indexed in table '" +
                                     table.descriptor.name + "'");
    }
    if (seen.insert(column).second) out.push_back(std::move(column));
  }
  return out;
}

StatusOr<std::vector<ProbeOutcome>> AccuracyCommand::Probe(
    RouterClient& router, const router::TableInfo& table,
    const std::vector<std::string>& columns, accuracy::RunInfo* run) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      accuracy::ValueSample sample,
      accuracy::SampleValues(router, table, columns,
                             static_cast<uint64_t>(sample_rows_)));
  run->rows_scanned = sample.rows_scanned;
  std::mt19937_64 rng(static_cast<uint64_t>(seed_));
  std::vector<ProbeOutcome> probes;
  for (const std::string& column : columns) {
    const std::set<std::string>& seen = sample.values[column];
    for (const std::string& value :
         accuracy::PickValues(seen, static_cast<size_t>(present_), rng)) {
      BLOOMROUTE_ASSIGN_OR_RETURN(
          ProbeOutcome p, accuracy::RunProbe(router, table.descriptor.name,
                                             column, value, true));
      probes.push_back(std::move(p));
    }
    for (int64_t i = 0; i < absent_; ++i) {
      BLOOMROUTE_ASSIGN_OR_RETURN(
          ProbeOutcome p,
          ProbeAbsent(router, table.descriptor.name, column, seen, rng));
      probes.push_back(std::move(p));
    }
  }
  return probes;
}

StatusOr<std::vector<accuracy::ServerFilter>> AccuracyCommand::TableServers(
    RouterClient& router, const router::TableInfo& table,
    accuracy::RunInfo* run) const {
  std::map<router::ServerId, std::string> holding;  // servers of the table
  for (const router::RegionLocation& r : table.regions) {
    holding[r.server.id] = r.server.address;
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<router::ServerIndexStats> stats,
                              router.IndexStats());
  if (!stats.empty()) {
    run->cluster_filter = accuracy::ClusterFilterLine(
        stats[0].target_false_routes, stats[0].cluster_config);
    uint64_t values = 0;
    uint64_t bytes = 0;  // each server's share of the router's index
    for (const router::ServerIndexStats& s : stats) {
      values += s.replica.filter.elements;
      bytes += s.replica.filter.memory_bytes;
    }
    run->router_index = accuracy::RouterIndexLine(bytes, values);
  }
  std::vector<accuracy::ServerFilter> out;
  for (const auto& [id, address] : holding) {
    accuracy::ServerFilter f;
    f.id = id;
    f.address = address;
    for (const router::ServerIndexStats& s : stats) {
      if (s.server.id != id) continue;
      const SscbfStats& filter = s.replica.filter;
      f.estimated_fpr = filter.estimated_fpr;
      f.compounded_bound = filter.compounded_bound;
      f.stages = static_cast<uint32_t>(filter.stages.size());
      f.elements = filter.elements;
      if (!filter.stages.empty()) {
        f.stage0_target = filter.stages[0].geometry.target_fpr;
      }
    }
    out.push_back(std::move(f));
  }
  return out;
}

Status AccuracyCommand::WriteReport(
    const accuracy::RunInfo& run, const std::vector<ProbeOutcome>& probes,
    const accuracy::AccuracyFigures& figures) const {
  std::error_code error;
  std::filesystem::create_directories(out_, error);
  if (error) {
    return Status::IOError("cannot create " + out_ + ": " + error.message());
  }
  const std::string dir = out_ + "/";
  BLOOMROUTE_RETURN_IF_ERROR(accuracy::WriteTextFile(
      dir + "report.md", accuracy::ReportMarkdown(run, figures)));
  BLOOMROUTE_RETURN_IF_ERROR(accuracy::WriteTextFile(
      dir + "report.csv", accuracy::ReportCsv(figures)));
  BLOOMROUTE_RETURN_IF_ERROR(
      accuracy::WriteTextFile(dir + "probes.csv", accuracy::ProbesCsv(probes)));
  BLOOMROUTE_RETURN_IF_ERROR(accuracy::WriteTextFile(
      dir + "accuracy.dat", accuracy::PlotData(figures)));
  BLOOMROUTE_RETURN_IF_ERROR(accuracy::WriteTextFile(
      dir + "accuracy.plt",
      accuracy::PlotScript(dir + "accuracy.dat", dir + "accuracy.png")));
  // The chart is a convenience: without gnuplot the figures still stand.
  if (Status s = accuracy::RunGnuplot(dir + "accuracy.plt"); !s.ok()) {
    std::cerr << "bloomroute accuracy: warning: no accuracy.png: "
              << s.ToString() << "\n";
  }
  return Status::OK();
}

void AccuracyCommand::PrintSummary(const accuracy::RunInfo& run,
                                   const accuracy::AccuracyFigures& f) const {
  std::cout << "accuracy of table " << client_.table() << ": " << f.probes
            << " probes (" << f.present.probes << " present, "
            << f.absent.probes << " absent values)\n"
            << "false negatives: " << f.false_negatives << "\n"
            << "false routes per lookup: " << f.all.mean << " (present "
            << f.present.mean << ", absent " << f.absent.mean << ")\n"
            << "mean fanout: " << f.mean_fanout << " servers; asked because "
            << "not current: " << f.asked_not_current << "\n";
  if (!run.cluster_filter.empty()) {
    std::cout << "cluster filter: " << run.cluster_filter << "\n";
  }
  if (!run.router_index.empty()) {
    std::cout << "router index: " << run.router_index << "\n";
  }
  for (const accuracy::ServerAccuracy& s : f.servers) {
    std::cout << "server " << s.filter.id << " (" << s.filter.address
              << "): measured FPR " << Percent(s.measured_fpr) << " ["
              << Percent(s.ci_low) << ", " << Percent(s.ci_high) << "] ("
              << s.false_positives << " of " << s.probes_tested
              << "), estimated " << Percent(s.filter.estimated_fpr)
              << ", bound " << Percent(s.filter.compounded_bound) << "\n";
  }
  std::cout << "report: " << out_ << "/report.md" << std::endl;
}

std::string AccuracyCommand::EffectiveCommandLine() const {
  std::string line = "bloomroute accuracy --router " +
                     ShellWord(client_.router()) + " --table " +
                     ShellWord(client_.table()) + " --family " +
                     ShellWord(client_.family());
  for (const std::string& c : columns_) line += " --column " + ShellWord(c);
  line += " --present " + std::to_string(present_) + " --absent " +
          std::to_string(absent_) + " --sample-rows " +
          std::to_string(sample_rows_) + " --seed " + std::to_string(seed_) +
          " --out " + ShellWord(out_);
  return line;
}

std::string AccuracyCommand::HelpEpilog() const {
  return "Each value is looked up broadcast (every server of the table is\n"
         "asked; the servers with rows are the truth) and routed (the\n"
         "filters decide). A server asked by the routed lookup that holds no\n"
         "match is a false positive of its filter; a server holding a match\n"
         "that was not asked is a false negative (exit 1). Servers asked only\n"
         "because the router's replica was not current are counted apart.\n"
         "Per server the report shows the measured FPR with a 95% Wilson\n"
         "interval next to the filter's own estimate and the bound of its\n"
         "open stages (1 - prod(1 - P_i)). Files in --out: report.md,\n"
         "report.csv, probes.csv, accuracy.png (needs gnuplot).\n";
}

}  // namespace bloomroute
