// The bulk sink over a fake RouterClient: rows reach their regions' files
// sorted and merged as puts, files stay within their limits, failures stop
// the sink.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "regionstore/bulk_file.h"
#include "tests/tools/import/scoped_tmpdir.h"
#include "tests/tools/import/unused_router_client.h"
#include "tools/import/interrupt.h"
#include "tools/import/row_sink.h"

namespace bloomroute {
namespace {

using ::testing::ElementsAre;

// Two regions, [.., "m") (id 7) and ["m", ..) (id 8). BulkLoad decodes each
// file it is sent and keeps its rows, per region in the order loaded.
class FakeRouterClient : public testing::UnusedRouterClient {
 public:
  StatusOr<router::TableInfo> DescribeTable(std::string_view) override {
    router::TableInfo info;
    info.descriptor.name = "t";
    info.regions.resize(2);
    info.regions[0].region = RegionDescriptor{7, info.descriptor, "", "m"};
    info.regions[1].region = RegionDescriptor{8, info.descriptor, "m", ""};
    return info;
  }

  Status BulkLoad(std::string_view, uint64_t region_id,
                  const std::string& file) override {
    if (region_id == fail_region) return Status::IOError("server says no");
    if (interrupt_on_load) raise(SIGINT);
    const std::string path = std::filesystem::temp_directory_path() /
                             ("bulk-sink-test-" + std::to_string(getpid()) +
                              "-" + std::to_string(region_id) + ".sst");
    {
      std::ofstream out(path, std::ios::binary);
      out << file;
    }
    StatusOr<std::vector<Row>> rows = ReadBulkFile(path, BulkFileLimits());
    std::filesystem::remove(path);
    if (!rows.ok()) return rows.status();
    std::lock_guard<std::mutex> lock(mu);
    files[region_id].push_back(*rows);
    file_bytes[region_id].push_back(file.size());
    return Status::OK();
  }

