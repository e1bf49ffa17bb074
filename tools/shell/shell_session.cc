#include "tools/shell/shell_session.h"

// libedit's readline interface (BSD-licensed); see scripts/install-deps.sh.
#include <editline/readline.h>

#include <chrono>
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

// Completion state: readline's callbacks are plain functions.
struct Completion {
  Context* context = nullptr;
  std::vector<std::string> tables;  // quoted: 'name'
  bool tables_loaded = false;
  std::vector<std::string> candidates;
  size_t next = 0;
};
Completion completion;

void LoadTables() {
  if (completion.tables_loaded && !completion.context->tables_changed) return;
  completion.tables.clear();
  completion.tables_loaded = true;
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

Status Session::RunBuffer(std::string* buffer, bool stop_on_error, bool timed,
                          bool* incomplete) {
  const Split split = SplitStatements(*buffer);
  *incomplete = split.incomplete;
  if (split.incomplete) {
    if (buffer->size() > kMaxStatementBytes) {
      buffer->clear();
      *incomplete = false;
      Status s = Status::InvalidArgument(
          "a statement longer than " + std::to_string(kMaxStatementBytes) +
          " bytes (an unterminated quote or bracket?)");
      if (stop_on_error) return s;
      err_ << "ERROR: " << s.ToString() << "\n";
      return Status::OK();
    }
    return Status::OK();
  }
  buffer->clear();
  for (const std::string& statement : split.statements) {
    Status s = RunOne(statement, timed);
    if (!s.ok() && stop_on_error) return s.WithContext(Abbreviate(statement));
    if (!s.ok()) {
      err_ << "ERROR: " << s.ToString() << "\n";
      err_.flush();
    }
    if (context_.quit) break;
  }
  return Status::OK();
}

Status Session::RunText(std::string_view text, bool stop_on_error) {
  std::string buffer(text);
  buffer += '\n';
  bool incomplete = false;
  BLOOMROUTE_RETURN_IF_ERROR(
      RunBuffer(&buffer, stop_on_error, /*timed=*/false, &incomplete));
  if (incomplete) {
    Status s = Status::InvalidArgument(
        "the input ends inside a statement (an unterminated quote or "
        "bracket, or a trailing ',')");
    if (stop_on_error) return s;
    err_ << "ERROR: " << s.ToString() << "\n";
  }
  return Status::OK();
}

Status Session::RunStream(std::istream& in, bool stop_on_error) {
  std::string buffer;
  std::string line;
  bool incomplete = false;
  while (!context_.quit && std::getline(in, line)) {
    buffer += line;
    buffer += '\n';
    BLOOMROUTE_RETURN_IF_ERROR(
        RunBuffer(&buffer, stop_on_error, /*timed=*/false, &incomplete));
  }
  if (incomplete && !context_.quit) return RunText(buffer, stop_on_error);
  return Status::OK();
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
  std::string buffer;
  bool incomplete = false;
  Status result;
  while (!context_.quit) {
    char* line = readline(incomplete ? kContinuationPrompt : kPrompt);
    if (line == nullptr) {  // end of input
      context_.out << "\n";
      break;
    }
    if (line[0] != '\0') add_history(line);
    buffer += line;
    buffer += '\n';
    std::free(line);
    result = RunBuffer(&buffer, stop_on_error, /*timed=*/true, &incomplete);
    if (!result.ok()) break;
  }
  if (!history_file.empty()) (void)write_history(history_file.c_str());
  completion.context = nullptr;
  return result;
}

}  // namespace bloomroute::shell
