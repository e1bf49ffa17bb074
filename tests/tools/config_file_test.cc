#include "tools/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tools/local_command.h"
#include "tools/regionserver_command.h"
#include "tools/router_command.h"

namespace bloomroute {
namespace {

namespace po = boost::program_options;
using ::testing::HasSubstr;
using ::testing::Not;

// A command's options: a table of rows (the config file's keys) and
// --config, given on the command line only.
struct Settings {
  Settings() {
    table.String("data", &data, "");
    table.Integer("threads", &threads, 16, "").Range(1, 64);
    table.Double("ratio", &ratio, 0.05, "");
    table.Switch("insecure", &insecure, "");
    table.StringList("regionserver", &servers, "");
    table.String("unset", &unset, "");
    table.AddTo(&options);
    options.add_options()("config", po::value<std::string>(), "");
  }
  // Parses `args`, then the file `path`; notifies and checks the table.
  Status Load(const std::vector<std::string>& args, const std::string& path) {
    po::store(po::command_line_parser(args).options(options).run(), vm);
    BLOOMROUTE_RETURN_IF_ERROR(StoreConfigFile(path, options, table, &vm));
    po::notify(vm);
    return table.Check();
  }
  std::string Printed() {
    std::ostringstream out;
    const Status s = PrintConfig("router", table, out);
    return s.ok() ? out.str() : s.message();
  }

  std::string data;
  int threads = 0;
  double ratio = 0;
  bool insecure = false;
  std::vector<std::string> servers;
  std::string unset;
  OptionTable table;
  po::options_description options;
  po::variables_map vm;
};

class ConfigFileTest : public ::testing::Test {
 protected:
  ~ConfigFileTest() override {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }

  // Writes `text` into the test's file; its path.
  std::string Write(const std::string& text) {
    std::ofstream(path_) << text;
    return path_;
  }
  // Parses `args`, then the file holding `text`, into settings_.
  Status Load(const std::vector<std::string>& args, const std::string& text) {
    std::ofstream(path_) << text;
    return settings_.Load(args, path_);
  }

  // A directory of the test's own: ctest runs the tests of this fixture in
  // parallel processes, which must not share one file.
  const std::string dir_ = [] {
    std::string pattern = ::testing::TempDir() + "/config_file_test.XXXXXX";
    return std::string(mkdtemp(pattern.data()));
  }();
  const std::string path_ = dir_ + "/config_file_test.conf";
  Settings settings_;
};

TEST_F(ConfigFileTest, FlagsOverrideTheFileWhichOverridesDefaults) {
  ASSERT_TRUE(Load({"--threads", "3"},
                   "# a router\n"
                   "data = /srv/router\n"
                   "threads = 8\n"
                   "ratio = 0.25\n"
                   "insecure = true\n"
                   "regionserver = a:1\n"
                   "regionserver = b:2\n")
                  .ok());
  EXPECT_EQ(settings_.data, "/srv/router");
  EXPECT_EQ(settings_.threads, 3);
  EXPECT_EQ(settings_.ratio, 0.25);
  EXPECT_TRUE(settings_.insecure);
  EXPECT_EQ(settings_.servers, (std::vector<std::string>{"a:1", "b:2"}));

  const std::string printed = settings_.Printed();
  EXPECT_EQ(printed,
            "# bloomroute router: the effective configuration (flags, then "
            "--config, then defaults)\n"
            "data = /srv/router\n"
            "threads = 3\n"
            "ratio = 0.25\n"
            "insecure = true\n"
            "regionserver = a:1\n"
            "regionserver = b:2\n"
            "# unset =\n");
  // What it prints reads back as the same configuration.
  std::ofstream(path_) << printed;
  Settings again;
  ASSERT_TRUE(again.Load({}, path_).ok());
  EXPECT_EQ(again.Printed(), printed);
}

TEST_F(ConfigFileTest, BadFilesAreRefusedNamingTheFile) {
  Status s = Load({}, "nope = 1\n");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("config_file_test.conf: unrecognised "
                                     "option 'nope'"));
  s = Settings().Load({}, Write("threads = many\n"));
  EXPECT_THAT(s.message(), HasSubstr("threads"));
  s = Settings().Load({}, Write("config = x.conf\n"));
  EXPECT_THAT(s.message(), HasSubstr("config is given on the command line"));
  s = Settings().Load({}, Write(std::string(kMaxConfigFileBytes + 1, '#')));
  EXPECT_THAT(s.message(), HasSubstr("larger than 1048576 bytes"));
  s = Settings().Load({}, "/nonexistent/bloomroute.conf");
  EXPECT_THAT(s.message(), HasSubstr("cannot read it"));
}

// A value from the file is checked as the flag's: same bounds, same words.
TEST_F(ConfigFileTest, FileValuesAreCheckedAsFlagsAre) {
  const Status s = Load({}, "threads = 65\n");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "--threads must be in [1, 64], not 65");
}