  uint64_t fail_region = 0;
  bool interrupt_on_load = false;
  std::mutex mu;
  // Guarded by mu: per region, each file's rows and size, in load order.
  std::map<uint64_t, std::vector<std::vector<Row>>> files;
  std::map<uint64_t, std::vector<size_t>> file_bytes;
};

Mutation Put(const std::string& key, std::vector<Cell> cells) {
  return Mutation::Put(0, key, std::move(cells));
}

std::vector<std::string> Keys(const std::vector<Row>& rows) {
  std::vector<std::string> keys;
  for (const Row& r : rows) keys.push_back(r.key);
  return keys;
}

class BulkSinkTest : public ::testing::Test {
 protected:
  FakeRouterClient client_;
  BulkSinkOptions options_;
};

TEST_F(BulkSinkTest, RowsReachTheirRegionsSortedAndMergedAsPuts) {
  auto sink = NewBulkSink(&client_, "t", options_);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  ASSERT_TRUE((*sink)
                  ->Write({Put("q", {{"d:a", "1"}}), Put("c", {{"d:a", "1"}}),
                           Put("x", {{"d:a", "1"}, {"d:b", "old"}})})
                  .ok());
  ASSERT_TRUE((*sink)->Write({Put("x", {{"d:b", "new"}})}).ok());
  ASSERT_TRUE((*sink)->Finish().ok());
  EXPECT_EQ((*sink)->rows_written(), 4u);  // rows given, as the online sink
  ASSERT_EQ(client_.files[7].size(), 1u);
  ASSERT_EQ(client_.files[8].size(), 1u);
  EXPECT_THAT(Keys(client_.files[7][0]), ElementsAre("c"));
  EXPECT_THAT(Keys(client_.files[8][0]), ElementsAre("q", "x"));
  // Cells without a timestamp get the file writer's clock, one reading.
  const int64_t ts = client_.files[8][0][1].cells[0].timestamp;
  EXPECT_GT(ts, 0);
  EXPECT_EQ(client_.files[8][0][1].cells,
            (std::vector<Cell>{{"d:a", "1", ts}, {"d:b", "new", ts}}));
}

TEST_F(BulkSinkTest, FilesStayWithinTheirLimitsAndABigRowGoesAlone) {
  options_.file_bytes = 64 << 10;
  options_.file_rows = 3;
  auto sink = NewBulkSink(&client_, "t", options_);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  std::vector<Mutation> batch;
  for (char c = 'a'; c <= 'h'; ++c) {
    batch.push_back(Put(std::string(1, c), {{"d:a", "small"}}));
  }
  batch.push_back(Put("d2", {{"d:a", std::string(200 << 10, 'x')}}));
  ASSERT_TRUE((*sink)->Write(std::move(batch)).ok());
  ASSERT_TRUE((*sink)->Finish().ok());
  std::vector<std::string> loaded;
  for (const auto& rows : client_.files[7]) {
    EXPECT_LE(rows.size(), 3u);
    for (const Row& r : rows) {
      if (r.key == "d2") {
        EXPECT_EQ(rows.size(), 1u);  // alone in its file
      }
      loaded.push_back(r.key);
    }
  }
  for (size_t i = 0; i < client_.files[7].size(); ++i) {
    if (client_.files[7][i].size() > 1) {
      EXPECT_LE(client_.file_bytes[7][i], options_.file_bytes);
    }
  }
  EXPECT_THAT(loaded,
              ElementsAre("a", "b", "c", "d", "d2", "e", "f", "g", "h"));
}

TEST_F(BulkSinkTest, AFailedLoadFailsTheSinkAndIsNotCounted) {
  client_.fail_region = 8;
  options_.in_flight = 1;
  auto sink = NewBulkSink(&client_, "t", options_);
  ASSERT_TRUE(sink.ok()) << sink.status().ToString();
  ASSERT_TRUE((*sink)
                  ->Write({Put("a", {{"d:a", "1"}}), Put("z", {{"d:a", "1"}})})
                  .ok());
  const Status s = (*sink)->Finish();
  EXPECT_TRUE(s.IsIOError()) << s.ToString();
  EXPECT_EQ((*sink)->rows_written(), 1u);  // region 7's row only
  EXPECT_TRUE((*sink)->Write({Put("b", {{"d:a", "1"}})}).IsIOError());
}

// The sink's temporary files go to TMPDIR; this test's own directory, so
// that it can see them removed.
class BulkSinkTempTest : public BulkSinkTest {
 protected:
  void SetUp() override { ASSERT_TRUE(tmp_.ok()); }
  size_t Entries() const {
    size_t n = 0;
    for (const auto& e :
         std::filesystem::recursive_directory_iterator(tmp_.tmpdir())) {
      (void)e;
      ++n;
    }
    return n;
  }
  testing::ScopedTmpdir tmp_{"bulk-sink-tmp"};
};

// Ctrl-C while files are being sent: no further file is written or sent,
// Finish says why, and the directory of bulk files is gone with the sink.
TEST_F(BulkSinkTempTest, InterruptStopsSendingAndTheFilesAreRemoved) {
  InstallImportInterruptHandlers();
  client_.interrupt_on_load = true;
  options_.in_flight = 1;
  options_.file_rows = 1;
  {
    auto sink = NewBulkSink(&client_, "t", options_);
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
    EXPECT_EQ(Entries(), 1u);  // its directory
    ASSERT_TRUE((*sink)
                    ->Write({Put("a", {{"d:a", "1"}}), Put("b", {{"d:a", "1"}}),
                             Put("z", {{"d:a", "1"}})})
                    .ok());
    const Status s = (*sink)->Finish();
    EXPECT_TRUE(s.IsAborted()) << s.ToString();
    EXPECT_EQ((*sink)->rows_written(), 0u);
  }
  const bool interrupted = ImportInterrupted();
  ResetImportInterrupt();
  signal(SIGINT, SIG_DFL);
  EXPECT_TRUE(interrupted);
  EXPECT_EQ(client_.files[7].size(), 1u);  // the load that was interrupted
  EXPECT_EQ(client_.files[8].size(), 0u);
  EXPECT_EQ(Entries(), 0u);
}

// After a failure too, nothing of the sink stays behind.
TEST_F(BulkSinkTempTest, AFailedLoadLeavesNoFiles) {
  client_.fail_region = 7;
  {
    auto sink = NewBulkSink(&client_, "t", options_);
    ASSERT_TRUE(sink.ok()) << sink.status().ToString();
    ASSERT_TRUE((*sink)->Write({Put("a", {{"d:a", "1"}})}).ok());
    EXPECT_TRUE((*sink)->Finish().IsIOError());
  }
  EXPECT_EQ(Entries(), 0u);
}

}  // namespace
}  // namespace bloomroute
