// Progress of a long import: a one-line bar redrawn in place when the output
// is a terminal, or a plain line every few seconds when it is not (a log
// file or a pipe should not fill with carriage returns).
//
//   terminal: [#########.....]  45%  90,000 rows  15,000 rows/s  ETA 0:07
//   plain:    bloomroute import: 90000 rows, 15000 rows/s, 45% of the input
//
// The rate is rows acknowledged per second since the start; the ETA is the
// elapsed time scaled by the share of the input not yet read (bytes read vs
// the file's size), which holds for any row length.
//
// Thread-safety: none; call from the driver's thread.
#ifndef BLOOMROUTE_TOOLS_IMPORT_PROGRESS_H_
#define BLOOMROUTE_TOOLS_IMPORT_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace bloomroute {

struct ProgressSnapshot {
  uint64_t rows = 0;         // acknowledged so far
  double seconds = 0;        // since the start
  uint64_t bytes_read = 0;   // of the input
  uint64_t total_bytes = 0;  // the input's size; 0 = unknown (no % or ETA)
};

// The terminal line (no '\r'), at most about `width` columns.
std::string FormatProgressBar(const ProgressSnapshot& p, int width = 80);
// The plain line, without a line end.
std::string FormatProgressLine(const ProgressSnapshot& p);
// "1,234,567".
std::string GroupThousands(uint64_t n);

class ProgressReporter {
 public:
  static constexpr double kTerminalIntervalSeconds = 0.2;
  static constexpr double kPlainIntervalSeconds = 5;

  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Writes to `out` (not owned, must outlive the reporter). `now` tells the
  // time (tests pass their own clock).
  ProgressReporter(std::ostream* out, bool terminal, uint64_t total_bytes,
                   Clock now = std::chrono::steady_clock::now);

  // Records the current counts; draws when the interval since the last
  // drawing has passed (cheap otherwise: call it as often as you like).
  void Update(uint64_t rows, uint64_t bytes_read);
  // Draws the final state (terminal: ends the bar's line). Idempotent.
  void Finish(uint64_t rows, uint64_t bytes_read);

  double seconds() const;

 private:
  void Draw(uint64_t rows, uint64_t bytes_read);

  std::ostream* const out_;
  const bool terminal_;
  const uint64_t total_bytes_;
  const Clock now_;
  const std::chrono::steady_clock::time_point start_;
  double last_draw_ = 0;
  bool finished_ = false;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_PROGRESS_H_
