#include "common/log.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute {
namespace {

using std::chrono::milliseconds;
using TimePoint = std::chrono::steady_clock::time_point;

class LogRateLimiterTest : public ::testing::Test {
 protected:
  LogRateLimiter::Clock clock() {
    return [this] { return now_; };
  }
  void Advance(milliseconds d) { now_ += d; }

  TimePoint now_{};
};

TEST_F(LogRateLimiterTest, AdmitsOneEventPerKeyAndKindPerInterval) {
  LogRateLimiter limiter({milliseconds(10000), 16}, clock());
  ASSERT_TRUE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  Advance(milliseconds(100));
  EXPECT_FALSE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  Advance(milliseconds(9899));
  EXPECT_FALSE(limiter.Admit("10.0.0.1:9092", "refused").has_value());
  // Another peer, or another kind of error, has its own line.
  EXPECT_TRUE(limiter.Admit("10.0.0.2:9092", "refused").has_value());
  EXPECT_TRUE(limiter.Admit("10.0.0.1:9092", "timed out").has_value());
}

TEST_F(LogRateLimiterTest, NextLineAfterTheIntervalCountsTheSuppressed) {
  LogRateLimiter limiter({milliseconds(10000), 16}, clock());
  std::optional<LogRateLimiter::Admitted> first = limiter.Admit("p", "k");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->suppressed, 0u);
  EXPECT_EQ(SuppressedSuffix(*first), "");
  for (int i = 0; i < 57; ++i) {
    Advance(milliseconds(100));
    EXPECT_FALSE(limiter.Admit("p", "k").has_value());
  }
  Advance(milliseconds(10000 - 5700));
  std::optional<LogRateLimiter::Admitted> next = limiter.Admit("p", "k");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->suppressed, 57u);
  EXPECT_EQ(next->since, milliseconds(10000));
  EXPECT_EQ(SuppressedSuffix(*next), " (and 57 more like it in the last 10 s)");
  // The count starts again from the line just admitted.
  Advance(milliseconds(10));
  EXPECT_FALSE(limiter.Admit("p", "k").has_value());
  Advance(milliseconds(20000));
  next = limiter.Admit("p", "k");
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->suppressed, 1u);
  EXPECT_EQ(SuppressedSuffix(*next), " (and 1 more like it in the last 20 s)");
}

TEST_F(LogRateLimiterTest, ShortIntervalsAreSaidInMilliseconds) {
  EXPECT_EQ(SuppressedSuffix({3, milliseconds(250)}),
            " (and 3 more like it in the last 250 ms)");
  EXPECT_EQ(SuppressedSuffix({3, milliseconds(9999)}),
            " (and 3 more like it in the last 9999 ms)");
}

TEST_F(LogRateLimiterTest, ForgetsTheOldestPairPastTheCap) {
  LogRateLimiter limiter({milliseconds(10000), 2}, clock());
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());
  Advance(milliseconds(1));
  ASSERT_TRUE(limiter.Admit("b", "k").has_value());
  Advance(milliseconds(1));
  EXPECT_FALSE(limiter.Admit("a", "k").has_value());
  // A third pair evicts "a", admitted longest ago; "b" is still tracked.
  ASSERT_TRUE(limiter.Admit("c", "k").has_value());
  EXPECT_TRUE(limiter.Admit("a", "k").has_value());
  // ... and "a"'s return evicted "b".
  EXPECT_FALSE(limiter.Admit("c", "k").has_value());
  EXPECT_TRUE(limiter.Admit("b", "k").has_value());
}

TEST_F(LogRateLimiterTest, ReadmittedPairBecomesTheYoungest) {
  LogRateLimiter limiter({milliseconds(10), 2}, clock());
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());
  Advance(milliseconds(1));
  ASSERT_TRUE(limiter.Admit("b", "k").has_value());
  Advance(milliseconds(20));
  ASSERT_TRUE(limiter.Admit("a", "k").has_value());  // again: now youngest
  ASSERT_TRUE(limiter.Admit("c", "k").has_value());  // evicts "b"
  EXPECT_FALSE(limiter.Admit("a", "k").has_value());
}

// A line as Log writes it: the time, then what the pattern says.
std::regex LineRegex(const std::string& rest) {
  return std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )" + rest);
}

class LogTest : public ::testing::Test {
 protected:
  LogTest() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "bloomroute-log-test-XXXXXX")
            .string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~LogTest() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  void TearDown() override {
    SetMinLogLevel(LogLevel::kInfo);
    EXPECT_TRUE(SetLogFile("").ok());
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  static std::vector<std::string> Lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  static std::string Text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::string dir_;
};

