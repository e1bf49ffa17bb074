// HBase's order of a row's cells beside the model's.
//
// HBase sorts a row's cells by family, then qualifier, each as unsigned
// bytes (CellComparator); a model row (model/rows.h) keeps its cells sorted
// by the "family:qualifier" string. The two orders agree within a family
// (its cells share the prefix "family:") and between most families, but
// not where one family is a prefix of another that goes on with a byte
// below ':' (0x3a): families "d" and "d0", or "cf1" and "cf10", are "d" first
// in HBase and "d0:..." first as strings. What a client sees in order -- a
// result's cells, a scan's batches, FirstKeyOnlyFilter's cell, the column
// counting filters -- follows HBase's order; rows at rest and between our
// own components keep the model's (Row::Find searches it).
//
// Usage:
//   if (!InHBaseOrder(row.cells)) ToHBaseOrder(&row.cells);
#ifndef BLOOMROUTE_MODEL_CELL_ORDER_H_
#define BLOOMROUTE_MODEL_CELL_ORDER_H_

#include <string_view>
#include <vector>

#include "model/rows.h"

namespace bloomroute {

// HBase's order of two columns ("family:qualifier", or a bare family).
bool HBaseColumnLess(std::string_view a, std::string_view b);

// Whether `cells` (in the model's order) are in HBase's order too. O(n):
// adjacent cells of different families compared.
bool InHBaseOrder(const std::vector<Cell>& cells);

// `cells` (in the model's order) in HBase's order: their families
// reordered, each family's cells kept as they are. Nothing moves when they
// already are (InHBaseOrder).
void ToHBaseOrder(std::vector<Cell>* cells);

// `cells` (in HBase's order) back in the model's; nothing moves when they
// already are.
void ToModelOrder(std::vector<Cell>* cells);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_CELL_ORDER_H_
