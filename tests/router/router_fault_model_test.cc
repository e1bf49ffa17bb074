// The router under injected faults, against an exact model of what the
// region stores hold (../shared/DESIGN.md, invariant 1: a row that landed is
// never hidden from its index).
//
// Three in-process region stores sit behind a RegionClient that injects the
// faults a network and a machine produce: a write's reply lost after it
// committed, a reply that does not decode, a write that times out at the
// router and commits later (after the router's catch-up), a write delivered
// twice, a slow write during which a catch-up runs, a write that commits
// while a catch-up is reading the server's filter, server restarts, power
// losses (the data directory rolled back to a copy taken at an earlier stop),
// filter compactions, and router restarts. A seeded loop of events drives it
// all from one thread (the router's background maintenance is off; the loop
// runs it), so a seed replays the same history.
//
// The model is what the stores really hold: a write enters it when a store
// commits it, whether or not the router ever heard of it, and a power loss
// rolls the server's part back to the copy. Every lookup is compared with it:
// a row missing from an answer is a false negative, the failure this test
// exists to catch.
//
// BLOOMROUTE_FAULT_EVENTS (an environment variable) sets the events per seed
// for a longer soak run.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "router/router.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router {
namespace {

using testing::StoreCluster;

constexpr int kServers = 3;
constexpr int kCountries = 2000;
constexpr int kFeatures = 12;

// How often each fault happens, per call or per event.
struct FaultMix {
  // Per write (Apply) call.
  double lost_reply = 0;     // commits; the router sees Unavailable
  double garbled_reply = 0;  // commits; the router sees IOError
  double late_write = 0;     // the router sees Unavailable; commits later
  double duplicated = 0;     // delivered twice; one reply comes back
  double slow_write = 0;     // a maintenance pass runs before it commits
  // Per catch-up call (Snapshot, OpsSince): a write commits after the server
  // answered and before the answer reaches the router.
  double write_during_catch_up = 0;
  // Per event of the loop.
  double restart = 0;     // stop and start a server
  double backup = 0;      // stop a server, copy its directory, start it
  double power_loss = 0;  // stop, roll back to the copy, start
  double compact = 0;     // rebuild a server's filter (new epoch)
  double router_restart = 0;
};

// row -> (country, feature), for one server.
using NodeModel = std::map<std::string, std::pair<std::string, std::string>>;

struct Outcome {
  uint64_t events = 0;
  uint64_t lookups = 0;
  uint64_t missed = 0;  // rows the model holds that a lookup did not return
  uint64_t extra = 0;   // rows a lookup returned that the model lacks
  std::string first_miss;
};

uint64_t EventsPerSeed(uint64_t fallback) {
  const char* v = std::getenv("BLOOMROUTE_FAULT_EVENTS");
  return v != nullptr && std::atoll(v) > 0 ? std::atoll(v) : fallback;
}

class FaultWorld;

// The RegionClient of one server (StoreRegionClient's calls), with faults.
class FaultClient : public testing::StoreRegionClient {
 public:
  FaultClient(FaultWorld* world, int node,
              std::shared_ptr<StoreCluster::Node> store)
      : StoreRegionClient(std::move(store)), world_(world), node_(node) {}

  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override;
  StatusOr<FilterSnapshot> Snapshot(uint64_t fence_token) override;
  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq,
                                    uint64_t fence_token) override;
  using StoreRegionClient::OpenRegion;
  Status OpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                    CoordinatorEpoch epoch) override;

 private:
  FaultWorld* const world_;
  const int node_;
};

// The stores, their model, the faults and the router, driven by one seed.
class FaultWorld {
 public:
  FaultWorld(uint64_t seed, const FaultMix& mix)
      : mix_(mix), rng_(seed), cluster_(kServers, StoreOptions()) {
    for (int i = 0; i < kServers; ++i) {
      node_rng_.emplace_back(seed * 1000 + i);
    }
    models_.resize(kServers);
    backups_.resize(kServers);
  }
  ~FaultWorld() { router_.reset(); }

  Outcome Run(uint64_t events);