TEST_F(LogTest, WritesOneLineWithTimeLevelComponentAndMessage) {
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "thrift", "peer gone\nreally");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(std::regex_match(
      err, std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z )"
                      R"(WARN thrift: peer gone really\n)")))
      << err;
}

TEST_F(LogTest, DropsLinesBelowTheMinimumLevel) {
  EXPECT_FALSE(LogEnabled(LogLevel::kDebug));  // the default is kInfo
  EXPECT_TRUE(LogEnabled(LogLevel::kInfo));
  SetMinLogLevel(LogLevel::kError);
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "thrift", "not shown");
  Log(LogLevel::kError, "thrift", "shown");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err.find("not shown"), std::string::npos) << err;
  EXPECT_NE(err.find("ERROR thrift: shown"), std::string::npos) << err;
}

TEST_F(LogTest, ParsesLevelsInAnyCase) {
  EXPECT_EQ(*ParseLogLevel("debug"), LogLevel::kDebug);
  EXPECT_EQ(*ParseLogLevel("INFO"), LogLevel::kInfo);
  EXPECT_EQ(*ParseLogLevel("Warn"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("warning"), LogLevel::kWarn);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kError);
  for (const char* bad : {"", "verbose", "infos", "fatal"}) {
    StatusOr<LogLevel> level = ParseLogLevel(bad);
    ASSERT_FALSE(level.ok()) << bad;
    EXPECT_TRUE(level.status().IsInvalidArgument());
    EXPECT_EQ(level.status().message(),
              std::string("unknown log level '") + bad +
                  "': give debug, info, warn or error");
  }
}

TEST_F(LogTest, SetLogFileAppendsLinesInTheFormatToTheFile) {
  std::ofstream(Path("bloomroute.log")) << "an earlier run\n";
  ASSERT_TRUE(SetLogFile(Path("bloomroute.log")).ok());
  EXPECT_TRUE(LoggingToFile());
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kWarn, "router", "region server 3 did not answer");
  Log(LogLevel::kInfo, "regionserver", "two\nlines");
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  // Written at once: readable before anything is closed or flushed.
  const std::vector<std::string> lines = Lines(Path("bloomroute.log"));
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "an earlier run");
  EXPECT_TRUE(std::regex_match(
      lines[1], LineRegex("WARN router: region server 3 did not answer")))
      << lines[1];
  EXPECT_TRUE(
      std::regex_match(lines[2], LineRegex("INFO regionserver: two lines")))
      << lines[2];

  // Back to stderr.
  ASSERT_TRUE(SetLogFile("").ok());
  EXPECT_FALSE(LoggingToFile());
  ::testing::internal::CaptureStderr();
  Log(LogLevel::kInfo, "router", "on stderr");
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("INFO router: on "
                                                          "stderr"),
            std::string::npos);
  EXPECT_EQ(Lines(Path("bloomroute.log")).size(), 3u);
}

TEST_F(LogTest, TheFileGetsOnlyLinesAtTheMinimumLevelOrAbove) {
  ASSERT_TRUE(SetLogFile(Path("bloomroute.log")).ok());
  SetMinLogLevel(LogLevel::kWarn);
  Log(LogLevel::kDebug, "router", "debug line");
  Log(LogLevel::kInfo, "router", "info line");
  Log(LogLevel::kWarn, "router", "warn line");
  Log(LogLevel::kError, "router", "error line");
  SetMinLogLevel(LogLevel::kDebug);
  Log(LogLevel::kDebug, "router", "debug again");
  const std::vector<std::string> lines = Lines(Path("bloomroute.log"));
  ASSERT_EQ(lines.size(), 3u) << Text(Path("bloomroute.log"));
  EXPECT_TRUE(std::regex_match(lines[0], LineRegex("WARN router: warn line")));
  EXPECT_TRUE(
      std::regex_match(lines[1], LineRegex("ERROR router: error line")));
  EXPECT_TRUE(
      std::regex_match(lines[2], LineRegex("DEBUG router: debug again")));
}

