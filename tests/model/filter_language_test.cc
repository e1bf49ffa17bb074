#include "model/filter_language.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

Filter Parse(std::string_view text) {
  StatusOr<Filter> f = ParseFilter(text);
  EXPECT_TRUE(f.ok()) << text << ": " << f.status().ToString();
  return f.ok() ? *f : Filter{};
}

// The message of the InvalidArgument ParseFilter must return for `text`.
std::string ParseError(std::string_view text, const FilterLimits& limits = {}) {
  StatusOr<Filter> f = ParseFilter(text, limits);
  EXPECT_FALSE(f.ok()) << text << " parsed as " << (f.ok() ? ToString(*f) : "");
  if (f.ok()) return "";
  EXPECT_TRUE(f.status().IsInvalidArgument()) << f.status().ToString();
  return f.status().message();
}

Filter Scvf(std::string family, std::string qualifier, CompareOp op,
            std::string value, bool if_missing = false) {
  SingleColumnValueFilter s;
  s.family = std::move(family);
  s.qualifier = std::move(qualifier);
  s.op = op;
  s.value = std::move(value);
  s.filter_if_missing = if_missing;
  return Filter{s};
}

Filter List(FilterList::Op op, std::vector<Filter> operands) {
  return Filter{FilterList{op, std::move(operands)}};
}

Row MakeRow(std::string key, std::vector<Cell> cells) {
  return Row{std::move(key), std::move(cells)};
}

// ---------------------------------------------------------------- parser

TEST(FilterLanguageParseTest, EachFilterParses) {
  EXPECT_EQ(Parse("SingleColumnValueFilter('f', 'q', >=, 'binary:v')"),
            Scvf("f", "q", CompareOp::kGreaterOrEqual, "v"));
  Filter full = Scvf("f", "", CompareOp::kNotEqual, "a:b", true);
  std::get<SingleColumnValueFilter>(full.node).latest_version_only = false;
  EXPECT_EQ(
      Parse("SingleColumnValueFilter ( 'f' , '' , != , 'binary:a:b' , TRUE, "
            "false )"),
      full);
  EXPECT_EQ(Parse("PrefixFilter('it''s')"), Filter{PrefixFilter{"it's"}});
  EXPECT_EQ(Parse("PageFilter(7)"), Filter{PageFilter{7}});
  EXPECT_EQ(Parse("KeyOnlyFilter()"), Filter{KeyOnlyFilter{}});
  EXPECT_EQ(Parse("FirstKeyOnlyFilter ()"), Filter{FirstKeyOnlyFilter{}});
  EXPECT_EQ(Parse("ColumnPrefixFilter('')"), Filter{ColumnPrefixFilter{""}});
  const std::pair<const char*, CompareOp> ops[] = {
      {"<", CompareOp::kLess},
      {"<=", CompareOp::kLessOrEqual},
      {"=", CompareOp::kEqual},
      {"!=", CompareOp::kNotEqual},
      {">=", CompareOp::kGreaterOrEqual},
      {">", CompareOp::kGreater}};
  for (const auto& [text, op] : ops) {
    EXPECT_EQ(Parse(std::string("SingleColumnValueFilter('f','q',") + text +
                    ",'binary:')"),
              Scvf("f", "q", op, ""));
  }
}

TEST(FilterLanguageParseTest, AndBindsTighterThanOr) {
  Filter a = Scvf("f", "a", CompareOp::kEqual, "1");
  Filter b{PrefixFilter{"b"}};
  Filter c = Scvf("f", "c", CompareOp::kLess, "3");
  const char* sa = "SingleColumnValueFilter('f','a',=,'binary:1')";
  const char* sc = "SingleColumnValueFilter('f','c',<,'binary:3')";
  std::string text = std::string(sa) + " OR PrefixFilter('b') AND " + sc;
  EXPECT_EQ(Parse(text),
            List(FilterList::Op::kOr, {a, List(FilterList::Op::kAnd, {b, c})}));
  text = std::string("(") + sa + " OR PrefixFilter('b')) AND " + sc;
  EXPECT_EQ(Parse(text),
            List(FilterList::Op::kAnd, {List(FilterList::Op::kOr, {a, b}), c}));
  EXPECT_EQ(Parse("((PrefixFilter('b')))"), b);
  EXPECT_EQ(Parse("PrefixFilter('b') AND PrefixFilter('c') AND PageFilter(1)"),
            List(FilterList::Op::kAnd,
                 {b, Filter{PrefixFilter{"c"}}, Filter{PageFilter{1}}}));
}

