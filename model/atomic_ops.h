// Row read-modify-write semantics as in HBase: the check of checkAndMutate,
// increment and append. Pure functions over a row's cells; the region store
// calls them under the row's lock, so the row cannot change in between.
//
// The new cells of increment and append are computed here and nowhere else,
// so that a cell timestamp (when cells gain one) is assigned in one place.
//
// Example:
//   std::vector<Cell> row = {{"d:n", EncodeLong(41)}};
//   StatusOr<std::vector<Cell>> cells = NewCellsOf(
//       Mutation::Increment(0, "r", {{"d:n", 1}}), row);
//   // cells->front().value == EncodeLong(42)
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_MODEL_ATOMIC_OPS_H_
#define BLOOMROUTE_MODEL_ATOMIC_OPS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute {

// The width of a counter cell: a Java long, big-endian, as HBase's Bytes.
inline constexpr size_t kLongBytes = 8;

// `v` as 8 bytes, big-endian two's complement (HBase Bytes.toBytes(long)).
std::string EncodeLong(int64_t v);
// The counter in `bytes`; InvalidArgument "Field is not a long, it's N bytes
// wide" (HBase's message) unless exactly kLongBytes long.
StatusOr<int64_t> DecodeLong(std::string_view bytes);

// Whether `condition` holds on a row with `cells` (sorted by column or not).
// As HBase's HRegion.checkAndMutate (2.4.10 and later, HBASE-26742):
//  * value unset or empty: with kNotEqual it holds iff the cell exists with
//    a non-empty value; with every other operator iff the cell is absent or
//    its value is empty.
//  * value set: false when the cell is absent; otherwise r = compare(GIVEN
//    value, cell value) in unsigned byte order (HBase's BinaryComparator,
//    Bytes.compareTo(given, cell)) and the operator is applied to r:
//    kLess holds iff given < cell, kLessOrEqual iff given <= cell, kEqual iff
//    equal, kNotEqual iff different, kGreaterOrEqual iff given >= cell,
//    kGreater iff given > cell. (So "LESS" means the cell is GREATER than the
//    value given -- HBase's direction, kept for compatible clients.)
bool ConditionHolds(const RowCondition& condition,
                    const std::vector<Cell>& cells);

// The cells a kIncrement or kAppend mutation `m` writes into a row that now
// holds `cells` (a row's cells sorted by column, as stored), one per entry of
// the mutation in its order; an entry naming a column an earlier entry of `m`
// named sees that entry's result.
//  * kIncrement: missing cell = 0; the sum wraps on overflow (two's
//    complement, as Java long arithmetic in HBase); InvalidArgument "Field is
//    not a long, it's N bytes wide" (naming the column) for a cell that is not
//    exactly 8 bytes.
//  * kAppend: the cell's value followed by the given bytes (missing cell =
//    the bytes).
// InvalidArgument for any other kind. Bounds (value bytes) are the caller's.
StatusOr<std::vector<Cell>> NewCellsOf(const Mutation& m,
                                       const std::vector<Cell>& cells);

}  // namespace bloomroute

#endif  // BLOOMROUTE_MODEL_ATOMIC_OPS_H_
