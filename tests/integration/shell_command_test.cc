// `bloomroute shell` as a process against a router over two region server
// processes: one session typed on a pseudo-terminal (line editing, tab
// completion, history), and the same statements given with -e and on
// standard input.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The statements of a first session with the shell on table `t`.
std::vector<std::string> Session(const std::string& t) {
  return {
      "create '" + t + "', 'd', {INDEX => ['d:cc', 'fc'], SPLITS => ['m']}",
      "put '" + t + "', 'oslo', 'd:cc', 'NO'",
      "put '" + t + "', 'oslo', 'd:fc', 'PPLC', 1700000000000",
      "put '" + t + "', 'bergen', 'd:cc', 'NO'",
      "put '" + t + "', 'stockholm', 'd:cc', \"S\\x45\"",
      "get '" + t + "', 'oslo', 'd:fc'",
      "scan '" + t +
          "', {FILTER => \"SingleColumnValueFilter('d', 'cc', =, "
          "'binary:NO')\", COLUMNS => ['d:cc']}",
      "lookup '" + t + "', 'd:cc' => 'SE'",
      "delete '" + t + "', 'oslo', 'd:fc'",
      "deleteall '" + t + "', 'bergen'",
      "count '" + t + "'",
      "describe '" + t + "'",
  };
}

// What the session prints, in order (each a substring of one line).
std::vector<std::string> Expected(const std::string& t) {
  return {
      "Created table " + t + " with 2 regions, indexed on d:cc, d:fc",
      "COLUMN                   CELL",
      " d:fc                    timestamp=2023-11-14T22:13:20.000Z, "
      "value=PPLC",
      "1 row(s)",
      "ROW                      COLUMN+CELL",
      " bergen                  column=d:cc, timestamp=",
      " oslo                    column=d:cc, timestamp=",
      "2 row(s)",
      " stockholm               column=d:cc, timestamp=",
      "1 row(s)",
      // One server holds the row; a false positive may add the other.
      " servers, 1 with rows (0 asked because not current)",
      "2 row(s)",  // count: oslo and stockholm
      "Table " + t + " is ENABLED",
      "{NAME => 'd'}",
      "'d:cc' ready",
      "'d:fc' ready",
      "REGIONS (2)",
  };
}

// Each of `expected` is found in `out`, in order.
void ExpectInOrder(const std::string& out,
                   const std::vector<std::string>& expected) {
  size_t at = 0;
  for (const std::string& e : expected) {
    const size_t found = out.find(e, at);
    ASSERT_NE(found, std::string::npos)
        << "missing, in order: " << e << "\n--- output ---\n"
        << out;
    at = found + e.size();
  }
}

std::string Join(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

class ShellCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = new ProcessCluster(2); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override { ASSERT_TRUE(cluster_->ok()) << cluster_->error(); }

  static std::string Router() {
    return "127.0.0.1:" + std::to_string(cluster_->router_port());
  }

  static ProcessCluster* cluster_;
};

ProcessCluster* ShellCommandTest::cluster_ = nullptr;

TEST_F(ShellCommandTest, StatementsGivenWithDashE) {
  std::vector<std::string> args = {"shell", "--router", Router()};
  for (const std::string& s : Session("dash_e")) {
    args.push_back("-e");
    args.push_back(s);
  }
  CommandOutput r = RunCommand(args);
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectInOrder(r.out, Expected("dash_e"));
  EXPECT_EQ(r.err, "");
}

TEST_F(ShellCommandTest, AScriptOnStandardInput) {
  // Comments, ';' between statements and a statement over two lines.
  std::string script = "# a first session\n" + Join(Session("stdin"));
  script += "list 'std.*'; count 'stdin',\n  {INTERVAL => 1}\n";
  CommandOutput r = RunCommand({"shell", "--router", Router()}, script);
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> expected = Expected("stdin");
  expected.insert(expected.end(),
                  {"TABLE\nstdin\n1 row(s)", "Current count: 1, row: oslo",
                   "Current count: 2, row: stockholm", "2 row(s)"});
  ExpectInOrder(r.out, expected);
}