TEST_F(ConfigFileTest, AValueTheFormatCannotHoldIsNotPrinted) {
  ASSERT_TRUE(Load({"--data", "/srv/a#b"}, "").ok());
  EXPECT_THAT(settings_.Printed(),
              HasSubstr("the value of data cannot be written"));
}

// Every option of every server command has a type --print-config writes,
// and the commands read --config.
TEST(ServerCommandsConfigTest, EveryOptionPrints) {
  const std::string dir = ::testing::TempDir();
  struct Case {
    std::unique_ptr<Command> command;
    std::vector<std::string> args;
  };
  std::vector<Case> cases;
  cases.push_back({std::make_unique<RouterCommand>(),
                   {"--data", dir + "/r", "--regionserver", "127.0.0.1:9091"}});
  cases.push_back(
      {std::make_unique<RegionServerCommand>(), {"--data", dir + "/rs"}});
  cases.push_back({std::make_unique<LocalCommand>(),
                   {"--data", dir + "/l", "--servers", "2"}});
  for (Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.push_back("--print-config");
    ::testing::internal::CaptureStdout();
    const int code = c.command->Run(args);
    const std::string printed = ::testing::internal::GetCapturedStdout();
    ASSERT_EQ(code, 0) << c.command->name();
    EXPECT_THAT(printed, HasSubstr("data = " + dir));
    EXPECT_THAT(printed, Not(HasSubstr("print-config")));
    EXPECT_THAT(printed, HasSubstr("\nlog-level = info\n# log-file =\n"));

    // Read back with --config, a flag still overriding it.
    const std::string file = dir + "/" + c.command->name() + ".conf";
    std::ofstream(file) << printed;
    ::testing::internal::CaptureStdout();
    ASSERT_EQ(c.command->Run({"--config", file, "--data", dir + "/other",
                              "--print-config"}),
              0);
    const std::string again = ::testing::internal::GetCapturedStdout();
    EXPECT_THAT(again, HasSubstr("data = " + dir + "/other\n"));
    EXPECT_EQ(again.substr(again.find("\n", again.find("data = "))),
              printed.substr(printed.find("\n", printed.find("data = "))))
        << c.command->name();
  }
}

// The log options as the other settings: from the file, a flag overriding.
TEST(ServerCommandsConfigTest, LogOptionsComeFromTheFile) {
  const std::string dir = ::testing::TempDir();
  const std::string file = dir + "/log-options.conf";
  std::ofstream(file) << "data = " << dir << "/rs\n"
                      << "log-level = warning\n"
                      << "log-file = " << dir << "/rs.log\n";
  RegionServerCommand command;
  ::testing::internal::CaptureStdout();
  ASSERT_EQ(
      command.Run({"--config", file, "--log-level", "error", "--print-config"}),
      0);
  const std::string printed = ::testing::internal::GetCapturedStdout();
  EXPECT_THAT(printed, HasSubstr("\nlog-level = error\nlog-file = " + dir +
                                 "/rs.log\n"));

  std::ofstream(file) << "data = " << dir << "/rs\nlog-level = loud\n";
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(command.Run({"--config", file, "--print-config"}),
            Command::kExitUsage);
  EXPECT_THAT(::testing::internal::GetCapturedStderr(),
              HasSubstr("--log-level: unknown log level 'loud'"));
}

}  // namespace
}  // namespace bloomroute
