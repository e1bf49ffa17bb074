// FilterListWithAND, FilterListWithOR, SkipFilter and WhileMatchFilter over
// the leaf nodes (filter_eval.cc), and FilterScan: a row run as HBase's
// region scanner runs it.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "model/cell_order.h"
#include "model/filter_language.h"
#include "model/internal/filter_eval.h"

namespace bloomroute {
namespace filter_internal {
namespace {

// ReturnCodes as (includes the cell, how far the scanner steps: 0 the next
// cell, 1 the next column, 2 the next row). Both lists' step tables
// (FilterListWithAND's "maximal step rule", FilterListWithOR's "minimal
// step rule") are this decomposition: AND includes when both do and takes
// the larger step, OR includes when either does and takes the smaller.
int StepOf(Code c) {
  switch (c) {
    case Code::kIncludeAndNextCol:
    case Code::kNextCol:
      return 1;
    case Code::kIncludeAndSeekNextRow:
    case Code::kNextRow:
      return 2;
    default:
      return 0;
  }
}

Code CodeOf(bool include, int step) {
  static constexpr Code kInclude[] = {Code::kInclude, Code::kIncludeAndNextCol,
                                      Code::kIncludeAndSeekNextRow};
  static constexpr Code kExclude[] = {Code::kSkip, Code::kNextCol,
                                      Code::kNextRow};
  return include ? kInclude[step] : kExclude[step];
}

Code MergeAnd(Code rc, Code local) {
  if (rc == Code::kSeekNextUsingHint || local == Code::kSeekNextUsingHint) {
    return Code::kSeekNextUsingHint;
  }
  return CodeOf(IsInclude(rc) && IsInclude(local),
                std::max(StepOf(rc), StepOf(local)));
}

// A hint counts as the smallest step unless both are hints.
Code MergeOr(Code rc, Code local) {
  if (rc == Code::kSeekNextUsingHint && local == Code::kSeekNextUsingHint) {
    return Code::kSeekNextUsingHint;
  }
  return CodeOf(IsInclude(rc) || IsInclude(local),
                std::min(StepOf(rc), StepOf(local)));
}

using Nodes = std::vector<std::unique_ptr<FilterNode>>;

class AndNode : public FilterNode {
 public:
  explicit AndNode(Nodes children) : children_(std::move(children)) {}
  void Reset() override {
    for (auto& c : children_) c->Reset();
    hinting_.clear();
  }
  void Restart() override {
    for (auto& c : children_) c->Restart();
    hinting_.clear();
  }
  bool FilterAllRemaining() override {
    for (auto& c : children_) {
      if (c->FilterAllRemaining()) return true;
    }
    return false;
  }
  bool FilterRowKey(std::string_view row) override {
    bool filtered = false;  // every operand sees the key (PrefixFilter's state)
    for (auto& c : children_) {
      if (c->FilterAllRemaining() || c->FilterRowKey(row)) filtered = true;
    }
    return filtered;
  }
  Code FilterCell(const CellView& cell) override {
    Code rc = Code::kInclude;
    hinting_.clear();
    for (auto& c : children_) {
      if (c->FilterAllRemaining()) return Code::kNextRow;
      const Code local = c->FilterCell(cell);
      if (local == Code::kSeekNextUsingHint) hinting_.push_back(c.get());
      rc = MergeAnd(rc, local);
      // Later operands do not see a cell already excluded (HBASE-20565).
      if (!IsInclude(rc)) return rc;
    }
    return rc;
  }
  void TransformCell(Cell* cell) override {
    for (auto& c : children_) c->TransformCell(cell);
  }
  void FilterRowCells(std::vector<Cell>* cells) override {
    for (auto& c : children_) c->FilterRowCells(cells);
  }
  bool FilterRow() override {
    for (auto& c : children_) {
      if (c->FilterRow()) return true;
    }
    return false;
  }
  std::optional<Hint> NextCellHint(const CellView& cell) override {
    std::optional<Hint> max;
    for (FilterNode* c : hinting_) {
      if (c->FilterAllRemaining()) continue;
      std::optional<Hint> h = c->NextCellHint(cell);
      if (h && (!max || max->qualifier < h->qualifier)) max = std::move(h);
    }
    return max;
  }

