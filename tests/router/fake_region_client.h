// FakeRegionClient: an in-process region server's filter behind the
// RegionClient interface, for router tests.
//
// It owns a real ScalableSplitCountingBloomFilter, the distinct values with
// their row counts and stages, an op log and an epoch, and behaves as
// regionstore's filter does: a value's element is inserted when its count goes
// 0 -> 1 (recording the stage) and removed from that stage at 1 -> 0, each op
// taking the next sequence number; Compact() rebuilds the filter right-sized
// under the next epoch (sequence numbers go on); TrimThrough() drops old ops.
// Only the filter calls are served: the data calls answer InvalidArgument.
// Thread-safe.
#ifndef BLOOMROUTE_TESTS_ROUTER_FAKE_REGION_CLIENT_H_
#define BLOOMROUTE_TESTS_ROUTER_FAKE_REGION_CLIENT_H_

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "index/occupancy_image.h"
#include "router/region_client.h"

namespace bloomroute::router {

class FakeRegionClient : public RegionClient {
 public:
  static SscbfConfig SmallConfig() {
    SscbfConfig c;
    c.initial_capacity = 32;  // small, so stages open and close often
    return c;
  }

  explicit FakeRegionClient(const SscbfConfig& config = SmallConfig())
      : config_(config),
        filter_(std::move(ScalableSplitCountingBloomFilter::Create(config))
                    .value()) {}

  // A row holding the value arrives: count + 1.
  WriteResult AddRow(const ElementHash& h) {
    std::lock_guard<std::mutex> lock(mu_);
    WriteResult out{incarnation_, epoch_, {}, 0, {}};
    Value& v = values_[Key(h)];
    if (v.count++ == 0) {
      v.hash = h;
      uint64_t mask = 0;
      v.stage = filter_.Insert(h, &mask).value();
      out.ops.push_back(Log(FilterOp::Kind::kInsert, h, v.stage, mask));
    }
    out.last_seq = last_seq_;
    return out;
  }

  // A row holding the value leaves: count - 1. Precondition: Rows(h) > 0.
  WriteResult RemoveRow(const ElementHash& h) {
    std::lock_guard<std::mutex> lock(mu_);
    WriteResult out{incarnation_, epoch_, {}, 0, {}};
    auto it = values_.find(Key(h));
    if (--it->second.count == 0) {
      const uint32_t stage = it->second.stage;
      uint64_t mask = 0;
      if (!filter_.Remove(h, stage, &mask).ok()) std::abort();
      out.ops.push_back(Log(FilterOp::Kind::kRemove, h, stage, mask));
      values_.erase(it);
    }
    out.last_seq = last_seq_;
    return out;
  }

  uint64_t Rows(const ElementHash& h) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(Key(h));
    return it == values_.end() ? 0 : it->second.count;
  }

  // Rebuilds the filter from the value records under the next epoch, sized
  // for `sized_for` elements (0: as many as there are values); returns what
  // a write after it would report (no ops, the new epoch).
  WriteResult Compact(uint64_t sized_for = 0) {
    std::lock_guard<std::mutex> lock(mu_);
    filter_ =
        std::move(ScalableSplitCountingBloomFilter::CreateSized(
                      config_, sized_for != 0 ? sized_for : values_.size()))
            .value();
    for (auto& [key, v] : values_) v.stage = filter_.Insert(v.hash).value();
    ++epoch_;
    log_.clear();
    first_kept_ = last_seq_ + 1;
    return WriteResult{incarnation_, epoch_, {}, last_seq_, {}};
  }

  // Damage: the value's element enters the filter without an op, so a
  // replica that follows the ops no longer equals the filter.
  void InsertWithoutOp(const ElementHash& h) {
    std::lock_guard<std::mutex> lock(mu_);
    (void)filter_.Insert(h);
  }

  // Forgets the ops up to and including `seq`.
  void TrimThrough(uint64_t seq) {
    std::lock_guard<std::mutex> lock(mu_);
    while (!log_.empty() && log_.front().seq <= seq) log_.erase(log_.begin());
    first_kept_ = std::max(first_kept_, seq + 1);
  }

