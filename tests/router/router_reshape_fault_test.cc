// Region operations (router/coordinator/region_ops.cc) under the
// interleavings and faults that only a few instructions or one failed call
// open: a writer held across the switch, a member removed under an operation, a
// catalog write that fails at the switch, a write in doubt from before the
// operation arriving late, another DDL holding the catalog at the switch.
// Sync points (common/sync_point.h) and HookClient make each one certain.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/sync_point.h"
#include "router/router.h"
#include "tests/router/reshape_test_fixture.h"

namespace bloomroute::router {
namespace {

using reshape_test::Key;
using reshape_test::kServers;

// Waits up to `limit` for `done`; whether it came.
bool WaitFor(const std::function<bool()>& done,
             std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

class RouterReshapeFaultTest : public reshape_test::ReshapeFixture {
 protected:
  void TearDown() override { SyncPoints::ClearAll(); }

  // The row's d:country; "" for no row, "error: ..." when the get failed.
  std::string Value(const std::string& key) {
    StatusOr<std::vector<std::optional<Row>>> got =
        router_->Get("t", {GetRequest{0, key, {}}});
    if (!got.ok()) return "error: " + got.status().ToString();
    if (!(*got)[0] || (*got)[0]->cells.empty()) return std::string();
    return (*got)[0]->cells[0].value;
  }
};

// A writer takes the table's state while the operation copies and is held
// until the operation has switched. Its write must reach the new region:
// before the fix it asked for the running operation only after taking the
// state, found none (the operation had ended), wrote to the old region and
// was acknowledged; the old region was then dropped with the row.
TEST_F(RouterReshapeFaultTest, AWriterHeldAcrossTheSwitchReachesTheNewRegion) {
  const RegionLocation source = Describe().regions[0];
  const ServerId to = source.server.id % kServers + 1;
  std::atomic<bool> armed{false}, held{false}, release{false};
  SyncPoints::Set("RouteWrite:StateTaken", [&](void*) {
    if (!armed.exchange(false)) return;
    held = true;
    WaitFor([&] { return release.load(); });
  });
  std::thread writer;
  Status written = Status::Unavailable("not run");
  SetBefore([&](int, const std::string& call, uint64_t region) {
    // The copy's first read: the operation is recorded and published.
    if (call == "Scan" && region == source.region.region_id &&
        !writer.joinable()) {
      armed = true;
      writer = std::thread([&] {
        written = router_->Mutate(
            "t", {Mutation::Put(0, Key(5), {{"d:country", "c6"}})});
      });
      EXPECT_TRUE(WaitFor([&] { return held.load(); }));
    }
    return Status::OK();
  });
  std::thread op([&] {
    StatusOr<RegionOpResult> moved =
        router_->MoveRegion(source.region.region_id, to);
    EXPECT_TRUE(moved.ok()) << moved.status().ToString();
  });
  // The switch happens while the writer is held.
  EXPECT_TRUE(WaitFor([&] {
    return Describe().regions[0].region.region_id != source.region.region_id;
  }));
  release = true;
  op.join();
  writer.join();
  SetBefore(nullptr);
  ASSERT_TRUE(written.ok()) << written.ToString();
  model_[Key(5)] = "c6";
  EXPECT_EQ(Value(Key(5)), "c6");
  ExpectModel();
}

// A member that a running move copies to is not removable, and neither is
// one whose region a finished move could not drop yet: before, both were
// removed (no region of theirs was counted), leaving a region on a
// non-member -- lookups skipped it, and the next router refused to start or
// died finishing the operation.
TEST_F(RouterReshapeFaultTest, AServerAnOperationNeedsIsNotRemoved) {
  const RegionLocation source = Describe().regions[0];
  // The third server holds no region.
  ServerId empty = 0;
  for (const ServerRef& s : router_->Servers()) {
    bool holds = false;
    for (const RegionLocation& r : Describe().regions) {
      holds = holds || r.server.id == s.id;
    }
    if (!holds) empty = s.id;
  }
  ASSERT_NE(empty, 0u);
  Status removed = Status::OK();
  bool tried = false;
  SetBefore([&](int, const std::string& call, uint64_t region) {
    if (call == "Apply" && region != source.region.region_id && !tried) {
      tried = true;
      removed = router_->RemoveServer(empty);
    }
    return Status::OK();
  });
  StatusOr<RegionOpResult> moved =
      router_->MoveRegion(source.region.region_id, empty);
  SetBefore(nullptr);
  EXPECT_TRUE(tried);
  EXPECT_TRUE(removed.IsInvalidArgument()) << removed.ToString();
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ExpectModel();

  // Decommission the server the region came from, its last region's drop
  // failing: the switch stands, the old region waits for maintenance, and
  // the server stays a member until it is dropped.
  const RegionLocation second = Describe().regions[1];
  SetBefore([&](int, const std::string& call, uint64_t region) {
    return call == "DropRegion" && region == second.region.region_id
               ? Status::Unavailable("connection reset")
               : Status::OK();
  });
  StatusOr<std::vector<BalanceReport::Step>> drained =
      router_->DecommissionServer(second.server.id);
  EXPECT_FALSE(drained.ok());
  bool member = false;
  for (const ServerRef& s : router_->Servers()) {
    member = member || s.id == second.server.id;
  }
  EXPECT_TRUE(member);
  // A new router finishes the operation (it died doing so before).
  SetBefore(nullptr);
  Reopen();
  router_->RunMaintenance();
  drained = router_->DecommissionServer(second.server.id);
  ASSERT_TRUE(drained.ok()) << drained.status().ToString();
  for (const RegionLocation& r : Describe().regions) {
    EXPECT_NE(r.server.id, second.server.id);
  }
  ExpectModel();
}

// The switch's catalog write fails: it may or may not be on disk, so the
// operation must neither finish nor undo blindly. Before, a write that
// failed after reaching the disk was taken for a switch (the state was set
// before the write): the old region was dropped while the catalog still
// routed to it, and every row of the region was lost.
class SwitchWriteFailureTest
    : public RouterReshapeFaultTest,
      public ::testing::WithParamInterface<const char*> {
 protected:
  // A move of the first region whose switch write fails at the sync point
  // the parameter names (before or after the write reached the disk).
  Status MoveFailingItsSwitchWrite() {
    const RegionLocation source = Describe().regions[0];
    std::atomic<bool> fail_next{false};
    SyncPoints::Set("RunRegionOp:Switching", [&](void*) { fail_next = true; });
    SyncPoints::Set(GetParam(), [&](void* arg) {
      if (fail_next.exchange(false)) {
        *static_cast<Status*>(arg) = Status::IOError("injected: fsync failed");
      }
    });
    const Status moved = router_
                             ->MoveRegion(source.region.region_id,
                                          source.server.id % kServers + 1)
                             .status();
    SyncPoints::ClearAll();
    return moved;
  }
};

TEST_P(SwitchWriteFailureTest, NoRowIsLostAndTheOperationEndsOneWay) {
  const RegionLocation source = Describe().regions[0];
  EXPECT_FALSE(MoveFailingItsSwitchWrite().ok());
  // Reads still answer from whichever regions the router routes to.
  EXPECT_EQ(Value(Key(3)), model_[Key(3)]);
  // Maintenance records the switch again and finishes the operation.
  router_->RunMaintenance();
  router_->RunMaintenance();
  ExpectModel();
  EXPECT_NE(Describe().regions[0].region.region_id, source.region.region_id);
}

TEST_P(SwitchWriteFailureTest, ARestartAfterTheFailureEndsItOneWay) {
  EXPECT_FALSE(MoveFailingItsSwitchWrite().ok());
  // What a crash right after the failure leaves: the disk decides.
  Reopen();
  router_->RunMaintenance();
  ExpectModel();
}

INSTANTIATE_TEST_SUITE_P(WrittenOrNot, SwitchWriteFailureTest,
                         ::testing::Values("Catalog:BeforeWrite",
                                           "Catalog:AfterWrite"));

// A write to the source whose reply was lost before the operation started
// is still in the network, and arrives during the copy. It must not commit
// behind the copy: before, it did (the source's fence was raised only by a
// later catch-up), a read saw its value, and the move then lost it.
TEST_F(RouterReshapeFaultTest, AWriteInDoubtFromBeforeCannotCommitBehindCopy) {
  const RegionLocation source = Describe().regions[0];
  const int node = NodeOf(source.server.id);
  std::vector<Mutation> delayed;
  uint64_t delayed_token = 0;
  {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->before_apply = [&](int, const std::vector<Mutation>& batch,
                               uint64_t token) {
      delayed = batch;
      delayed_token = token;
      return Status::Unavailable("connection reset");  // it never arrived
    };
  }
  EXPECT_FALSE(
      router_->Mutate("t", {Mutation::Put(0, Key(7), {{"d:country", "c6"}})})
          .ok());
  {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->before_apply = nullptr;
  }
  ASSERT_EQ(delayed.size(), 1u);
  std::optional<Status> late;
  std::string seen;
  SetBefore([&](int, const std::string& call, uint64_t region) {
    if (call == "Apply" && region != source.region.region_id && !late) {
      // The copy has read the row and writes it: the lost write arrives.
      StatusOr<WriteResult> r =
          cluster_.store(node)->Apply(delayed, delayed_token);
      late = r.status();
      seen = Value(Key(7));
    }
    return Status::OK();
  });
  StatusOr<RegionOpResult> moved = router_->MoveRegion(
      source.region.region_id, source.server.id % kServers + 1);
  SetBefore(nullptr);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ASSERT_TRUE(late.has_value());
  if (late->ok()) {
    // It committed and was read: it must survive the move.
    EXPECT_EQ(seen, "c6");
    EXPECT_EQ(Value(Key(7)), "c6");
    model_[Key(7)] = "c6";
  } else {
    EXPECT_TRUE(late->IsAborted()) << late->ToString();  // fenced off
  }
  ExpectModel();
}

// Another DDL holds the router's catalog lock (a table being deleted,
// waiting on a slow server) when the operation reaches its switch. Writes
// to the region must not wait for it: before, the switch closed the gate
// and then waited for the lock, so the writes waited for the other DDL.
TEST_F(RouterReshapeFaultTest, AnotherDdlDoesNotHoldWritesAtTheSwitch) {
  ASSERT_TRUE(router_->CreateTable({"u", {}, {}, 1}).ok());
  const uint64_t u = router_->DescribeTable("u")->regions[0].region.region_id;
  const RegionLocation source = Describe().regions[0];
  std::atomic<bool> ddl_holds{false}, writer_done{false}, gate_closed{false};
  std::atomic<bool> writer_done_in_time{false};
  std::thread ddl, writer;
  SetBefore([&](int, const std::string& call, uint64_t region) {
    if (call == "DropRegion" && region == u) {
      ddl_holds = true;
      // Held until the write went through, or 10 s.
      writer_done_in_time = WaitFor([&] { return writer_done.load(); });
    }
    if (call == "Scan" && region == source.region.region_id &&
        !ddl.joinable()) {
      ddl = std::thread([&] { EXPECT_TRUE(router_->DeleteTable("u").ok()); });
      EXPECT_TRUE(WaitFor([&] { return ddl_holds.load(); }));
    }
    return Status::OK();
  });
  SyncPoints::Set("RunRegionOp:GateClosed", [&](void*) {
    if (gate_closed.exchange(true)) return;
    writer = std::thread([&] {
      EXPECT_TRUE(
          router_
              ->Mutate("t", {Mutation::Put(0, Key(9), {{"d:country", "c5"}})})
              .ok());
      writer_done = true;
    });
  });
  StatusOr<RegionOpResult> moved = router_->MoveRegion(
      source.region.region_id, source.server.id % kServers + 1);
  SyncPoints::ClearAll();
  if (writer.joinable()) writer.join();
  ddl.join();
  SetBefore(nullptr);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_TRUE(gate_closed);
  EXPECT_TRUE(writer_done_in_time);
  model_[Key(9)] = "c5";
  ExpectModel();
}

// Between the switch and the drop of the old region, the new one is staged
// on its server: listed as such, not as a region its server fails to serve.
TEST_F(RouterReshapeFaultTest, ANewRegionIsListedStagedUntilPromoted) {
  const RegionLocation source = Describe().regions[0];
  std::optional<RegionServing> serving;
  SetBefore([&](int, const std::string& call, uint64_t region) {
    if (call == "DropRegion" && region == source.region.region_id && !serving) {
      StatusOr<std::vector<RegionSummary>> listed = router_->ListRegions("t");
      EXPECT_TRUE(listed.ok());
      if (listed.ok()) serving = listed->front().serving;
    }
    return Status::OK();
  });
  StatusOr<RegionOpResult> moved = router_->MoveRegion(
      source.region.region_id, source.server.id % kServers + 1);
  SetBefore(nullptr);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ASSERT_TRUE(serving.has_value());
  EXPECT_EQ(*serving, RegionServing::kStaged);
  StatusOr<std::vector<RegionSummary>> listed = router_->ListRegions("t");
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->front().serving, RegionServing::kOpen);
}

// A move's new region is staged between the switch and the drop of the
// old one: served for what names it, and not "not served" in the cluster
// status (it was counted so, and an operator saw a region missing).
TEST_F(RouterReshapeFaultTest, AStagedRegionIsNotCountedAsNotServed) {
  const RegionLocation source = Describe().regions[0];
  std::optional<uint32_t> not_served;
  SetBefore([&](int, const std::string& call, uint64_t region) {
    if (call == "DropRegion" && region == source.region.region_id &&
        !not_served) {
      not_served = 0;
      for (const ServerStatus& s : router_->GetClusterStatus().servers) {
        EXPECT_TRUE(s.reachable) << s.error;
        *not_served += s.regions_not_served;
      }
    }
    return Status::OK();
  });
  StatusOr<RegionOpResult> moved = router_->MoveRegion(
      source.region.region_id, source.server.id % kServers + 1);
  SetBefore(nullptr);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  ASSERT_TRUE(not_served.has_value());
  EXPECT_EQ(*not_served, 0u);
}

// The catch-up rounds write the target as ordinary writes: on a server
// without --sync they sat in its WAL's unsynced tail when the source was
// dropped, so a power loss of the target after the drop lost rows written
// during the copy (and brought back rows deleted then) that the source had
// held durably. Before the fix no WAL sync reached the target at all.
TEST_F(RouterReshapeFaultTest, TheTargetIsSyncedBeforeTheSwitchAndTheDrop) {
  const RegionLocation source = Describe().regions[0];
  const ServerId to = source.server.id % kServers + 1;
  int target = -1;
  for (const ServerRef& s : router_->Servers()) {
    if (s.id == to)
      target = std::stoi(s.address.substr(s.address.find('-') + 1));
  }
  ASSERT_GE(target, 0);
  std::mutex mu;
  std::vector<std::string> events;  // the target's calls, the switch, the drop
  auto note = [&](std::string e) {
    std::lock_guard<std::mutex> lock(mu);
    events.push_back(std::move(e));
  };
  std::atomic<bool> written{false};
  SetBefore([&](int node, const std::string& call, uint64_t region) {
    // A write during the copy, so that a catch-up round writes the target.
    if (call == "Scan" && region == source.region.region_id &&
        !written.exchange(true)) {
      std::thread([&] {
        EXPECT_TRUE(
            router_
                ->Mutate("t", {Mutation::Put(0, Key(7), {{"d:country", "c9"}})})
                .ok());
      }).join();
    }
    if (node == target) note(call);
    if (call == "DropRegion" && region == source.region.region_id) {
      note("drop source");
    }
    return Status::OK();
  });
  SyncPoints::Set("RunRegionOp:Switching", [&](void*) { note("switch"); });
  StatusOr<RegionOpResult> moved =
      router_->MoveRegion(source.region.region_id, to);
  SetBefore(nullptr);
  SyncPoints::ClearAll();
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_GE(moved->catch_up_rounds, 1u);
  model_[Key(7)] = "c9";
  ExpectModel();
  // The last write to the target before the switch is followed by a sync
  // before the switch, and the drop is preceded by a sync after it.
  const auto at = [&](const std::string& e) {
    return std::find(events.begin(), events.end(), e) - events.begin();
  };
  const auto switched = at("switch");
  const auto dropped = at("drop source");
  ASSERT_LT(switched, static_cast<long>(events.size()));
  ASSERT_LT(dropped, static_cast<long>(events.size()));
  long last_write = -1, sync_before_switch = -1, sync_before_drop = -1;
  for (long i = 0; i < static_cast<long>(events.size()); ++i) {
    if (events[i] == "Apply" && i < switched) last_write = i;
    if (events[i] == "SyncWal" && i > last_write && i < switched) {
      sync_before_switch = i;
    }
    if (events[i] == "SyncWal" && i > switched && i < dropped) {
      sync_before_drop = i;
    }
  }
  EXPECT_GE(last_write, 0);
  EXPECT_GT(sync_before_switch, last_write);
  EXPECT_GT(sync_before_drop, switched);
}

}  // namespace
}  // namespace bloomroute::router
