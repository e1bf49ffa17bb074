// OpPushTestSinks: an in-process OpPushSinkFactory for tests. Each address
// has a handler (what the router at that address does with a push); a test
// can lose pushes to an address (the sink answers Unavailable without
// calling the handler), hold them (Push blocks until released), and read
// what was pushed. A controllable monotonic clock (OpPushTestClock) goes
// with it for leases.
#ifndef BLOOMROUTE_TESTS_REGIONSTORE_OP_PUSH_TEST_SINKS_H_
#define BLOOMROUTE_TESTS_REGIONSTORE_OP_PUSH_TEST_SINKS_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "regionstore/op_subscriptions.h"

namespace bloomroute::testing {

// A monotonic clock in ms that moves only when told.
class OpPushTestClock {
 public:
  int64_t Now() const { return now_.load(); }
  void Advance(int64_t ms) { now_ += ms; }
  std::function<int64_t()> AsFunction() {
    return [this] { return Now(); };
  }

 private:
  std::atomic<int64_t> now_{1000000};
};

class OpPushTestSinks : public OpPushSinkFactory {
 public:
  using Handler = std::function<Status(const OpPush&)>;

  void SetHandler(const std::string& address, Handler handler) {
    std::lock_guard<std::mutex> lock(mu_);
    handlers_[address] = std::move(handler);
  }
  // Pushes to `address` fail without reaching its handler.
  void SetLosing(const std::string& address, bool losing) {
    std::lock_guard<std::mutex> lock(mu_);
    losing_[address] = losing;
  }
  // Pushes to `address` block until SetHolding(address, false).
  void SetHolding(const std::string& address, bool holding) {
    std::lock_guard<std::mutex> lock(mu_);
    holding_[address] = holding;
    cv_.notify_all();
  }
  // Every push that reached a handler, per address, in order.
  std::vector<OpPush> Delivered(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    return delivered_[address];
  }
  int64_t Attempts() const { return attempts_.load(); }

  StatusOr<std::unique_ptr<OpPushSink>> Connect(
      uint64_t router_id, const std::string& address) override {
    (void)router_id;
    return std::unique_ptr<OpPushSink>(new Sink(this, address));
  }

 private:
  class Sink : public OpPushSink {
   public:
    Sink(OpPushTestSinks* owner, std::string address)
        : owner_(owner), address_(std::move(address)) {}
    Status Push(const OpPush& push) override {
      return owner_->Deliver(address_, push);
    }

   private:
    OpPushTestSinks* const owner_;
    const std::string address_;
  };

  Status Deliver(const std::string& address, const OpPush& push) {
    ++attempts_;
    Handler handler;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !holding_[address]; });
      if (losing_[address]) return Status::Unavailable("push lost");
      handler = handlers_[address];
      delivered_[address].push_back(push);
    }
    return handler ? handler(push) : Status::OK();
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Handler> handlers_;
  std::map<std::string, bool> losing_;
  std::map<std::string, bool> holding_;
  std::map<std::string, std::vector<OpPush>> delivered_;
  std::atomic<int64_t> attempts_{0};
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_REGIONSTORE_OP_PUSH_TEST_SINKS_H_