 private:
  Nodes children_;
  std::vector<FilterNode*> hinting_;  // the operands that gave a hint
};

// A copy of the last cell an OR operand was given, for the operand's step.
struct PrevCell {
  std::string family;
  std::string qualifier;
  std::string value;
  int64_t timestamp = 0;
  CellView View() const { return {family, qualifier, value, timestamp}; }
};

class OrNode : public FilterNode {
 public:
  explicit OrNode(Nodes children)
      : children_(std::move(children)),
        prev_code_(children_.size()),
        prev_cell_(children_.size()),
        included_(children_.size(), false) {}
  void Reset() override {
    for (auto& c : children_) c->Reset();
    ClearPrevious();
  }
  void Restart() override {
    for (auto& c : children_) c->Restart();
    ClearPrevious();
  }
  bool FilterAllRemaining() override {
    for (auto& c : children_) {
      if (!c->FilterAllRemaining()) return false;
    }
    return true;
  }
  bool FilterRowKey(std::string_view row) override {
    bool filtered = true;
    for (auto& c : children_) {
      if (!c->FilterAllRemaining() && !c->FilterRowKey(row)) filtered = false;
    }
    return filtered;
  }
  Code FilterCell(const CellView& cell) override {
    std::optional<Code> rc;
    for (size_t i = 0; i < children_.size(); ++i) {
      included_[i] = false;
      if (children_[i]->FilterAllRemaining()) continue;
      std::optional<Code> local = FromPrevious(i, cell);
      if (!local) local = children_[i]->FilterCell(cell);
      prev_code_[i] = *local;
      if (*local == Code::kInclude || *local == Code::kSkip) {
        prev_cell_[i].reset();
      } else {
        prev_cell_[i] =
            PrevCell{std::string(cell.family), std::string(cell.qualifier),
                     std::string(cell.value), cell.timestamp};
      }
      rc = rc ? MergeOr(*rc, *local) : *local;
      included_[i] = IsInclude(*local);
    }
    return rc.value_or(Code::kSkip);
  }
  void TransformCell(Cell* cell) override {
    for (size_t i = 0; i < children_.size(); ++i) {
      if (included_[i]) children_[i]->TransformCell(cell);
    }
  }
  void FilterRowCells(std::vector<Cell>* cells) override {
    for (auto& c : children_) c->FilterRowCells(cells);
  }
  bool FilterRow() override {
    for (auto& c : children_) {
      if (!c->FilterRow()) return false;
    }
    return true;
  }
  std::optional<Hint> NextCellHint(const CellView& cell) override {
    std::optional<Hint> min;
    for (auto& c : children_) {
      if (c->FilterAllRemaining()) continue;
      std::optional<Hint> h = c->NextCellHint(cell);
      if (!h) return std::nullopt;  // one operand without a hint: none
      if (!min || h->qualifier < min->qualifier) min = std::move(h);
    }
    return min;
  }

 private:
  void ClearPrevious() {
    std::fill(prev_code_.begin(), prev_code_.end(), std::nullopt);
    std::fill(prev_cell_.begin(), prev_cell_.end(), std::nullopt);
    std::fill(included_.begin(), included_.end(), false);
  }
  // The operand's code for `cell` implied by its previous one, without
  // asking it (HBASE-17678): still before its hint, in the column it
  // skipped, or in the family whose row it skipped.
  std::optional<Code> FromPrevious(size_t i, const CellView& cell) {
    if (!prev_code_[i] || !prev_cell_[i]) return std::nullopt;
    const PrevCell& prev = *prev_cell_[i];
    const bool same_family = prev.family == cell.family;
    switch (*prev_code_[i]) {
      case Code::kSeekNextUsingHint: {
        std::optional<Hint> h = children_[i]->NextCellHint(prev.View());
        if (h && h->family == cell.family && cell.qualifier < h->qualifier) {
          return Code::kSeekNextUsingHint;
        }
        return std::nullopt;
      }
      case Code::kNextCol:
      case Code::kIncludeAndNextCol:
        if (same_family && prev.qualifier == cell.qualifier) {
          return Code::kNextCol;
        }
        return std::nullopt;
      case Code::kNextRow:
      case Code::kIncludeAndSeekNextRow:
        if (same_family) return Code::kNextRow;
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }

  Nodes children_;
  std::vector<std::optional<Code>> prev_code_;
  std::vector<std::optional<PrevCell>> prev_cell_;
  std::vector<bool> included_;
};

// SkipFilter: the row is dropped when the operand excludes any cell. It
// neither passes the row key nor filterRowCells to the operand, and gives
// no hint (FilterBase's defaults), as HBase's.
class SkipNode : public FilterNode {
 public:
  explicit SkipNode(std::unique_ptr<FilterNode> inner)
      : inner_(std::move(inner)) {}
  void Reset() override {
    inner_->Reset();
    filter_row_ = false;
  }
  void Restart() override {
    inner_->Restart();
    filter_row_ = false;
  }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& cell) override {
    const Code rc = inner_->FilterCell(cell);
    filter_row_ = filter_row_ || rc != Code::kInclude;
    return rc;
  }
  void TransformCell(Cell* cell) override { inner_->TransformCell(cell); }
  bool FilterRow() override { return filter_row_; }

