#include "tools/import/interrupt.h"

#include <signal.h>

#include <atomic>
#include <string>

namespace bloomroute {
namespace {

// The signal that came, 0 for none. Lock-free, so a handler may store it.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void OnInterrupt(int signal_number) {
  g_signal.store(signal_number, std::memory_order_relaxed);
}

}  // namespace

void InstallImportInterruptHandlers() {
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;  // no SA_RESTART: blocked reads return
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool ImportInterrupted() {
  return g_signal.load(std::memory_order_relaxed) != 0;
}

Status InterruptedStatus() {
  const int s = g_signal.load(std::memory_order_relaxed);
  const std::string name = s == SIGINT    ? "SIGINT"
                           : s == SIGTERM ? "SIGTERM"
                                          : "signal " + std::to_string(s);
  return Status::Aborted("interrupted by " + name +
                         "; temporary files removed");
}

void ResetImportInterrupt() { g_signal.store(0, std::memory_order_relaxed); }

}  // namespace bloomroute
