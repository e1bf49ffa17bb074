// Helpers for the lab tests: run an experiment in quick mode once per test
// binary and read its tables' cells by column name.
#ifndef BLOOMROUTE_TESTS_LAB_EXPERIMENTS_LAB_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_LAB_EXPERIMENTS_LAB_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>

#include "lab/experiments/experiments.h"

namespace bloomroute::lab::testing {

// The quick report of `run` (seed 1); aborts the test on failure.
inline LabReport QuickReport(StatusOr<LabReport> (*run)(const LabOptions&)) {
  LabOptions o;
  o.quick = true;
  StatusOr<LabReport> r = run(o);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

// The cell of `row` under the column named `column`; "" if there is none.
inline std::string Cell(const MarkdownTable& t, size_t row,
                        const std::string& column) {
  for (size_t c = 0; c < t.column_count(); ++c) {
    if (t.header()[c] == column) return t.rows().at(row).at(c);
  }
  ADD_FAILURE() << "no column " << column;
  return "";
}

// The number a cell starts with: "1,234" -> 1234, "1.5e-03 (12)" -> 0.0015.
inline double Number(const std::string& cell) {
  std::string digits;
  for (char c : cell) {
    if (c == ',') continue;
    if (c == ' ') break;
    digits += c;
  }
  return std::stod(digits);
}

}  // namespace bloomroute::lab::testing

#endif  // BLOOMROUTE_TESTS_LAB_EXPERIMENTS_LAB_TEST_UTIL_H_