  // --- called by FaultClient
  // The router opened a region on the node: its rows are readable again.
  void Serving(int node) {
    std::lock_guard<std::mutex> lock(model_mu_);
    serving_[node] = true;
  }
  double Roll(int node) {
    std::lock_guard<std::mutex> lock(rng_mu_);
    return std::uniform_real_distribution<double>(0, 1)(node_rng_[node]);
  }
  const FaultMix& mix() const { return mix_; }
  // Applies the batch to the store and, when it commits, to the model.
  StatusOr<WriteResult> Execute(int node, const std::vector<Mutation>& batch,
                                uint64_t fence_token);
  void DeferWrite(int node, std::vector<Mutation> batch, uint64_t token) {
    std::lock_guard<std::mutex> lock(rng_mu_);
    late_[node].push_back({std::move(batch), token});
  }
  // A maintenance pass or a write through the router, from inside a call
  // the router is making (nothing happens while the router is being opened
  // or closed).
  // Nested calls do not nest further: a catch-up inside a write inside a
  // catch-up of the same server would wait for itself.
  void NestedMaintenance() {
    if (router_ == nullptr || in_router_change_ || nested_.exchange(true)) {
      return;
    }
    router_->RunMaintenance();
    nested_ = false;
  }
  void NestedWrite() {
    if (router_ == nullptr || in_router_change_ || nested_.exchange(true)) {
      return;
    }
    std::vector<Mutation> batch;
    {
      std::lock_guard<std::mutex> lock(rng_mu_);
      batch = RandomBatch();
    }
    (void)router_->Mutate("t", std::move(batch));
    nested_ = false;
  }

 private:
  static RegionStoreOptions StoreOptions() {
    RegionStoreOptions o;
    o.checkpoint_interval = 40;  // trimmed logs: snapshots happen
    o.max_ops_per_call = 25;     // catch-ups take several rounds
    o.max_filter_stages = 4;     // rebuilds under new epochs happen
    return o;
  }
  std::string RowKey() {
    return std::string(1, static_cast<char>('a' + rng_() % 26)) +
           std::to_string(rng_() % 30);
  }
  std::string Country() { return "c" + std::to_string(rng_() % kCountries); }
  std::string Feature() { return "f" + std::to_string(rng_() % kFeatures); }
  std::vector<Mutation> RandomBatch() {
    std::vector<Mutation> batch;
    for (int i = 0, n = 1 + static_cast<int>(rng_() % 4); i < n; ++i) {
      if (rng_() % 4 == 0) {
        batch.push_back(Mutation::Delete(0, RowKey()));
      } else {
        batch.push_back(testing::PutRow(RowKey(), Country(), Feature()));
      }
    }
    return batch;
  }
  void OpenTheRouter();
  void CheckLookup(Outcome* out);
  // Lands one pending late write; false when none is pending.
  bool LandLateWrite();
  void Restart(int node, bool roll_back);
  // Starts the node's store again: it serves nothing until reopened.
  void NewRun(int node);
  void Backup(int node);

  const FaultMix mix_;
  std::mt19937_64 rng_;  // the loop's; also NestedWrite's (under rng_mu_)
  std::mutex rng_mu_;    // guards node_rng_, late_ and rng_ in nested calls
  std::vector<std::mt19937_64> node_rng_;
  StoreCluster cluster_;
  std::mutex model_mu_;
  std::vector<NodeModel> models_;  // guarded by model_mu_
  // A restarted server serves no row until the router reopens its regions;
  // until then its rows are not readable, by gets or lookups alike.
  std::vector<bool> serving_ = std::vector<bool>(kServers, true);
  // Values that landed lately (guarded by model_mu_): lookups favour them,
  // as a user reads what was just written.
  std::deque<Cell> recent_;
  std::mt19937_64 rng_recent_{7};  // guarded by model_mu_
  struct Copy {
    std::string path;  // empty: none yet
    NodeModel model;
  };
  std::vector<Copy> backups_;
  testing::TempDir backup_dir_;
  // Per server, the writes that failed at the router and have not landed
  // yet, oldest first (per server, so that the order is the seed's).
  struct LateWrite {
    std::vector<Mutation> batch;
    uint64_t fence_token;
  };
  std::vector<std::deque<LateWrite>> late_{kServers};
  std::unique_ptr<Router> router_;
  bool in_router_change_ = false;
  std::atomic<bool> nested_{false};
  uint64_t event_ = 0;
};

