// Coordinator epochs of a region store (region_store.h, "Coordinator
// epochs"): every call of the coordinator with an older epoch is refused
// and changes nothing; equal and newer epochs run; the highest epoch seen
// survives a restart; a raise waits for the older calls in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "regionstore/region_store.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

constexpr CoordinatorEpoch kOld{6};
constexpr CoordinatorEpoch kNew{7};

// What a call could change: the regions and their states, the rows and
// index answers of both regions, the filter's config and epoch.
struct StoreView {
  std::vector<std::string> regions;
  std::vector<std::string> rows;
  std::vector<std::string> hits;
  SscbfConfig config;
  uint64_t filter_epoch = 0;
  friend bool operator==(const StoreView& a, const StoreView& b) {
    return a.regions == b.regions && a.rows == b.rows && a.hits == b.hits &&
           a.config == b.config && a.filter_epoch == b.filter_epoch;
  }
};

class CoordinatorEpochStoreTest : public TwoPlacesRegionsTest {
 protected:
  void SetUp() override {
    TwoPlacesRegionsTest::SetUp();
    PutRows(1, "a", 20);
    PutRows(2, "n", 20);
  }

  StoreView View() {
    StoreView v;
    for (const HostedRegion& r : store_->HostedRegions()) {
      v.regions.push_back(
          std::to_string(r.descriptor.region_id) + ":" +
          RegionStateName(r.state) + ":" +
          std::to_string(r.descriptor.table.indexed_columns.size()));
    }
    for (const uint64_t region : {1, 2}) {
      ScanRequest scan;
      scan.region_id = region;
      scan.limit = 1000;
      StatusOr<ScanResult> rows = store_->Scan(scan);
      for (const Row& row : rows.ok() ? rows->rows : std::vector<Row>()) {
        v.rows.push_back(row.key);
      }
    }
    StatusOr<IndexQueryResult> hits =
        store_->Lookup(Where({{"d:country", "NO"}}));
    for (const Row& row : hits.ok() ? hits->rows : std::vector<Row>()) {
      v.hits.push_back(row.key);
    }
    const FilterStatus filter = store_->GetFilterStatus();
    v.config = filter.config;
    v.filter_epoch = filter.epoch;
    return v;
  }

  // Every call of the coordinator, each with `epoch`, named.
  std::vector<std::pair<std::string, std::function<Status()>>> Calls(
      CoordinatorEpoch epoch) {
    SscbfConfig other;
    other.initial_capacity = 77;
    TableDescriptor more = PlacesTable();
    more.indexed_columns.push_back({3, "d:name", true});
    RegionStore& s = *store_;
    return {
        {"OpenRegion",
         [&s, epoch] {
           return s.OpenRegion(PlacesRegion(3, "x", "y"), 0, true, epoch);
         }},
        {"CloseRegion", [&s, epoch] { return s.CloseRegion(1, epoch); }},
        {"DropRegion", [&s, epoch] { return s.DropRegion(2, epoch); }},
        {"SetFilterConfig",
         [&s, epoch, other] { return s.SetFilterConfig(other, epoch); }},
        {"UpdateTableIndexes",
         [&s, epoch, more] { return s.UpdateTableIndexes(more, epoch); }},
        {"BackfillIndex",
         [&s, epoch] {
           return s.BackfillIndex(1, 3, "", 100, 0, epoch).status();
         }},
        {"DropIndexEntries",
         [&s, epoch] {
           return s.DropIndexEntries(1, 2, 100, 0, epoch).status();
         }},
    };
  }
};

TEST_F(CoordinatorEpochStoreTest,
       OlderEpochIsRefusedByEveryCallAndChangesNothing) {
  ASSERT_TRUE(
      store_->OpenRegion(PlacesRegion(1, "", "m"), 0, false, kNew).ok());
  const StoreView before = View();
  for (auto& [name, call] : Calls(kOld)) {
    const Status s = call();
    EXPECT_TRUE(IsCoordinatorEpochRefused(s)) << name << ": " << s.ToString();
    EXPECT_TRUE(s.IsAborted()) << name;
    EXPECT_NE(s.message().find("coordinator epoch 6 is older than 7"),
              std::string::npos)
        << name << ": " << s.ToString();
    EXPECT_TRUE(View() == before) << name << " changed the store";
  }
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 7u);
}

TEST_F(CoordinatorEpochStoreTest, EqualAndNewerEpochsRun) {
  ASSERT_TRUE(
      store_->OpenRegion(PlacesRegion(3, "x", "y"), 0, true, kNew).ok());
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 7u);
  // Equal: runs.
  ASSERT_TRUE(store_->CloseRegion(1, kNew).ok());
  // Newer: runs and raises.
  ASSERT_TRUE(store_->DropRegion(2, CoordinatorEpoch{9}).ok());
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 9u);
  EXPECT_TRUE(IsCoordinatorEpochRefused(store_->CloseRegion(3, kNew)));
  // Epoch 0 (not a coordinator) runs and raises nothing.
  ASSERT_TRUE(store_->CloseRegion(3, CoordinatorEpoch{}).ok());
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 9u);
  std::vector<std::string> regions;
  for (const HostedRegion& r : store_->HostedRegions()) {
    regions.push_back(std::to_string(r.descriptor.region_id) + ":" +
                      RegionStateName(r.state));
  }
  EXPECT_EQ(regions, (std::vector<std::string>{"1:closed", "3:closed"}));
}

TEST_F(CoordinatorEpochStoreTest, EpochSurvivesARestart) {
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 0u);
  ASSERT_TRUE(
      store_->SetFilterConfig(store_->GetFilterStatus().config, kNew).ok());
  Reopen({});
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 7u);
  EXPECT_TRUE(IsCoordinatorEpochRefused(
      store_->OpenRegion(PlacesRegion(1, "", "m"), 0, false, kOld)));
  EXPECT_TRUE(store_->ListRegions().empty());
  ASSERT_TRUE(
      store_->OpenRegion(PlacesRegion(1, "", "m"), 0, false, kNew).ok());
  EXPECT_EQ(store_->ListRegions().size(), 1u);
}

// Once a newer call has started, no older call is running: the raise
// waits for the older call in flight, and later older calls are refused.
TEST_F(CoordinatorEpochStoreTest, RaiseWaitsForOlderCallsInFlight) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> old_started{false}, new_ran{false};
  std::thread old_call([&] {
    const Status s = store_->RunAsCoordinator(kOld, [&] {
      old_started = true;
      released.wait();
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  while (!old_started) std::this_thread::yield();
  std::thread new_call([&] {
    const Status s = store_->RunAsCoordinator(kNew, [&] {
      new_ran = true;
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
  });
  // The raise is stored at once (a later old call is refused) ...
  for (int i = 0; i < 1000 && store_->CoordinatorEpochSeen() != 7; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(store_->CoordinatorEpochSeen(), 7u);
  EXPECT_TRUE(IsCoordinatorEpochRefused(store_->CloseRegion(1, kOld)));
  // ... but the new call waits for the old one.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(new_ran);
  release.set_value();
  old_call.join();
  new_call.join();
  EXPECT_TRUE(new_ran);
}

}  // namespace
}  // namespace bloomroute::testing
