#include "tools/index_command.h"

#include <unistd.h>

#include <iostream>
#include <sstream>
#include <thread>
#include <utility>

#include "thrift/router_client.h"
#include "tools/import/progress.h"
#include "tools/row_format.h"

namespace bloomroute {
namespace po = boost::program_options;
namespace {

using router::IndexState;

constexpr int kMinPollMs = 10;
// Without a terminal, a progress line at most this often.
constexpr auto kLogEvery = std::chrono::seconds(5);

std::string Bar(uint32_t done, uint32_t total) {
  constexpr uint32_t kWidth = 20;
  const uint32_t filled = total == 0 ? kWidth : done * kWidth / total;
  return "[" + std::string(filled, '#') + std::string(kWidth - filled, '-') +
         "]";
}

const IndexState* Find(const std::vector<IndexState>& states,
                       const std::string& column) {
  for (const IndexState& s : states) {
    if (s.column == column) return &s;
  }
  return nullptr;
}

}  // namespace

std::string FormatIndexProgress(const IndexState& s) {
  std::string out =
      QuoteForMessage(s.column) + " " + router::IndexStateName(s.state);
  if (s.state == IndexState::State::kReady) return out;
  out += ": " + std::to_string(s.regions_done) + " of " +
         std::to_string(s.regions_total) + " regions, " +
         GroupThousands(s.rows) + " entries " +
         (s.state == IndexState::State::kBuilding ? "added " : "removed ") +
         Bar(s.regions_done, s.regions_total);
  return out;
}

std::string FormatIndexStatusText(const std::string& table,
                                  const std::vector<IndexState>& states) {
  std::ostringstream out;
  out << "table " << table << ": " << states.size()
      << (states.size() == 1 ? " index\n" : " indexes\n");
  out << "column\tid\tstate\tregions done\tentries added/removed\n";
  for (const IndexState& s : states) {
    // A ready index has no task left to count for.
    const std::string entries = s.state == IndexState::State::kReady
                                    ? std::string("-")
                                    : std::to_string(s.rows);
    out << QuoteForMessage(s.column) << "\t" << s.column_id << "\t"
        << router::IndexStateName(s.state) << "\t" << s.regions_done << "/"
        << s.regions_total << "\t" << entries << "\n";
  }
  return out.str();
}

std::string FormatIndexStatusJson(const std::string& table,
                                  const std::vector<IndexState>& states) {
  std::ostringstream out;
  out << "{\"table\":" << JsonString(table) << ",\"indexes\":[";
  for (size_t i = 0; i < states.size(); ++i) {
    const IndexState& s = states[i];
    out << (i == 0 ? "" : ",") << "{\"column\":" << JsonString(s.column)
        << ",\"column_id\":" << s.column_id << ",\"state\":\""
        << router::IndexStateName(s.state)
        << "\",\"regions_done\":" << s.regions_done
        << ",\"regions_total\":" << s.regions_total << ",\"rows\":" << s.rows
        << "}";
  }
  out << "]}\n";
  return out.str();
}

Status WaitForIndex(RouterClient& client, const std::string& table,
                    const std::string& column, const IndexWait& wait,
                    std::ostream* progress) {
  auto last_log = std::chrono::steady_clock::now() - kLogEvery;
  std::string line;
  auto finish = [&](const std::string& last) {
    if (progress == nullptr) return;
    *progress << (wait.terminal ? "\r" : "") << last << "\n";
  };
  while (true) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<IndexState> states,
                                client.IndexStatus(table));
    const IndexState* s = Find(states, column);
    if (wait.until == IndexWait::Until::kGone && s == nullptr) {
      finish(QuoteForMessage(column) + " dropped");
      return Status::OK();
    }
    if (wait.until == IndexWait::Until::kReady) {
      if (s == nullptr) {
        return Status::NotFound("the index on " + QuoteForMessage(column) +
                                " of table '" + table +
                                "' is gone (dropped while it was building)");
      }
      if (s->state == IndexState::State::kReady) {
        finish(FormatIndexProgress(*s));
        return Status::OK();
      }
    }
    line = FormatIndexProgress(*s);
    const auto now = std::chrono::steady_clock::now();
    if (progress != nullptr && wait.terminal) {
      *progress << "\r" << line << std::flush;
    } else if (progress != nullptr && now - last_log >= kLogEvery) {
      *progress << line << "\n";
      last_log = now;
    }
    const auto pause = std::chrono::milliseconds(wait.poll_ms);
    if (wait.sleep) {
      wait.sleep(pause);
    } else {
      std::this_thread::sleep_for(pause);
    }
  }
}

IndexCommand::IndexCommand()
    : Command("index",
              "add, drop or show the indexes of a table (built online)") {}

