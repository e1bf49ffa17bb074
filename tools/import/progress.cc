#include "tools/import/progress.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace bloomroute {
namespace {

double Fraction(const ProgressSnapshot& p) {
  if (p.total_bytes == 0) return -1;
  return std::min(1.0, static_cast<double>(p.bytes_read) /
                           static_cast<double>(p.total_bytes));
}

uint64_t RowsPerSecond(const ProgressSnapshot& p) {
  return p.seconds > 0 ? static_cast<uint64_t>(p.rows / p.seconds) : 0;
}

std::string FormatDuration(double seconds) {
  const uint64_t s = static_cast<uint64_t>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%llu:%02llu:%02llu",
                  static_cast<unsigned long long>(s / 3600),
                  static_cast<unsigned long long>(s / 60 % 60),
                  static_cast<unsigned long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%llu:%02llu",
                  static_cast<unsigned long long>(s / 60),
                  static_cast<unsigned long long>(s % 60));
  }
  return buf;
}

}  // namespace

std::string GroupThousands(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string FormatProgressBar(const ProgressSnapshot& p, int width) {
  const double f = Fraction(p);
  std::string text = "  " + GroupThousands(p.rows) + " rows  " +
                     GroupThousands(RowsPerSecond(p)) + " rows/s";
  if (f < 0) return text.substr(2);
  char percent[8];
  std::snprintf(percent, sizeof(percent), "%3d%%", static_cast<int>(f * 100));
  text = std::string("  ") + percent + text;
  // The ETA is meaningless before a little of the input was read.
  if (f > 0.001 && f < 1) {
    text += "  ETA " + FormatDuration(p.seconds * (1 - f) / f);
  }
  const int bar = std::max(10, width - 2 - static_cast<int>(text.size()));
  const int filled = static_cast<int>(f * bar);
  return "[" + std::string(filled, '#') + std::string(bar - filled, '.') + "]" +
         text;
}

std::string FormatProgressLine(const ProgressSnapshot& p) {
  std::string line = "bloomroute import: " + std::to_string(p.rows) +
                     " rows, " + std::to_string(RowsPerSecond(p)) + " rows/s";
  const double f = Fraction(p);
  if (f >= 0) {
    line += ", " + std::to_string(static_cast<int>(f * 100)) + "% of the input";
  }
  return line;
}

ProgressReporter::ProgressReporter(std::ostream* out, bool terminal,
                                   uint64_t total_bytes, Clock now)
    : out_(out),
      terminal_(terminal),
      total_bytes_(total_bytes),
      now_(std::move(now)),
      start_(now_()) {}

double ProgressReporter::seconds() const {
  return std::chrono::duration<double>(now_() - start_).count();
}

void ProgressReporter::Update(uint64_t rows, uint64_t bytes_read) {
  const double interval =
      terminal_ ? kTerminalIntervalSeconds : kPlainIntervalSeconds;
  if (finished_ || seconds() - last_draw_ < interval) return;
  Draw(rows, bytes_read);
}

void ProgressReporter::Finish(uint64_t rows, uint64_t bytes_read) {
  if (finished_) return;
  // A plain log gets no extra line: the summary follows.
  if (terminal_) {
    Draw(rows, bytes_read);
    *out_ << "\n" << std::flush;
  }
  finished_ = true;
}

void ProgressReporter::Draw(uint64_t rows, uint64_t bytes_read) {
  const ProgressSnapshot p{rows, seconds(), bytes_read, total_bytes_};
  last_draw_ = p.seconds;
  if (terminal_) {
    *out_ << "\r" << FormatProgressBar(p) << "\x1b[K" << std::flush;
  } else {
    *out_ << FormatProgressLine(p) << "\n" << std::flush;
  }
}

}  // namespace bloomroute
