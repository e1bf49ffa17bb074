#include "model/index_predicate.h"

#include <utility>

namespace bloomroute {
namespace {

// v's successor in byte order: no string sorts between v and v + '\0'.
std::string Successor(std::string v) {
  v.push_back('\0');
  return v;
}

Status WantValues(const IndexPredicate& p, size_t n) {
  if (p.values.size() == n) return Status::OK();
  return Status::InvalidArgument(
      "the " + std::string(IndexOpName(p.op)) + " predicate on " +
      QuoteForMessage(p.column) + " takes " +
      (n == 1 ? std::string("one value") : std::to_string(n) + " values") +
      ", not " + std::to_string(p.values.size()));
}

Status AddRange(const IndexPredicate& p, IndexQuery* q) {
  RangePredicate r;
  r.column = p.column;
  const size_t n = p.op == IndexOp::kBetween ? 2 : 1;
  BLOOMROUTE_RETURN_IF_ERROR(WantValues(p, n));
  const std::string& v = p.values[0];
  switch (p.op) {
    case IndexOp::kLess:
      r.upper = v;
      break;
    case IndexOp::kLessOrEqual:
      r.upper = Successor(v);
      break;
    case IndexOp::kGreater:
      r.lower = Successor(v);
      break;
    case IndexOp::kGreaterOrEqual:
      r.lower = v;
      break;
    case IndexOp::kBetween:
      r.lower = v;
      r.upper = Successor(p.values[1]);
      break;
    case IndexOp::kPrefix:
      if (v.empty()) {
        return Status::InvalidArgument("an empty prefix on " +
                                       QuoteForMessage(p.column) +
                                       " would match every row");
      }
      r.lower = v;
      r.upper = PrefixUpperBound(v);
      break;
    default:
      return Status::InvalidArgument("unknown index operator");
  }
  q->ranges.push_back(std::move(r));
  return Status::OK();
}

}  // namespace

std::string_view IndexOpName(IndexOp op) {
  switch (op) {
    case IndexOp::kEqual:
      return "=";
    case IndexOp::kIn:
      return "in";
    case IndexOp::kLess:
      return "<";
    case IndexOp::kLessOrEqual:
      return "<=";
    case IndexOp::kGreater:
      return ">";
    case IndexOp::kGreaterOrEqual:
      return ">=";
    case IndexOp::kPrefix:
      return "prefix";
    case IndexOp::kBetween:
      return "between";
  }
  return "?";
}

std::optional<std::string> PrefixUpperBound(std::string_view prefix) {
  std::string s(prefix);
  while (!s.empty() && static_cast<unsigned char>(s.back()) == 0xFF) {
    s.pop_back();
  }
  if (s.empty()) return std::nullopt;
  s.back() = static_cast<char>(static_cast<unsigned char>(s.back()) + 1);
  return s;
}

Status AddToQuery(const IndexPredicate& p, IndexQuery* q) {
  const int32_t op = static_cast<int32_t>(p.op);
  if (op < 0 || op >= kIndexOpCount) {
    return Status::InvalidArgument(
        "index predicate on " + QuoteForMessage(p.column) +
        " has an unknown operator " + std::to_string(op));
  }
  if (p.op == IndexOp::kEqual) {
    BLOOMROUTE_RETURN_IF_ERROR(WantValues(p, 1));
    q->equals.push_back(EqualityPredicate{p.column, p.values[0]});
    return Status::OK();
  }
  if (p.op == IndexOp::kIn) {
    q->in.push_back(InPredicate{p.column, p.values});
    return Status::OK();
  }
  return AddRange(p, q);
}

}  // namespace bloomroute
