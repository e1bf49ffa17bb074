// Random filter trees over the whole language on random rows: FilterScan's
// answer against an evaluator of HBase 2.x's rules written here apart from
// the product. The evaluator follows the Java classes literally: the
// ReturnCode tables of FilterListWithAND / FilterListWithOR as printed in
// their javadoc, each filter's state kept across the rows of the scan with
// HBase's reset() between rows, and RegionScannerImpl's order of calls
// (filterRowKey, then isFilterDone; filterCell per cell with the matcher's
// filterAllRemaining check; filterRowCells; filterRow; reset; isFilterDone).
// Where we document a difference (PageFilter counted by the caller,
// ColumnCountGetFilter's closed family not kept past the row), the
// evaluator models ours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "model/filter_language.h"

namespace bloomroute {
namespace {

// Java's ReturnCode, in the column order of the javadoc tables.
enum RC { INC, INC_NC, INC_SNR, SKIP, NC, NR, HINT };

// FilterListWithAND: kAnd[localRC][rc].
const RC kAnd[7][7] = {{INC, INC_NC, INC_SNR, SKIP, NC, NR, HINT},
                       {INC_NC, INC_NC, INC_SNR, NC, NC, NR, HINT},
                       {INC_SNR, INC_SNR, INC_SNR, NR, NR, NR, HINT},
                       {SKIP, NC, NR, SKIP, NC, NR, HINT},
                       {NC, NC, NR, NC, NC, NR, HINT},
                       {NR, NR, NR, NR, NR, NR, HINT},
                       {HINT, HINT, HINT, HINT, HINT, HINT, HINT}};
// FilterListWithOR: kOr[localRC][rc].
const RC kOr[7][7] = {{INC, INC, INC, INC, INC, INC, INC},
                      {INC, INC_NC, INC_NC, INC, INC_NC, INC_NC, INC},
                      {INC, INC_NC, INC_SNR, INC, INC_NC, INC_SNR, INC},
                      {INC, INC, INC, SKIP, SKIP, SKIP, SKIP},
                      {INC, INC_NC, INC_NC, SKIP, NC, NC, SKIP},
                      {INC, INC_NC, INC_SNR, SKIP, NC, NR, SKIP},
                      {INC, INC, INC, SKIP, SKIP, SKIP, HINT}};

bool Included(RC rc) { return rc == INC || rc == INC_NC || rc == INC_SNR; }

struct SCell {
  std::string fam, qual, value;
  int64_t ts = 0;
};

SCell Split(const Cell& c) {
  size_t colon = c.column.find(':');
  return {c.column.substr(0, colon), c.column.substr(colon + 1), c.value,
          c.timestamp};
}

int Cmp(const std::string& a, const std::string& b) {
  int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// CompareFilter.compare(op, comparator.compareTo(subject)): true = filter
// the subject out.
bool FilterOut(CompareOp op, FilterComparator::Kind kind,
               const std::string& operand, const std::string& subject) {
  int r;
  if (kind == FilterComparator::Kind::kBinary) {
    r = Cmp(operand, subject);
  } else if (kind == FilterComparator::Kind::kBinaryPrefix) {
    r = Cmp(operand, subject.substr(0, operand.size()));
  } else if (kind == FilterComparator::Kind::kSubstring) {
    std::string s = subject, o = operand;
    for (char& ch : s) ch = std::tolower(static_cast<unsigned char>(ch));
    for (char& ch : o) ch = std::tolower(static_cast<unsigned char>(ch));
    r = s.find(o) == std::string::npos ? 1 : 0;
  } else {
    // The test's patterns are literal strings or "^x": found anywhere /
    // at the start.
    bool anchored = !operand.empty() && operand[0] == '^';
    std::string lit = anchored ? operand.substr(1) : operand;
    r = (anchored ? subject.rfind(lit, 0) == 0
                  : subject.find(lit) != std::string::npos)
            ? 0
            : 1;
  }
  switch (op) {
    case CompareOp::kLess:
      return r <= 0;
    case CompareOp::kLessOrEqual:
      return r < 0;
    case CompareOp::kEqual:
      return r != 0;
    case CompareOp::kNotEqual:
      return r == 0;
    case CompareOp::kGreaterOrEqual:
      return r > 0;
    case CompareOp::kGreater:
      return r >= 0;
  }
  return true;
}

// One simulated Java filter object.
struct Sim {
  const Filter* f = nullptr;
  std::vector<Sim> kids;
  bool reversed = false;
  // Leaf state, named after the Java fields.
  bool found = false, matched = false, filter_row = false, passed = false,
       done = false, far = false;
  int64_t count = 0;
  std::vector<int64_t> stamps;
  std::string hint;
  // FilterListWithOR's per-operand memory; FilterListWithAND's hinters.
  std::vector<std::optional<RC>> prev_rc;
  std::vector<std::optional<SCell>> prev_cell;
  std::vector<bool> included;
  std::vector<size_t> hinters;

  Sim(const Filter& filter, bool rev) : f(&filter), reversed(rev) {
    if (auto* l = std::get_if<FilterList>(&f->node)) {
      for (const Filter& o : l->operands) kids.emplace_back(o, rev);
    } else if (auto* u = std::get_if<UnaryFilter>(&f->node)) {
      kids.emplace_back(u->operand[0], rev);
    }
    prev_rc.assign(kids.size(), std::nullopt);
    prev_cell.assign(kids.size(), std::nullopt);
    included.assign(kids.size(), false);
    Reset();
    filter_row = std::holds_alternative<PrefixFilter>(f->node);
  }
  const FilterList* List() const { return std::get_if<FilterList>(&f->node); }
  const UnaryFilter* Unary() const {
    return std::get_if<UnaryFilter>(&f->node);
  }

  void Reset() {
    for (Sim& k : kids) k.Reset();
    found = matched = false;
    count = 0;
    stamps.clear();
    hinters.clear();
    std::fill(prev_rc.begin(), prev_rc.end(), std::nullopt);
    std::fill(prev_cell.begin(), prev_cell.end(), std::nullopt);
    std::fill(included.begin(), included.end(), false);
    if (std::holds_alternative<PrefixFilter>(f->node)) filter_row = true;
    if (std::holds_alternative<CompareFilter>(f->node)) filter_row = false;
    if (auto* u = Unary(); u && u->op == UnaryFilter::Op::kSkip) {
      filter_row = false;
    }
  }

  bool FAR() {
    if (auto* l = List()) {
      bool is_and = l->op == FilterList::Op::kAnd;
      for (Sim& k : kids) {
        if (k.FAR() == is_and) return is_and;
      }
      return !is_and;
    }
    if (auto* u = Unary()) {
      return u->op == UnaryFilter::Op::kWhile && (far || kids[0].FAR());
    }
    if (std::holds_alternative<PrefixFilter>(f->node)) return passed;
    if (std::holds_alternative<InclusiveStopFilter>(f->node)) return done;
    if (auto* c = std::get_if<ColumnCountGetFilter>(&f->node)) {
      return count > c->limit;
    }
    return false;
  }

  bool RowKey(const std::string& key);
  RC CellRC(const SCell& c);
  std::optional<SCell> Hint(const SCell& c);
  void Transform(Cell* c);
  void RowCells(std::vector<Cell>* cells);
  bool Row();
  RC Leaf(const SCell& c);
  RC OrCell(const SCell& c);
};

bool Sim::RowKey(const std::string& key) {
  if (auto* l = List()) {
    bool is_and = l->op == FilterList::Op::kAnd, ret = !is_and;
    for (Sim& k : kids) {
      if (is_and && (k.FAR() || k.RowKey(key))) ret = true;
      if (!is_and && !k.FAR() && !k.RowKey(key)) ret = false;
    }
    return ret;
  }
  if (auto* u = Unary()) {
    if (u->op == UnaryFilter::Op::kSkip) return false;
    if (FAR()) return true;
    bool v = kids[0].RowKey(key);
    far = far || v;
    return v;
  }
  if (auto* p = std::get_if<PrefixFilter>(&f->node)) {
    if (FAR()) return true;
    if (key.size() < p->prefix.size()) return true;
    int cmp = Cmp(key.substr(0, p->prefix.size()), p->prefix);
    if ((!reversed && cmp > 0) || (reversed && cmp < 0)) passed = true;
    filter_row = cmp != 0;
    return filter_row;
  }
  if (auto* s = std::get_if<InclusiveStopFilter>(&f->node)) {
    if (FAR()) return true;
    int cmp = Cmp(key, s->stop_row);
    done = reversed ? cmp < 0 : cmp > 0;
    return done;
  }
  if (auto* c = std::get_if<CompareFilter>(&f->node)) {
    if (c->part != CompareFilter::Part::kRow) return FAR();
    if (FilterOut(c->op, c->comparator.kind, c->comparator.operand, key)) {
      filter_row = true;
    }
    return filter_row;
  }
  return FAR();
}

RC Sim::Leaf(const SCell& c) {
  if (auto* s = std::get_if<SingleColumnValueFilter>(&f->node)) {
    if (matched) return INC;
    if (s->latest_version_only && found) return NR;
    if (c.fam != s->family || c.qual != s->qualifier) return INC;
    found = true;
    if (FilterOut(s->op, s->comparator, s->value, c.value)) {
      return s->latest_version_only ? NR : INC;
    }
    matched = true;
    return INC;
  }
  if (auto* cf = std::get_if<CompareFilter>(&f->node)) {
    const auto& k = cf->comparator;
    switch (cf->part) {
      case CompareFilter::Part::kRow:
        return filter_row ? NR : INC;
      case CompareFilter::Part::kFamily:
        return FilterOut(cf->op, k.kind, k.operand, c.fam) ? NR : INC;
      case CompareFilter::Part::kQualifier:
        if (c.qual.empty()) return INC;
        return FilterOut(cf->op, k.kind, k.operand, c.qual) ? SKIP : INC;
      case CompareFilter::Part::kValue:
        return FilterOut(cf->op, k.kind, k.operand, c.value) ? SKIP : INC;
    }
  }
  if (std::holds_alternative<PrefixFilter>(f->node)) {
    return filter_row ? NR : INC;
  }
  if (std::holds_alternative<InclusiveStopFilter>(f->node)) {
    return done ? NR : INC;
  }
  if (std::holds_alternative<FirstKeyOnlyFilter>(f->node)) {
    if (found) return NR;
    found = true;
    return INC;
  }
  if (auto* p = std::get_if<ColumnPrefixFilter>(&f->node)) {
    const std::string& pre = p->prefix;
    if (c.qual.size() < pre.size()) {
      return Cmp(c.qual, pre.substr(0, c.qual.size())) <= 0 ? HINT : NR;
    }
    int cmp = Cmp(c.qual.substr(0, pre.size()), pre);
    return cmp < 0 ? HINT : cmp > 0 ? NR : INC;
  }
  if (auto* m = std::get_if<MultipleColumnPrefixFilter>(&f->node)) {
    if (m->prefixes.empty()) return INC;
    std::vector<std::string> le;  // TreeSet.headSet(qualifier, true)
    for (const std::string& p : m->prefixes) {
      if (Cmp(p, c.qual) <= 0) le.push_back(p);
    }
    if (le.empty()) {
      hint = m->prefixes.front();
      return HINT;
    }
    if (c.qual.rfind(le.back(), 0) == 0) return INC;
    if (le.size() == m->prefixes.size()) return NR;
    hint = m->prefixes[le.size()];
    return HINT;
  }
  if (auto* r = std::get_if<ColumnRangeFilter>(&f->node)) {
    int cmp_min = r->min ? Cmp(c.qual, *r->min) : 1;
    if (cmp_min < 0) return HINT;
    if (!r->min_inclusive && cmp_min == 0) return NC;
    if (!r->max) return INC;
    int cmp_max = Cmp(c.qual, *r->max);
    return (r->max_inclusive ? cmp_max <= 0 : cmp_max < 0) ? INC : NR;
  }
  if (auto* g = std::get_if<ColumnCountGetFilter>(&f->node)) {
    ++count;
    return count > g->limit ? NC : INC_NC;
  }
  if (auto* p = std::get_if<ColumnPaginationFilter>(&f->node)) {
    if (count >= int64_t{p->offset} + p->limit) return NR;
    RC rc = count < p->offset ? NC : INC_NC;
    ++count;
    return rc;
  }
  if (auto* t = std::get_if<TimestampsFilter>(&f->node)) {
    const auto& v = t->timestamps;
    if (std::find(v.begin(), v.end(), c.ts) != v.end()) return INC;
    int64_t min = v.empty() ? INT64_MAX : *std::min_element(v.begin(), v.end());
    return c.ts < min ? NC : SKIP;
  }
  if (auto* d = std::get_if<DependentColumnFilter>(&f->node)) {
    if (c.fam != d->family || c.qual != d->qualifier) return INC;
    if (d->op &&
        FilterOut(*d->op, d->comparator.kind, d->comparator.operand, c.value)) {
      return SKIP;
    }
    stamps.push_back(c.ts);
    return d->drop_dependent ? SKIP : INC;
  }
  return INC;  // PageFilter, KeyOnlyFilter
}

RC Sim::OrCell(const SCell& c) {
  std::optional<RC> rc;
  for (size_t i = 0; i < kids.size(); ++i) {
    included[i] = false;
    if (kids[i].FAR()) continue;
    std::optional<RC> local;
    if (prev_rc[i] && prev_cell[i]) {
      const SCell& p = *prev_cell[i];
      RC prc = *prev_rc[i];
      if (prc == HINT) {
        std::optional<SCell> h = kids[i].Hint(p);
        if (h && h->fam == c.fam && Cmp(c.qual, h->qual) < 0) local = HINT;
      } else if (prc == NC || prc == INC_NC) {
        if (p.fam == c.fam && p.qual == c.qual) local = NC;
      } else if (prc == NR || prc == INC_SNR) {
        if (p.fam == c.fam) local = NR;
      }
    }
    if (!local) local = kids[i].CellRC(c);
    prev_rc[i] = local;
    if (*local == INC || *local == SKIP) {
      prev_cell[i].reset();
    } else {
      prev_cell[i] = c;
    }
    rc = rc ? kOr[*local][*rc] : *local;
    if (Included(*local)) included[i] = true;
  }
  return rc ? *rc : SKIP;
}

RC Sim::CellRC(const SCell& c) {
  if (auto* l = List()) {
    if (l->op == FilterList::Op::kOr) return OrCell(c);
    RC rc = INC;
    hinters.clear();
    for (size_t i = 0; i < kids.size(); ++i) {
      if (kids[i].FAR()) return NR;
      RC local = kids[i].CellRC(c);
      if (local == HINT) hinters.push_back(i);
      rc = kAnd[local][rc];
      if (!Included(rc)) return rc;
    }
    return hinters.empty() ? rc : HINT;
  }
  if (auto* u = Unary()) {
    RC rc = kids[0].CellRC(c);
    if (u->op == UnaryFilter::Op::kSkip) {
      filter_row = filter_row || rc != INC;
    } else {
      far = far || rc != INC;
    }
    return rc;
  }
  return Leaf(c);
}

// getNextCellHint, as a cell of the current row: family and qualifier.
std::optional<SCell> Sim::Hint(const SCell& c) {
  if (auto* l = List()) {
    std::optional<SCell> best;
    if (l->op == FilterList::Op::kAnd) {
      for (size_t i : hinters) {
        if (kids[i].FAR()) continue;
        std::optional<SCell> h = kids[i].Hint(c);
        if (!best || (h && Cmp(best->qual, h->qual) < 0)) best = h;
      }
      return best;
    }
    for (Sim& k : kids) {
      if (k.FAR()) continue;
      std::optional<SCell> h = k.Hint(c);
      if (!h) return std::nullopt;
      if (!best || Cmp(h->qual, best->qual) < 0) best = h;
    }
    return best;
  }
  if (auto* p = std::get_if<ColumnPrefixFilter>(&f->node)) {
    return SCell{c.fam, p->prefix, "", 0};
  }
  if (std::holds_alternative<MultipleColumnPrefixFilter>(f->node)) {
    return SCell{c.fam, hint, "", 0};
  }
  if (auto* r = std::get_if<ColumnRangeFilter>(&f->node)) {
    return SCell{c.fam, r->min.value_or(""), "", 0};
  }
  return std::nullopt;  // FilterBase: SKIP and WHILE give none either
}

void Sim::Transform(Cell* c) {
  if (auto* l = List()) {
    for (size_t i = 0; i < kids.size(); ++i) {
      if (l->op == FilterList::Op::kAnd || included[i]) kids[i].Transform(c);
    }
  } else if (Unary()) {
    kids[0].Transform(c);
  } else if (auto* k = std::get_if<KeyOnlyFilter>(&f->node)) {
    if (k->length_as_value) {
      uint32_t n = c->value.size();
      c->value =
          std::string{char(n >> 24), char(n >> 16), char(n >> 8), char(n)};
    } else {
      c->value.clear();
    }
  }
}

void Sim::RowCells(std::vector<Cell>* cells) {
  if (List()) {
    for (Sim& k : kids) k.RowCells(cells);
    return;
  }
  std::vector<Cell> kept;
  for (const Cell& cell : *cells) {
    SCell c = Split(cell);
    bool drop = false;
    if (auto* s = std::get_if<SingleColumnValueFilter>(&f->node)) {
      drop = s->exclude && c.fam == s->family && c.qual == s->qualifier;
    } else if (std::holds_alternative<DependentColumnFilter>(f->node)) {
      drop = std::find(stamps.begin(), stamps.end(), c.ts) == stamps.end();
    }
    if (!drop) kept.push_back(cell);
  }
  *cells = kept;
}

bool Sim::Row() {
  if (auto* l = List()) {
    bool is_and = l->op == FilterList::Op::kAnd;
    for (Sim& k : kids) {
      if (k.Row() == is_and) return is_and;
    }
    return !is_and;
  }
  if (auto* u = Unary()) {
    if (u->op == UnaryFilter::Op::kSkip) return filter_row;
    bool v = kids[0].Row();
    far = far || v;
    return v;
  }
  if (auto* s = std::get_if<SingleColumnValueFilter>(&f->node)) {
    return found ? !matched : s->filter_if_missing;
  }
  if (std::holds_alternative<PrefixFilter>(f->node) ||
      std::holds_alternative<CompareFilter>(f->node)) {
    return filter_row;
  }
  return false;
}

// RegionScannerImpl over the rows of one region, the filter's state kept.
std::vector<Row> SimulateScan(const Filter& f, const std::vector<Row>& rows,
                              bool reversed) {
  Sim root(f, reversed);
  std::vector<Row> out;
  for (const Row& row : rows) {
    if (row.cells.empty()) continue;
    if (root.RowKey(row.key)) {
      if (root.FAR()) break;
      root.Reset();
      continue;
    }
    std::vector<Cell> results;
    std::string skip_family;
    bool skipping = false, done_scan = false;
    std::optional<SCell> seek;
    for (const Cell& cell : row.cells) {
      SCell c = Split(cell);
      if (skipping && c.fam == skip_family) continue;
      if (seek && seek->fam == c.fam && Cmp(c.qual, seek->qual) < 0) continue;
      if (root.FAR()) {  // the matcher's DONE_SCAN, store by store
        done_scan = true;
        break;
      }
      RC rc = root.CellRC(c);
      if (Included(rc)) {
        results.push_back(cell);
        root.Transform(&results.back());
      }
      if (rc == NR || rc == INC_SNR) {
        skipping = true;
        skip_family = c.fam;
      } else if (rc == HINT) {
        std::optional<SCell> h = root.Hint(c);
        if (h && Cmp(h->qual, c.qual) > 0) seek = h;
      }
    }
    (void)done_scan;
    root.RowCells(&results);
    if (!results.empty() && !root.Row()) out.push_back(Row{row.key, results});
    root.Reset();
    if (root.FAR()) break;
  }
  return out;
}

std::vector<Row> ProductScan(const Filter& f, const std::vector<Row>& rows,
                             bool reversed) {
  FilterScan scan(f, reversed);
  std::vector<Row> out;
  for (const Row& row : rows) {
    FilterScan::Result r = scan.Next(row);
    if (r.row) out.push_back(std::move(*r.row));
    if (r.ends_scan) break;
  }
  return out;
}

// ------------------------------------------------------ random inputs

using Rng = std::mt19937_64;

template <typename T, size_t N>
const T& Pick(Rng& rng, const T (&items)[N]) {
  return items[rng() % N];
}

const char* const kQualifiers[] = {"", "a", "ab", "b", "c"};
const char* const kValues[] = {"", "x", "xy", "Y", "ab"};

std::vector<Row> RandomRows(Rng& rng) {
  std::vector<std::string> keys;
  for (int i = 0; i < 24; ++i) keys.push_back("k" + std::to_string(rng() % 60));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  std::vector<Row> rows;
  for (const std::string& key : keys) {
    Row row{key, {}};
    for (const char* fam : {"f", "g"}) {
      for (const char* q : kQualifiers) {
        if (rng() % 3 == 0) {
          row.cells.push_back({std::string(fam) + ":" + q, Pick(rng, kValues),
                               static_cast<int64_t>(1 + rng() % 3)});
        }
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

FilterComparator RandomComparator(Rng& rng, CompareOp* op) {
  static const char* const kOperands[] = {"", "x", "a", "Y", "b", "ab"};
  FilterComparator c;
  c.kind = static_cast<FilterComparator::Kind>(rng() % 4);
  c.operand = Pick(rng, kOperands);
  *op = static_cast<CompareOp>(rng() % 6);
  if (c.kind == FilterComparator::Kind::kSubstring ||
      c.kind == FilterComparator::Kind::kRegex) {
    *op = rng() % 2 ? CompareOp::kEqual : CompareOp::kNotEqual;
  }
  if (c.kind == FilterComparator::Kind::kRegex && rng() % 2) {
    c.operand = "^" + c.operand;
  }
  return c;
}

Filter RandomScvf(Rng& rng) {
  SingleColumnValueFilter s;
  s.family = rng() % 2 ? "f" : "g";
  s.qualifier = Pick(rng, kQualifiers);
  FilterComparator c = RandomComparator(rng, &s.op);
  s.comparator = c.kind;
  s.value = c.operand;
  s.filter_if_missing = rng() % 2;
  s.latest_version_only = rng() % 4 != 0;
  s.exclude = rng() % 3 == 0;
  return Filter{s};
}

Filter RandomColumnFilter(Rng& rng) {
  switch (rng() % 5) {
    case 0:
      return Filter{ColumnPrefixFilter{Pick(rng, kQualifiers)}};
    case 1: {
      MultipleColumnPrefixFilter m;
      for (const char* q : kQualifiers) {
        if (rng() % 3 == 0) m.prefixes.push_back(q);
      }
      return Filter{m};
    }
    case 2: {
      ColumnRangeFilter r;
      if (rng() % 3) r.min = Pick(rng, kQualifiers);
      if (rng() % 3) r.max = Pick(rng, kQualifiers);
      if (r.min && r.min->empty()) r.min.reset();
      if (r.max && r.max->empty()) r.max.reset();
      r.min_inclusive = rng() % 2;
      r.max_inclusive = rng() % 2;
      return Filter{r};
    }
    case 3:
      return Filter{ColumnCountGetFilter{static_cast<int32_t>(rng() % 5)}};
    default:
      return Filter{ColumnPaginationFilter{static_cast<int32_t>(rng() % 4),
                                           static_cast<int32_t>(rng() % 4)}};
  }
}

Filter RandomLeaf(Rng& rng) {
  static const char* const kRowKeys[] = {"", "k", "k1", "k3", "k5", "k4"};
  switch (rng() % 12) {
    case 0:
    case 1:
      return RandomScvf(rng);
    case 2:
    case 3: {
      CompareFilter c;
      c.part = static_cast<CompareFilter::Part>(rng() % 4);
      c.comparator = RandomComparator(rng, &c.op);
      if (c.part == CompareFilter::Part::kRow && rng() % 2) {
        c.comparator.operand = Pick(rng, kRowKeys);
      }
      return Filter{c};
    }
    case 4:
      return Filter{PrefixFilter{Pick(rng, kRowKeys)}};
    case 5:
      return Filter{InclusiveStopFilter{Pick(rng, kRowKeys)}};
    case 6:
      return rng() % 2 ? Filter{KeyOnlyFilter{rng() % 2 == 0}}
                       : Filter{FirstKeyOnlyFilter{}};
    case 7: {
      TimestampsFilter t;
      for (int64_t ts = 1; ts <= 4; ++ts) {
        if (rng() % 2) t.timestamps.push_back(ts);
      }
      return Filter{t};
    }
    case 8: {
      DependentColumnFilter d;
      d.family = rng() % 2 ? "f" : "g";
      d.qualifier = Pick(rng, kQualifiers);
      d.drop_dependent = rng() % 2;
      if (rng() % 2) {
        CompareOp op;
        d.comparator = RandomComparator(rng, &op);
        d.op = op;
      }
      return Filter{d};
    }
    case 9:
      return Filter{PageFilter{rng() % 6}};
    default:
      return RandomColumnFilter(rng);
  }
}

// Composite down to `composite_levels`, then leaves or composites.
Filter RandomTree(Rng& rng, int depth, int composite_levels) {
  if (depth == 0 || (composite_levels <= 0 && rng() % 2 == 0)) {
    return RandomLeaf(rng);
  }
  const int kind = rng() % 6;
  if (kind == 0 || kind == 1) {
    UnaryFilter u;
    u.op = kind == 0 ? UnaryFilter::Op::kSkip : UnaryFilter::Op::kWhile;
    u.operand.push_back(RandomTree(rng, depth - 1, composite_levels - 1));
    return Filter{u};
  }
  FilterList list;
  list.op = kind % 2 ? FilterList::Op::kAnd : FilterList::Op::kOr;
  for (int i = 0, n = 2 + rng() % 2; i < n; ++i) {
    list.operands.push_back(RandomTree(rng, depth - 1, composite_levels - 1));
  }
  return Filter{list};
}

std::string Show(const std::vector<Row>& rows) {
  std::string out;
  for (const Row& r : rows) {
    out += r.key + "{";
    for (const Cell& c : r.cells) out += c.column + "=" + c.value + " ";
    out += "} ";
  }
  return out;
}

TEST(FilterRandomTest, CellLevelAnswersMatchHBaseRules) {
  // Three seeds, 400 accepted trees each (depth >= 3: the top two levels
  // are AND/OR/SKIP/WHILE), a fresh set of about 20 rows per tree, each
  // scanned forward and reversed.
  int trees = 0, nonempty = 0, partial = 0, ended = 0;
  for (uint64_t seed : {29u, 2029u, 112829u}) {
    Rng rng(seed);
    for (int accepted = 0; accepted < 400;) {
      Filter generated = RandomTree(rng, 4, 2);
      if (!ValidateFilter(generated).ok()) continue;
      const std::string text = ToString(generated);
      StatusOr<Filter> f = ParseFilter(text);
      ASSERT_TRUE(f.ok()) << "seed " << seed << ": " << text << ": "
                          << f.status().ToString();
      ASSERT_EQ(*f, generated) << "seed " << seed << ": " << text;
      ++accepted;
      ++trees;
      std::vector<Row> rows = RandomRows(rng);
      for (bool reversed : {false, true}) {
        std::vector<Row> in = rows;
        if (reversed) std::reverse(in.begin(), in.end());
        std::vector<Row> want = SimulateScan(*f, in, reversed);
        std::vector<Row> got = ProductScan(*f, in, reversed);
        ASSERT_EQ(got, want)
            << "seed " << seed << ", tree " << accepted
            << (reversed ? " reversed" : "") << ": " << text
            << "\n got:  " << Show(got) << "\n want: " << Show(want)
            << "\n rows: " << Show(in);
        if (!want.empty()) ++nonempty;
        size_t kept = 0, total = 0;
        for (const Row& r : want) kept += r.cells.size();
        for (const Row& r : in) {
          for (const Row& w : want)
            total += w.key == r.key ? r.cells.size() : 0;
        }
        if (kept < total) ++partial;
        if (!want.empty() && want.back().key != in.back().key) ++ended;
      }
    }
  }
  // The comparison means something only if answers vary.
  EXPECT_EQ(trees, 1200);
  EXPECT_GE(nonempty, 600);
  EXPECT_GE(partial, 200);
  EXPECT_GE(ended, 200);
}

}  // namespace
}  // namespace bloomroute
