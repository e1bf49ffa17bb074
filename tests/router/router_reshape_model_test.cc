// Region operations under load and faults, against an exact model.
//
// Six in-process region stores behind HookClient, three of them members at
// first. Two writer threads put and delete rows (each owns half of the
// keys, so each row's history is sequential) and two reader threads run
// lookups, full scans and gets, while the main thread splits, merges and
// moves regions, adds stores as members (joins) and decommissions members
// (drains). Faults: a router cut off from every server at a random call of
// an operation (what a SIGKILL leaves: the next router, opened on the same
// catalog, must finish or undo it), a reply lost after the target
// committed, a region server restarted in the middle of an operation, and
// replies of the writers' own writes lost (about one in 300: the write may
// have landed; an operation copying its region must not switch).
//
// The model: a row's value is known once its write was acknowledged; a
// write that failed leaves it unknown until the next acknowledged one (or
// the check at the end of an epoch, which reads it). A read is checked on
// the rows that were stable throughout it (no write to them in flight or
// started since the read began): each such row must be in its answer iff it
// matches, exactly once. A full scan is read as a client reads it: a call
// past its work budget (RouterOptions::call_work_budget_ms) answers a prefix
// and a resume row, and the scan goes on from there; the rows must be stable
// throughout all its pages. After each epoch (a router's life) every row,
// every lookup and the index verification must agree with the model.
//
// BLOOMROUTE_RESHAPE_OPS sets the reads and writes per seed (a longer soak;
// 20,000 by default, 60,000 over the three seeds, with 60 operations on
// the cluster's shape each).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "router/router.h"
#include "tests/router/hook_client.h"
#include "tests/router/router_test_util.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::router {
namespace {

using testing::HookFactory;
using testing::Hooks;
using testing::StoreCluster;

constexpr int kStores = 6;
constexpr int kFirstMembers = 3;
constexpr int kAdminOps = 60;
constexpr int kReaders = 2;
constexpr int kKeys = 1200;
constexpr int kValues = 12;
constexpr int kWriters = 2;
// Pages of one full scan, at most: each resume row must move on, and a
// scan that pages past this many times is a scan that does not end.
constexpr int kMaxScanPages = 4 * kKeys;

// Set on the reader threads (their region server scans are slowed when a
// test asks for paged scans).
thread_local bool tls_reader = false;

uint64_t OpsPerSeed() {
  const char* v = std::getenv("BLOOMROUTE_RESHAPE_OPS");
  return v != nullptr && std::atoll(v) > 0 ? std::atoll(v) : 20000;
}

std::string Key(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%05d", i);
  return buf;
}
std::string Value(int v) { return "v" + std::to_string(v); }

struct RowState {
  std::mutex mu;
  std::optional<std::string> value;  // guarded by mu
  bool known = true;                 // guarded by mu
  bool in_flight = false;            // guarded by mu
  uint64_t last_start = 0;           // guarded by mu
  uint64_t last_end = 0;             // guarded by mu
};

class ReshapeWorld {
 public:
  // `paged_scans`: the routers get a work budget of 1 ms and every region
  // server scan of a reader takes longer, so that every full scan of more
  // than one region is answered in pages (as a loaded machine makes some).
  explicit ReshapeWorld(uint64_t seed, bool paged_scans = false)
      : rng_(seed), cluster_(kStores), rows_(kKeys), paged_scans_(paged_scans) {
    OpenRouter();
    EXPECT_TRUE(router_->CreateTable({"t", {"d:v"}, {Key(kKeys / 2)}, 0}).ok());
    admin_thread_ = std::this_thread::get_id();
    SetHooks();
  }
  ~ReshapeWorld() { StopLoad(); }

