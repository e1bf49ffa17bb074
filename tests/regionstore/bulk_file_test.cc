#include "regionstore/bulk_file.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "tests/regionstore/bulk_file_v2_fixture.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::TempDir;

class BulkFileWriterTest : public ::testing::Test {
 protected:
  std::unique_ptr<BulkFileWriter> Create() {
    auto w = BulkFileWriter::Create(path_);
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? std::move(*w) : nullptr;
  }

  TempDir dir_;
  const std::string path_ = dir_.path() + "/rows.sst";
};

TEST_F(BulkFileWriterTest, RowsComeBackInOrderWithSortedCells) {
  auto w = Create();
  ASSERT_TRUE(
      w->Add("a", {{"d:z", "1", 5}, {"d:b", "2", 0}, {"e:", "", 7}}).ok());
  ASSERT_TRUE(w->Add("b", {{"d:x", std::string("\0\xff", 2), 9}}).ok());
  EXPECT_EQ(w->rows(), 2u);
  EXPECT_GT(w->EstimatedBytes(), 0u);
  ASSERT_TRUE(w->Finish().ok());

  auto rows = ReadBulkFile(path_, BulkFileLimits());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0],
            (Row{"a", {{"d:b", "2", 0}, {"d:z", "1", 5}, {"e:", "", 7}}}));
  EXPECT_EQ((*rows)[1], (Row{"b", {{"d:x", std::string("\0\xff", 2), 9}}}));
}

// FinishAndRead gives the file's bytes as written (what an import sends
// without reading the file again).
TEST_F(BulkFileWriterTest, FinishAndReadGivesTheWholeFile) {
  auto w = Create();
  ASSERT_TRUE(w->Add("a", {{"d:a", std::string(100000, 'x'), 1}}).ok());
  ASSERT_TRUE(w->Add("b", {{"d:a", "2", 1}}).ok());
  std::string bytes;
  ASSERT_TRUE(w->FinishAndRead(&bytes).ok());
  std::ifstream in(path_, std::ios::binary);
  const std::string file((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, file);
  EXPECT_GT(bytes.size(), 100000u);
  EXPECT_EQ(bytes.substr(bytes.size() - 8), "BRBULKFT");
  std::string again;
  EXPECT_TRUE(w->FinishAndRead(&again).IsInvalidArgument());
  auto rows = ReadBulkFile(path_, BulkFileLimits());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 2u);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST_F(BulkFileWriterTest, CellsWithoutATimestampGetTheWritersClock) {
  const int64_t before = NowMs();
  auto w = Create();
  const int64_t after = NowMs();
  ASSERT_TRUE(w->Add("a", {{"d:a", "1"}, {"d:b", "2", 3}}).ok());
  ASSERT_TRUE(w->Add("b", {{"d:a", "1"}}).ok());
  EXPECT_TRUE(w->Add("c", {{"d:a", "1", -1}}).IsInvalidArgument());
  ASSERT_TRUE(w->Finish().ok());
  auto rows = ReadBulkFile(path_, BulkFileLimits());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  const int64_t stamped = (*rows)[0].cells[0].timestamp;
  EXPECT_GE(stamped, before);
  EXPECT_LE(stamped, after);
  EXPECT_EQ((*rows)[0].cells[1].timestamp, 3);
  EXPECT_EQ((*rows)[1].cells[0].timestamp, stamped) << "one reading a file";
}

TEST_F(BulkFileWriterTest, AVersion2FileLoadsWithNowForItsCells) {
  {
    std::ofstream out(path_, std::ios::binary);
    out << testing::Version2File();
  }
  auto rows = ReadBulkFile(path_, BulkFileLimits());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(*rows, (std::vector<Row>{
                       Row{"a",
                           {{"d:country", "NO", kLatestTimestamp},
                            {"d:name", "x", kLatestTimestamp}}},
                       Row{"b", {{"d:country", "SE", kLatestTimestamp}}}}));
}

TEST_F(BulkFileWriterTest, BadRowsAreRefusedAndTheFileStaysUsable) {
  auto w = Create();
  ASSERT_TRUE(w->Add("m", {{"d:a", "1"}}).ok());
  EXPECT_TRUE(w->Add("m", {{"d:a", "1"}}).IsInvalidArgument());  // repeated
  EXPECT_TRUE(w->Add("c", {{"d:a", "1"}}).IsInvalidArgument());  // backwards
  EXPECT_TRUE(w->Add("", {{"d:a", "1"}}).IsInvalidArgument());
  EXPECT_TRUE(w->Add(std::string(kMaxRowKeyBytes + 1, 'z'), {{"d:a", "1"}})
                  .IsInvalidArgument());
  EXPECT_TRUE(w->Add("n", {}).IsInvalidArgument());
  EXPECT_TRUE(w->Add("n", {{"nofamily", "1"}}).IsInvalidArgument());
  EXPECT_TRUE(w->Add("n", {{"d:a", "1"}, {"d:a", "2"}}).IsInvalidArgument());
  ASSERT_TRUE(w->Add("n", {{"d:a", "2"}}).ok());
  EXPECT_EQ(w->rows(), 2u);
  ASSERT_TRUE(w->Finish().ok());
  EXPECT_TRUE(w->Add("z", {{"d:a", "1"}}).IsInvalidArgument());  // finished
  auto rows = ReadBulkFile(path_, BulkFileLimits());
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 2u);
}

TEST_F(BulkFileWriterTest, AnEmptyFileIsNotABulkFile) {
  auto w = Create();
  EXPECT_TRUE(w->Finish().IsInvalidArgument());
  EXPECT_FALSE(ReadBulkFile(path_, BulkFileLimits()).ok());
}

TEST_F(BulkFileWriterTest, TheReaderEnforcesLimitsAndChecksums) {
  auto w = Create();
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(
        w->Add("k" + std::to_string(1000 + i), {{"d:v", std::string(50, 'x')}})
            .ok());
  }
  ASSERT_TRUE(w->Finish().ok());
  const uint64_t size = std::filesystem::file_size(path_);

  EXPECT_TRUE(ReadBulkFile(path_, BulkFileLimits{999, 1 << 30})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(ReadBulkFile(path_, BulkFileLimits{1000, size - 1})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(ReadBulkFile(path_, BulkFileLimits{1000, size}).ok());

  {  // One flipped bit in the first data block.
    std::fstream f(path_, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(100);
    char c = 0;
    f.read(&c, 1);
    c ^= 1;
    f.seekp(100);
    f.write(&c, 1);
  }
  auto rows = ReadBulkFile(path_, BulkFileLimits());
  EXPECT_TRUE(rows.status().IsCorruption()) << rows.status().ToString();

  EXPECT_TRUE(ReadBulkFile(dir_.path() + "/missing.sst", BulkFileLimits())
                  .status()
                  .IsIOError());
}

TEST_F(BulkFileWriterTest, CreateFailsInAMissingDirectory) {
  EXPECT_FALSE(BulkFileWriter::Create(dir_.path() + "/no/such/f.sst").ok());
}

}  // namespace
}  // namespace bloomroute