TEST(FilterLanguageParseTest, ToStringRoundTrips) {
  const char* texts[] = {
      "SingleColumnValueFilter('f', 'q''x', <=, 'binary:\x80\xff''', true, "
      "false)",
      "PrefixFilter('') AND KeyOnlyFilter() AND PageFilter(0)",
      "(PrefixFilter('a') OR PrefixFilter('b')) AND ColumnPrefixFilter('c')",
      "PrefixFilter('a') OR (PrefixFilter('b') AND PrefixFilter('c'))",
      "((PrefixFilter('a') AND PrefixFilter('b')) AND PrefixFilter('c'))",
      "FirstKeyOnlyFilter() AND PageFilter(9223372036854775807)",
  };
  for (const char* text : texts) {
    Filter f = Parse(text);
    std::string again = ToString(f);
    EXPECT_EQ(Parse(again), f) << text << " -> " << again;
  }
}

TEST(FilterLanguageParseTest, MalformedStringsNameThePosition) {
  EXPECT_EQ(ParseError(""), "at position 0: expected a filter, got the end");
  EXPECT_EQ(ParseError("   "), "at position 3: expected a filter, got the end");
  EXPECT_EQ(ParseError("PrefixFilter('a'"),
            "at position 16: expected ',' or ')'");
  EXPECT_EQ(ParseError("PrefixFilter('a)"),
            "at position 13: unterminated quoted string");
  EXPECT_EQ(ParseError("(PrefixFilter('a')"), "at position 18: expected ')'");
  EXPECT_EQ(ParseError("PrefixFilter('a'))"),
            "at position 17: expected AND, OR or the end");
  EXPECT_EQ(ParseError("PrefixFilter('a') xyz"),
            "at position 18: expected AND, OR or the end");
  EXPECT_EQ(ParseError("PrefixFilter('a') AND"),
            "at position 21: expected a filter, got the end");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f' 'q', =, 'binary:v')"),
            "at position 28: expected ',' or ')'");
  EXPECT_EQ(ParseError("PrefixFilter('a', 'b')"),
            "at position 0: PrefixFilter takes 1 argument, got 2");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f', 'q', =)"),
            "at position 0: SingleColumnValueFilter takes 4 or 6 arguments, "
            "got 3");
  EXPECT_EQ(ParseError("PageFilter(x)"),
            "at position 11: page size must be an integer in [0, "
            "9223372036854775807], got 'x'");
  EXPECT_EQ(ParseError("PageFilter(-1)"),
            "at position 11: page size must be an integer in [0, "
            "9223372036854775807], got '-1'");
  EXPECT_EQ(ParseError("PageFilter('3')"),
            "at position 11: page size must be an integer in [0, "
            "9223372036854775807], got a quoted string");
  EXPECT_EQ(ParseError("FooFilter()"),
            "at position 0: unknown filter 'FooFilter'");
  EXPECT_EQ(ParseError("PrefixFilter"), "at position 12: expected '('");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f', 'q', ==, 'binary:v')"),
            "at position 34: expected a compare operator (<, <=, =, !=, >=, "
            ">), got '=='");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f','q',=,'binary:v',yes,"
                       "true)"),
            "at position 45: expected true or false, got 'yes'");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f','q',=,'v')"),
            "at position 34: expected a comparator such as 'binary:value'");
}

