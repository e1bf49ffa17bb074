// The filter interface a bits-only router replica reads
// (region_store_filter.cc): ops that carry the occupancy bits they changed, and
// paged occupancy snapshots.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <random>
#include <thread>

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
  // Rows d<from>..d<from + rows - 1>, each with two values of its own.
  void PutDistinct(int from, int rows) {
    for (int done = 0; done < rows; done += 1000) {
      std::vector<Mutation> puts;
      for (int i = done; i < std::min(rows, done + 1000); ++i) {
        const std::string n = std::to_string(from + i);
        puts.push_back(PutPlace(1, "d" + n, "c" + n, "f" + n));
      }
      Apply(std::move(puts));
    }
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

// ---- Paged occupancy snapshots ----

class RegionStoreImageTest : public RegionStoreFilterTest {
 protected:
  void SetUp() override {
    options_.filter_image_page_bytes = 4096;  // several pages
    RegionStoreFilterTest::SetUp();
  }
  // Pages of image `first.image_id` from the second on, fetched with `fetch`
  // after each page; the assembled bytes.
  std::string Rest(const FilterImagePage& first,
                   const std::function<void()>& between = {}) {
    std::string bytes = first.bytes;
    while (bytes.size() < first.total_bytes) {
      if (between) between();
      auto page = store_->SnapshotImagePage(0, first.image_id, bytes.size());
      EXPECT_TRUE(page.ok()) << page.status().ToString();
      if (!page.ok()) return bytes;
      EXPECT_EQ(page->image_id, first.image_id);
      EXPECT_EQ(page->offset, bytes.size());
      EXPECT_EQ(page->total_bytes, first.total_bytes);
      EXPECT_EQ(page->epoch, first.epoch);
      EXPECT_EQ(page->last_seq, first.last_seq);
      EXPECT_EQ(page->incarnation, first.incarnation);
      EXPECT_LE(page->bytes.size(), options_.filter_image_page_bytes);
      EXPECT_FALSE(page->bytes.empty());
      bytes += page->bytes;
    }
    return bytes;
  }
};

// The pages of one image are OccupancyImage::Of(the filter).Serialize() at
// the (epoch, seq) they report, and writes between pages do not change it.
TEST_F(RegionStoreImageTest, PagesAssembleToTheImageOfTheFilter) {
  PutDistinct(0, 5000);
  RandomWrites(500, 21);
  const FilterStatus status = store_->GetFilterStatus();
  const std::string expected = ServerImage().Serialize();
  auto first = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_NE(first->image_id, 0u);
  EXPECT_EQ(first->offset, 0u);
  EXPECT_EQ(first->incarnation, status.incarnation);
  EXPECT_EQ(first->epoch, status.epoch);
  EXPECT_EQ(first->last_seq, status.last_seq);
  EXPECT_EQ(first->total_bytes, expected.size());
  EXPECT_EQ(first->bytes.size(), 4096u);
  ASSERT_GE(expected.size(), 3 * 4096u);  // several pages

  int extra = 0;
  const std::string bytes = Rest(*first, [&] {
    Apply({PutPlace(1, "a-new" + std::to_string(extra),
                    "X" + std::to_string(extra), "Y" + std::to_string(extra))});
    ++extra;
  });
  EXPECT_EQ(bytes, expected);
  EXPECT_GT(store_->GetFilterStatus().last_seq, status.last_seq);
  auto image = OccupancyImage::Deserialize(bytes);
  ASSERT_TRUE(image.ok()) << image.status().ToString();

  // A new image holds the writes made meanwhile.
  auto again = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(again.ok());
  EXPECT_NE(again->image_id, first->image_id);
  EXPECT_EQ(again->last_seq, store_->GetFilterStatus().last_seq);
  EXPECT_EQ(Rest(*again), ServerImage().Serialize());
}

// An image is served once: dropped after its last page, replaced by a new
// one, forgotten when unused for filter_image_idle_ms. Asking for it then
// names the image and says what to do.
TEST_F(RegionStoreImageTest, AnUnknownOrExpiredImageIsNotFound) {
  PutDistinct(0, 5000);
  auto unknown = store_->SnapshotImagePage(0, 12345, 0);
  EXPECT_TRUE(unknown.status().IsNotFound());
  EXPECT_EQ(unknown.status().message(),
            "filter image 12345 expired; start a new one");

  auto first = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(first.ok());
  Rest(*first);  // served to the end
  EXPECT_TRUE(
      store_->SnapshotImagePage(0, first->image_id, 0).status().IsNotFound());

  auto replaced = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(replaced.ok());
  ASSERT_TRUE(store_->SnapshotImagePage(0, 0, 0).ok());  // replaces it
  EXPECT_TRUE(store_->SnapshotImagePage(0, replaced->image_id, 4096)
                  .status()
                  .IsNotFound());

  // Out of range: the offset is past the image, or a new one not at 0.
  auto current = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(current.ok());
  EXPECT_TRUE(
      store_->SnapshotImagePage(0, current->image_id, current->total_bytes)
          .status()
          .IsInvalidArgument());
  EXPECT_TRUE(store_->SnapshotImagePage(0, 0, 5).status().IsInvalidArgument());

  options_.filter_image_idle_ms = 50;
  Reopen();
  auto idle = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(idle.ok());
  ASSERT_TRUE(store_->SnapshotImagePage(0, idle->image_id, 4096).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(120));
  auto expired = store_->SnapshotImagePage(0, idle->image_id, 8192);
  EXPECT_TRUE(expired.status().IsNotFound()) << expired.status().ToString();
}

// The first page raises the fence before it reads the filter, as Snapshot's
// caller does: a write with an older token is refused afterwards.
TEST_F(RegionStoreImageTest, TheFirstPageRaisesTheFence) {
  ASSERT_TRUE(store_->Apply({PutPlace(1, "a", "NO", "A")}, 5).ok());
  auto first = store_->SnapshotImagePage(7, 0, 0);
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(
      store_->Apply({PutPlace(1, "b", "SE", "B")}, 6).status().IsAborted());
  EXPECT_TRUE(store_->Apply({PutPlace(1, "b", "SE", "B")}, 7).ok());
  EXPECT_TRUE(store_->Apply({PutPlace(1, "c", "DK", "C")}, 0).ok());
}

TEST_F(RegionStoreImageTest, ThePageSizeIsValidated) {
  RegionStoreOptions o;
  EXPECT_EQ(o.filter_image_page_bytes, 4u << 20);
  EXPECT_TRUE(o.Validate().ok());
  for (size_t bad : {size_t{0}, size_t{4095}, size_t{(32u << 20) + 1}}) {
    o.filter_image_page_bytes = bad;
    const Status s = o.Validate();
    EXPECT_TRUE(s.IsInvalidArgument()) << bad;
    EXPECT_NE(s.message().find("filter image page bytes"), std::string::npos);
  }
  o.filter_image_page_bytes = 4096;
  o.filter_image_idle_ms = 0;
  EXPECT_TRUE(o.Validate().IsInvalidArgument());
}

// What a bits-only snapshot saves: the image of a filter of 100,000
// distinct values (default config) against today's whole-filter snapshot.
TEST_F(RegionStoreImageTest, AnImageIsSmallerThanTheFilterSnapshot) {
  options_ = RegionStoreOptions();
  Reopen();
  PutDistinct(0, 50000);
  ASSERT_EQ(store_->GetFilterStatus().stats.elements, 100000u);
  auto snapshot = store_->Snapshot();
  ASSERT_TRUE(snapshot.ok());
  auto first = store_->SnapshotImagePage(0, 0, 0);
  ASSERT_TRUE(first.ok());
  std::cout << "filter of 100000 values: getFilterSnapshot "
            << snapshot->filter.size() << " bytes, occupancy image "
            << first->total_bytes << " bytes ("
            << 100.0 * first->total_bytes / snapshot->filter.size() << " %)\n";
  RecordProperty("snapshot_bytes", std::to_string(snapshot->filter.size()));
  RecordProperty("image_bytes", std::to_string(first->total_bytes));
  EXPECT_LT(first->total_bytes, snapshot->filter.size() / 2);
}

}  // namespace
}  // namespace bloomroute
