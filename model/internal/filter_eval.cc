// The leaf filters of the cell-level engine, each following its HBase 2.x
// class (named beside it): the ReturnCode of every cell, the row calls and
// the state kept between them.
#include "model/internal/filter_eval.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>

namespace bloomroute::filter_internal {
namespace {

// Unsigned lexicographic order, as HBase's Bytes.compareTo.
int CompareBytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c < 0 ? -1 : 1;
  if (a.size() == b.size()) return 0;
  return a.size() < b.size() ? -1 : 1;
}

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// ByteArrayComparable.compareTo(subject): the comparator's operand against
// the subject; for substring and regexstring 0 when found, 1 otherwise.
int CompareTo(const FilterComparator& comparator, const JavaRegex* regex,
              std::string_view subject) {
  const std::string& operand = comparator.operand;
  switch (comparator.kind) {
    case FilterComparator::Kind::kBinary:
      return CompareBytes(operand, subject);
    case FilterComparator::Kind::kBinaryPrefix:
      return CompareBytes(operand, subject.substr(0, operand.size()));
    case FilterComparator::Kind::kSubstring:
      return AsciiLower(subject).find(AsciiLower(operand)) == std::string::npos;
    case FilterComparator::Kind::kRegex:
      return regex == nullptr || !regex->Finds(subject);
  }
  return 1;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsColumn(const CellView& c, std::string_view family,
              std::string_view qualifier) {
  return c.family == family && c.qualifier == qualifier;
}

// A regex for `comparator`: the parsed one, or compiled here for a filter
// built by hand (nullptr when it does not compile: nothing matches).
std::shared_ptr<const JavaRegex> RegexFor(
    FilterComparator::Kind kind, const std::string& operand,
    const std::shared_ptr<const JavaRegex>& parsed) {
  if (kind != FilterComparator::Kind::kRegex || parsed != nullptr) {
    return parsed;
  }
  StatusOr<JavaRegex> re = JavaRegex::Compile(operand, /*dot_all=*/true);
  if (!re.ok()) return nullptr;
  return std::make_shared<const JavaRegex>(std::move(re).value());
}

// SingleColumnValueFilter / SingleColumnValueExcludeFilter.
class ScvfNode : public FilterNode {
 public:
  explicit ScvfNode(const SingleColumnValueFilter& f)
      : f_(f), regex_(RegexFor(f.comparator, f.value, f.regex)) {
    comparator_.kind = f.comparator;
    comparator_.operand = f.value;
  }
  void Reset() override { found_ = matched_ = false; }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    if (matched_) return Code::kInclude;
    if (f_.latest_version_only && found_) return Code::kNextRow;
    if (!IsColumn(c, f_.family, f_.qualifier)) return Code::kInclude;
    found_ = true;
    if (!ComparatorPasses(f_.op, comparator_, regex_.get(), c.value)) {
      return f_.latest_version_only ? Code::kNextRow : Code::kInclude;
    }
    matched_ = true;
    return Code::kInclude;
  }
  void FilterRowCells(std::vector<Cell>* cells) override {
    if (!f_.exclude) return;
    cells->erase(std::remove_if(cells->begin(), cells->end(),
                                [&](const Cell& cell) {
                                  return IsColumn(ViewOf(cell), f_.family,
                                                  f_.qualifier);
                                }),
                 cells->end());
  }
  bool FilterRow() override {
    return found_ ? !matched_ : f_.filter_if_missing;
  }

 private:
  const SingleColumnValueFilter f_;
  FilterComparator comparator_;
  std::shared_ptr<const JavaRegex> regex_;
  bool found_ = false;
  bool matched_ = false;
};

// RowFilter, FamilyFilter, QualifierFilter, ValueFilter.
class CompareNode : public FilterNode {
 public:
  explicit CompareNode(const CompareFilter& f)
      : f_(f),
        regex_(RegexFor(f.comparator.kind, f.comparator.operand,
                        f.comparator.regex)) {}
  void Reset() override { filter_out_row_ = false; }
  bool FilterRowKey(std::string_view row) override {
    if (f_.part != CompareFilter::Part::kRow) return FilterAllRemaining();
    if (!Passes(row)) filter_out_row_ = true;
    return filter_out_row_;
  }
  Code FilterCell(const CellView& c) override {
    switch (f_.part) {
      case CompareFilter::Part::kRow:
        return filter_out_row_ ? Code::kNextRow : Code::kInclude;
      case CompareFilter::Part::kFamily:
        return !c.family.empty() && !Passes(c.family) ? Code::kNextRow
                                                      : Code::kInclude;
      case CompareFilter::Part::kQualifier:
        return !c.qualifier.empty() && !Passes(c.qualifier) ? Code::kSkip
                                                            : Code::kInclude;
      case CompareFilter::Part::kValue:
        return Passes(c.value) ? Code::kInclude : Code::kSkip;
    }
    return Code::kInclude;
  }
  bool FilterRow() override { return filter_out_row_; }

