// The cell-level engine behind FilterScan (model/filter_language.h): one
// node per filter of the tree, each answering HBase 2.x's Filter calls on
// our one-version cells. Private to model/.
#ifndef BLOOMROUTE_MODEL_INTERNAL_FILTER_EVAL_H_
#define BLOOMROUTE_MODEL_INTERNAL_FILTER_EVAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/filter_language.h"
#include "model/rows.h"

namespace bloomroute::filter_internal {

// HBase's Filter.ReturnCode, in the order FilterList's step rules rank them
// (INCLUDE < SKIP < INCLUDE_AND_NEXT_COL < ...); SEEK_NEXT_USING_HINT last.
enum class Code : uint8_t {
  kInclude,
  kSkip,
  kIncludeAndNextCol,
  kNextCol,
  kIncludeAndSeekNextRow,
  kNextRow,
  kSeekNextUsingHint,
};

bool IsInclude(Code c);

// A cell as the filters see it.
struct CellView {
  std::string_view family;
  std::string_view qualifier;
  std::string_view value;
  int64_t timestamp = 0;
};

// Where a SEEK_NEXT_USING_HINT goes: the first cell of `family` whose
// qualifier is at least `qualifier` (HBase's createFirstOnRowCol).
struct Hint {
  std::string family;
  std::string qualifier;
};

// One filter's state and calls, as HBase's Filter (the same names).
class FilterNode {
 public:
  virtual ~FilterNode() = default;
  // Between rows (Filter.reset()); state that HBase keeps across rows
  // (WHILE's end, PrefixFilter's and InclusiveStopFilter's passing) stays.
  virtual void Reset() {}
  // Everything back to a new filter's state.
  virtual void Restart() { Reset(); }
  virtual bool FilterAllRemaining() { return false; }
  virtual bool FilterRowKey(std::string_view row) {
    (void)row;
    return FilterAllRemaining();
  }
  virtual Code FilterCell(const CellView& cell) = 0;
  virtual void TransformCell(Cell* cell) { (void)cell; }
  virtual void FilterRowCells(std::vector<Cell>* cells) { (void)cells; }
  virtual bool FilterRow() { return false; }
  // nullopt: no hint (the scanner moves to the next cell).
  virtual std::optional<Hint> NextCellHint(const CellView& cell) {
    (void)cell;
    return std::nullopt;
  }
};

// The node tree for `filter` (ValidateFilter need not have accepted it: a
// regex that does not compile matches nothing).
std::unique_ptr<FilterNode> BuildFilterNode(const Filter& filter,
                                            bool reversed);

// The node of a filter other than FilterList and UnaryFilter.
std::unique_ptr<FilterNode> BuildLeafNode(const Filter& filter, bool reversed);

// Splits "family:qualifier" at its first ':' (no ':': all family).
CellView ViewOf(const Cell& cell);

// `subject op comparator` holds (HBase's CompareFilter.compare negated:
// true keeps the cell or row).
bool ComparatorPasses(CompareOp op, const FilterComparator& comparator,
                      const JavaRegex* regex, std::string_view subject);

}  // namespace bloomroute::filter_internal

#endif  // BLOOMROUTE_MODEL_INTERNAL_FILTER_EVAL_H_
