// The filter interface a bits-only router replica reads
// (region_store_filter.cc): ops that carry the occupancy bits they changed, and
// paged occupancy snapshots.
#include <gtest/gtest.h>

#include <random>

#include "index/occupancy_image.h"
#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/regionstore/store_surgery.h"

namespace bloomroute {
namespace {

using testing::PlacesRegion;
using testing::PutPlace;
using testing::TempDir;

class RegionStoreFilterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_.filter.initial_capacity = 16;  // several stages open
    options_.max_filter_stages = 63;        // and no compaction
    options_.sparse_factor = 1e9;
    Reopen();
  }
  void Reopen() {
    store_.reset();
    store_ = testing::OpenStoreWithRegions(
        dir_.path(), options_,
        {PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")});
    ASSERT_NE(store_, nullptr);
  }
  WriteResult Apply(std::vector<Mutation> batch) {
    auto r = store_->Apply(batch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : WriteResult();
  }
  // The occupancy bits of the server's filter now, from its snapshot.
  OccupancyImage ServerImage() {
    auto snapshot = store_->Snapshot();
    EXPECT_TRUE(snapshot.ok()) << snapshot.status().ToString();
    auto filter =
        ScalableSplitCountingBloomFilter::Deserialize(snapshot->filter);
    EXPECT_TRUE(filter.ok()) << filter.status().ToString();
    return OccupancyImage::Of(*filter);
  }
  // Random puts and deletes of rows r0..r499 (seed `seed`); the ops of
  // their results, in order.
  std::vector<FilterOp> RandomWrites(int writes, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<FilterOp> ops;
    for (int i = 0; i < writes; ++i) {
      const std::string row = "r" + std::to_string(rng() % 500);
      const uint64_t region = row < "m" ? 1 : 2;
      WriteResult w =
          rng() % 4 == 0
              ? Apply({Mutation::Delete(region, row)})
              : Apply({PutPlace(region, row, "C" + std::to_string(rng() % 300),
                                "F" + std::to_string(rng() % 50))});
      ops.insert(ops.end(), w.ops.begin(), w.ops.end());
    }
    return ops;
  }
  static Status ApplyOp(const FilterOp& op, OccupancyImage* image) {
    return op.kind == FilterOp::Kind::kInsert
               ? image->ApplyInsert(op.hash, op.stage, op.mask)
               : image->ApplyRemove(op.hash, op.stage, op.mask);
  }

  TempDir dir_;
  RegionStoreOptions options_;
  std::unique_ptr<RegionStore> store_;
};

// What a bits-only router does: the bits of a snapshot, then every op's
// mask; it ends with the bits of the server's filter.
TEST_F(RegionStoreFilterTest, WriteResultMasksKeepAnOccupancyImageExact) {
  Apply({PutPlace(1, "a", "NO", "A")});
  OccupancyImage image = ServerImage();
  const uint64_t from = store_->GetFilterStatus().last_seq;
  const std::vector<FilterOp> ops = RandomWrites(3000, 11);
  ASSERT_GT(ops.size(), 500u);
  for (size_t i = 0; i < ops.size(); ++i) {
    ASSERT_EQ(ops[i].seq, from + 1 + i);
    const Status s = ApplyOp(ops[i], &image);
    ASSERT_TRUE(s.ok()) << ops[i].seq << ": " << s.ToString();
  }
  EXPECT_GE(image.stages().size(), 3u);
  EXPECT_EQ(image, ServerImage());
}

// OpsSince reads the op log; after a restart the log is replayed. Both carry
// the masks the writes returned.
TEST_F(RegionStoreFilterTest, MasksSurviveTheOpLogAndAReopen) {
  options_.checkpoint_interval = 1000000;  // every op stays in the log
  Reopen();
  const OccupancyImage empty = ServerImage();
  const std::vector<FilterOp> ops = RandomWrites(1500, 12);
  ASSERT_GT(ops.size(), 300u);
  const OccupancyImage before = ServerImage();
  for (int reopen = 0; reopen < 2; ++reopen) {
    if (reopen == 1) Reopen();
    const FilterStatus status = store_->GetFilterStatus();
    auto since = store_->OpsSince(status.incarnation, status.epoch, 0);
    ASSERT_TRUE(since.ok()) << since.status().ToString();
    ASSERT_FALSE(since->too_old);
    EXPECT_EQ(since->ops, ops) << "reopened: " << reopen;
    OccupancyImage image = empty;
    for (const FilterOp& op : since->ops) ASSERT_TRUE(ApplyOp(op, &image).ok());
    EXPECT_EQ(image, before);
    EXPECT_EQ(image, ServerImage());
  }
}

// Ops a store recorded before ops carried masks replay (their filter is
// checked as before) but are never served: a bits-only reader could not
// apply them. The reopened store trims them and answers too_old.
TEST_F(RegionStoreFilterTest, OpsRecordedWithoutMasksAreReplayedNotServed) {
  options_.checkpoint_interval = 1000000;
  Reopen();
  const std::vector<FilterOp> ops = RandomWrites(300, 13);
  ASSERT_GT(ops.size(), 50u);
  const OccupancyImage before = ServerImage();
  store_.reset();
  {
    auto surgery = testing::StoreSurgery::Open(dir_.path());
    ASSERT_TRUE(surgery.ok()) << surgery.status().ToString();
    auto rewritten = (*surgery)->RewriteOpsWithoutMasks();
    ASSERT_TRUE(rewritten.ok()) << rewritten.status().ToString();
    ASSERT_EQ(*rewritten, ops.size());
  }
  Reopen();
  const FilterStatus status = store_->GetFilterStatus();
  EXPECT_EQ(status.last_seq, ops.back().seq);
  EXPECT_EQ(ServerImage(), before);
  auto since = store_->OpsSince(status.incarnation, status.epoch, 0);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_TRUE(since->too_old);
  // New ops are served with their masks, from the restored filter.
  OccupancyImage image = before;
  const std::vector<FilterOp> more = RandomWrites(100, 14);
  ASSERT_FALSE(more.empty());
  since = store_->OpsSince(status.incarnation, status.epoch, status.last_seq);
  ASSERT_TRUE(since.ok()) << since.status().ToString();
  EXPECT_EQ(since->ops, more);
  for (const FilterOp& op : since->ops) ASSERT_TRUE(ApplyOp(op, &image).ok());
  EXPECT_EQ(image, ServerImage());
}

}  // namespace
}  // namespace bloomroute
