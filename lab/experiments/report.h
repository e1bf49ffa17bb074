// What a lab experiment produces: a title, short notes and markdown tables,
// every cell computed by the experiment's own runs (or a labelled quote of a
// published figure), plus the helpers the experiments share to format numbers,
// time code and name their input elements.
#ifndef BLOOMROUTE_LAB_EXPERIMENTS_REPORT_H_
#define BLOOMROUTE_LAB_EXPERIMENTS_REPORT_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "index/element_hash.h"

namespace bloomroute::lab {

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<std::string> header)
      : header_(std::move(header)) {}

  // Precondition: cells.size() == column_count().
  void AddRow(std::vector<std::string> cells) {
    rows_.push_back(std::move(cells));
  }
  size_t column_count() const { return header_.size(); }
  const std::vector<std::string>& header() const { return header_; }
  const std::vector<std::vector<std::string>>& rows() const { return rows_; }
  // "| a | b |\n|---|---|\n| 1 | 2 |\n".
  std::string ToMarkdown() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

struct LabReport {
  std::string experiment;  // e.g. "scbf-params"
  std::string title;
  // Setup lines printed above the tables (parameters, seeds, probe counts).
  std::vector<std::string> notes;
  std::vector<std::string> table_captions;  // one per table
  std::vector<MarkdownTable> tables;
  // "## title", the notes as a list, then each caption and table.
  std::string ToMarkdown() const;
};

// 1234567 -> "1,234,567".
std::string FormatCount(uint64_t v);
// Fixed-point with `digits` decimals.
std::string FormatFixed(double v, int digits);
// Three significant digits in scientific notation, "1.23e-04"; "0" for 0.
std::string FormatSci(double v);

// Monotonic stopwatch.
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double ElapsedSeconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start_)
        .count();
  }
  double ElapsedNanos() const { return ElapsedSeconds() * 1e9; }

 private:
  std::chrono::steady_clock::time_point start_;
};

// The element the lab uses for number i of a stream: HashElement(seed, stream,
// the 8 bytes of i). Streams keep present and absent keys apart.
ElementHash LabKey(uint64_t seed, uint64_t stream, uint64_t i);
inline constexpr uint64_t kPresentStream = 1;
inline constexpr uint64_t kAbsentStream = 2;

// Median of a non-empty list (copied, sorted).
double Median(std::vector<double> values);

}  // namespace bloomroute::lab

#endif  // BLOOMROUTE_LAB_EXPERIMENTS_REPORT_H_
