#include "tools/import/importer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tools/import/interrupt.h"

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

// Records every batch; fails (refusing the batch) from the `fail_at`-th on.
class FakeSink : public RowSink {
 public:
  Status Write(std::vector<Mutation> batch) override {
    if (!failure_.ok()) return failure_;
    if (batches.size() == fail_at) {
      failure_ = Status::Unavailable("region server 127.0.0.1:1: refused");
      return failure_;
    }
    acknowledged_ += batch.size();
    batches.push_back(std::move(batch));
    if (batches.size() == interrupt_at) raise(SIGINT);
    return Status::OK();
  }
  Status Finish() override {
    ++finished;
    return failure_;
  }
  uint64_t rows_written() const override { return acknowledged_; }

  // Row keys per batch.
  std::vector<std::vector<std::string>> Keys() const {
    std::vector<std::vector<std::string>> out;
    for (const auto& b : batches) {
      out.emplace_back();
      for (const Mutation& m : b) out.back().push_back(m.row_key);
    }
    return out;
  }

  size_t fail_at = SIZE_MAX;
  size_t interrupt_at = SIZE_MAX;  // raise SIGINT on taking this batch
  std::vector<std::vector<Mutation>> batches;
  int finished = 0;

 private:
  Status failure_;
  uint64_t acknowledged_ = 0;
};

class ImportDriverTest : public ::testing::Test {
 protected:
  Status Import(const std::string& text, ImportDriverOptions options) {
    std::istringstream in(text);
    RecordReader reader(&in, {InputFormat::kCsv});
    auto mapper = RowMapper::Create({{"id", "v"}, "id", {"v"}});
    EXPECT_TRUE(mapper.ok());
    return RunImport(
        &reader, *mapper, &sink_, options,
        [&](uint64_t line, const std::string& reason) {
          bad_.push_back(std::to_string(line) + ": " + reason);
          return Status::OK();
        },
        nullptr, &stats_);
  }

  FakeSink sink_;
  std::vector<std::string> bad_;
  ImportStats stats_;
};

TEST_F(ImportDriverTest, BatchesByRowsAndCutsBeforeARepeatedKey) {
  ImportDriverOptions options;
  options.batch_rows = 2;
  ASSERT_TRUE(Import("a,1\nb,2\nc,3\nc,4\nd,5\n", options).ok());
  EXPECT_EQ(sink_.Keys(), (std::vector<std::vector<std::string>>{
                              {"a", "b"}, {"c"}, {"c", "d"}}));
  EXPECT_EQ(sink_.batches[2][0].cells, (std::vector<Cell>{{"d:v", "4"}}));
  EXPECT_EQ(stats_.records, 5u);
  EXPECT_EQ(stats_.rows_imported, 5u);
  EXPECT_EQ(sink_.finished, 1);
}

TEST_F(ImportDriverTest, BatchesByBytesWithABigRowAlone) {
  ImportDriverOptions options;
  options.batch_bytes = 100;
  const std::string big(200, 'x');
  ASSERT_TRUE(Import("a,1\nb,2\nc," + big + "\nd,3\n", options).ok());
  EXPECT_EQ(sink_.Keys(),
            (std::vector<std::vector<std::string>>{{"a", "b"}, {"c"}, {"d"}}));
}

TEST_F(ImportDriverTest, SkipReportsBadLinesAndWritesTheRest) {
  ASSERT_TRUE(Import("a,1\nb\n,2\nc,3\n", {}).ok());
  EXPECT_EQ(bad_, (std::vector<std::string>{"2: 1 fields, expected 2",
                                            "3: empty row key"}));
  EXPECT_EQ(sink_.Keys(), (std::vector<std::vector<std::string>>{{"a", "c"}}));
  EXPECT_EQ(stats_.bad_lines, 2u);
  EXPECT_EQ(stats_.rows_imported, 2u);
}

TEST_F(ImportDriverTest, FailStopsAtTheFirstBadLineAfterWritingTheRowsBefore) {
  ImportDriverOptions options;
  options.on_bad_line = BadLinePolicy::kFail;
  options.batch_rows = 2;
  const Status s = Import("a,1\nb,2\nc,3\nbad\nd,4\n", options);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(), "line 4: 1 fields, expected 2");
  EXPECT_EQ(sink_.Keys(),
            (std::vector<std::vector<std::string>>{{"a", "b"}, {"c"}}));
  EXPECT_EQ(stats_.rows_imported, 3u);
  EXPECT_EQ(stats_.bad_lines, 1u);
  EXPECT_EQ(sink_.finished, 1);
}

TEST_F(ImportDriverTest, AFailedWriteFailsTheImportAndCountsOnlyAcknowledged) {
  ImportDriverOptions options;
  options.batch_rows = 2;
  sink_.fail_at = 1;
  const Status s = Import("a,1\nb,2\nc,3\nd,4\ne,5\n", options);
  EXPECT_TRUE(s.IsUnavailable());
  EXPECT_THAT(s.message(), HasSubstr("region server 127.0.0.1:1"));
  EXPECT_EQ(stats_.rows_imported, 2u);
  EXPECT_EQ(stats_.records, 4u);  // reading stopped at the refused batch
}

TEST_F(ImportDriverTest, AFailingBadLineHandlerStopsTheImport) {
  std::istringstream in("a,1\nbad\nc,3\n");
  RecordReader reader(&in, {InputFormat::kCsv});
  auto mapper = RowMapper::Create({{"id", "v"}, "id", {}});
  const Status s = RunImport(
      &reader, *mapper, &sink_, {},
      [](uint64_t, const std::string&) { return Status::IOError("disk full"); },
      nullptr, &stats_);
  EXPECT_TRUE(s.IsIOError());
  EXPECT_EQ(sink_.Keys(), (std::vector<std::vector<std::string>>{{"a"}}));
}

// Ctrl-C: the handler only sets a flag; reading stops at the next record,
// the rows not yet sent are dropped (no last flush) and the status says so.
TEST_F(ImportDriverTest, InterruptStopsReadingAndSendsNothingMore) {
  InstallImportInterruptHandlers();
  ImportDriverOptions options;
  options.batch_rows = 2;
  sink_.interrupt_at = 1;
  const Status s = Import("a,1\nb,2\nc,3\nd,4\ne,5\n", options);
  const bool interrupted = ImportInterrupted();
  ResetImportInterrupt();
  signal(SIGINT, SIG_DFL);
  EXPECT_TRUE(interrupted);
  EXPECT_TRUE(s.IsAborted()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("interrupted by SIGINT"));
  EXPECT_EQ(sink_.Keys(), (std::vector<std::vector<std::string>>{{"a", "b"}}));
  EXPECT_EQ(stats_.records, 2u);
  EXPECT_EQ(stats_.rows_imported, 2u);
  EXPECT_EQ(sink_.finished, 1);
}

}  // namespace
}  // namespace bloomroute
