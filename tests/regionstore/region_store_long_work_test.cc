// Long operations of a region store (DropRegion, VerifyIndex) must not hold
// off the writes of other regions while they run. Each test stops the long
// operation in the middle (a test hook of RocksRegionStore) and checks that a
// write to another table's region completes meanwhile: a store that holds a
// store-wide lock for the whole operation makes that write wait for its end.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "regionstore/internal/rocks_region_store.h"
#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using testing::PlacesRegion;
using testing::PutPlace;
using testing::TempDir;

// Rows of the big region: a drop deletes them in several batches.
constexpr int kBigRows = 5000;
// How long the write made in the middle of a long operation may take. Far
// longer than a write takes; a write that waits for the operation's end
// never completes while the operation is stopped in the hook.
constexpr auto kWriteWait = std::chrono::seconds(5);

RegionDescriptor OtherRegion() {
  TableDescriptor t;
  t.table_id = 8;
  t.name = "other";
  t.indexed_columns = {{1, "d:tag"}};
  return RegionDescriptor{100, t, "", ""};
}

class RegionStoreLongWorkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = RegionStore::Open(dir_.path(), RegionStoreOptions());
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    ASSERT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
    ASSERT_TRUE(store_->OpenRegion(OtherRegion()).ok());
    std::vector<Mutation> batch;
    for (int i = 0; i < kBigRows; ++i) {
      batch.push_back(PutPlace(1, "row" + std::to_string(i),
                               "c" + std::to_string(i % 50),
                               "f" + std::to_string(i)));
      if (batch.size() == 5000) {
        ASSERT_TRUE(store_->Apply(batch).ok());
        batch.clear();
      }
    }
  }

  regionstore_internal::RocksRegionStore& rocks() {
    return static_cast<regionstore_internal::RocksRegionStore&>(*store_);
  }
  // A hook that, the first time it runs, writes to OtherRegion() from
  // another thread and records whether that write completed within
  // kWriteWait while the long operation waits in the hook.
  std::function<void()> WriteFromHook() {
    return [this] {
      if (hook_runs_++ > 0) return;
      pending_ = std::async(std::launch::async, [this] {
        return store_->Apply({Mutation::Put(100, "w", {{"d:tag", "t"}})})
            .status();
      });
      wrote_meanwhile_ =
          pending_.wait_for(kWriteWait) == std::future_status::ready;
    };
  }
  // The write made by the hook, once the operation has returned.
  Status HookWrite() {
    EXPECT_TRUE(pending_.valid()) << "the hook never ran";
    return pending_.valid() ? pending_.get() : Status::OK();
  }

  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
  int hook_runs_ = 0;
  std::future<Status> pending_;
  bool wrote_meanwhile_ = false;
};

TEST_F(RegionStoreLongWorkTest, WritesToAnotherTableProceedDuringADrop) {
  regionstore_internal::RocksRegionStore::LongWorkHooks hooks;
  hooks.drop_batch_done = WriteFromHook();
  rocks().SetLongWorkHooksForTesting(std::move(hooks));
  const Status dropped = store_->DropRegion(1);
  ASSERT_TRUE(dropped.ok()) << dropped.ToString();
  EXPECT_TRUE(wrote_meanwhile_)
      << "a write to another table waited for the whole drop";
  EXPECT_TRUE(HookWrite().ok());
  EXPECT_GT(hook_runs_, 1) << "the drop took one batch: too few rows";
  // The drop is complete: the region is gone, its values are uncounted, and
  // the other table's row is there.
  EXPECT_TRUE(store_->DropRegion(1).IsNotFound());
  EXPECT_TRUE(store_->OpenRegion(PlacesRegion(1, "", "")).ok());
  auto mine = store_->VerifyIndex(7);
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_TRUE(mine->ok());
  EXPECT_EQ(mine->rows, 0u);
  EXPECT_EQ(mine->values, 0u);
  auto all = store_->VerifyIndex(std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->ok());
  EXPECT_EQ(all->rows, 1u);
}

TEST_F(RegionStoreLongWorkTest, WritesProceedDuringAVerify) {
  regionstore_internal::RocksRegionStore::LongWorkHooks hooks;
  hooks.verify_scanning = WriteFromHook();
  rocks().SetLongWorkHooksForTesting(std::move(hooks));
  auto report = store_->VerifyIndex(7);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(wrote_meanwhile_)
      << "a write to another table waited for the whole verify";
  EXPECT_TRUE(HookWrite().ok());
  // The verified table did not change: its report is exact and clean.
  EXPECT_TRUE(report->ok());
  EXPECT_EQ(report->rows, static_cast<uint64_t>(kBigRows));
  EXPECT_EQ(report->values, 50u + kBigRows);
}

TEST_F(RegionStoreLongWorkTest, AVerifyDuringWritesToItsTableIsConsistent) {
  // Writes to the verified table itself while it scans: the report
  // describes one consistent state (its snapshot), so it finds no problem.
  regionstore_internal::RocksRegionStore::LongWorkHooks hooks;
  hooks.verify_scanning = [this] {
    // Kept in pending_: a future's destructor would wait for the write.
    pending_ = std::async(std::launch::async, [this] {
      std::vector<Mutation> batch;
      for (int i = 0; i < 100; ++i) {
        batch.push_back(PutPlace(1, "row" + std::to_string(i),
                                 "new" + std::to_string(i % 3), "g"));
      }
      batch.push_back(Mutation::Delete(1, "row200"));
      return store_->Apply(batch).status();
    });
    wrote_meanwhile_ =
        pending_.wait_for(kWriteWait) == std::future_status::ready;
  };
  rocks().SetLongWorkHooksForTesting(std::move(hooks));
  auto report = store_->VerifyIndex(std::nullopt);
  EXPECT_TRUE(wrote_meanwhile_);
  EXPECT_TRUE(HookWrite().ok());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->ok())
      << (report->problems.empty() ? std::string("filter")
                                   : report->problems.front());
  // As of its snapshot: before the write deleted row200.
  EXPECT_EQ(report->rows, static_cast<uint64_t>(kBigRows));
}

}  // namespace
}  // namespace bloomroute