  void set_available(bool available) {
    std::lock_guard<std::mutex> lock(mu_);
    available_ = available;
  }
  void set_max_ops_per_call(size_t n) {
    std::lock_guard<std::mutex> lock(mu_);
    max_ops_per_call_ = n;
  }
  // Runs after Snapshot() has copied the filter, before it returns: lets a
  // test make writes land while a catch-up loads the snapshot.
  void set_after_snapshot(std::function<void()> hook) {
    std::lock_guard<std::mutex> lock(mu_);
    after_snapshot_ = std::move(hook);
  }
  // The same for OpsSince(), after it has read the ops.
  void set_after_ops_since(std::function<void()> hook) {
    std::lock_guard<std::mutex> lock(mu_);
    after_ops_since_ = std::move(hook);
  }
  // What a restart of the server looks like from outside: a new
  // incarnation (the filter and its numbers stay, as after a restart that
  // lost nothing; a test changes them as it needs).
  void set_incarnation(uint64_t incarnation) {
    std::lock_guard<std::mutex> lock(mu_);
    incarnation_ = incarnation;
  }
  // The highest fence token a catch-up raised the fence to.
  uint64_t fence() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fence_;
  }

  // Whether `bits` are exactly the filter's occupancy bits and counts.
  bool FilterEquivalentTo(const OccupancyImage& bits) const {
    std::lock_guard<std::mutex> lock(mu_);
    return OccupancyImage::Of(filter_) == bits;
  }
  int snapshots_taken() const {
    std::lock_guard<std::mutex> lock(mu_);
    return snapshots_taken_;
  }

  StatusOr<FilterSnapshot> Snapshot(uint64_t fence_token) override {
    FilterSnapshot out;
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!available_) return Status::Unavailable("fake server down");
      fence_ = std::max(fence_, fence_token);
      ++snapshots_taken_;
      out =
          FilterSnapshot{incarnation_, epoch_, last_seq_, filter_.Serialize()};
      hook = after_snapshot_;
    }
    if (hook) hook();
    return out;
  }

  // The bits of the filter, taken as Snapshot takes the filter (and
  // counted with the snapshots).
  StatusOr<FilterImage> SnapshotImage(uint64_t fence_token) override {
    FilterImage out;
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!available_) return Status::Unavailable("fake server down");
      fence_ = std::max(fence_, fence_token);
      ++snapshots_taken_;
      out = FilterImage{incarnation_, epoch_, last_seq_,
                        OccupancyImage::Of(filter_).Serialize()};
      hook = after_snapshot_;
    }
    if (hook) hook();
    return out;
  }

  StatusOr<FilterOpsSince> OpsSince(uint64_t incarnation, uint64_t epoch,
                                    uint64_t seq,
                                    uint64_t fence_token) override {
    FilterOpsSince out;
    std::function<void()> hook;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!available_) return Status::Unavailable("fake server down");
      fence_ = std::max(fence_, fence_token);
      out.incarnation = incarnation_;
      out.epoch = epoch_;
      out.last_seq = last_seq_;
      hook = after_ops_since_;
      if (incarnation != incarnation_ || epoch != epoch_ ||
          seq + 1 < first_kept_ || seq > last_seq_) {
        out.too_old = true;
      } else {
        for (const FilterOp& op : log_) {
          if (op.seq <= seq) continue;
          if (out.ops.size() == max_ops_per_call_) break;
          out.ops.push_back(op);
        }
      }
    }
    if (hook) hook();
    return out;
  }

  StatusOr<FilterStatus> GetFilterStatus() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!available_) return Status::Unavailable("fake server down");
    return FilterStatus{incarnation_, epoch_, last_seq_, filter_.Stats(),
                        config_};
  }

  // As the region store: a no-op for the config the filter has, otherwise
  // a rebuild with the new config under the next epoch.
  using RegionClient::CloseRegion;
  using RegionClient::DropRegion;
  using RegionClient::OpenRegion;
  using RegionClient::SetFilterConfig;
  Status SetFilterConfig(const SscbfConfig& config, CoordinatorEpoch) override {
    BLOOMROUTE_RETURN_IF_ERROR(config.Validate());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!available_) return Status::Unavailable("fake server down");
      ++set_filter_config_calls_;
      if (config == config_) return Status::OK();
      config_ = config;
    }
    (void)Compact();
    return Status::OK();
  }
  int set_filter_config_calls() const {
    std::lock_guard<std::mutex> lock(mu_);
    return set_filter_config_calls_;
  }

  StatusOr<WriteResult> Apply(const std::vector<Mutation>&, uint64_t) override {
    return NotServed();
  }
  StatusOr<std::vector<std::optional<Row>>> Get(const std::vector<GetRequest>&,
                                                uint64_t) override {
    return NotServed();
  }
  StatusOr<ScanResult> Scan(const ScanRequest&) override { return NotServed(); }
  StatusOr<IndexQueryResult> Lookup(const IndexQuery&) override {
    return NotServed();
  }
  Status OpenRegion(const RegionDescriptor&, uint64_t,
                    CoordinatorEpoch) override {
    return NotServed();
  }
  Status CloseRegion(uint64_t, CoordinatorEpoch) override {
    return NotServed();
  }
  Status DropRegion(uint64_t, CoordinatorEpoch) override { return NotServed(); }
  Status SyncWal() override { return NotServed(); }
  StatusOr<WriteResult> BulkLoad(uint64_t, const std::string&,
                                 uint64_t) override {
    return NotServed();
  }
  StatusOr<std::vector<RegionDescriptor>> ListRegions() override {
    return NotServed();
  }
  StatusOr<IndexReport> VerifyIndex(std::optional<uint64_t>) override {
    return NotServed();
  }

 private:
  struct Value {
    ElementHash hash;
    uint64_t count = 0;
    uint32_t stage = 0;
  };
  static std::pair<uint64_t, uint64_t> Key(const ElementHash& h) {
    return {h.low, h.high};
  }
  static Status NotServed() {
    return Status::InvalidArgument("the fake serves filter calls only");
  }
  // Requires mu_.
  FilterOp Log(FilterOp::Kind kind, const ElementHash& h, uint32_t stage,
               uint64_t mask) {
    FilterOp op{++last_seq_, kind, h, stage, mask};
    log_.push_back(op);
    return op;
  }

  SscbfConfig config_;
  int set_filter_config_calls_ = 0;
  mutable std::mutex mu_;
  // Guarded by mu_.
  ScalableSplitCountingBloomFilter filter_;
  std::map<std::pair<uint64_t, uint64_t>, Value> values_;
  std::vector<FilterOp> log_;  // the kept ops of this epoch, in order
  uint64_t incarnation_ = 1;
  uint64_t epoch_ = 1;
  uint64_t last_seq_ = 0;
  uint64_t fence_ = 0;
  uint64_t first_kept_ = 1;
  bool available_ = true;
  size_t max_ops_per_call_ = 1000;
  int snapshots_taken_ = 0;
  std::function<void()> after_snapshot_;
  std::function<void()> after_ops_since_;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_TESTS_ROUTER_FAKE_REGION_CLIENT_H_
