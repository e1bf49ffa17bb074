// The online RowSink: batches go through RouterClient::Mutate from a few
// worker threads sharing one client (the client is thread-safe and opens a
// connection per call in progress).
#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <unordered_set>
#include <utility>

#include "thrift/router_client.h"
#include "tools/import/row_sink.h"

namespace bloomroute {
namespace {

class OnlineSink : public RowSink {
 public:
  OnlineSink(RouterClient* client, std::string table, uint32_t in_flight)
      : client_(client),
        table_(std::move(table)),
        in_flight_(in_flight == 0 ? 1 : in_flight) {
    for (uint32_t i = 0; i < in_flight_; ++i) {
      workers_.emplace_back([this] { Work(); });
    }
  }
  ~OnlineSink() override { (void)Finish(); }

  Status Write(std::vector<Mutation> batch) override {
    // Hashes, not keys: a collision only makes a batch wait needlessly.
    std::unordered_set<size_t> keys;
    keys.reserve(batch.size());
    for (const Mutation& m : batch) {
      keys.insert(std::hash<std::string>()(m.row_key));
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] {
      return !failure_.ok() ||
             (pending_.size() < in_flight_ && !ConflictsLocked(keys));
    });
    if (!failure_.ok()) return failure_;
    const uint64_t id = next_id_++;
    pending_.emplace(id, std::move(keys));
    queue_.push_back({id, std::move(batch)});
    cv_.notify_all();
    return Status::OK();
  }

  Status Finish() override {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return pending_.empty(); });
      stopping_ = true;
      cv_.notify_all();
    }
    for (std::thread& t : workers_) {
      if (t.joinable()) t.join();
    }
    std::lock_guard<std::mutex> lock(mu_);
    return failure_;
  }

  uint64_t rows_written() const override { return rows_written_.load(); }

 private:
  struct Queued {
    uint64_t id;
    std::vector<Mutation> rows;
  };

  bool ConflictsLocked(const std::unordered_set<size_t>& keys) const {
    for (const auto& [id, other] : pending_) {
      for (size_t k : keys) {
        if (other.count(k) != 0) return true;
      }
    }
    return false;
  }

  void Work() {
    while (true) {
      Queued batch;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        batch = std::move(queue_.front());
        queue_.pop_front();
        if (!failure_.ok()) {  // the import stops: send nothing more
          pending_.erase(batch.id);
          cv_.notify_all();
          continue;
        }
      }
      Status s = client_->Mutate(table_, batch.rows);
      std::lock_guard<std::mutex> lock(mu_);
      if (s.ok()) {
        rows_written_ += batch.rows.size();
      } else if (failure_.ok()) {
        failure_ = s;
      }
      pending_.erase(batch.id);
      cv_.notify_all();
    }
  }

  RouterClient* const client_;
  const std::string table_;
  const uint32_t in_flight_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> rows_written_{0};

  std::mutex mu_;
  std::condition_variable cv_;
  // Guarded by mu_: batches taken and not yet done, with their key hashes;
  // those not yet started; the first failure; whether Finish was called.
  std::map<uint64_t, std::unordered_set<size_t>> pending_;
  std::deque<Queued> queue_;
  uint64_t next_id_ = 0;
  Status failure_;
  bool stopping_ = false;
};

}  // namespace

std::unique_ptr<RowSink> NewOnlineSink(RouterClient* client, std::string table,
                                       uint32_t in_flight) {
  return std::make_unique<OnlineSink>(client, std::move(table), in_flight);
}

}  // namespace bloomroute
