#include "tools/import/import_input.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/tools/import/scoped_tmpdir.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

// Every record's first field, from a reader of `input`.
std::vector<std::string> Keys(ImportInput* input) {
  std::vector<std::string> keys;
  auto reader = input->OpenReader({InputFormat::kCsv});
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return keys;
  Record r;
  while (true) {
    StatusOr<bool> more = (*reader)->Next(&r);
    EXPECT_TRUE(more.ok());
    if (!more.ok() || !*more) break;
    keys.push_back(r.fields.empty() ? "" : r.fields[0]);
  }
  return keys;
}

class ImportInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(tmp_.ok());
    dir_ = tmp_.path();
    for (int i = 0; i < 5000; ++i) {
      text_ += "k" + std::to_string(i) + ",value\n";
      keys_.push_back("k" + std::to_string(i));
    }
  }

  // A FIFO that a thread fills with text_ (like `cat file |`).
  std::string Fifo() {
    const std::string path = dir_ + "/fifo";
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    writer_ = std::thread(
        [this, path] { std::ofstream(path, std::ios::binary) << text_; });
    return path;
  }
  size_t TempFiles() const {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp_.tmpdir())) {
      (void)e;
      ++n;
    }
    return n;
  }

  // Spooled copies go to TMPDIR: a directory of the test's own (dir_/tmp),
  // so that it can tell that they are removed.
  testing::ScopedTmpdir tmp_{"import-input", "tmp"};
  std::string dir_;
  std::string text_;
  std::vector<std::string> keys_;
  std::thread writer_;
};

TEST_F(ImportInputTest, RegularFileIsReadTwiceWithoutACopy) {
  const std::string path = dir_ + "/plain.csv";
  std::ofstream(path, std::ios::binary) << text_;
  auto input = ImportInput::Open(path, 2, 1 << 20);
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_FALSE((*input)->spooled());
  EXPECT_EQ((*input)->size(), text_.size());
  EXPECT_EQ(Keys(input->get()), keys_);
  EXPECT_EQ(Keys(input->get()), keys_);
  EXPECT_FALSE((*input)->OpenReader({}).ok());  // a third pass was not asked
}

TEST_F(ImportInputTest, PipeReadTwiceIsCopiedAndTheCopyRemoved) {
  {
    auto input = ImportInput::Open(Fifo(), 2, 1 << 20);
    writer_.join();
    ASSERT_TRUE(input.ok()) << input.status().ToString();
    EXPECT_TRUE((*input)->spooled());
    EXPECT_EQ((*input)->size(), text_.size());
    EXPECT_EQ(TempFiles(), 1u);
    EXPECT_EQ(Keys(input->get()), keys_);  // the sampling pass
    EXPECT_EQ(Keys(input->get()), keys_);  // the import: every row again
  }
  EXPECT_EQ(TempFiles(), 0u);
}

TEST_F(ImportInputTest, PipeReadOnceIsNotCopied) {
  auto input = ImportInput::Open(Fifo(), 1, 1 << 20);
  ASSERT_TRUE(input.ok()) << input.status().ToString();
  EXPECT_FALSE((*input)->spooled());
  EXPECT_EQ(Keys(input->get()), keys_);
  writer_.join();
  EXPECT_EQ(TempFiles(), 0u);
}

TEST_F(ImportInputTest, CopyOverTheLimitFailsNamingItAndIsRemoved) {
  // The copy stops reading: the writer then fails with EPIPE, not a signal.
  signal(SIGPIPE, SIG_IGN);
  auto input = ImportInput::Open(Fifo(), 2, 1000);
  writer_.join();
  ASSERT_FALSE(input.ok());
  EXPECT_TRUE(input.status().IsInvalidArgument());
  EXPECT_THAT(input.status().message(), HasSubstr("--max-spool-bytes (1000"));
  EXPECT_EQ(TempFiles(), 0u);
}

TEST_F(ImportInputTest, MissingFileIsAnIOErrorNamingIt) {
  auto input = ImportInput::Open(dir_ + "/missing.csv", 1, 1000);
  ASSERT_FALSE(input.ok());
  EXPECT_TRUE(input.status().IsIOError());
  EXPECT_THAT(input.status().message(), HasSubstr("missing.csv"));
}

}  // namespace
}  // namespace bloomroute