 private:
  bool Passes(std::string_view subject) const {
    return ComparatorPasses(f_.op, f_.comparator, regex_.get(), subject);
  }
  const CompareFilter f_;
  std::shared_ptr<const JavaRegex> regex_;
  bool filter_out_row_ = false;
};

// PrefixFilter: passing the prefix (in scan order) ends the scan.
class PrefixNode : public FilterNode {
 public:
  PrefixNode(std::string prefix, bool reversed)
      : prefix_(std::move(prefix)), reversed_(reversed) {}
  void Reset() override { filter_row_ = true; }
  void Restart() override {
    Reset();
    passed_ = false;
  }
  bool FilterAllRemaining() override { return passed_; }
  bool FilterRowKey(std::string_view row) override {
    if (FilterAllRemaining()) return true;
    if (row.size() < prefix_.size()) return true;
    const int cmp = CompareBytes(row.substr(0, prefix_.size()), prefix_);
    if ((!reversed_ && cmp > 0) || (reversed_ && cmp < 0)) passed_ = true;
    filter_row_ = cmp != 0;
    return filter_row_;
  }
  Code FilterCell(const CellView&) override {
    return filter_row_ ? Code::kNextRow : Code::kInclude;
  }
  bool FilterRow() override { return filter_row_; }

 private:
  const std::string prefix_;
  const bool reversed_;
  bool filter_row_ = true;
  bool passed_ = false;
};

// InclusiveStopFilter: a row past the stop row (in scan order) ends it.
class InclusiveStopNode : public FilterNode {
 public:
  InclusiveStopNode(std::string stop, bool reversed)
      : stop_(std::move(stop)), reversed_(reversed) {}
  void Restart() override { done_ = false; }
  bool FilterAllRemaining() override { return done_; }
  bool FilterRowKey(std::string_view row) override {
    if (FilterAllRemaining()) return true;
    const int cmp = CompareBytes(row, stop_);
    done_ = reversed_ ? cmp < 0 : cmp > 0;
    return done_;
  }
  Code FilterCell(const CellView&) override {
    return done_ ? Code::kNextRow : Code::kInclude;
  }

 private:
  const std::string stop_;
  const bool reversed_;
  bool done_ = false;
};

// PageFilter: every row passes here; its limit is FilterPlan::row_limit.
class PassNode : public FilterNode {
 public:
  Code FilterCell(const CellView&) override { return Code::kInclude; }
};

class KeyOnlyNode : public FilterNode {
 public:
  explicit KeyOnlyNode(bool length_as_value)
      : length_as_value_(length_as_value) {}
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView&) override { return Code::kInclude; }
  void TransformCell(Cell* cell) override {
    if (!length_as_value_) {
      cell->value.clear();
      return;
    }
    // Bytes.toBytes(int): 4 bytes, big-endian.
    const auto n = static_cast<uint32_t>(cell->value.size());
    cell->value = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                   static_cast<char>(n >> 8), static_cast<char>(n)};
  }

 private:
  const bool length_as_value_;
};

class FirstKeyOnlyNode : public FilterNode {
 public:
  void Reset() override { found_ = false; }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView&) override {
    if (found_) return Code::kNextRow;
    found_ = true;
    return Code::kInclude;
  }

 private:
  bool found_ = false;
};

// ColumnPrefixFilter.filterColumn.
class ColumnPrefixNode : public FilterNode {
 public:
  explicit ColumnPrefixNode(std::string prefix) : prefix_(std::move(prefix)) {}
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    if (c.qualifier.size() < prefix_.size()) {
      const int cmp = CompareBytes(
          c.qualifier, std::string_view(prefix_).substr(0, c.qualifier.size()));
      return cmp <= 0 ? Code::kSeekNextUsingHint : Code::kNextRow;
    }
    const int cmp =
        CompareBytes(c.qualifier.substr(0, prefix_.size()), prefix_);
    if (cmp < 0) return Code::kSeekNextUsingHint;
    return cmp > 0 ? Code::kNextRow : Code::kInclude;
  }
  std::optional<Hint> NextCellHint(const CellView& c) override {
    return Hint{std::string(c.family), prefix_};
  }

 private:
  const std::string prefix_;
};

