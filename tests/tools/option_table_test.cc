#include "tools/option_table.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

namespace po = boost::program_options;
using ::testing::HasSubstr;

// A command's fields, as the rows set them.
struct Fields {
  uint32_t threads = 0;
  int timeout_ms = 0;
  uint64_t split_bytes = 0;
  uint64_t frame = 0;
  uint64_t pool = 0;
  double ratio = 0;
  std::string mode;
  std::string name;
  std::vector<std::string> peers;
  bool sync = false;
};

class OptionTableTest : public ::testing::Test {
 protected:
  OptionTableTest() {
    table_.Integer("threads", &f_.threads, 16, "worker threads").Range(1, 1024);
    table_.Integer("timeout", &f_.timeout_ms, 30, "seconds to wait for a reply")
        .Unit(OptionUnit::kSeconds)
        .Scale(1000)
        .Range(1, 86400);
    table_.Integer("split-bytes", &f_.split_bytes, 1 << 30, "split past this")
        .Unit(OptionUnit::kBytes)
        .Range(1 << 20, IntegerOption::kNoUpperBound)
        .OrZero();
    table_.Integer("frame", &f_.frame, 1 << 20, "largest frame")
        .Range(1024, 1 << 30);
    table_.Integer("pool", &f_.pool, 1 << 30, "frames held together")
        .AtLeastOption("frame")
        .Range(1, int64_t{1} << 40);
    table_.Double("ratio", &f_.ratio, 0.8, "r of the filters")
        .Range(0, 1)
        .OpenLow()
        .OpenHigh();
    table_.String("mode", &f_.mode, "what to do with a bad line")
        .Choices({"skip", "fail"})
        .Default("skip");
    table_.String("name", &f_.name, "the table").ValueName("NAME");
    table_.StringList("peer", &f_.peers, "a peer; repeat for each")
        .ValueName("HOST:PORT");
    table_.Switch("sync", &f_.sync, "fsync every write");
    table_.AddTo(&options_);
  }

  // Parses `args` and checks the table, as Command::Run does.
  Status Parse(const std::vector<std::string>& args) {
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(options_).run(), vm);
    po::notify(vm);
    return table_.Check();
  }
  // --help's text with each option on one line: Boost wraps the help
  // into continuation lines, indented deeper than an option's line.
  std::string Help() const {
    std::ostringstream out;
    out << options_;
    return std::regex_replace(out.str(), std::regex(" *\n {3,}"), " ");
  }

  Fields f_;
  OptionTable table_;
  po::options_description options_;
};

TEST_F(OptionTableTest, DefaultsReachTheFieldsScaled) {
  ASSERT_TRUE(Parse({}).ok());
  EXPECT_EQ(f_.threads, 16u);
  EXPECT_EQ(f_.timeout_ms, 30000);
  EXPECT_EQ(f_.split_bytes, uint64_t{1} << 30);
  EXPECT_EQ(f_.ratio, 0.8);
  EXPECT_EQ(f_.mode, "skip");
  EXPECT_EQ(f_.name, "");
  EXPECT_TRUE(f_.peers.empty());
  EXPECT_FALSE(f_.sync);
}