TEST(FilterLanguageParseTest, UnsupportedFeaturesAreNamed) {
  EXPECT_EQ(ParseError("ColumnValueFilter('f', 'q', =, 'binary:a')"),
            "at position 0: ColumnValueFilter is not supported");
  EXPECT_EQ(ParseError("PrefixFilter('a') AND FuzzyRowFilter('a')"),
            "at position 22: FuzzyRowFilter is not supported");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('f','q',=,'null:a')"),
            "at position 34: comparator null is not supported (binary, "
            "binaryprefix, substring and regexstring are)");
  EXPECT_EQ(ParseError("ValueFilter(<, 'substring:a')"),
            "at position 15: a regexstring or substring comparator goes with "
            "= and != only");
  EXPECT_EQ(ParseError("ValueFilter(=, 'regexstring:a(?i)b')"),
            "at position 15: regex: an inline flag (?i at offset 1 is "
            "Java-only syntax bloomroute does not accept");
  EXPECT_EQ(ParseError("PrefixFilter('a') OR PageFilter(3)"),
            "PageFilter is not supported inside OR");
  EXPECT_EQ(ParseError("SKIP PageFilter(3)"),
            "PageFilter is not supported inside SKIP");
  EXPECT_EQ(ParseError("PrefixFilter('a') OR WHILE PrefixFilter('b')"),
            "WHILE is not supported inside OR (there HBase keeps its end "
            "across rows without ending the scan)");
  EXPECT_EQ(ParseError("SKIP (KeyOnlyFilter() AND WHILE PrefixFilter('b'))"),
            "WHILE is not supported inside SKIP (there HBase keeps its end "
            "across rows without ending the scan)");
  EXPECT_EQ(ParseError("MultipleColumnPrefixFilter('a', 'b', 'a')"),
            "at position 0: MultipleColumnPrefixFilter prefixes must be "
            "distinct");
  EXPECT_EQ(ParseError("ColumnPaginationFilter(-1, 0)"),
            "at position 23: the limit must be an integer in [0, 2147483647], "
            "got '-1'");
  EXPECT_EQ(ParseError("SingleColumnValueFilter('',  'q', =, 'binary:v')"),
            "SingleColumnValueFilter family must be non-empty and hold no ':'");
}

TEST(FilterLanguageParseTest, LimitsAreNamed) {
  std::string deep(65, '(');
  deep += "KeyOnlyFilter()" + std::string(65, ')');
  EXPECT_EQ(ParseError(deep),
            "at position 64: parentheses nested deeper than 64 (filter "
            "nesting depth limit)");
  std::string ok_deep =
      std::string(64, '(') + "KeyOnlyFilter()" + std::string(64, ')');
  EXPECT_EQ(Parse(ok_deep), Filter{KeyOnlyFilter{}});
  // Huge nesting is refused at the limit, without deep recursion.
  std::string huge(1000000, '(');
  EXPECT_EQ(ParseError(huge, FilterLimits{2000000, 64, 1000}),
            "at position 64: parentheses nested deeper than 64 (filter "
            "nesting depth limit)");
  EXPECT_EQ(ParseError(std::string(65537, ' ')),
            "filter text is 65537 bytes, over the limit of 65536 (filter "
            "text byte limit)");
  std::string many = "PrefixFilter('a')";
  for (int i = 0; i < 1000; ++i) many += " AND PrefixFilter('a')";
  EXPECT_EQ(ParseError(many),
            "at position 22000: more than 1000 filters (filter count limit)");
  EXPECT_EQ(ParseError("PrefixFilter('a') AND PrefixFilter('b')",
                       FilterLimits{65536, 64, 1}),
            "at position 22: more than 1 filters (filter count limit)");
}

// ------------------------------------------------------------ evaluation

const Row kRow = MakeRow("row1", {{"f:a", "1"}, {"f:b", "\x90"}, {"g:a", ""}});

TEST(FilterLanguageApplyTest, SingleColumnValueFilterCompares) {
  auto passes = [](CompareOp op, std::string v, bool if_missing = false) {
    return ApplyFilter(Scvf("f", "b", op, std::move(v), if_missing), kRow)
        .has_value();
  };
  // Bytes compare unsigned: 0x90 sorts after every ASCII byte.
  EXPECT_TRUE(passes(CompareOp::kGreater, "z"));
  EXPECT_FALSE(passes(CompareOp::kLess, "z"));
  EXPECT_TRUE(passes(CompareOp::kLess, "\x91"));
  EXPECT_TRUE(passes(CompareOp::kEqual, "\x90"));
  EXPECT_FALSE(passes(CompareOp::kNotEqual, "\x90"));
  EXPECT_TRUE(passes(CompareOp::kLessOrEqual, "\x90"));
  EXPECT_TRUE(passes(CompareOp::kGreaterOrEqual, "\x90"));
  EXPECT_FALSE(passes(CompareOp::kGreaterOrEqual, std::string("\x90\x00", 2)));
  EXPECT_TRUE(passes(CompareOp::kGreater, ""));
  // A passing row keeps every cell.
  EXPECT_EQ(ApplyFilter(Scvf("f", "b", CompareOp::kEqual, "\x90"), kRow), kRow);
  // An empty value exists: it is not a missing column.
  EXPECT_TRUE(ApplyFilter(Scvf("g", "a", CompareOp::kEqual, "", true), kRow));
  EXPECT_FALSE(
      ApplyFilter(Scvf("g", "a", CompareOp::kNotEqual, "", true), kRow));
}