// MultipleColumnPrefixFilter.filterColumn (prefixes sorted).
class MultiPrefixNode : public FilterNode {
 public:
  explicit MultiPrefixNode(std::vector<std::string> prefixes)
      : prefixes_(std::move(prefixes)) {}
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    if (prefixes_.empty()) return Code::kInclude;
    // The prefixes sorting at or before the qualifier.
    auto end = std::upper_bound(prefixes_.begin(), prefixes_.end(), c.qualifier,
                                [](std::string_view q, const std::string& p) {
                                  return CompareBytes(q, p) < 0;
                                });
    if (end == prefixes_.begin()) {
      hint_ = prefixes_.front();
      return Code::kSeekNextUsingHint;
    }
    if (StartsWith(c.qualifier, *(end - 1))) return Code::kInclude;
    if (end == prefixes_.end()) return Code::kNextRow;
    hint_ = *end;
    return Code::kSeekNextUsingHint;
  }
  std::optional<Hint> NextCellHint(const CellView& c) override {
    return Hint{std::string(c.family), hint_};
  }

 private:
  const std::vector<std::string> prefixes_;
  std::string hint_;
};

class ColumnRangeNode : public FilterNode {
 public:
  explicit ColumnRangeNode(const ColumnRangeFilter& f) : f_(f) {}
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    const int cmp_min = f_.min ? CompareBytes(c.qualifier, *f_.min) : 1;
    if (cmp_min < 0) return Code::kSeekNextUsingHint;
    if (!f_.min_inclusive && cmp_min == 0) return Code::kNextCol;
    if (!f_.max) return Code::kInclude;
    const int cmp_max = CompareBytes(c.qualifier, *f_.max);
    if (cmp_max < 0 || (f_.max_inclusive && cmp_max == 0)) {
      return Code::kInclude;
    }
    return Code::kNextRow;
  }
  std::optional<Hint> NextCellHint(const CellView& c) override {
    return Hint{std::string(c.family), f_.min.value_or("")};
  }

 private:
  const ColumnRangeFilter f_;
};

class ColumnCountGetNode : public FilterNode {
 public:
  explicit ColumnCountGetNode(int32_t limit) : limit_(limit) {}
  void Reset() override { count_ = 0; }
  bool FilterAllRemaining() override { return count_ > limit_; }
  Code FilterCell(const CellView&) override {
    ++count_;
    return FilterAllRemaining() ? Code::kNextCol : Code::kIncludeAndNextCol;
  }

 private:
  const int64_t limit_;
  int64_t count_ = 0;
};

class ColumnPaginationNode : public FilterNode {
 public:
  explicit ColumnPaginationNode(const ColumnPaginationFilter& f)
      // offset + limit as Java's int sum (it wraps past 2^31 - 1).
      : end_(static_cast<int32_t>(static_cast<uint32_t>(f.offset) +
                                  static_cast<uint32_t>(f.limit))),
        offset_(f.offset) {}
  void Reset() override { count_ = 0; }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView&) override {
    if (count_ >= end_) return Code::kNextRow;
    const Code code =
        count_ < offset_ ? Code::kNextCol : Code::kIncludeAndNextCol;
    ++count_;
    return code;
  }

 private:
  const int32_t end_;
  const int32_t offset_;
  int32_t count_ = 0;
};

class TimestampsNode : public FilterNode {
 public:
  explicit TimestampsNode(std::vector<int64_t> timestamps)
      : timestamps_(std::move(timestamps)) {
    std::sort(timestamps_.begin(), timestamps_.end());
  }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    if (std::binary_search(timestamps_.begin(), timestamps_.end(),
                           c.timestamp)) {
      return Code::kInclude;
    }
    const int64_t min = timestamps_.empty() ? INT64_MAX : timestamps_.front();
    return c.timestamp < min ? Code::kNextCol : Code::kSkip;
  }

 private:
  std::vector<int64_t> timestamps_;  // sorted
};