IndexCommand::~IndexCommand() = default;

std::string IndexCommand::HelpEpilog() const {
  return "Actions:\n"
         "  add     index --column on a table that may hold rows: new writes\n"
         "          are indexed at once, existing rows are backfilled region\n"
         "          by region in the background (resumed after any restart);\n"
         "          lookups on the column are refused as \"building\" until\n"
         "          it is complete. Waits with a progress bar on stderr\n"
         "          unless --no-wait.\n"
         "  drop    stop indexing --column (lookups on it are refused at "
         "once)\n"
         "          and remove its entries, counts and filter elements;\n"
         "          waits until they are gone unless --no-wait.\n"
         "  status  every index of the table: ready, building or dropping,\n"
         "          regions done and entries added or removed.\n"
         "Limits: a table has at most 256 indexed columns (building ones\n"
         "included) and 16 KiB of their names; the router backfills\n"
         "--index-chunk-rows rows per call (router option, default 1000).\n"
         "Exit codes: 0 done; 1 the router refused or failed; 2 bad usage.\n";
}

void IndexCommand::AddOptions(po::options_description* o) {
  flags_.Add(o);
  o->add_options()  //
      ("action", po::value<std::string>(&action_)->required(),
       "add, drop or status (also the first positional argument)")  //
      ("column", po::value<std::string>(&column_),
       "add, drop: the column, NAME (in --family) or family:qualifier")  //
      ("no-wait", po::bool_switch(&no_wait_),
       "add, drop: return once the router has recorded the change")  //
      ("format", po::value<std::string>(&format_)->default_value("text"),
       "status: text or json")  //
      ("poll-ms", po::value<int>(&poll_ms_)->default_value(500),
       "how often to ask the router while waiting (>= 10 ms)");
}

void IndexCommand::AddPositional(po::positional_options_description* p) {
  p->add("action", 1);
}

Status IndexCommand::Validate() {
  if (action_ != "add" && action_ != "drop" && action_ != "status") {
    return Status::InvalidArgument("unknown action " +
                                   QuoteForMessage(action_) +
                                   "; give add, drop or status");
  }
  BLOOMROUTE_RETURN_IF_ERROR(flags_.Validate());
  if (action_ == "status") {
    if (!column_.empty()) {
      return Status::InvalidArgument("status takes no --column");
    }
    if (format_ != "text" && format_ != "json") {
      return Status::InvalidArgument("--format must be text or json");
    }
  } else {
    if (column_.empty()) {
      return Status::InvalidArgument(action_ + " needs --column");
    }
    BLOOMROUTE_ASSIGN_OR_RETURN(column_,
                                QualifyColumn(column_, flags_.family()));
  }
  if (poll_ms_ < kMinPollMs) {
    return Status::InvalidArgument("--poll-ms must be >= " +
                                   std::to_string(kMinPollMs));
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(client_, flags_.Connect());
  return Status::OK();
}

Status IndexCommand::Execute() {
  const std::string& table = flags_.table();
  if (action_ == "status") {
    BLOOMROUTE_ASSIGN_OR_RETURN(
        std::vector<IndexState> states,
        ExplainTableNotFound(*client_, table, client_->IndexStatus(table)));
    std::cout << (format_ == "json" ? FormatIndexStatusJson(table, states)
                                    : FormatIndexStatusText(table, states));
    return Status::OK();
  }
  const bool add = action_ == "add";
  const Status changed = add ? client_->AddIndex(table, column_)
                             : client_->DropIndex(table, column_);
  // Unavailable: recorded, but a region server did not answer; the router
  // finishes when it does. Waiting shows that.
  if (!changed.ok() && !changed.IsUnavailable()) {
    return ExplainTableNotFound(*client_, table, changed);
  }
  if (!changed.ok()) std::cerr << "warning: " << changed.ToString() << "\n";
  if (no_wait_) {
    std::cout << (add ? "adding" : "dropping") << " the index on "
              << QuoteForMessage(column_) << " of table " << table
              << " (see: bloomroute index status)\n";
    return Status::OK();
  }
  IndexWait wait;
  wait.until = add ? IndexWait::Until::kReady : IndexWait::Until::kGone;
  wait.poll_ms = poll_ms_;
  wait.terminal = isatty(STDERR_FILENO) == 1;
  BLOOMROUTE_RETURN_IF_ERROR(
      WaitForIndex(*client_, table, column_, wait, &std::cerr));
  std::cout << "index on " << QuoteForMessage(column_) << " of table " << table
            << (add ? " is ready\n" : " is dropped\n");
  return Status::OK();
}

}  // namespace bloomroute