  void Run(uint64_t ops, int admin_ops) {
    StartLoad();
    for (int i = 0; i < admin_ops && !::testing::Test::HasFatalFailure(); ++i) {
      AdminStep();
      // Let the load run between operations.
      while (load_ops_ < ops * (i + 1) / admin_ops && !Failed()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      if (Failed()) break;
    }
    StopLoad();
    CheckEverything();
    for (const std::string& e : errors_) ADD_FAILURE() << e;
  }

  void Report() const {
    std::cout << "[reshape model] load ops " << load_ops_ << " (writes "
              << writes_ << ", lookups " << lookups_ << ", scans " << scans_
              << ", gets " << gets_ << "; scan pages continued "
              << continued_scans_ << "; reads failed " << failed_reads_
              << ", write replies lost " << lost_writes_ << "); splits "
              << done_[0] << ", merges " << done_[1] << ", moves " << done_[2]
              << ", joins " << done_[3] << ", drains " << done_[4]
              << ", refused or undone " << undone_
              << " (waited for maintenance " << waited_ << ")"
              << ", router cut-offs " << cutoffs_ << ", store restarts "
              << restarts_ << ", copy replies lost " << lost_ << "\n";
  }
  uint64_t load_ops() const { return load_ops_; }
  uint64_t continued_scans() const { return continued_scans_; }

 private:
  void OpenRouter() {
    RouterOptions o = testing::RouterOptionsFor(cluster_);
    // The first members; later routers find the members in the catalog
    // (a flag naming a decommissioned store would make it one again).
    o.region_servers.resize(opened_ ? 0 : kFirstMembers);
    opened_ = true;
    o.maintenance_interval_ms = 20;
    if (paged_scans_) o.call_work_budget_ms = 1;
    StatusOr<std::unique_ptr<Router>> r =
        Router::Open(o, std::make_shared<HookFactory>(&cluster_, hooks_));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    router_ = std::move(r).value();
  }

  void SetHooks() {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    hooks_->before = [this](int, const std::string& call, uint64_t) {
      if (paged_scans_ && tls_reader && call == "Scan") {
        // Past the call's budget of 1 ms: a scan answers after this region.
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      }
      if (cut_) return Status::Unavailable("router cut off");
      if (std::this_thread::get_id() != admin_thread_) return Status::OK();
      const int n = ++op_calls_;
      if (n == cut_at_) {
        cut_ = true;
        return Status::Unavailable("router cut off");
      }
      if (n == restart_at_) {
        ++restarts_;
        restarter_ = std::thread([this, node = restart_node_] {
          cluster_.Down(node);
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          cluster_.Up(node);
        });
      }
      (void)call;
      return Status::OK();
    };
    hooks_->after = [this](int, const std::string& call, uint64_t region) {
      // A writer's write, its reply lost now and then (a fixed pattern of
      // calls: the threads' interleaving decides which).
      if (std::this_thread::get_id() != admin_thread_ && call == "Apply" &&
          ++load_applies_ % 300 == 0) {
        ++lost_writes_;
        return Status::Unavailable("reply lost");
      }
      // A write of the copy to a new region, its reply lost.
      if (std::this_thread::get_id() != admin_thread_ || call != "Apply" ||
          !lose_reply_ || old_regions_.count(region) != 0 || lost_once_) {
        return Status::OK();
      }
      lost_once_ = true;
      ++lost_;
      return Status::Unavailable("reply lost");
    };
  }

  // One split, merge or move, perhaps with a fault.
  void AdminStep() {
    StatusOr<TableInfo> t = router_->DescribeTable("t");
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    const std::vector<RegionLocation>& regions = t->regions;
    std::uniform_int_distribution<int> pick(0, regions.size() - 1);
    const RegionLocation& r = regions[pick(rng_)];
    op_calls_ = 0;
    cut_at_ = restart_at_ = -1;
    lose_reply_ = false;
    lost_once_ = false;
    old_regions_.clear();
    for (const RegionLocation& l : regions) {
      old_regions_.insert(l.region.region_id);
    }
    const int fault = std::uniform_int_distribution<int>(0, 9)(rng_);
    if (fault == 2) lose_reply_ = true;
    if (fault == 0) cut_at_ = std::uniform_int_distribution<int>(1, 12)(rng_);
    if (fault == 1) {
      restart_at_ = std::uniform_int_distribution<int>(1, 8)(rng_);
      restart_node_ = std::uniform_int_distribution<int>(0, kStores - 1)(rng_);
    }
    // 0 split, 1 merge, 2 move, 3 join, 4 drain.
    int kind = std::uniform_int_distribution<int>(0, 4)(rng_);
    if (regions.size() >= 8) kind = 1;  // keep the table small
    if (regions.size() <= 2 && kind == 1) kind = 0;
    const std::vector<ServerRef> members = router_->Servers();
    std::vector<std::string> outside;
    for (const std::string& a : cluster_.Addresses()) {
      if (std::none_of(members.begin(), members.end(),
                       [&](const ServerRef& m) { return m.address == a; })) {
        outside.push_back(a);
      }
    }
    if (kind == 3 && outside.empty()) kind = 2;
    if (kind == 4 && members.size() <= 2) kind = 3;
    if (kind == 3 && outside.empty()) kind = 2;
    Status result = Status::Unavailable("not run");
    if (kind == 0) {
      std::optional<std::string> at;
      if (std::uniform_int_distribution<int>(0, 1)(rng_) == 0) {
        at = Key(std::uniform_int_distribution<int>(0, kKeys - 1)(rng_));
        if (*at <= r.region.start_key ||
            (!r.region.end_key.empty() && *at >= r.region.end_key)) {
          at.reset();
        }
      }
      result = router_->SplitRegion(r.region.region_id, at).status();
    } else if (kind == 1) {
      const size_t i = std::min<size_t>(pick(rng_), regions.size() - 2);
      result = router_
                   ->MergeRegions(regions[i].region.region_id,
                                  regions[i + 1].region.region_id)
                   .status();
    } else if (kind == 2) {
      std::vector<ServerId> others;
      for (const ServerRef& m : members) {
        if (m.id != r.server.id) others.push_back(m.id);
      }
      const ServerId dest = others[std::uniform_int_distribution<size_t>(
          0, others.size() - 1)(rng_)];
      result = router_->MoveRegion(r.region.region_id, dest).status();
    } else if (kind == 3) {
      result = router_
                   ->AddServer(outside[std::uniform_int_distribution<size_t>(
                       0, outside.size() - 1)(rng_)])
                   .status();
    } else {
      const ServerId leaving = members[std::uniform_int_distribution<size_t>(
                                           0, members.size() - 1)(rng_)]
                                   .id;
      result = router_->DecommissionServer(leaving).status();
    }
    // The faults were this operation's: the checks below make calls too.
    cut_at_ = restart_at_ = -1;
    if (restarter_.joinable()) restarter_.join();
    if (result.ok()) {
      ++done_[kind];
    } else {
      ++undone_;
      // An operation left in the catalog by a fault is finished or undone
      // by maintenance; meanwhile others wait.
      if (result.ToString().find("in flight") != std::string::npos) {
        ++waited_;
        router_->RunMaintenance();
      }
      // Split refusals (too few rows) and the like are fine; a fault must
      // undo. Anything else is a bug.
      const Status& s = result;
      if (!s.IsUnavailable() && !s.IsInvalidArgument() && !s.IsNotFound() &&
          !s.IsAborted()) {
        Fail("operation failed: " + s.ToString());
      }
    }
    if (cut_) {
      // The next router takes over the catalog.
      ++cutoffs_;
      StopLoad();
      router_.reset();
      cut_ = false;
      OpenRouter();
      CheckEverything();
      StartLoad();
    }
  }

  void StartLoad() {
    stop_ = false;
    for (int w = 0; w < kWriters; ++w) {
      load_.emplace_back([this, w] { Writer(w); });
    }
    for (int r = 0; r < kReaders; ++r) {
      load_.emplace_back([this, r] { Reader(r); });
    }
  }
  void StopLoad() {
    stop_ = true;
    for (std::thread& t : load_) t.join();
    load_.clear();
  }

  void Writer(int w) {
    std::mt19937_64 rng(rng_seed_base_ + w);
    while (!stop_) {
      std::vector<int> keys;
      const int n = std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 5 : 1;
      std::set<int> distinct;
      while (static_cast<int>(distinct.size()) < n) {
        int k =
            std::uniform_int_distribution<int>(0, kKeys / kWriters - 1)(rng);
        distinct.insert(k * kWriters + w);
      }
      std::vector<Mutation> batch;
      std::vector<std::optional<std::string>> values;
      for (int k : distinct) {
        keys.push_back(k);
        if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {
          batch.push_back(Mutation::Delete(0, Key(k)));
          values.push_back(std::nullopt);
        } else {
          const std::string v =
              Value(std::uniform_int_distribution<int>(0, kValues - 1)(rng));
          batch.push_back(Mutation::Put(0, Key(k), {{"d:v", v}}));
          values.push_back(v);
        }
      }
      for (int k : keys) {
        std::lock_guard<std::mutex> lock(rows_[k].mu);
        rows_[k].in_flight = true;
        rows_[k].last_start = ++clock_;
      }
      const Status s = router_->Mutate("t", std::move(batch));
      for (size_t i = 0; i < keys.size(); ++i) {
        RowState& row = rows_[keys[i]];
        std::lock_guard<std::mutex> lock(row.mu);
        row.in_flight = false;
        row.last_end = ++clock_;
        row.known = s.ok();
        if (s.ok()) row.value = values[i];
      }
      ++writes_;
      ++load_ops_;
    }
  }

  // The rows stable since `since`: key -> value (nullopt: absent).
  std::map<int, std::optional<std::string>> Stable(uint64_t since) {
    std::map<int, std::optional<std::string>> out;
    for (int k = 0; k < kKeys; ++k) {
      std::lock_guard<std::mutex> lock(rows_[k].mu);
      // Its last write ended before the read began.
      if (rows_[k].known && !rows_[k].in_flight && rows_[k].last_end < since) {
        out.emplace(k, rows_[k].value);
      }
    }
    return out;
  }

  // The whole table, scanned as a client does: from each answer's resume
  // row until an answer has none. A page's rows must lie before its resume
  // row and the resume row after where the page began (a failure, with
  // Corruption returned); a page that failed fails the scan.
  StatusOr<std::vector<Row>> ScanWhole() {
    std::vector<Row> rows;
    ScanSpec spec;
    for (int page = 0; page < kMaxScanPages; ++page) {
      StatusOr<ScanResult> r = router_->Scan("t", spec, 100000);
      if (!r.ok()) return r.status();
      const std::optional<std::string> resume = r->resume_row;
      const bool before =
          r->rows.empty() || !resume || r->rows.back().key < *resume;
      for (Row& row : r->rows) rows.push_back(std::move(row));
      if (!resume) return rows;
      if (!before || !(spec.start_row < *resume)) {
        Fail("scan: resume row " + *resume + " after a page from " +
             spec.start_row + " does not move on");
        return Status::Corruption("scan does not move on");
      }
      ++continued_scans_;
      spec.start_row = *resume;
    }
    Fail("scan: more than " + std::to_string(kMaxScanPages) + " pages");
    return Status::Corruption("scan does not end");
  }

  void Reader(int reader) {
    tls_reader = true;
    std::mt19937_64 rng(rng_seed_base_ + 99 + reader);
    while (!stop_) {
      const uint64_t t0 = ++clock_;
      const int what = std::uniform_int_distribution<int>(0, 9)(rng);
      if (what < 6) {
        const std::string v =
            Value(std::uniform_int_distribution<int>(0, kValues - 1)(rng));
        StatusOr<LookupResult> r =
            router_->Lookup("t", testing::WhereEq({{"d:v", v}}));
        if (r.ok()) CheckLookup(v, *r, Stable(t0));
        if (!r.ok()) ++failed_reads_;
        ++lookups_;
      } else if (what < 8) {
        // Stable since t0 covers every page: no write to a checked row
        // ended after the scan began or is still in flight.
        StatusOr<std::vector<Row>> r = ScanWhole();
        if (r.ok()) CheckScan(*r, Stable(t0), "scan");
        if (!r.ok()) ++failed_reads_;
        ++scans_;
      } else {
        std::vector<GetRequest> gets;
        for (int i = 0; i < 20; ++i) {
          GetRequest g;
          g.row_key =
              Key(std::uniform_int_distribution<int>(0, kKeys - 1)(rng));
          gets.push_back(std::move(g));
        }
        StatusOr<std::vector<std::optional<Row>>> r = router_->Get("t", gets);
        if (r.ok()) CheckGets(gets, *r, Stable(t0));
        if (!r.ok()) ++failed_reads_;
        ++gets_;
      }
      ++load_ops_;
    }
  }

  bool Failed() {
    std::lock_guard<std::mutex> lock(errors_mu_);
    return !errors_.empty();
  }
  void Fail(const std::string& what) {
    std::lock_guard<std::mutex> lock(errors_mu_);
    if (errors_.size() < 10) errors_.push_back(what);
  }

  void CheckLookup(const std::string& v, const LookupResult& r,
                   const std::map<int, std::optional<std::string>>& stable) {
    std::set<std::string> got;
    for (const Row& row : r.rows) {
      if (!got.insert(row.key).second)
        Fail("lookup " + v + ": twice " + row.key);
    }
    for (const auto& [k, value] : stable) {
      const bool want = value == v;
      if (want != (got.count(Key(k)) != 0)) {
        Fail("lookup " + v + ": " + (want ? "missed " : "extra ") + Key(k));
      }
    }
  }

  void CheckScan(const std::vector<Row>& rows,
                 const std::map<int, std::optional<std::string>>& stable,
                 const std::string& what) {
    std::map<std::string, std::string> got;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (i > 0 && rows[i].key <= rows[i - 1].key) {
        Fail(what + ": out of order or twice at " + rows[i].key);
      }
      got[rows[i].key] = rows[i].cells.empty() ? "" : rows[i].cells[0].value;
    }
    for (const auto& [k, value] : stable) {
      auto it = got.find(Key(k));
      const std::optional<std::string> seen =
          it == got.end() ? std::nullopt : std::optional(it->second);
      if (seen != value) Fail(what + ": row " + Key(k) + " differs");
    }
  }

