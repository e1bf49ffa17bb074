#include "tools/lab_command.h"

#include <fstream>
#include <iostream>
#include <sstream>

#include "lab/experiments/document.h"
#include "lab/experiments/experiments.h"

namespace bloomroute {

namespace {

namespace po = boost::program_options;

class LabCommand : public Command {
 public:
  LabCommand()
      : Command("lab",
                "reproduce the filter papers' experiments by measurement") {}

 protected:
  void AddOptions(po::options_description* o) override {
    o->add_options()("experiment", po::value<std::string>(&experiment_),
                     "scbf-params, overflow, mbmbf, ddcf, growth or all")(
        "quick", po::bool_switch(&options_.quick),
        "small inputs and few probes (seconds, for tests)")(
        "seed", po::value<uint64_t>(&options_.seed)->default_value(1),
        "names every element inserted or probed")(
        "markdown-out", po::value<std::string>(&markdown_out_),
        "also write the tables, spliced into --discussion, to this file")(
        "discussion", po::value<std::string>(&discussion_),
        "markdown template with <!-- lab:EXPERIMENT --> markers");
  }
  void AddPositional(po::positional_options_description* p) override {
    p->add("experiment", 1);
  }
  Status Validate() override {
    if (experiment_.empty()) {
      return Status::InvalidArgument("name an experiment or 'all'");
    }
    if (experiment_ != "all" && !lab::FindExperiment(experiment_).ok()) {
      return Status::InvalidArgument("unknown experiment '" + experiment_ +
                                     "'");
    }
    if (!discussion_.empty() && markdown_out_.empty()) {
      return Status::InvalidArgument("--discussion needs --markdown-out");
    }
    return Status::OK();
  }
  Status Execute() override;
  std::string HelpEpilog() const override {
    std::string text = "Experiments:\n";
    for (const auto& e : lab::AllExperiments()) {
      text += "  " + std::string(e.name) + ": " + e.summary + "\n";
    }
    return text + "  all: every experiment, in this order\n";
  }

 private:
  std::string RegenerateCommand() const;
  Status WriteDocument(const std::vector<lab::LabReport>& reports,
                       double seconds) const;

  std::string experiment_;
  lab::LabOptions options_;
  std::string markdown_out_;
  std::string discussion_;
};

Status LabCommand::Execute() {
  std::vector<lab::Experiment> selected;
  if (experiment_ == "all") {
    selected = lab::AllExperiments();
  } else {
    BLOOMROUTE_ASSIGN_OR_RETURN(lab::Experiment e,
                                lab::FindExperiment(experiment_));
    selected.push_back(e);
  }
  std::vector<lab::LabReport> reports;
  lab::Stopwatch total;
  for (const lab::Experiment& e : selected) {
    lab::Stopwatch watch;
    BLOOMROUTE_ASSIGN_OR_RETURN(lab::LabReport r, e.run(options_));
    std::cout << r.ToMarkdown() << std::flush;
    std::cerr << "lab " << e.name << ": "
              << lab::FormatFixed(watch.ElapsedSeconds(), 1) << " s\n";
    reports.push_back(std::move(r));
  }
  std::cerr << "lab " << experiment_ << ": "
            << lab::FormatFixed(total.ElapsedSeconds(), 1) << " s in total\n";
  if (markdown_out_.empty()) return Status::OK();
  return WriteDocument(reports, total.ElapsedSeconds());
}

std::string LabCommand::RegenerateCommand() const {
  std::string cmd = "bloomroute lab " + experiment_;
  if (options_.quick) cmd += " --quick";
  if (options_.seed != 1) cmd += " --seed " + std::to_string(options_.seed);
  if (!discussion_.empty()) cmd += " --discussion " + discussion_;
  return cmd + " --markdown-out " + markdown_out_;
}

Status LabCommand::WriteDocument(const std::vector<lab::LabReport>& reports,
                                 double seconds) const {
  std::string discussion;
  if (!discussion_.empty()) {
    std::ifstream in(discussion_);
    if (!in) return Status::IOError("cannot read " + discussion_);
    std::ostringstream text;
    text << in.rdbuf();
    discussion = text.str();
  }
  const std::string doc =
      lab::ComposeDocument(discussion, reports, RegenerateCommand(), seconds);
  std::ofstream out(markdown_out_, std::ios::trunc);
  if (!out || !(out << doc) || !out.flush()) {
    return Status::IOError("cannot write " + markdown_out_);
  }
  return Status::OK();
}

}  // namespace

std::unique_ptr<Command> MakeLabCommand() {
  return std::make_unique<LabCommand>();
}

}  // namespace bloomroute
