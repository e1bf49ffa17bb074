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

class ConfigFileTest : public ::testing::Test {
 protected:
  ConfigFileTest() {
    options_.add_options()                                           //
        ("data", po::value<std::string>(), "")                       //
        ("threads", po::value<int>()->default_value(16), "")         //
        ("ratio", po::value<double>()->default_value(0.05), "")      //
        ("insecure", po::bool_switch(), "")                          //
        ("regionserver", po::value<std::vector<std::string>>(), "")  //
        ("config", po::value<std::string>(), "")                     //
        ("unset", po::value<std::string>(), "");
  }
  ~ConfigFileTest() override {
    std::remove(path_.c_str());
    rmdir(dir_.c_str());
  }

  // Parses `args`, then the file holding `text`.
  Status Load(const std::vector<std::string>& args, const std::string& text) {
    std::ofstream(path_) << text;
    po::store(po::command_line_parser(args).options(options_).run(), vm_);
    return StoreConfigFile(path_, options_, &vm_);
  }

  // A directory of the test's own: ctest runs the tests of this fixture in
  // parallel processes, which must not share one file.
  const std::string dir_ = [] {
    std::string pattern = ::testing::TempDir() + "/config_file_test.XXXXXX";
    return std::string(mkdtemp(pattern.data()));
  }();
  const std::string path_ = dir_ + "/config_file_test.conf";
  po::options_description options_;
  po::variables_map vm_;
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
  po::notify(vm_);
  EXPECT_EQ(vm_["data"].as<std::string>(), "/srv/router");
  EXPECT_EQ(vm_["threads"].as<int>(), 3);
  EXPECT_EQ(vm_["ratio"].as<double>(), 0.25);
  EXPECT_TRUE(vm_["insecure"].as<bool>());
  EXPECT_EQ(vm_["regionserver"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"a:1", "b:2"}));

  std::ostringstream out;
  ASSERT_TRUE(PrintConfig("router", options_, vm_, out).ok());
  EXPECT_EQ(out.str(),
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
  po::variables_map again;
  std::ofstream(path_) << out.str();
  ASSERT_TRUE(StoreConfigFile(path_, options_, &again).ok());
  std::ostringstream twice;
  ASSERT_TRUE(PrintConfig("router", options_, again, twice).ok());
  EXPECT_EQ(twice.str(), out.str());
}

TEST_F(ConfigFileTest, BadFilesAreRefusedNamingTheFile) {
  Status s = Load({}, "nope = 1\n");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("config_file_test.conf: unrecognised "
                                     "option 'nope'"));
  vm_.clear();
  s = Load({}, "threads = many\n");
  EXPECT_THAT(s.message(), HasSubstr("threads"));
  vm_.clear();
  s = Load({}, "config = other.conf\n");
  EXPECT_THAT(s.message(), HasSubstr("config is given on the command line"));
  vm_.clear();
  s = Load({}, std::string(kMaxConfigFileBytes + 1, '#'));
  EXPECT_THAT(s.message(), HasSubstr("larger than 1048576 bytes"));
  po::variables_map vm;
  s = StoreConfigFile("/nonexistent/bloomroute.conf", options_, &vm);
  EXPECT_THAT(s.message(), HasSubstr("cannot read it"));
}

TEST_F(ConfigFileTest, AValueTheFormatCannotHoldIsNotPrinted) {
  ASSERT_TRUE(Load({"--data", "/srv/a#b"}, "").ok());
  std::ostringstream out;
  Status s = PrintConfig("router", options_, vm_, out);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.message(), HasSubstr("the value of data cannot be written"));
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