StatusOr<WriteResult> FaultClient::Apply(const std::vector<Mutation>& batch,
                                         uint64_t fence_token) {
  const FaultMix& m = world_->mix();
  double roll = world_->Roll(node_);
  if ((roll -= m.late_write) < 0) {
    world_->DeferWrite(node_, batch, fence_token);
    return Status::Unavailable("timed out waiting for the reply");
  }
  if ((roll -= m.slow_write) < 0) world_->NestedMaintenance();
  StatusOr<WriteResult> result = world_->Execute(node_, batch, fence_token);
  if (!result.ok()) return result;
  if ((roll -= m.lost_reply) < 0) {
    return Status::Unavailable("connection reset before the reply");
  }
  if ((roll -= m.garbled_reply) < 0) {
    return Status::IOError("reply does not decode");
  }
  if ((roll -= m.duplicated) < 0) {
    StatusOr<WriteResult> again = world_->Execute(node_, batch, fence_token);
    if (world_->Roll(node_) < 0.5) return again;
  }
  return result;
}

Status FaultClient::OpenRegion(const RegionDescriptor& region,
                               uint64_t incarnation, CoordinatorEpoch epoch) {
  Status s = StoreRegionClient::OpenRegion(region, incarnation, epoch);
  if (s.ok()) world_->Serving(node_);
  return s;
}

// The answer is read (and the fence raised) before the write lands.
StatusOr<FilterSnapshot> FaultClient::Snapshot(uint64_t fence_token) {
  StatusOr<FilterSnapshot> s = StoreRegionClient::Snapshot(fence_token);
  if (world_->Roll(node_) < world_->mix().write_during_catch_up) {
    world_->NestedWrite();
  }
  return s;
}

StatusOr<FilterOpsSince> FaultClient::OpsSince(uint64_t incarnation,
                                               uint64_t epoch, uint64_t seq,
                                               uint64_t fence_token) {
  StatusOr<FilterOpsSince> ops =
      StoreRegionClient::OpsSince(incarnation, epoch, seq, fence_token);
  if (world_->Roll(node_) < world_->mix().write_during_catch_up) {
    world_->NestedWrite();
  }
  return ops;
}

StatusOr<WriteResult> FaultWorld::Execute(int node,
                                          const std::vector<Mutation>& batch,
                                          uint64_t fence_token) {
  std::shared_ptr<RegionStore> store = cluster_.store(node);
  if (store == nullptr) return Status::Unavailable("connection refused");
  std::lock_guard<std::mutex> lock(model_mu_);
  StatusOr<WriteResult> result = store->Apply(batch, fence_token);
  if (!result.ok()) return result;
  NodeModel& model = models_[node];
  for (const Mutation& m : batch) {
    if (m.kind == Mutation::Kind::kDelete) {
      model.erase(m.row_key);
      continue;
    }
    model[m.row_key] = {m.cells[0].value, m.cells[1].value};
    recent_.push_back(m.cells[rng_recent_() % 2]);
    if (recent_.size() > 16) recent_.pop_front();
  }
  return result;
}

void FaultWorld::OpenTheRouter() {
  in_router_change_ = true;
  router_.reset();
  RouterOptions o = testing::RouterOptionsFor(cluster_);
  o.background_maintenance = false;
  class Factory : public RegionClientFactory {
   public:
    explicit Factory(FaultWorld* world) : world_(world) {}
    StatusOr<std::unique_ptr<RegionClient>> Connect(
        ServerId, const std::string& address) override {
      const int node = std::stoi(address.substr(address.find('-') + 1));
      return std::unique_ptr<RegionClient>(std::make_unique<FaultClient>(
          world_, node, world_->cluster_.shared_node(node)));
    }

   private:
    FaultWorld* world_;
  };
  StatusOr<std::unique_ptr<Router>> r =
      Router::Open(o, std::make_shared<Factory>(this));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  router_ = std::move(r).value();
  in_router_change_ = false;
}