TEST(FilterLanguageApplyTest, MissingColumnPassesUnlessFilterIfMissing) {
  EXPECT_EQ(ApplyFilter(Scvf("f", "zz", CompareOp::kEqual, "1"), kRow), kRow);
  EXPECT_EQ(ApplyFilter(Scvf("f", "zz", CompareOp::kNotEqual, "1"), kRow),
            kRow);
  EXPECT_FALSE(
      ApplyFilter(Scvf("f", "zz", CompareOp::kEqual, "1", true), kRow));
  // The family is part of the column: g:b is missing although f:b exists.
  EXPECT_FALSE(
      ApplyFilter(Scvf("g", "b", CompareOp::kEqual, "\x90", true), kRow));
}

TEST(FilterLanguageApplyTest, RowAndCellFilters) {
  EXPECT_EQ(ApplyFilter(Filter{PrefixFilter{""}}, kRow), kRow);
  EXPECT_EQ(ApplyFilter(Filter{PrefixFilter{"row"}}, kRow), kRow);
  EXPECT_FALSE(ApplyFilter(Filter{PrefixFilter{"row10"}}, kRow));
  EXPECT_EQ(ApplyFilter(Filter{PageFilter{0}}, kRow), kRow);
  EXPECT_EQ(ApplyFilter(Filter{KeyOnlyFilter{}}, kRow),
            MakeRow("row1", {{"f:a", ""}, {"f:b", ""}, {"g:a", ""}}));
  EXPECT_EQ(ApplyFilter(Filter{FirstKeyOnlyFilter{}}, kRow),
            MakeRow("row1", {{"f:a", "1"}}));
  EXPECT_EQ(ApplyFilter(Filter{ColumnPrefixFilter{"a"}}, kRow),
            MakeRow("row1", {{"f:a", "1"}, {"g:a", ""}}));
  EXPECT_EQ(ApplyFilter(Filter{ColumnPrefixFilter{""}}, kRow), kRow);
  // No cell left: the row is not returned.
  EXPECT_FALSE(ApplyFilter(Filter{ColumnPrefixFilter{"x"}}, kRow));
  EXPECT_FALSE(ApplyFilter(Filter{FirstKeyOnlyFilter{}}, MakeRow("r", {})));
}

// HBase runs a row's cells by family, then qualifier (CellComparator); the
// model keeps "family:qualifier" strings in order, which puts family "d0"
// before "d" ('0' < ':'). Filters that depend on the order see HBase's,
// and the row they return is in the model's order again.
TEST(FilterLanguageApplyTest, CellsRunInHBaseFamilyOrder) {
  const Row row = MakeRow("r", {{"d0:a", "1"}, {"d:b", "2"}, {"e:c", "3"}});
  EXPECT_EQ(ApplyFilter(Filter{FirstKeyOnlyFilter{}}, row),
            MakeRow("r", {{"d:b", "2"}}));
  EXPECT_EQ(ApplyFilter(Parse("ColumnPaginationFilter(2, 0)"), row),
            MakeRow("r", {{"d0:a", "1"}, {"d:b", "2"}}));
  EXPECT_EQ(ApplyFilter(Parse("ColumnPaginationFilter(1, 1)"), row),
            MakeRow("r", {{"d0:a", "1"}}));
  EXPECT_EQ(ApplyFilter(Parse("ColumnCountGetFilter(1)"), row),
            MakeRow("r", {{"d:b", "2"}}));
  EXPECT_EQ(ApplyFilter(Parse("KeyOnlyFilter()"), row),
            MakeRow("r", {{"d0:a", ""}, {"d:b", ""}, {"e:c", ""}}));
}