// The options of get, scan and count, and the table states.
TEST_F(ShellCommandTest, ReadOptionsAndTableStates) {
  CommandOutput r = RunCommand(
      {"shell", "--router", Router(), "-e",
       "create 'opt', 'd', 'e', {INDEX => ['d:cc']}\n"
       "put 'opt', 'a', 'd:cc', 'NO', 5\n"
       "put 'opt', 'a', 'e:x', '1'\n"
       "put 'opt', 'b', 'd:cc', 'SE'\n"
       "put 'opt', 'c', 'd:cc', 'NO'\n"
       "get 'opt', 'a', 'e'\n"
       "get 'opt', 'a', {TIMERANGE => [0, 6]}\n"
       "get 'opt', 'b', {FILTER => \"SingleColumnValueFilter('d', 'cc', =, "
       "'binary:NO', true, true)\"}\n"
       "scan 'opt', {STARTROW => 'b', STOPROW => 'c'}\n"
       "scan 'opt', {LIMIT => 1, COLUMNS => 'd:cc'}\n"
       "count 'opt', {FILTER => \"SingleColumnValueFilter('d', 'cc', =, "
       "'binary:NO', true, true)\"}\n"
       "list 'op.'\n"
       "truncate_preserve 'opt'\n"
       "describe 'opt'\n"
       "disable 'opt'; is_enabled 'opt'; enable 'opt'; truncate 'opt'\n"
       "count 'opt'; describe 'opt'"});
  ASSERT_EQ(r.code, 0) << r.err;
  ExpectInOrder(
      r.out,
      {// get 'e': the whole family
       "COLUMN", " e:x                     timestamp=", "1 row(s)",
       // the time range: only the cell written at 5 ms
       " d:cc                    timestamp=1970-01-01T00:00:00.005Z, value=NO",
       "1 row(s)",
       // the filter drops b
       "COLUMN                   CELL\n0 row(s)",
       // [b, c)
       "ROW", " b                       column=d:cc", "1 row(s)",
       // LIMIT 1: a's d:cc only
       "ROW", " a                       column=d:cc", "1 row(s)",
       // count with a value filter: a and c
       "2 row(s)", "TABLE\nopt\n1 row(s)", "Truncating table...",
       "Table opt is ENABLED", "REGIONS (2)", "false", "Truncating table...",
       "0 row(s)", "Table opt is ENABLED", "REGIONS (1)"});
  EXPECT_THAT(r.out, Not(HasSubstr(" a                       column=e:x")));
}

