// HBase's read-modify-write rules (model/atomic_ops.h).
#include "model/atomic_ops.h"

#include <algorithm>
#include <functional>
#include <map>

namespace bloomroute {

std::string EncodeLong(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  std::string out(kLongBytes, '\0');
  for (size_t i = kLongBytes; i-- > 0; u >>= 8) {
    out[i] = static_cast<char>(u & 0xff);
  }
  return out;
}

StatusOr<int64_t> DecodeLong(std::string_view bytes) {
  if (bytes.size() != kLongBytes) {
    return Status::InvalidArgument("Field is not a long, it's " +
                                   std::to_string(bytes.size()) +
                                   " bytes wide");
  }
  uint64_t u = 0;
  for (unsigned char b : bytes) u = (u << 8) | b;
  return static_cast<int64_t>(u);
}

namespace {

const Cell* FindCell(const std::vector<Cell>& cells, std::string_view column) {
  for (const Cell& c : cells) {
    if (c.column == column) return &c;
  }
  return nullptr;
}

// Unsigned byte order, as HBase's Bytes.compareTo (std::string_view compares
// through char_traits<char>, which compares as unsigned char).
int CompareBytes(std::string_view a, std::string_view b) {
  const int r = a.compare(b);
  return r < 0 ? -1 : (r > 0 ? 1 : 0);
}

bool Matches(CompareOp op, int r) {
  switch (op) {
    case CompareOp::kLess:
      return r < 0;
    case CompareOp::kLessOrEqual:
      return r <= 0;
    case CompareOp::kEqual:
      return r == 0;
    case CompareOp::kNotEqual:
      return r != 0;
    case CompareOp::kGreaterOrEqual:
      return r >= 0;
    case CompareOp::kGreater:
      return r > 0;
  }
  return false;
}

// The value each column holds as a mutation's entries are applied in order:
// the row's, then the latest entry's. A map, so that a mutation of many
// entries costs O(n log n), not O(n^2).
class WorkingValues {
 public:
  explicit WorkingValues(const std::vector<Cell>& row) : row_(row) {}
  // The column's current value, or nullptr when it has none.
  const std::string* Find(std::string_view column) const {
    auto it = written_.find(column);
    if (it != written_.end()) return &it->second;
    // The row is sorted by column (NewCellsOf's contract).
    auto c = std::lower_bound(
        row_.begin(), row_.end(), column,
        [](const Cell& a, std::string_view col) { return a.column < col; });
    return c != row_.end() && c->column == column ? &c->value : nullptr;
  }
  void Set(std::string_view column, const std::string& value) {
    written_[std::string(column)] = value;
  }

 private:
  const std::vector<Cell>& row_;
  std::map<std::string, std::string, std::less<>> written_;
};

}  // namespace

bool ConditionHolds(const RowCondition& condition,
                    const std::vector<Cell>& cells) {
  const Cell* cell = FindCell(cells, condition.column);
  if (!condition.value || condition.value->empty()) {
    const bool absent_or_empty = cell == nullptr || cell->value.empty();
    return condition.op == CompareOp::kNotEqual ? !absent_or_empty
                                                : absent_or_empty;
  }
  if (cell == nullptr) return false;
  // The given value against the cell's, in this order (HBase).
  return Matches(condition.op, CompareBytes(*condition.value, cell->value));
}

StatusOr<std::vector<Cell>> NewCellsOf(const Mutation& m,
                                       const std::vector<Cell>& cells) {
  std::vector<Cell> out;
  WorkingValues values(cells);
  if (m.kind == Mutation::Kind::kIncrement) {
    out.reserve(m.increments.size());
    for (const ColumnIncrement& inc : m.increments) {
      const std::string* now = values.Find(inc.column);
      int64_t value = 0;
      if (now != nullptr) {
        StatusOr<int64_t> decoded = DecodeLong(*now);
        if (!decoded.ok()) {
          return decoded.status().WithContext("column " +
                                              QuoteForMessage(inc.column));
        }
        value = *decoded;
      }
      // Java long arithmetic wraps; in C++ only unsigned arithmetic does.
      const uint64_t sum =
          static_cast<uint64_t>(value) + static_cast<uint64_t>(inc.amount);
      out.push_back(Cell{inc.column, EncodeLong(static_cast<int64_t>(sum))});
      values.Set(inc.column, out.back().value);
    }
    return out;
  }
  if (m.kind == Mutation::Kind::kAppend) {
    out.reserve(m.cells.size());
    for (const Cell& c : m.cells) {
      const std::string* now = values.Find(c.column);
      out.push_back(Cell{c.column, (now ? *now : std::string()) + c.value});
      values.Set(c.column, out.back().value);
    }
    return out;
  }
  return Status::InvalidArgument("only an increment or an append makes cells");
}

}  // namespace bloomroute