void FaultWorld::CheckLookup(Outcome* out) {
  bool by_country = rng_() % 3 != 0;
  std::string value = by_country ? Country() : Feature();
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    if (!recent_.empty() && rng_() % 2 == 0) {
      const Cell& c = recent_[rng_() % recent_.size()];
      by_country = c.column == "d:country";
      value = c.value;
    }
  }
  const std::string column = by_country ? "d:country" : "d:feature";
  StatusOr<LookupResult> r =
      router_->Lookup("t", testing::WhereEq({{column, value}}));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Nothing writes during a lookup, but it may make the router reopen a
  // restarted server's regions: the rows readable are those after it.
  std::set<std::string> want;
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    for (int node = 0; node < kServers; ++node) {
      if (!serving_[node]) continue;
      for (const auto& [row, cf] : models_[node]) {
        if ((by_country ? cf.first : cf.second) == value) want.insert(row);
      }
    }
  }
  ++out->lookups;
  std::set<std::string> got;
  for (const Row& row : r->rows) got.insert(row.key);
  for (const std::string& row : want) {
    if (got.count(row) != 0) continue;
    ++out->missed;
    if (out->first_miss.empty()) {
      out->first_miss = "event " + std::to_string(event_) + ": " + column +
                        "=" + value + " missed row " + row;
    }
  }
  for (const std::string& row : got) out->extra += want.count(row) == 0;
}

bool FaultWorld::LandLateWrite() {
  size_t pending = 0;
  for (const auto& writes : late_) pending += writes.size();
  if (pending == 0) return false;
  size_t i = rng_() % pending;
  for (int node = 0; node < kServers; ++node) {
    std::deque<LateWrite>& writes = late_[node];
    if (i >= writes.size()) {
      i -= writes.size();
      continue;
    }
    const LateWrite w = std::move(writes[i]);
    writes.erase(writes.begin() + static_cast<std::ptrdiff_t>(i));
    (void)Execute(node, w.batch, w.fence_token);  // a fence may refuse it
    break;
  }
  return true;
}

void FaultWorld::Restart(int node, bool roll_back) {
  cluster_.Down(node);
  // Requests in flight to the old process die with it.
  late_[node].clear();
  if (roll_back) {
    const std::string& path = cluster_.node(node).path;
    std::filesystem::remove_all(path);
    std::filesystem::copy(backups_[node].path, path,
                          std::filesystem::copy_options::recursive);
    std::lock_guard<std::mutex> lock(model_mu_);
    models_[node] = backups_[node].model;
  }
  NewRun(node);
}

void FaultWorld::NewRun(int node) {
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    serving_[node] = false;
  }
  cluster_.Up(node);
}

void FaultWorld::Backup(int node) {
  cluster_.Down(node);
  Copy& b = backups_[node];
  b.path = backup_dir_.path() + "/" + std::to_string(node);
  std::filesystem::remove_all(b.path);
  std::filesystem::copy(cluster_.node(node).path, b.path,
                        std::filesystem::copy_options::recursive);
  {
    std::lock_guard<std::mutex> lock(model_mu_);
    b.model = models_[node];
  }
  NewRun(node);
}

