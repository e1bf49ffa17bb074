// HookClient: a StoreCluster client whose calls a test can fail, count or
// watch, and whose answers it can change (router/coordinator/region_ops.cc's
// tests interrupt an operation at each step; a server's answer is untrusted
// input, and the router's components must refuse a bad one).
#ifndef BLOOMROUTE_TESTS_ROUTER_HOOK_CLIENT_H_
#define BLOOMROUTE_TESTS_ROUTER_HOOK_CLIENT_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

// A call about to reach server `node`: `call` names it ("Apply", "Scan",
// "Lookup" (its first region), "Get", "DropRegion", "OpenRegion",
// "OpenStagedRegion", "SyncWal"), `region` the region it names (0: several
// or none). A
// non-OK answer is returned instead of the call; `after` (when set) runs after
// a call that went through and may replace its status (a lost reply).
struct Hooks {
  std::mutex mu;
  std::function<Status(int node, const std::string& call, uint64_t region)>
      before;
  std::function<Status(int node, const std::string& call, uint64_t region)>
      after;
  // Runs before `before` for an Apply, with the batch and its fence token
  // (a test may keep them and send them later itself: a write delayed in
  // the network).
  std::function<Status(int node, const std::vector<Mutation>& batch,
                       uint64_t fence_token)>
      before_apply;
  // Rows every Lookup answered, in all (candidates the router fetched).
  std::atomic<uint64_t> lookup_rows{0};
  // Each Lookup answer of server `node` and each page of its region
  // statistics, before the router sees them.
  std::function<void(int node, IndexQueryResult* answer)> lookup_answer;
  std::function<void(int node, RegionStatsPage* page)> region_stats_page;
  // The calls that were about to reach each server, by (node, call), whether
  // or not `before` then failed them.
  std::map<std::pair<int, std::string>, int> calls;  // guarded by mu
  // The same calls in the order they came.
  std::vector<std::pair<int, std::string>> sequence;  // guarded by mu
  // When set, StartLookup sends (counted as "StartLookup") and the
  // answer's Finish makes the Lookup, as the RPC client's would read it:
  // the router's pipelined lookups run on these clients.
  std::atomic<bool> send_lookups{false};
};

class HookClient : public testing::StoreRegionClient {
 public:
  HookClient(std::shared_ptr<Hooks> hooks, int node,
             std::shared_ptr<StoreCluster::Node> store)
      : StoreRegionClient(std::move(store)),
        hooks_(std::move(hooks)),
        node_(node) {}