TEST(FilterLanguageApplyTest, AndOrCombine) {
  EXPECT_EQ(
      ApplyFilter(Parse("ColumnPrefixFilter('b') AND KeyOnlyFilter()"), kRow),
      MakeRow("row1", {{"f:b", ""}}));
  EXPECT_FALSE(ApplyFilter(
      Parse("FirstKeyOnlyFilter() AND ColumnPrefixFilter('b')"), kRow));
  // The value filter sees the original value, not KeyOnlyFilter's.
  EXPECT_EQ(ApplyFilter(Parse("KeyOnlyFilter() AND "
                              "SingleColumnValueFilter('f','a',=,'binary:1')"),
                        kRow),
            MakeRow("row1", {{"f:a", ""}, {"f:b", ""}, {"g:a", ""}}));
  EXPECT_EQ(ApplyFilter(Parse("PrefixFilter('x') OR "
                              "SingleColumnValueFilter('f','a',=,'binary:1')"),
                        kRow),
            kRow);
  EXPECT_FALSE(
      ApplyFilter(Parse("PrefixFilter('x') OR "
                        "SingleColumnValueFilter('f','a',=,'binary:2')"),
                  kRow));
  EXPECT_FALSE(
      ApplyFilter(Parse("PrefixFilter('row') AND "
                        "SingleColumnValueFilter('f','a',=,'binary:2')"),
                  kRow));
}

// -------------------------------------------------------------- planning

bool IndexedAC(std::string_view column) {
  return column == "f:a" || column == "g:c";
}

TEST(FilterLanguagePlanTest, PinnedEqualitiesUseTheIndex) {
  FilterPlan p = PlanFilter(
      Parse("SingleColumnValueFilter('f','a',=,'binary:1',true,true)"),
      IndexedAC);
  ASSERT_EQ(p.lookups.size(), 1u);
  EXPECT_EQ(p.lookups[0].size(), 1u);
  EXPECT_EQ(p.lookups[0][0].column, "f:a");
  EXPECT_EQ(p.lookups[0][0].value, "1");
  EXPECT_FALSE(p.row_limit);

  p = PlanFilter(
      Parse("SingleColumnValueFilter('f','a',=,'binary:1',true,true) AND "
            "PageFilter(5) AND (SingleColumnValueFilter('g','c',=,'binary:2',"
            "true,true) AND PageFilter(3)) AND KeyOnlyFilter()"),
      IndexedAC);
  ASSERT_EQ(p.lookups.size(), 1u);
  ASSERT_EQ(p.lookups[0].size(), 2u);
  EXPECT_EQ(p.lookups[0][1].column, "g:c");
  EXPECT_EQ(p.row_limit, 3u);

  p = PlanFilter(
      Parse("SingleColumnValueFilter('f','a',=,'binary:1',true,true) OR "
            "SingleColumnValueFilter('g','c',=,'binary:2',true,true)"),
      IndexedAC);
  EXPECT_EQ(p.lookups.size(), 2u);

  // SingleColumnValueExcludeFilter drops rows as SingleColumnValueFilter;
  // a pin beside SKIP or cell filters still pins the AND.
  p = PlanFilter(
      Parse("SingleColumnValueExcludeFilter('f','a',=,'binary:1',true,true) "
            "AND SKIP ValueFilter(!=, 'binary:') AND ColumnPrefixFilter('b')"),
      IndexedAC);
  ASSERT_EQ(p.lookups.size(), 1u);
  EXPECT_EQ(p.lookups[0][0].column, "f:a");

  // binaryprefix with '=' pins to a prefix: alone, or ANDed with equalities.
  p = PlanFilter(
      Parse("SingleColumnValueFilter('f','a',=,'binaryprefix:ab',true,true)"),
      IndexedAC);
  ASSERT_EQ(p.lookups.size(), 1u);
  EXPECT_TRUE(p.lookups[0].empty());
  ASSERT_EQ(p.prefixes.size(), 1u);
  EXPECT_EQ(p.prefixes[0],
            (std::vector<IndexPredicate>{{"f:a", IndexOp::kPrefix, {"ab"}}}));
  p = PlanFilter(
      Parse("SingleColumnValueFilter('f','a',=,'binaryprefix:ab',true,true) "
            "AND SingleColumnValueFilter('g','c',=,'binary:2',true,true)"),
      IndexedAC);
  ASSERT_EQ(p.lookups.size(), 1u);
  EXPECT_EQ(p.lookups[0].size(), 1u);
  EXPECT_EQ(p.prefixes[0].size(), 1u);
}