class DependentColumnNode : public FilterNode {
 public:
  explicit DependentColumnNode(const DependentColumnFilter& f)
      : f_(f),
        regex_(RegexFor(f.comparator.kind, f.comparator.operand,
                        f.comparator.regex)) {}
  void Reset() override { stamps_.clear(); }
  bool FilterRowKey(std::string_view) override { return false; }
  Code FilterCell(const CellView& c) override {
    if (!IsColumn(c, f_.family, f_.qualifier)) return Code::kInclude;
    if (f_.op &&
        !ComparatorPasses(*f_.op, f_.comparator, regex_.get(), c.value)) {
      return Code::kSkip;
    }
    stamps_.push_back(c.timestamp);
    return f_.drop_dependent ? Code::kSkip : Code::kInclude;
  }
  void FilterRowCells(std::vector<Cell>* cells) override {
    cells->erase(std::remove_if(cells->begin(), cells->end(),
                                [&](const Cell& cell) {
                                  return std::find(
                                             stamps_.begin(), stamps_.end(),
                                             cell.timestamp) == stamps_.end();
                                }),
                 cells->end());
  }

 private:
  const DependentColumnFilter f_;
  std::shared_ptr<const JavaRegex> regex_;
  std::vector<int64_t> stamps_;
};

}  // namespace

bool IsInclude(Code c) {
  return c == Code::kInclude || c == Code::kIncludeAndNextCol ||
         c == Code::kIncludeAndSeekNextRow;
}

CellView ViewOf(const Cell& cell) {
  std::string_view column = cell.column;
  const size_t colon = column.find(':');
  CellView v;
  v.family = column.substr(0, colon);
  if (colon != std::string_view::npos) v.qualifier = column.substr(colon + 1);
  v.value = cell.value;
  v.timestamp = cell.timestamp;
  return v;
}

bool ComparatorPasses(CompareOp op, const FilterComparator& comparator,
                      const JavaRegex* regex, std::string_view subject) {
  // CompareFilter.compare says when to filter out; this is its negation.
  const int r = CompareTo(comparator, regex, subject);
  switch (op) {
    case CompareOp::kLess:
      return r > 0;
    case CompareOp::kLessOrEqual:
      return r >= 0;
    case CompareOp::kEqual:
      return r == 0;
    case CompareOp::kNotEqual:
      return r != 0;
    case CompareOp::kGreaterOrEqual:
      return r <= 0;
    case CompareOp::kGreater:
      return r < 0;
  }
  return false;
}

std::unique_ptr<FilterNode> BuildLeafNode(const Filter& f, bool reversed) {
  if (const auto* s = std::get_if<SingleColumnValueFilter>(&f.node)) {
    return std::make_unique<ScvfNode>(*s);
  }
  if (const auto* c = std::get_if<CompareFilter>(&f.node)) {
    return std::make_unique<CompareNode>(*c);
  }
  if (const auto* p = std::get_if<PrefixFilter>(&f.node)) {
    return std::make_unique<PrefixNode>(p->prefix, reversed);
  }
  if (const auto* s = std::get_if<InclusiveStopFilter>(&f.node)) {
    return std::make_unique<InclusiveStopNode>(s->stop_row, reversed);
  }
  if (const auto* k = std::get_if<KeyOnlyFilter>(&f.node)) {
    return std::make_unique<KeyOnlyNode>(k->length_as_value);
  }
  if (std::holds_alternative<FirstKeyOnlyFilter>(f.node)) {
    return std::make_unique<FirstKeyOnlyNode>();
  }
  if (const auto* c = std::get_if<ColumnPrefixFilter>(&f.node)) {
    return std::make_unique<ColumnPrefixNode>(c->prefix);
  }
  if (const auto* m = std::get_if<MultipleColumnPrefixFilter>(&f.node)) {
    return std::make_unique<MultiPrefixNode>(m->prefixes);
  }
  if (const auto* r = std::get_if<ColumnRangeFilter>(&f.node)) {
    return std::make_unique<ColumnRangeNode>(*r);
  }
  if (const auto* c = std::get_if<ColumnCountGetFilter>(&f.node)) {
    return std::make_unique<ColumnCountGetNode>(c->limit);
  }
  if (const auto* p = std::get_if<ColumnPaginationFilter>(&f.node)) {
    return std::make_unique<ColumnPaginationNode>(*p);
  }
  if (const auto* t = std::get_if<TimestampsFilter>(&f.node)) {
    return std::make_unique<TimestampsNode>(t->timestamps);
  }
  if (const auto* d = std::get_if<DependentColumnFilter>(&f.node)) {
    return std::make_unique<DependentColumnNode>(*d);
  }
  return std::make_unique<PassNode>();  // PageFilter
}

}  // namespace bloomroute::filter_internal