// index, admin and accuracy run the `bloomroute` commands on the shell's
// router, reached the way the shell reaches it (TLS files in the secure
// run).
TEST_F(ShellCommandTest, IndexAdminAndAccuracyRunOnTheShellsRouter) {
  CommandOutput r = RunCommand(
      {"shell", "--router", Router(), "-e",
       "create 'ops', 'd', {INDEX => 'd:cc'}; put 'ops', 'r1', 'd:cc', 'NO'; "
       "put 'ops', 'r1', 'd:fc', 'P'",
       "-e", "index add 'ops', 'd:fc'", "-e", "index status 'ops'", "-e",
       "admin regions --table ops", "-e",
       "accuracy --table ops --present 1 --absent 2 --out '" + cluster_->dir() +
           "/acc'"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("table ops: 2 indexes"));
  EXPECT_THAT(r.out, HasSubstr("'d:fc'\t2\tready"));
  EXPECT_THAT(r.out, HasSubstr("(table ops: 2 regions, 1 rows"));
  EXPECT_THAT(r.out, HasSubstr("false negatives: 0"));
  r = RunCommand({"shell", "--router", Router(), "-e", "index rebuild 'ops'"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("unknown action rebuild (add, drop or status)"));
}

// As `hbase shell -n`: the first failing statement ends a script with exit
// code 1 and its reason, naming the statement, as the first line on stderr;
// nothing after it runs.
TEST_F(ShellCommandTest, TheFirstFailingStatementStopsAScript) {
  CommandOutput r =
      RunCommand({"shell", "--router", Router()},
                 "list\nget 'no_such_table', 'r1'\ncreate 'never', 'd'\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.out, HasSubstr("TABLE\n"));
  // The tables that exist follow (this suite's).
  EXPECT_THAT(r.err,
              StartsWith("bloomroute shell: NotFound: get 'no_such_table', "
                         "'r1': table 'no_such_table' does not exist; "));
  r = RunCommand({"shell", "--router", Router(), "-e", "exists 'never'"});
  EXPECT_THAT(r.out, HasSubstr("Table never does not exist"));

  r = RunCommand(
      {"shell", "--router", Router(), "-e", "scan 'x', {LIMT => 1}"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, StartsWith("bloomroute shell: InvalidArgument: scan 'x', "
                                "{LIMT => 1}: scan: unknown option LIMT (it "
                                "takes COLUMNS, LIMIT, STARTROW, STOPROW, "
                                "FILTER, TIMERANGE)"));
  r = RunCommand({"shell", "--router", Router(), "-e", "put 't', 'r"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, StartsWith("bloomroute shell: InvalidArgument: the input "
                                "ends inside a statement"));
  // HBase's shell drops only disabled tables.
  r = RunCommand(
      {"shell", "--router", Router(), "-e", "create 'kept', 'd'; drop 'kept'"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, StartsWith("bloomroute shell: InvalidArgument: drop "
                                "'kept': disable it first (disable 'kept'): "));
  r = RunCommand({"shell", "--router", Router(), "-e",
                  "disable 'kept'; drop 'kept'; exists 'kept'"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("Table kept does not exist"));
}

// A shell on a pseudo-terminal, typed into as a person would.
class Terminal {
 public:
  Terminal(const std::vector<std::string>& args, const std::string& home) {
    std::vector<std::string> all = {BLOOMROUTE_BINARY};
    for (const std::string& a : WithSecurityFlags(args)) all.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    // Wide enough that no statement typed wraps (line editing redraws a
    // wrapped line).
    winsize size = {};
    size.ws_row = 50;
    size.ws_col = 400;
    pid_ = forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      setenv("HOME", home.c_str(), 1);
      setenv("TERM", "dumb", 1);
      execv(argv[0], argv.data());
      _exit(127);
    }
  }
  ~Terminal() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (master_ >= 0) close(master_);
  }
  bool started() const { return pid_ > 0; }

  // Everything printed until `marker` appears after what was read before;
  // empty (with what was read in `*all`) when it does not within 30 s.
  bool ReadUntil(const std::string& marker, std::string* all) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      const size_t found = screen_.find(marker, consumed_);
      if (found != std::string::npos) {
        consumed_ = found + marker.size();
        *all = screen_;
        return true;
      }
      pollfd p = {master_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[4096];
      const ssize_t n = read(master_, buf, sizeof(buf));
      if (n <= 0) break;  // the shell exited
      screen_.append(buf, static_cast<size_t>(n));
    }
    *all = screen_;
    return false;
  }
  void Type(const std::string& keys) {
    (void)!write(master_, keys.data(), keys.size());
  }
  // The exit code, waiting up to 30 s and draining the terminal meanwhile;
  // -1 when it does not exit.
  int Wait() {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        // A signal as a shell reports it: 128 + its number.
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      pollfd p = {master_, POLLIN, 0};
      char buf[4096];
      // After the shell closes the terminal, reads fail at once: sleep.
      if (poll(&p, 1, 100) <= 0 || read(master_, buf, sizeof(buf)) <= 0) {
        usleep(10'000);
      }
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int master_ = -1;
  bool exited_ = false;
  std::string screen_;
  size_t consumed_ = 0;
};

TEST_F(ShellCommandTest, ASessionOnATerminal) {
  TempDir home;
  Terminal tty({"shell", "--router", Router()}, home.path());
  ASSERT_TRUE(tty.started());
  std::string screen;
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  EXPECT_THAT(screen, HasSubstr("type help for the commands"));
  for (const std::string& statement : Session("tty")) {
    tty.Type(statement + "\r");
    ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen))
        << "after " << statement << ":\n"
        << screen;
  }
  ExpectInOrder(screen, Expected("tty"));
  EXPECT_THAT(screen, HasSubstr("Took "));  // each statement's time
  EXPECT_THAT(screen, Not(HasSubstr("ERROR")));
  // The deletes took.
  tty.Type("scan 'tty'\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  const std::string scanned = screen.substr(screen.rfind("scan 'tty'"));
  EXPECT_THAT(scanned, HasSubstr(" oslo                    column=d:cc, "));
  EXPECT_THAT(scanned, Not(HasSubstr("PPLC")));
  EXPECT_THAT(scanned, Not(HasSubstr(" bergen")));
  EXPECT_THAT(scanned, HasSubstr("2 row(s)"));

  // A failing statement prints its reason and the shell goes on.
  tty.Type("get 'nope', 'r'\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  EXPECT_THAT(screen,
              HasSubstr("ERROR: NotFound: table 'nope' does not exist"));

  // Tab completes a command, then a table name.
  tty.Type("is_en\t 't\t\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  EXPECT_THAT(screen, HasSubstr("is_enabled 'tty'"));
  EXPECT_THAT(screen.substr(screen.rfind("is_enabled 'tty'")),
              HasSubstr("true"));

  // A statement over two lines gets the continuation prompt. (Line editing
  // redraws the line after a completion, prompt included: a new prompt is
  // one after a line end.)
  tty.Type("count 'tty',\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute*> ", &screen)) << screen;
  tty.Type("{INTERVAL => 5}\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;

  tty.Type("exit\r");
  EXPECT_EQ(tty.Wait(), 0);
  // The history keeps what was typed.
  std::ifstream history(home.path() + "/.bloomroute_history");
  std::stringstream kept;
  kept << history.rdbuf();
  EXPECT_THAT(kept.str(), HasSubstr("deleteall"));
  EXPECT_THAT(kept.str(), HasSubstr("is_enabled"));
}

// Ctrl-C at the prompt ends the shell as a signal does; what was typed
// before is in the history.
TEST_F(ShellCommandTest, CtrlCAtThePromptKeepsTheHistory) {
  TempDir home;
  Terminal tty({"shell", "--router", Router()}, home.path());
  ASSERT_TRUE(tty.started());
  std::string screen;
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  tty.Type("exists 'ctrl_c'\r");
  ASSERT_TRUE(tty.ReadUntil("\nbloomroute> ", &screen)) << screen;
  tty.Type("\x03");
  EXPECT_EQ(tty.Wait(), 128 + SIGINT);
  std::ifstream history(home.path() + "/.bloomroute_history");
  std::stringstream kept;
  kept << history.rdbuf();
  // libedit's history file escapes blanks.
  EXPECT_THAT(kept.str(), HasSubstr("exists\\040'ctrl_c'"));
}

}  // namespace
}  // namespace bloomroute::testing