// logrotate's "create": rename the file, then SIGHUP (ReopenLogFile).
TEST_F(LogTest, AfterARenameReopenWritesANewFileAtThePath) {
  const std::string log = Path("router.log");
  ASSERT_TRUE(SetLogFile(log).ok());
  Log(LogLevel::kInfo, "router", "before the rotation");
  std::filesystem::rename(log, log + ".1");
  Log(LogLevel::kInfo, "router", "renamed, not yet reopened");
  ASSERT_TRUE(ReopenLogFile().ok());
  Log(LogLevel::kInfo, "router", "after the rotation");

  const std::vector<std::string> old_lines = Lines(log + ".1");
  ASSERT_EQ(old_lines.size(), 2u) << Text(log + ".1");
  EXPECT_NE(old_lines[0].find("before the rotation"), std::string::npos);
  EXPECT_NE(old_lines[1].find("renamed, not yet reopened"), std::string::npos);
  const std::vector<std::string> new_lines = Lines(log);
  ASSERT_EQ(new_lines.size(), 2u) << Text(log);
  EXPECT_TRUE(std::regex_match(
      new_lines[0], LineRegex("INFO log: reopened the log file " + log)))
      << new_lines[0];
  EXPECT_NE(new_lines[1].find("INFO router: after the rotation"),
            std::string::npos);
}

TEST_F(LogTest, AReopenThatFailsKeepsWritingToTheOpenFile) {
  const std::string log = Path("router.log");
  ASSERT_TRUE(SetLogFile(log).ok());
  std::filesystem::rename(log, log + ".1");
  // A directory where the file was: no file can be opened at the path (a
  // permission would not stop a test run as root).
  std::filesystem::create_directory(log);
  const Status reopened = ReopenLogFile();
  EXPECT_TRUE(reopened.IsIOError()) << reopened.ToString();
  EXPECT_EQ(reopened.message(),
            "cannot open the log file " + log + ": Is a directory");
  Log(LogLevel::kInfo, "router", "still logging");

  const std::vector<std::string> lines = Lines(log + ".1");
  ASSERT_EQ(lines.size(), 2u) << Text(log + ".1");
  EXPECT_TRUE(std::regex_match(
      lines[0], LineRegex("ERROR log: cannot open the log file " + log +
                          ": Is a directory; still writing to the file "
                          "opened before")))
      << lines[0];
  EXPECT_NE(lines[1].find("INFO router: still logging"), std::string::npos);
  EXPECT_TRUE(LoggingToFile());
}

TEST_F(LogTest, AFileThatCannotBeOpenedChangesNothing) {
  const Status set = SetLogFile(Path("missing-dir/router.log"));
  EXPECT_TRUE(set.IsIOError());
  EXPECT_EQ(set.message(), "cannot open the log file " +
                               Path("missing-dir/router.log") +
                               ": No such file or directory");
  EXPECT_FALSE(LoggingToFile());
  // On stderr, reopening has nothing to do.
  ::testing::internal::CaptureStderr();
  EXPECT_TRUE(ReopenLogFile().ok());
  Log(LogLevel::kInfo, "router", "still on stderr");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(
      std::regex_match(err, LineRegex("INFO router: still on stderr\n")))
      << err;
}

// Threads log while the file is rotated again and again: every line lands
// whole in one of the files, none is lost, none is torn.
TEST_F(LogTest, LinesStayWholeAcrossReopens) {
  const std::string log = Path("router.log");
  ASSERT_TRUE(SetLogFile(log).ok());
  constexpr int kThreads = 4;
  constexpr int kLinesEach = 500;
  constexpr int kRotations = 10;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < kLinesEach; ++i) {
        Log(LogLevel::kInfo, "t" + std::to_string(t),
            "line " + std::to_string(i) + std::string(100, 'x'));
      }
    });
  }
  for (int r = 1; r <= kRotations; ++r) {
    std::filesystem::rename(log, log + "." + std::to_string(r));
    ASSERT_TRUE(ReopenLogFile().ok());
  }
  for (std::thread& t : threads) t.join();

  const std::regex line_regex = LineRegex(
      "(INFO t[0-3]: line \\d+x{100}|INFO log: reopened the log file .*)");
  int logged = 0;
  int reopened = 0;
  for (int r = 0; r <= kRotations; ++r) {
    const std::string file = r == 0 ? log : log + "." + std::to_string(r);
    for (const std::string& line : Lines(file)) {
      EXPECT_TRUE(std::regex_match(line, line_regex)) << file << ": " << line;
      (line.find(" log: ") != std::string::npos ? reopened : logged) += 1;
    }
  }
  EXPECT_EQ(logged, kThreads * kLinesEach);
  EXPECT_EQ(reopened, kRotations);
}

}  // namespace
}  // namespace bloomroute
