#include "tools/server_address_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ServerAddressFileTest : public ::testing::Test {
 protected:
  std::string Text() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  void SetText(const std::string& text) const {
    std::ofstream out(path_, std::ios::trunc);
    out << text;
  }

  testing::TempDir dir_;
  const std::string path_ = dir_.path() + "/regionserver-addresses";
};

TEST_F(ServerAddressFileTest, RoundTripsAndOverwrites) {
  EXPECT_TRUE(ReadServerAddresses(path_).status().IsNotFound());
  ASSERT_TRUE(
      WriteServerAddresses(path_, {"127.0.0.1:4001", "127.0.0.1:4002"}).ok());
  auto read = ReadServerAddresses(path_);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_THAT(*read, ElementsAre("127.0.0.1:4001", "127.0.0.1:4002"));
  EXPECT_THAT(Text(), HasSubstr("bloomroute region server addresses v1\n"
                                "127.0.0.1:4001\n127.0.0.1:4002\nchecksum "));

  ASSERT_TRUE(WriteServerAddresses(
                  path_, {"127.0.0.1:4001", "127.0.0.1:4002", "[::1]:4003"})
                  .ok());
  read = ReadServerAddresses(path_);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read->size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp"));

  ASSERT_TRUE(WriteServerAddresses(path_, {}).ok());
  read = ReadServerAddresses(path_);
  ASSERT_TRUE(read.ok());
  EXPECT_TRUE(read->empty());
}

TEST_F(ServerAddressFileTest, RefusesToWriteWhatIsNotAnAddress) {
  EXPECT_TRUE(WriteServerAddresses(path_, {"127.0.0.1"}).IsInvalidArgument());
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(ServerAddressFileTest, DamageIsCorruptionNamingTheFile) {
  ASSERT_TRUE(WriteServerAddresses(path_, {"127.0.0.1:4001"}).ok());
  const std::string good = Text();
  std::string edited = good;
  edited.replace(edited.find("4001"), 4, "4002");  // checksum no longer fits
  const std::vector<std::string> damaged = {
      "",
      edited,
      good.substr(0, good.size() - 3),           // cut short
      good.substr(0, good.find("checksum")),     // no checksum line
      "bloomroute region server addresses v2\n"  // another version
      "checksum 0000000000000000\n",
  };
  for (const std::string& text : damaged) {
    SCOPED_TRACE(text);
    SetText(text);
    const auto read = ReadServerAddresses(path_);
    EXPECT_TRUE(read.status().IsCorruption()) << read.status().ToString();
    EXPECT_THAT(read.status().message(), HasSubstr(path_));
  }
}

}  // namespace
}  // namespace bloomroute