Outcome FaultWorld::Run(uint64_t events) {
  Outcome out;
  OpenTheRouter();
  if (router_ == nullptr) return out;
  TableSpec spec;
  spec.name = "t";
  spec.indexed_columns = {"d:country", "d:feature"};
  spec.split_keys = {"i", "r"};
  if (!router_->CreateTable(spec).ok()) {
    ADD_FAILURE() << "create table";
    return out;
  }
  router_->RunMaintenance();
  for (event_ = 0; event_ < events; ++event_) {
    const double roll = std::uniform_real_distribution<double>(0, 1)(rng_);
    const int node = static_cast<int>(rng_() % kServers);
    double p = roll;
    if ((p -= mix_.restart) < 0) {
      Restart(node, false);
    } else if ((p -= mix_.backup) < 0) {
      Backup(node);
    } else if ((p -= mix_.power_loss) < 0) {
      if (!backups_[node].path.empty()) Restart(node, true);
    } else if ((p -= mix_.compact) < 0) {
      if (auto s = cluster_.store(node)) (void)s->CompactFilter();
    } else if ((p -= mix_.router_restart) < 0) {
      OpenTheRouter();
    } else if ((p -= 0.05) < 0) {
      LandLateWrite();
    } else if ((p -= 0.1) < 0) {
      router_->RunMaintenance();
    } else if ((p -= 0.3) < 0) {
      CheckLookup(&out);
    } else {
      std::vector<Mutation> batch;
      {
        std::lock_guard<std::mutex> lock(rng_mu_);
        batch = RandomBatch();
      }
      (void)router_->Mutate("t", std::move(batch));
    }
    if (::testing::Test::HasFatalFailure()) break;
  }
  out.events = event_;
  // Whatever is still in flight lands; after catching up, every value is
  // looked up once more.
  while (LandLateWrite()) {
  }
  for (int i = 0; i < 3; ++i) router_->RunMaintenance();
  for (int i = 0; i < kCountries + kFeatures; ++i) CheckLookup(&out);
  return out;
}

std::string Describe(uint64_t seed, const Outcome& o) {
  return "seed " + std::to_string(seed) + ": " + std::to_string(o.events) +
         " events, " + std::to_string(o.lookups) + " lookups, " +
         std::to_string(o.missed) + " missed rows, " + std::to_string(o.extra) +
         " extra rows; first: " + o.first_miss;
}

void RunSeeds(const FaultMix& mix, uint64_t events,
              std::vector<uint64_t> seeds) {
  for (uint64_t seed : seeds) {
    FaultWorld world(seed, mix);
    const Outcome o = world.Run(EventsPerSeed(events));
    EXPECT_EQ(o.missed, 0u) << Describe(seed, o);
    EXPECT_EQ(o.extra, 0u) << Describe(seed, o);
    std::cout << "  " << Describe(seed, o) << "\n";
  }
}

class RouterFaultModelTest : public ::testing::Test {};

// Item 1 of the exactness issue: power losses roll a server's directory back
// while the router's replica is ahead of it.
TEST_F(RouterFaultModelTest, PowerLossesAndRestarts) {
  FaultMix mix;
  mix.restart = 0.004;
  mix.backup = 0.004;
  mix.power_loss = 0.004;
  RunSeeds(mix, 6000, {1, 2, 3, 4});
}

// Item 2: writes whose replies are lost while a catch-up reads the filter.
TEST_F(RouterFaultModelTest, WritesDuringCatchUp) {
  FaultMix mix;
  mix.lost_reply = 0.2;
  mix.write_during_catch_up = 0.3;
  RunSeeds(mix, 6000, {1, 2, 3, 4});
}

// Item 3: failed writes that commit later, and failures other than
// Unavailable.
TEST_F(RouterFaultModelTest, FailedWritesThatLandLater) {
  FaultMix mix;
  mix.late_write = 0.05;
  mix.garbled_reply = 0.05;
  mix.slow_write = 0.05;
  RunSeeds(mix, 6000, {1, 2, 3, 4});
}

// Everything at once, with compactions and router restarts.
TEST_F(RouterFaultModelTest, EveryFaultTogether) {
  FaultMix mix;
  mix.lost_reply = 0.05;
  mix.garbled_reply = 0.03;
  mix.late_write = 0.03;
  mix.duplicated = 0.03;
  mix.slow_write = 0.03;
  mix.write_during_catch_up = 0.1;
  mix.restart = 0.002;
  mix.backup = 0.002;
  mix.power_loss = 0.002;
  mix.compact = 0.005;
  mix.router_restart = 0.002;
  RunSeeds(mix, 10000, {1, 2, 3, 4, 5, 6});
}

}  // namespace
}  // namespace bloomroute::router
