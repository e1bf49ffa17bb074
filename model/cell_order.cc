#include "model/cell_order.h"

#include <algorithm>

namespace bloomroute {
namespace {

std::string_view FamilyOf(std::string_view column) {
  return column.substr(0, column.find(':'));
}

}  // namespace

bool HBaseColumnLess(std::string_view a, std::string_view b) {
  const std::string_view fa = FamilyOf(a);
  const std::string_view fb = FamilyOf(b);
  if (fa != fb) return fa < fb;
  return a.substr(fa.size()) < b.substr(fb.size());
}

bool InHBaseOrder(const std::vector<Cell>& cells) {
  for (size_t i = 1; i < cells.size(); ++i) {
    if (HBaseColumnLess(cells[i].column, cells[i - 1].column)) return false;
  }
  return true;
}

void ToHBaseOrder(std::vector<Cell>* cells) {
  if (InHBaseOrder(*cells)) return;
  std::stable_sort(cells->begin(), cells->end(),
                   [](const Cell& a, const Cell& b) {
                     return HBaseColumnLess(a.column, b.column);
                   });
}

void ToModelOrder(std::vector<Cell>* cells) {
  const auto by_column = [](const Cell& a, const Cell& b) {
    return a.column < b.column;
  };
  if (std::is_sorted(cells->begin(), cells->end(), by_column)) return;
  std::stable_sort(cells->begin(), cells->end(), by_column);
}

}  // namespace bloomroute