TEST(FilterLanguagePlanTest, UnpinnedFiltersScan) {
  const char* scans[] = {
      // Rows missing the column pass.
      "SingleColumnValueFilter('f','a',=,'binary:1')",
      "SingleColumnValueFilter('f','a',=,'binary:1',false,true)",
      // Not an equality, or not indexed.
      "SingleColumnValueFilter('f','a',>=,'binary:1',true,true)",
      "SingleColumnValueFilter('f','b',=,'binary:1',true,true)",
      // One OR operand is not pinned.
      "SingleColumnValueFilter('f','a',=,'binary:1',true,true) OR "
      "PrefixFilter('r')",
      "PrefixFilter('r') AND PageFilter(2)",
      // SkipFilter ignores its operand's filterRow: a row missing the
      // column passes.
      "SKIP SingleColumnValueFilter('f','a',=,'binary:1',true,true)",
      // WHILE ends the scan at a row the index would not read.
      "WHILE SingleColumnValueFilter('f','a',=,'binary:1',true,true)",
      "SingleColumnValueFilter('f','a',=,'binary:1',true,true) AND "
      "WHILE PrefixFilter('r')",
      // Not an equality or prefix of the value.
      "SingleColumnValueFilter('f','a',=,'substring:1',true,true)",
      "SingleColumnValueFilter('f','a',=,'regexstring:^1',true,true)",
      "SingleColumnValueFilter('f','a',>=,'binaryprefix:1',true,true)",
      // An empty prefix holds for every value: no narrower than a scan.
      "SingleColumnValueFilter('f','a',=,'binaryprefix:',true,true)",
  };
  for (const char* text : scans) {
    FilterPlan p = PlanFilter(Parse(text), IndexedAC);
    EXPECT_FALSE(p.uses_index()) << text;
  }
  EXPECT_EQ(PlanFilter(Parse("PrefixFilter('r') AND PageFilter(2)"), IndexedAC)
                .row_limit,
            2u);
}

// ----------------------------------------- randomized exactness of plans

std::string RandomValue(std::mt19937_64& rng) {
  static const char* kValues[] = {"", "1", "2", "\x80", "\xff"};
  return kValues[rng() % 5];
}

