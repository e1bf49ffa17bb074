#include "tools/shell/shell_session.h"

// libedit's readline interface (BSD-licensed); see scripts/install-deps.sh.
#include <editline/readline.h>
#include <signal.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <vector>

namespace bloomroute::shell {
namespace {

constexpr char kPrompt[] = "bloomroute> ";
constexpr char kContinuationPrompt[] = "bloomroute*> ";
constexpr int kHistoryEntries = 1000;
constexpr size_t kReadBlockBytes = 64 << 10;

// Completion state: readline's callbacks are plain functions.
struct Completion {
  Context* context = nullptr;
  std::vector<std::string> tables;  // quoted: 'name'
  bool tables_loaded = false;
  std::chrono::steady_clock::time_point loaded_at;
  std::vector<std::string> candidates;
  size_t next = 0;
};
Completion completion;

// Tables other shells create show up in completion after this long.
constexpr std::chrono::seconds kTablesFresh{10};

void LoadTables() {
  const auto now = std::chrono::steady_clock::now();
  if (completion.tables_loaded && !completion.context->tables_changed &&
      now - completion.loaded_at < kTablesFresh) {
    return;
  }
  completion.tables.clear();
  completion.tables_loaded = true;
  completion.loaded_at = now;
  completion.context->tables_changed = false;
  StatusOr<std::vector<TableDescriptor>> tables =
      completion.context->router.ListTables();
  if (!tables.ok()) return;  // completes nothing; the next try asks again
  for (const TableDescriptor& t : *tables) {
    completion.tables.push_back("'" + t.name + "'");
  }
}

char* NextCandidate(const char* text, int state) {
  if (state == 0) completion.next = 0;
  const size_t length = std::strlen(text);
  while (completion.next < completion.candidates.size()) {
    const std::string& c = completion.candidates[completion.next++];
    if (c.compare(0, length, text) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

// The first word completes to a command, any later one to a quoted table
// name.
char** Complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // never file names
  bool first_word = true;
  for (int i = 0; i < start; ++i) {
    if (rl_line_buffer[i] != ' ' && rl_line_buffer[i] != '\t') {
      first_word = false;
    }
  }
  completion.candidates.clear();
  if (first_word) {
    for (const CommandSpec& spec : Commands()) {
      completion.candidates.push_back(spec.name);
    }
  } else {
    LoadTables();
    completion.candidates = completion.tables;
  }
  return rl_completion_matches(text, NextCandidate);
}

// Set by Ctrl-C while the interactive shell runs; a statement reading
// rows stops at its next batch (Context::interrupted).
volatile std::sig_atomic_t interrupted = 0;

void InterruptHandler(int) { interrupted = 1; }

// Installs InterruptHandler and the context's check while a statement
// runs; restores both on destruction. At the prompt Ctrl-C keeps its
// default (the shell ends; the history is saved line by line): libedit
// retries a read that a signal interrupted, so a handler there would not
// stop the prompt.
class InterruptGuard {
 public:
  explicit InterruptGuard(Context* context) : context_(context) {
    struct sigaction action = {};
    action.sa_handler = InterruptHandler;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_);
    context_->interrupted = [] { return interrupted != 0; };
  }
  ~InterruptGuard() {
    sigaction(SIGINT, &previous_, nullptr);
    context_->interrupted = nullptr;
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  Context* context_;
  struct sigaction previous_ = {};
};

// A statement as an error's context: its first line, cut at 80 bytes.
std::string Abbreviate(std::string_view statement) {
  constexpr size_t kMax = 80;
  std::string_view shown = statement.substr(0, statement.find('\n'));
  if (shown.size() <= kMax && shown.size() == statement.size()) {
    return std::string(shown);
  }
  return std::string(shown.substr(0, kMax)) + "...";
}

}  // namespace

Status Session::RunOne(std::string_view statement, bool timed) {
  const auto start = std::chrono::steady_clock::now();
  Status s = RunStatement(context_, statement);
  context_.out.flush();
  if (timed && s.ok()) {
    const std::chrono::duration<double> took =
        std::chrono::steady_clock::now() - start;
    context_.out << "Took " << std::fixed << std::setprecision(4)
                 << took.count() << " seconds\n";
    context_.out.unsetf(std::ios_base::floatfield);
    context_.out.flush();
  }
  return s;
}

Status Session::RunStatements(bool stop_on_error, bool timed) {
  for (const std::string& statement : splitter_.Take()) {
    if (context_.quit) break;
    Status s = RunOne(statement, timed);
    if (!s.ok() && stop_on_error) return s.WithContext(Abbreviate(statement));
    if (!s.ok()) Report(s);
  }
  return Status::OK();
}

Status Session::Feed(std::string_view text, bool stop_on_error, bool timed) {
  Status fed = splitter_.Feed(text);
  // The statements completed before a statement too long still run.
  BLOOMROUTE_RETURN_IF_ERROR(RunStatements(stop_on_error, timed));
  if (fed.ok() || stop_on_error) return fed;
  Report(fed);
  return Status::OK();
}

Status Session::Finish(bool stop_on_error) {
  Status finished = splitter_.Finish();
  if (!finished.ok()) {
    if (stop_on_error) return finished;
    Report(finished);
  }
  return RunStatements(stop_on_error, /*timed=*/false);
}

void Session::Report(const Status& s) {
  err_ << "ERROR: " << s.ToString() << "\n";
  err_.flush();
}

Status Session::RunText(std::string_view text, bool stop_on_error) {
  BLOOMROUTE_RETURN_IF_ERROR(Feed(text, stop_on_error, /*timed=*/false));
  return Finish(stop_on_error);
}

Status Session::RunStream(std::istream& in, bool stop_on_error) {
  // Read in blocks, not lines: a line is as long as its input, and the
  // splitter bounds a statement itself.
  std::string block(kReadBlockBytes, '\0');
  while (!context_.quit && in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    BLOOMROUTE_RETURN_IF_ERROR(Feed(std::string_view(block.data(), got),
                                    stop_on_error, /*timed=*/false));
  }
  if (context_.quit) return Status::OK();
  return Finish(stop_on_error);
}

Status Session::RunInteractive(bool stop_on_error,
                               const std::string& history_file) {
  rl_readline_name = "bloomroute";
  rl_basic_word_break_characters = " \t\n,=>[]{}";
  rl_completion_append_character = '\0';
  completion.context = &context_;
  rl_attempted_completion_function = Complete;
  using_history();
  stifle_history(kHistoryEntries);
  if (!history_file.empty()) (void)read_history(history_file.c_str());
  Status result;
  while (!context_.quit) {
    char* line =
        readline(splitter_.incomplete() ? kContinuationPrompt : kPrompt);
    if (line == nullptr) {  // end of input
      context_.out << "\n";
      break;
    }
    if (line[0] != '\0') {
      add_history(line);
      // Saved at once: a shell that is killed keeps what was typed.
      if (!history_file.empty()) (void)write_history(history_file.c_str());
    }
    std::string text(line);
    std::free(line);
    text += '\n';
    interrupted = 0;
    InterruptGuard guard(&context_);
    result = Feed(text, stop_on_error, /*timed=*/true);
    if (!result.ok()) break;
  }
  completion.context = nullptr;
  return result;
}

}  // namespace bloomroute::shell