  void CheckGets(const std::vector<GetRequest>& gets,
                 const std::vector<std::optional<Row>>& rows,
                 const std::map<int, std::optional<std::string>>& stable) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const int k = std::stoi(gets[i].row_key.substr(1));
      auto it = stable.find(k);
      if (it == stable.end()) continue;
      const std::optional<std::string> seen =
          rows[i] ? std::optional(rows[i]->cells[0].value) : std::nullopt;
      if (seen != it->second) Fail("get: row " + gets[i].row_key + " differs");
    }
  }

  // Quiesced: every row (unknown ones are read and learnt), every lookup
  // and the verification.
  void CheckEverything() {
    ASSERT_TRUE(testing::WaitAllCurrent(*router_));
    StatusOr<std::vector<Row>> scan = Status::Unavailable("");
    for (int i = 0; i < 500 && !scan.ok(); ++i) {
      scan = ScanWhole();
      if (!scan.ok())
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    std::map<std::string, std::string> got;
    for (const Row& row : *scan) got[row.key] = row.cells[0].value;
    for (int k = 0; k < kKeys; ++k) {
      std::lock_guard<std::mutex> lock(rows_[k].mu);
      if (!rows_[k].known) {
        auto it = got.find(Key(k));
        rows_[k].value =
            it == got.end() ? std::nullopt : std::optional(it->second);
        rows_[k].known = true;
      }
    }
    CheckScan(*scan, Stable(++clock_), "quiet scan");
    const auto stable = Stable(++clock_);
    for (int v = 0; v < kValues; ++v) {
      StatusOr<LookupResult> r =
          router_->Lookup("t", testing::WhereEq({{"d:v", Value(v)}}));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      CheckLookup(Value(v), *r, stable);
    }
    StatusOr<VerifyReport> report = router_->VerifyIndex("t");
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    for (const ServerVerifyReport& s : report->servers) {
      if (!s.index.ok() || !s.error.empty()) {
        Fail("verify " + s.server.address + ": " + s.error +
             (s.index.problems.empty() ? "" : s.index.problems[0]));
      }
    }
    // The regions cover every key once.
    StatusOr<TableInfo> t = router_->DescribeTable("t");
    ASSERT_TRUE(t.ok());
    for (size_t i = 0; i < t->regions.size(); ++i) {
      const std::string& start = t->regions[i].region.start_key;
      const std::string want = i == 0 ? "" : t->regions[i - 1].region.end_key;
      if (start != want) Fail("regions do not tile the key space");
    }
  }

  std::mt19937_64 rng_;
  const uint64_t rng_seed_base_ = rng_();
  StoreCluster cluster_;
  std::shared_ptr<Hooks> hooks_ = std::make_shared<Hooks>();
  std::unique_ptr<Router> router_;
  std::vector<RowState> rows_;
  std::thread::id admin_thread_;
  std::atomic<uint64_t> clock_{1};
  std::atomic<bool> stop_{false};
  std::vector<std::thread> load_;
  std::thread restarter_;
  const bool paged_scans_;

  // Faults of the current operation (set by the main thread before it).
  std::atomic<bool> cut_{false};
  std::atomic<int> op_calls_{0};
  std::atomic<int> cut_at_{-1};
  std::atomic<int> restart_at_{-1};
  int restart_node_ = 0;
  bool lose_reply_ = false;
  bool lost_once_ = false;
  std::set<uint64_t> old_regions_;  // the table's before the operation

  std::atomic<uint64_t> load_ops_{0}, writes_{0}, lookups_{0}, scans_{0},
      gets_{0}, failed_reads_{0}, lost_writes_{0}, load_applies_{0},
      continued_scans_{0};
  uint64_t done_[5] = {0, 0, 0, 0, 0};
  bool opened_ = false;  // a router was opened before
  uint64_t undone_ = 0, waited_ = 0, cutoffs_ = 0, restarts_ = 0, lost_ = 0;
  std::mutex errors_mu_;
  std::vector<std::string> errors_;
};

