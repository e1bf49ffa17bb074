#include "router/coordinator/maintenance.h"

#include <algorithm>

namespace bloomroute::router_internal {

Maintenance::Maintenance(const Options& options, MaintenanceDuties* duties)
    : options_(options), duties_(duties) {}

Maintenance::~Maintenance() { Stop(); }

void Maintenance::Start() {
  maintenance_ = std::thread([this] { MaintenanceLoop(); });
  if (options_.balancer_interval.count() > 0 ||
      options_.split_check_interval.count() > 0) {
    balancer_ = std::thread([this] { BalancerLoop(); });
  }
}

void Maintenance::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  balancer_cv_.notify_all();
  if (maintenance_.joinable()) maintenance_.join();
  if (balancer_.joinable()) balancer_.join();
}

void Maintenance::Wake() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    wake_ = true;
  }
  // Only the maintenance thread waits on cv_.
  cv_.notify_one();
}

void Maintenance::RunPass() {
  duties_->MaintainCatalog();
  if (TakeProbeTurn()) duties_->ProbeServers();
  duties_->CatchUpReplicas();
  duties_->ExpireScanners();
}

bool Maintenance::TakeProbeTurn() {
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(probe_mu_);
  // The first pass probes: steady_clock's epoch is the machine's boot, so
  // a router started within probe_interval of it would otherwise wait.
  if (last_probe_ && now - *last_probe_ < options_.probe_interval) {
    return false;
  }
  last_probe_ = now;
  return true;
}

void Maintenance::MaintenanceLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, options_.interval, [&] { return stopping_ || wake_; });
    if (stopping_) break;
    wake_ = false;
    lock.unlock();
    RunPass();
    lock.lock();
    // A pass against a server that is down wakes itself again (its calls
    // fail); pause between passes so that such a server is not hammered.
    cv_.wait_for(lock, std::chrono::milliseconds(100),
                 [&] { return stopping_; });
  }
}

void Maintenance::BalancerLoop() {
  // Automatic splits are checked every split_check_interval (cheap: the
  // servers' byte estimates), the whole balancer runs every
  // balancer_interval; either may be off (0).
  const bool balancer_on = options_.balancer_interval.count() > 0;
  const bool splits_on = options_.split_check_interval.count() > 0;
  auto next_balance =
      std::chrono::steady_clock::now() + options_.balancer_interval;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    // Woken by the stop; at least hourly, which also keeps the deadline
    // far from the clock's range.
    auto wake = std::chrono::steady_clock::now() + std::chrono::hours(1);
    if (balancer_on) wake = std::min(wake, next_balance);
    if (splits_on) {
      wake = std::min(wake, std::chrono::steady_clock::now() +
                                options_.split_check_interval);
    }
    balancer_cv_.wait_until(lock, wake, [&] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    const bool balance =
        balancer_on && std::chrono::steady_clock::now() >= next_balance;
    duties_->RunBalancerPass(/*moves=*/balance);
    if (balance) {
      next_balance =
          std::chrono::steady_clock::now() + options_.balancer_interval;
    }
    lock.lock();
  }
}

}  // namespace bloomroute::router_internal
