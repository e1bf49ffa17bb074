#include "thrift/internal/hbase_scanners.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bloomroute::thrift_internal {
namespace {

using ::testing::HasSubstr;
using Results = std::vector<std::string>;

// A router scanner over fixed rows, with the router's call sequence rule:
// a repeat of the previous number reads its batch again.
class ScriptedScanner {
 public:
  explicit ScriptedScanner(std::vector<Row> rows) : rows_(std::move(rows)) {}

  HBaseScanners::Fetch fetch() {
    return
        [this](uint32_t max_rows, uint64_t seq) -> StatusOr<std::vector<Row>> {
          asked.push_back(max_rows);
          seqs.push_back(seq);
          if (gone) return Status::NotFound("scanner is not open");
          if (seq != 0 && seq + 1 == next_seq_) {
            at_ = previous_;
          } else if (seq != 0) {
            EXPECT_EQ(seq, next_seq_) << "the router would refuse it";
            previous_ = at_;
            ++next_seq_;
          }
          std::vector<Row> out;
          while (out.size() < max_rows && at_ < rows_.size()) {
            out.push_back(rows_[at_++]);
          }
          return out;
        };
  }

  std::vector<uint32_t> asked;
  std::vector<uint64_t> seqs;
  bool gone = false;

 private:
  std::vector<Row> rows_;
  size_t at_ = 0, previous_ = 0;
  uint64_t next_seq_ = 1;
};

// A row of `cells` cells d:c0, d:c1, ...
Row Wide(const std::string& key, int cells) {
  Row row{key, {}};
  for (int i = 0; i < cells; ++i) {
    row.cells.push_back(Cell{"d:c" + std::to_string(i), "v", 1});
  }
  return row;
}

// Each result as "key:first..last", "+" when partial.
Results Show(const StatusOr<std::vector<ScannerResult>>& results) {
  EXPECT_TRUE(results.ok()) << results.status().ToString();
  Results out;
  if (!results.ok()) return out;
  for (const ScannerResult& r : *results) {
    std::string s = r.row.key + ":" + r.row.cells.front().column.substr(2) +
                    ".." + r.row.cells.back().column.substr(2);
    out.push_back(s + (r.partial ? "+" : ""));
  }
  return out;
}

class HBaseScannersTest : public ::testing::Test {
 protected:
  ScriptedScanner router_{{Wide("a", 5), Wide("b", 1), Wide("c", 3)}};
  HBaseScanners scanners_;
};

// What is kept of a scanner is its opener's: the connection that opened
// it, or any connection of the same user; a scanner not kept is the
// router's to decide.
TEST_F(HBaseScannersTest, KeptRowsServeTheOpenerAndItsPrincipalAlone) {
  scanners_.Add(7, {3, 0, /*client=*/1, "alice"});
  scanners_.Add(8, {3, 0, /*client=*/1, ""});
  EXPECT_TRUE(scanners_.MayRead(7, 1, ""));
  EXPECT_TRUE(scanners_.MayRead(7, 2, "alice"));
  EXPECT_FALSE(scanners_.MayRead(7, 2, "bob"));
  EXPECT_FALSE(scanners_.MayRead(7, 2, ""));
  EXPECT_TRUE(scanners_.MayRead(8, 1, ""));
  EXPECT_FALSE(scanners_.MayRead(8, 2, ""));
  EXPECT_TRUE(scanners_.MayRead(9, 2, ""));  // not kept
  scanners_.RemoveIf([](int32_t id) { return id == 7; });
  EXPECT_TRUE(scanners_.MayRead(7, 2, ""));
  EXPECT_FALSE(scanners_.MayRead(8, 2, ""));
}

TEST_F(HBaseScannersTest, AScannerWithoutLimitOrBatchGoesStraightThrough) {
  scanners_.Add(7, {});
  EXPECT_EQ(Show(scanners_.Next(7, 2, 1, router_.fetch())),
            (Results{"a:c0..c4", "b:c0..c0"}));
  EXPECT_EQ(Show(scanners_.Next(7, 2, 1, router_.fetch())),
            (Results{"a:c0..c4", "b:c0..c0"}));
  EXPECT_EQ(router_.asked, (std::vector<uint32_t>{2, 2}));
  EXPECT_EQ(router_.seqs, (std::vector<uint64_t>{1, 1}));  // as given
}

TEST_F(HBaseScannersTest, BatchSplitsRowsAndContinuesWhereItStopped) {
  scanners_.Add(7, {0, 2});
  EXPECT_EQ(Show(scanners_.Next(7, 1, 0, router_.fetch())),
            (Results{"a:c0..c1+"}));
  // The rest of a, then the rows read with it, before the router is asked.
  EXPECT_EQ(Show(scanners_.Next(7, 10, 0, router_.fetch())),
            (Results{"a:c2..c3+", "a:c4..c4"}));
  EXPECT_EQ(router_.asked, (std::vector<uint32_t>{1}));
  EXPECT_EQ(Show(scanners_.Next(7, 3, 0, router_.fetch())),
            (Results{"b:c0..c0", "c:c0..c1+", "c:c2..c2"}));
  EXPECT_TRUE(Show(scanners_.Next(7, 3, 0, router_.fetch())).empty());
}

TEST_F(HBaseScannersTest, ARepeatedCallGetsTheSameResultsAgain) {
  scanners_.Add(7, {0, 2});
  const Results first = Show(scanners_.Next(7, 2, 1, router_.fetch()));
  EXPECT_EQ(first, (Results{"a:c0..c1+", "a:c2..c3+"}));
  EXPECT_EQ(Show(scanners_.Next(7, 2, 1, router_.fetch())), first);
  // Calls 2 and 3 are served from what was kept (the router read a and b
  // for call 1), their repeats too; call 4 reads as the router's call 2.
  EXPECT_EQ(Show(scanners_.Next(7, 1, 2, router_.fetch())),
            (Results{"a:c4..c4"}));
  EXPECT_EQ(Show(scanners_.Next(7, 1, 2, router_.fetch())),
            (Results{"a:c4..c4"}));
  EXPECT_EQ(Show(scanners_.Next(7, 1, 3, router_.fetch())),
            (Results{"b:c0..c0"}));
  EXPECT_EQ(Show(scanners_.Next(7, 1, 4, router_.fetch())),
            (Results{"c:c0..c1+"}));
  EXPECT_EQ(Show(scanners_.Next(7, 1, 4, router_.fetch())),
            (Results{"c:c0..c1+"}));
  EXPECT_EQ(Show(scanners_.Next(7, 1, 5, router_.fetch())),
            (Results{"c:c2..c2"}));
  EXPECT_EQ(router_.seqs, (std::vector<uint64_t>{1, 1, 2, 2}));
  const Status out_of_order = scanners_.Next(7, 1, 9, router_.fetch()).status();
  EXPECT_TRUE(out_of_order.IsInvalidArgument());
  EXPECT_THAT(out_of_order.message(), HasSubstr("the next call is 6"));
}

TEST_F(HBaseScannersTest, TheLimitCountsRowsNotParts) {
  scanners_.Add(7, {2, 2});
  EXPECT_EQ(Show(scanners_.Next(7, 10, 0, router_.fetch())),
            (Results{"a:c0..c1+", "a:c2..c3+", "a:c4..c4", "b:c0..c0"}));
  EXPECT_TRUE(Show(scanners_.Next(7, 10, 0, router_.fetch())).empty());
  EXPECT_EQ(router_.asked, (std::vector<uint32_t>{2}));  // not again
}

TEST_F(HBaseScannersTest, ZeroRowsAndAGoneScanner) {
  scanners_.Add(7, {0, 2});
  EXPECT_TRUE(Show(scanners_.Next(7, 0, 0, router_.fetch())).empty());
  EXPECT_EQ(router_.asked, (std::vector<uint32_t>{0}));  // checks the id
  router_.gone = true;
  EXPECT_TRUE(scanners_.Next(7, 1, 0, router_.fetch()).status().IsNotFound());
  // Forgotten: the next call goes straight to the router.
  router_.gone = false;
  EXPECT_EQ(Show(scanners_.Next(7, 1, 0, router_.fetch())),
            (Results{"a:c0..c4"}));
}

}  // namespace
}  // namespace bloomroute::thrift_internal
