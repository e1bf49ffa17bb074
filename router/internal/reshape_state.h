// ReshapeState: the region operation this router is running, as the write
// path sees it (coordinator/region_ops.cc runs the operation;
// write_path.cc routes writes through its gate).
#ifndef BLOOMROUTE_ROUTER_INTERNAL_RESHAPE_STATE_H_
#define BLOOMROUTE_ROUTER_INTERNAL_RESHAPE_STATE_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "router/internal/catalog.h"

namespace bloomroute::router_internal {

// The region operation this router is running (coordinator/region_ops.cc),
// as the write path sees it. A write to rows of `sources` holds `gate` shared
// from routing until it is answered, and notes its rows (NoteWritten) whether
// or not it succeeded; the switch holds `gate` exclusive, copies the noted rows
// once more and switches the table before it lets writes go on, which then
// route again (`switched`).
struct ReshapeState {
  // A shared/exclusive gate that lets the exclusive side in promptly: once
  // Close is called, new Enter calls wait, and Close returns when the ones
  // inside have left. (std::shared_mutex on glibc prefers readers: under a
  // steady stream of writes an exclusive lock of it waited seconds.)
  class Gate {
   public:
    // Waits while the gate is closed, until `deadline` at most: false when
    // it stayed closed (nothing entered).
    bool Enter(std::chrono::steady_clock::time_point deadline);
    void Leave();
    void Close();  // one closer at a time
    void Open();

   private:
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t inside_ = 0;  // guarded by mu_
    bool closed_ = false;  // guarded by mu_
  };

  uint64_t table_id = 0;
  std::vector<CatalogRegion> sources;  // by start key
  Gate gate;
  std::atomic<bool> switched{false};
  // The switch's catalog write failed, so the switch may or may not be on
  // disk: the gate stays closed (no write to the sources is acknowledged,
  // so either record is right) until maintenance writes the switch again
  // (ResolveSwitchInDoubt). `op` and `before_switch` are for
  // it; both are touched only with RegionOps::region_ops_mu_ held.
  std::atomic<bool> switch_in_doubt{false};
  CatalogRegionOp op;

  // Whether the write of `row` to region `region_id` of table `table_id`
  // goes to a source.
  bool Covers(uint64_t table, uint64_t region_id) const;
  void NoteWritten(const std::string& row);
  // A write to a source failed with its outcome unknown: it may still
  // commit there after the last copy, so the operation must not switch.
  void NoteInDoubt();
  // The rows noted since the last call (sorted), whether the note outgrew
  // its bound (kMaxDirtyBytes: the writes outpace the copy) and whether a
  // write went in doubt.
  std::vector<std::string> TakeWritten(bool* overflow, bool* in_doubt);

 private:
  static constexpr uint64_t kMaxDirtyBytes = 64 << 20;
  std::mutex mu_;
  std::set<std::string> written_;  // guarded by mu_
  uint64_t written_bytes_ = 0;     // guarded by mu_
  bool overflow_ = false;          // guarded by mu_
  bool in_doubt_ = false;          // guarded by mu_
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_RESHAPE_STATE_H_