  StatusOr<WriteResult> Apply(const std::vector<Mutation>& batch,
                              uint64_t fence_token) override {
    const uint64_t region = batch.empty() ? 0 : batch.front().region_id;
    std::function<Status(int, const std::vector<Mutation>&, uint64_t)> f;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      f = hooks_->before_apply;
    }
    if (f) BLOOMROUTE_RETURN_IF_ERROR(f(node_, batch, fence_token));
    BLOOMROUTE_RETURN_IF_ERROR(Before("Apply", region));
    StatusOr<WriteResult> r = StoreRegionClient::Apply(batch, fence_token);
    if (!r.ok()) return r;
    BLOOMROUTE_RETURN_IF_ERROR(After("Apply", region));
    return r;
  }
  StatusOr<ScanResult> Scan(const ScanRequest& request) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("Scan", request.region_id));
    return StoreRegionClient::Scan(request);
  }
  // A move's first copy reads its source this way (named "Scan" too: the
  // tests watch the copy's reads, whichever call makes them).
  StatusOr<ExportedRows> ExportRows(const ExportRequest& request) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("Scan", request.region_id));
    return StoreRegionClient::ExportRows(request);
  }
  StatusOr<WriteResult> BulkLoad(uint64_t region_id, const std::string& file,
                                 uint64_t fence_token) override {
    std::function<Status(int, const std::vector<Mutation>&, uint64_t)> f;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      f = hooks_->before_apply;
    }
    if (f) BLOOMROUTE_RETURN_IF_ERROR(f(node_, {}, fence_token));
    BLOOMROUTE_RETURN_IF_ERROR(Before("Apply", region_id));
    StatusOr<WriteResult> r =
        StoreRegionClient::BulkLoad(region_id, file, fence_token);
    if (!r.ok()) return r;
    BLOOMROUTE_RETURN_IF_ERROR(After("Apply", region_id));
    return r;
  }
  StatusOr<IndexQueryResult> Lookup(const IndexQuery& query) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before(
        "Lookup", query.region_ids.empty() ? 0 : query.region_ids.front()));
    StatusOr<IndexQueryResult> r = StoreRegionClient::Lookup(query);
    if (!r.ok()) return r;
    hooks_->lookup_rows += r->rows.size();
    std::function<void(int, IndexQueryResult*)> tap;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      tap = hooks_->lookup_answer;
    }
    if (tap) tap(node_, &*r);
    return r;
  }
  std::unique_ptr<PendingLookup> StartLookup(const IndexQuery& query) override {
    if (!hooks_->send_lookups) return nullptr;
    class Sent : public PendingLookup {
     public:
      Sent(HookClient* client, IndexQuery query)
          : client_(client), query_(std::move(query)) {}
      StatusOr<IndexQueryResult> Finish() override {
        return client_->Lookup(query_);
      }

     private:
      HookClient* const client_;
      const IndexQuery query_;
    };
    Record("StartLookup");
    return std::make_unique<Sent>(this, query);
  }
  StatusOr<RegionStatsPage> GetRegionStats(
      const RegionStatsRequest& request) override {
    StatusOr<RegionStatsPage> page = StoreRegionClient::GetRegionStats(request);
    if (!page.ok()) return page;
    std::function<void(int, RegionStatsPage*)> tap;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      tap = hooks_->region_stats_page;
    }
    if (tap) tap(node_, &*page);
    return page;
  }
  StatusOr<std::vector<std::optional<Row>>> Get(
      const std::vector<GetRequest>& requests, uint64_t max_bytes) override {
    BLOOMROUTE_RETURN_IF_ERROR(
        Before("Get", requests.empty() ? 0 : requests.front().region_id));
    return StoreRegionClient::Get(requests, max_bytes);
  }
  using StoreRegionClient::DropRegion;
  using StoreRegionClient::OpenRegion;
  using StoreRegionClient::OpenStagedRegion;
  Status DropRegion(uint64_t id, CoordinatorEpoch epoch) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("DropRegion", id));
    return StoreRegionClient::DropRegion(id, epoch);
  }
  Status SyncWal() override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("SyncWal", 0));
    return StoreRegionClient::SyncWal();
  }
  Status OpenRegion(const RegionDescriptor& region, uint64_t incarnation,
                    CoordinatorEpoch epoch) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("OpenRegion", region.region_id));
    return StoreRegionClient::OpenRegion(region, incarnation, epoch);
  }
  Status OpenStagedRegion(const RegionDescriptor& region, uint64_t incarnation,
                          CoordinatorEpoch epoch) override {
    BLOOMROUTE_RETURN_IF_ERROR(Before("OpenStagedRegion", region.region_id));
    return StoreRegionClient::OpenStagedRegion(region, incarnation, epoch);
  }

 private:
  Status Before(const std::string& call, uint64_t region) {
    std::function<Status(int, const std::string&, uint64_t)> f;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      f = hooks_->before;
    }
    Record(call);
    return f ? f(node_, call, region) : Status::OK();
  }
  void Record(const std::string& call) {
    std::lock_guard<std::mutex> lock(hooks_->mu);
    ++hooks_->calls[{node_, call}];
    hooks_->sequence.emplace_back(node_, call);
  }
  Status After(const std::string& call, uint64_t region) {
    std::function<Status(int, const std::string&, uint64_t)> f;
    {
      std::lock_guard<std::mutex> lock(hooks_->mu);
      f = hooks_->after;
    }
    return f ? f(node_, call, region) : Status::OK();
  }

  const std::shared_ptr<Hooks> hooks_;
  const int node_;
};

class HookFactory : public router::RegionClientFactory {
 public:
  HookFactory(StoreCluster* cluster, std::shared_ptr<Hooks> hooks)
      : cluster_(cluster), hooks_(std::move(hooks)) {}
  StatusOr<std::unique_ptr<router::RegionClient>> Connect(
      router::ServerId, const std::string& address) override {
    for (int i = 0; i < static_cast<int>(cluster_->Addresses().size()); ++i) {
      if (cluster_->Addresses()[i] == address) {
        return std::unique_ptr<router::RegionClient>(
            std::make_unique<HookClient>(hooks_, i, cluster_->shared_node(i)));
      }
    }
    return Status::InvalidArgument("no server " + address);
  }

 private:
  StoreCluster* const cluster_;
  const std::shared_ptr<Hooks> hooks_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_HOOK_CLIENT_H_