 private:
  std::unique_ptr<FilterNode> inner_;
  bool filter_row_ = false;
};

// WhileMatchFilter: everything remaining is filtered once the operand
// excludes a row key, a cell (any code but INCLUDE) or a row.
class WhileNode : public FilterNode {
 public:
  explicit WhileNode(std::unique_ptr<FilterNode> inner)
      : inner_(std::move(inner)) {}
  void Reset() override { inner_->Reset(); }
  void Restart() override {
    inner_->Restart();
    ended_ = false;
  }
  bool FilterAllRemaining() override {
    return ended_ || inner_->FilterAllRemaining();
  }
  bool FilterRowKey(std::string_view row) override {
    if (FilterAllRemaining()) return true;
    const bool filtered = inner_->FilterRowKey(row);
    ended_ = ended_ || filtered;
    return filtered;
  }
  Code FilterCell(const CellView& cell) override {
    const Code rc = inner_->FilterCell(cell);
    ended_ = ended_ || rc != Code::kInclude;
    return rc;
  }
  void TransformCell(Cell* cell) override { inner_->TransformCell(cell); }
  bool FilterRow() override {
    const bool filtered = inner_->FilterRow();
    ended_ = ended_ || filtered;
    return filtered;
  }

 private:
  std::unique_ptr<FilterNode> inner_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<FilterNode> BuildFilterNode(const Filter& filter,
                                            bool reversed) {
  if (const auto* list = std::get_if<FilterList>(&filter.node)) {
    Nodes children;
    for (const Filter& operand : list->operands) {
      children.push_back(BuildFilterNode(operand, reversed));
    }
    if (list->op == FilterList::Op::kAnd) {
      return std::make_unique<AndNode>(std::move(children));
    }
    return std::make_unique<OrNode>(std::move(children));
  }
  if (const auto* unary = std::get_if<UnaryFilter>(&filter.node)) {
    std::unique_ptr<FilterNode> inner =
        unary->operand.empty() ? BuildLeafNode(Filter{PageFilter{}}, reversed)
                               : BuildFilterNode(unary->operand[0], reversed);
    if (unary->op == UnaryFilter::Op::kSkip) {
      return std::make_unique<SkipNode>(std::move(inner));
    }
    return std::make_unique<WhileNode>(std::move(inner));
  }
  return BuildLeafNode(filter, reversed);
}

}  // namespace filter_internal

using filter_internal::Code;

class FilterScan::Impl {
 public:
  Impl(const Filter& filter, bool reversed)
      : root_(filter_internal::BuildFilterNode(filter, reversed)) {}

  // As HBase's RegionScannerImpl.nextInternal and StoreScanner.next run one
  // row, the filter new (its state is per row; see FilterScan).
  Result Next(const Row& row) {
    Result out;
    root_->Restart();
    if (row.cells.empty()) return out;  // no row to a scanner
    // In HBase's order of families (model/cell_order.h): what the column
    // counting filters and FirstKeyOnlyFilter keep depends on it. A copy
    // only for the rare rows whose families order differently.
    std::optional<std::vector<Cell>> reordered;
    if (!InHBaseOrder(row.cells)) {
      reordered = row.cells;
      ToHBaseOrder(&*reordered);
    }
    std::vector<Cell> kept;
    if (!root_->FilterRowKey(row.key)) {
      kept = FilterCells(reordered ? *reordered : row.cells);
    }
    root_->FilterRowCells(&kept);
    if (reordered) ToModelOrder(&kept);
    // filterRow is asked only of a row with cells left.
    if (!kept.empty() && !root_->FilterRow()) {
      out.row = Row{row.key, std::move(kept)};
    }
    root_->Reset();
    out.ends_scan = root_->FilterAllRemaining();
    return out;
  }

 private:
  // The row's cells through filterCell, in HBase's order; the included
  // ones transformed.
  std::vector<Cell> FilterCells(const std::vector<Cell>& cells) {
    std::vector<Cell> kept;
    std::optional<std::string_view> skipped_family;  // NEXT_ROW given in it
    std::optional<filter_internal::Hint> hint;
    for (const Cell& cell : cells) {
      const filter_internal::CellView view = filter_internal::ViewOf(cell);
      if (skipped_family == view.family) continue;
      if (hint && hint->family == view.family &&
          view.qualifier < hint->qualifier) {
        continue;
      }
      // The matcher's DONE_SCAN: nothing more of the row (or the scan).
      if (root_->FilterAllRemaining()) break;
      const Code code = root_->FilterCell(view);
      if (filter_internal::IsInclude(code)) {
        kept.push_back(cell);
        root_->TransformCell(&kept.back());
      }
      if (code == Code::kNextRow || code == Code::kIncludeAndSeekNextRow) {
        skipped_family = view.family;
      } else if (code == Code::kSeekNextUsingHint) {
        hint = root_->NextCellHint(view);
      }
    }
    return kept;
  }

  std::unique_ptr<filter_internal::FilterNode> root_;
};

FilterScan::FilterScan(const Filter& filter, bool reversed)
    : impl_(std::make_unique<Impl>(filter, reversed)) {}
FilterScan::~FilterScan() = default;

FilterScan::Result FilterScan::Next(const Row& row) { return impl_->Next(row); }

std::optional<Row> ApplyFilter(const Filter& filter, const Row& row) {
  return FilterScan(filter).Next(row).row;
}

}  // namespace bloomroute