class RouterReshapeModelTest : public ::testing::TestWithParam<uint64_t> {};

TEST_P(RouterReshapeModelTest, EveryReadMatchesTheModelThroughOperations) {
  ReshapeWorld world(GetParam());
  world.Run(OpsPerSeed(), kAdminOps);
  world.Report();
  EXPECT_GE(world.load_ops(), OpsPerSeed());
}

INSTANTIATE_TEST_SUITE_P(Seeds, RouterReshapeModelTest,
                         ::testing::Values(1, 2, 3));

// A scan past its call's work budget (1 s) answers a prefix and a resume
// row. The model used to take that prefix for the whole table: on a loaded
// machine (the suite running beside it) seed 1 failed with "scan: row
// k00603 differs" and more, every stable row after the first region's end
// k00600, for an answer of 499 rows resuming at k00600. Here every reader's
// region server scan outlasts a budget of 1 ms, so every full scan of more
// than one region comes in pages, through the same operations and faults.
class ReshapeFlakePagedScanTest : public ::testing::Test {};

TEST_F(ReshapeFlakePagedScanTest, EveryPageOfAScanMatchesTheModel) {
  ReshapeWorld world(1, /*paged_scans=*/true);
  world.Run(4000, 12);
  world.Report();
  EXPECT_GT(world.continued_scans(), 0u);
}

}  // namespace
}  // namespace bloomroute::router