std::vector<Row> RandomRows(std::mt19937_64& rng, int n) {
  static const char* kColumns[] = {"f:a", "f:b", "f:ab", "g:c"};
  std::vector<Row> rows;
  for (int i = 0; i < n; ++i) {
    Row row;
    row.key = std::string(1, "abc"[rng() % 3]) + std::to_string(i);
    for (const char* column : kColumns) {
      if (rng() % 4 != 0) row.cells.push_back({column, RandomValue(rng)});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

Filter RandomLeaf(std::mt19937_64& rng) {
  static const std::pair<const char*, const char*> kCols[] = {
      {"f", "a"}, {"f", "b"}, {"f", "ab"}, {"g", "c"}, {"g", "zz"}};
  switch (rng() % 12) {
    case 0:
      return Filter{PrefixFilter{std::string(1, "abcx"[rng() % 4])}};
    case 1:
      return Filter{PageFilter{rng() % 50}};
    case 2:
      return Filter{KeyOnlyFilter{}};
    case 3:
      return Filter{FirstKeyOnlyFilter{}};
    case 4:
      return Filter{ColumnPrefixFilter{std::string(rng() % 2, 'a')}};
    default: {
      const auto& [fam, qual] = kCols[rng() % 5];
      // Equalities with filterIfMissing most often: the indexable shape.
      CompareOp op =
          rng() % 4 ? CompareOp::kEqual : static_cast<CompareOp>(rng() % 6);
      Filter f = Scvf(fam, qual, op, RandomValue(rng), rng() % 5 != 0);
      auto& s = std::get<SingleColumnValueFilter>(f.node);
      // SingleColumnValueExcludeFilter pins as SingleColumnValueFilter;
      // binaryprefix pins to a prefix of the value.
      s.exclude = rng() % 4 == 0;
      if (rng() % 4 == 0) s.comparator = FilterComparator::Kind::kBinaryPrefix;
      return f;
    }
  }
}

Filter RandomFilter(std::mt19937_64& rng, int depth) {
  if (depth == 0 || rng() % 3 == 0) return RandomLeaf(rng);
  if (rng() % 8 == 0) {
    // SKIP must not be planned through (a row missing the column passes),
    // WHILE not at all (its end depends on rows the index skips).
    UnaryFilter u{rng() % 2 ? UnaryFilter::Op::kSkip : UnaryFilter::Op::kWhile,
                  {RandomFilter(rng, depth - 1)}};
    return Filter{std::move(u)};
  }
  FilterList list;
  if (rng() % 5 == 0) {
    // An OR of equalities on indexed columns: the union-of-lookups shape
    // (filterIfMissing sometimes false, which must not be planned).
    list.op = FilterList::Op::kOr;
    for (int i = 0, n = 2 + rng() % 2; i < n; ++i) {
      list.operands.push_back(Scvf(rng() % 2 ? "f" : "g", rng() % 2 ? "a" : "c",
                                   CompareOp::kEqual, RandomValue(rng),
                                   rng() % 6 != 0));
    }
    return Filter{std::move(list)};
  }
  list.op = rng() % 2 ? FilterList::Op::kAnd : FilterList::Op::kOr;
  int n = 2 + rng() % 3;
  for (int i = 0; i < n; ++i)
    list.operands.push_back(RandomFilter(rng, depth - 1));
  return Filter{std::move(list)};
}

bool Holds(const Row& row, const std::vector<EqualityPredicate>& conj,
           const std::vector<IndexPredicate>& prefixes) {
  for (const auto& eq : conj) {
    const Cell* c = row.Find(eq.column);
    if (c == nullptr || c->value != eq.value) return false;
  }
  for (const auto& p : prefixes) {
    const Cell* c = row.Find(p.column);
    if (c == nullptr || c->value.rfind(p.values[0], 0) != 0) return false;
  }
  return true;
}

std::vector<Row> Answer(const Filter& f, const FilterPlan& plan,
                        const std::vector<Row>& rows, bool via_index) {
  std::vector<Row> out;
  FilterScan scan(f);
  for (const Row& row : rows) {
    if (plan.row_limit && out.size() >= *plan.row_limit) break;
    if (via_index) {
      bool candidate = false;
      for (size_t i = 0; i < plan.lookups.size(); ++i) {
        candidate |= Holds(row, plan.lookups[i], plan.prefixes[i]);
      }
      if (!candidate) continue;
    }
    FilterScan::Result r = scan.Next(row);
    if (r.row) out.push_back(*r.row);
    if (r.ends_scan) break;
  }
  return out;
}

TEST(FilterLanguagePlanTest, IndexPlanEqualsFullScanOnRandomData) {
  // Seed 16; 10,000 rows over 4 columns of 5 values; 300 accepted random
  // filter trees. Every index plan must give the full scan's rows and cells.
  std::mt19937_64 rng(16);
  std::vector<Row> rows = RandomRows(rng, 10000);
  std::sort(rows.begin(), rows.end(),
            [](const Row& a, const Row& b) { return a.key < b.key; });
  int planned = 0, unions = 0, nonempty = 0, tried = 0;
  for (int accepted = 0; accepted < 300; ++tried) {
    Filter f = RandomFilter(rng, 3);
    if (!ValidateFilter(f).ok()) continue;
    ++accepted;
    ASSERT_EQ(Parse(ToString(f)), f) << ToString(f);
    FilterPlan plan = PlanFilter(f, IndexedAC);
    std::vector<Row> full = Answer(f, plan, rows, false);
    if (!full.empty()) ++nonempty;
    if (!plan.uses_index()) continue;
    ++planned;
    if (plan.lookups.size() > 1) ++unions;
    ASSERT_EQ(Answer(f, plan, rows, true), full) << ToString(f);
  }
  // The test is meaningful only if it exercised index plans and unions.
  EXPECT_GE(planned, 30) << "of 300 (" << tried << " tried)";
  EXPECT_GE(unions, 5);
  EXPECT_GE(nonempty, 100);
}

}  // namespace
}  // namespace bloomroute