TEST_F(OptionTableTest, GivenValuesReachTheFields) {
  ASSERT_TRUE(Parse({"--threads", "3", "--timeout", "2", "--split-bytes", "0",
                     "--ratio", "0.5", "--mode", "fail", "--name", "t",
                     "--peer", "a:1", "--peer", "b:2", "--sync"})
                  .ok());
  EXPECT_EQ(f_.threads, 3u);
  EXPECT_EQ(f_.timeout_ms, 2000);
  EXPECT_EQ(f_.split_bytes, 0u);  // 0 is accepted: OrZero
  EXPECT_EQ(f_.ratio, 0.5);
  EXPECT_EQ(f_.mode, "fail");
  EXPECT_EQ(f_.name, "t");
  EXPECT_EQ(f_.peers, (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_TRUE(f_.sync);
}

// The message names the flag and its bounds in --help's words; a negative
// number is out of bounds, not a wrap.
TEST_F(OptionTableTest, OutOfBoundsNamesTheFlagAndItsBounds) {
  EXPECT_EQ(Parse({"--threads", "0"}).message(),
            "--threads must be in [1, 1024], not 0");
  EXPECT_EQ(Parse({"--threads=-1"}).message(),
            "--threads must be in [1, 1024], not -1");
  EXPECT_EQ(Parse({"--timeout", "86401"}).message(),
            "--timeout must be in [1, 86400], not 86401");
  EXPECT_EQ(Parse({"--split-bytes", "5"}).message(),
            "--split-bytes must be 0 or at least 1048576, not 5");
  EXPECT_EQ(Parse({"--ratio", "1"}).message(),
            "--ratio must be in (0, 1), not 1");
  EXPECT_EQ(Parse({"--ratio", "nan"}).message(),
            "--ratio must be in (0, 1), not nan");
  EXPECT_EQ(Parse({"--mode", "maybe"}).message(),
            "--mode must be skip or fail, not maybe");
}

// A bound that is another option's value: that option's value as given.
TEST_F(OptionTableTest, ABoundMayBeAnotherOption) {
  EXPECT_EQ(Parse({"--frame", "4096", "--pool", "4095"}).message(),
            "--pool must be in [4096, 1099511627776], not 4095");
  EXPECT_TRUE(Parse({"--frame", "4096", "--pool", "4096"}).ok());
  EXPECT_EQ(f_.pool, 4096u);
  // The bounding option is checked first, even when declared later.
  OptionTable table;
  uint64_t row = 0;
  uint64_t frame = 0;
  table.Integer("frame", &frame, 2048, "").AtLeastOption("row", 1024);
  table.Integer("row", &row, 5, "").Range(1, 100);
  po::options_description options;
  table.AddTo(&options);
  po::variables_map vm;
  po::store(po::command_line_parser(std::vector<std::string>{"--row", "101"})
                .options(options)
                .run(),
            vm);
  po::notify(vm);
  EXPECT_EQ(table.Check().message(), "--row must be in [1, 100], not 101");
}

// --help shows the unit as the value name and ends each help with the
// bounds and the default, in the words of the messages.
TEST_F(OptionTableTest, HelpStatesBoundsAndDefaultInTheSameWords) {
  const std::string help = Help();
  EXPECT_THAT(help, HasSubstr("--threads N"));
  EXPECT_THAT(help, HasSubstr("worker threads (in [1, 1024], default 16)"));
  EXPECT_THAT(help, HasSubstr("--timeout SECONDS"));
  EXPECT_THAT(help, HasSubstr("(in [1, 86400], default 30)"));
  EXPECT_THAT(help, HasSubstr("--split-bytes BYTES"));
  EXPECT_THAT(help, HasSubstr("(0 or at least 1048576, default 1073741824)"));
  EXPECT_THAT(help, HasSubstr("(in [--frame, 1099511627776], default"));
  EXPECT_THAT(help, HasSubstr("r of the filters (in (0, 1), default 0.8)"));
  EXPECT_THAT(help, HasSubstr("(skip or fail, default skip)"));
  EXPECT_THAT(help, HasSubstr("--name NAME"));
  EXPECT_THAT(help, HasSubstr("--peer HOST:PORT"));
  EXPECT_THAT(help, HasSubstr("fsync every write\n"));
  EXPECT_THAT(help, ::testing::Not(HasSubstr("(=")));
}

// What --print-config writes: each row's value as parsed, none for a row
// without one.
TEST_F(OptionTableTest, ValueTextsAreWhatWasParsed) {
  ASSERT_TRUE(Parse({"--ratio", "0.1", "--peer", "a:1", "--peer", "b:2"}).ok());
  EXPECT_EQ(table_.Find("threads")->ValueTexts(),
            std::vector<std::string>{"16"});
  EXPECT_EQ(table_.Find("timeout")->ValueTexts(),
            std::vector<std::string>{"30"});  // the flag's unit, not ms
  EXPECT_EQ(table_.Find("ratio")->ValueTexts(),
            std::vector<std::string>{"0.1"});
  EXPECT_EQ(table_.Find("peer")->ValueTexts(),
            (std::vector<std::string>{"a:1", "b:2"}));
  EXPECT_EQ(table_.Find("sync")->ValueTexts(),
            std::vector<std::string>{"false"});
  EXPECT_FALSE(table_.Find("name")->has_value());
  EXPECT_TRUE(table_.Find("name")->ValueTexts().empty());
  EXPECT_EQ(table_.Find("nope"), nullptr);
}

// A bound its field cannot hold is a programming error, caught at once.
TEST(OptionTableDeclarationTest, BoundsMustFitTheField) {
  OptionTable table;
  uint32_t small = 0;
  table.Integer("small", &small, 1, "").Range(1, int64_t{1} << 32);
  po::options_description options;
  EXPECT_THROW(table.AddTo(&options), std::logic_error);
  OptionTable scaled;
  int ms = 0;
  scaled.Integer("seconds", &ms, 1, "").Scale(1000).Range(1, 3000000);
  po::options_description more;
  EXPECT_THROW(scaled.AddTo(&more), std::logic_error);
}

}  // namespace
}  // namespace bloomroute
