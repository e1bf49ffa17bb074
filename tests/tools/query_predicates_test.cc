#include "tools/query_predicates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

IndexPredicate Parsed(StatusOr<IndexPredicate> p) {
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return p.ok() ? *p : IndexPredicate();
}

TEST(QueryPredicatesTest, WhereTakesEveryComparison) {
  EXPECT_EQ(Parsed(ParseWherePredicate("cc>=NO", "d")),
            (IndexPredicate{"d:cc", IndexOp::kGreaterOrEqual, {"NO"}}));
  EXPECT_EQ(Parsed(ParseWherePredicate("cc<=NO", "d")),
            (IndexPredicate{"d:cc", IndexOp::kLessOrEqual, {"NO"}}));
  EXPECT_EQ(Parsed(ParseWherePredicate("x:pop>100", "d")),
            (IndexPredicate{"x:pop", IndexOp::kGreater, {"100"}}));
  EXPECT_EQ(Parsed(ParseWherePredicate("cc<N", "d")),
            (IndexPredicate{"d:cc", IndexOp::kLess, {"N"}}));
  // NAME=VALUE as before: the value is everything after the first '='.
  EXPECT_EQ(Parsed(ParseWherePredicate("cc=a=b,c", "d")),
            (IndexPredicate{"d:cc", IndexOp::kEqual, {"a=b,c"}}));
  EXPECT_EQ(Parsed(ParseWherePredicate("cc>==x", "d")),
            (IndexPredicate{"d:cc", IndexOp::kGreaterOrEqual, {"=x"}}));
  EXPECT_EQ(Parsed(ParseWherePredicate("cc=", "d")),
            (IndexPredicate{"d:cc", IndexOp::kEqual, {""}}));
  Status s = ParseWherePredicate("cc", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--where"));
  s = ParseWherePredicate(">=NO", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--where"));
}

TEST(QueryPredicatesTest, InListsSplitOnUnescapedCommas) {
  EXPECT_EQ(Parsed(ParseInPredicate("cc=NO,SE,DK", "d")),
            (IndexPredicate{"d:cc", IndexOp::kIn, {"NO", "SE", "DK"}}));
  EXPECT_EQ(Parsed(ParseInPredicate(R"(name=a\,b,c\\d,e=f,g\=h)", "d")),
            (IndexPredicate{
                "d:name", IndexOp::kIn, {"a,b", R"(c\d)", "e=f", "g=h"}}));
  EXPECT_EQ(Parsed(ParseInPredicate("cc=,x", "d")),
            (IndexPredicate{"d:cc", IndexOp::kIn, {"", "x"}}));
  Status s = ParseInPredicate(R"(cc=a\x)", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--in"));
  EXPECT_THAT(s.message(), HasSubstr("escape"));
  s = ParseInPredicate(R"(cc=a\)", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--in"));
  s = ParseInPredicate("cc", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--in"));
}

TEST(QueryPredicatesTest, PrefixAndBetween) {
  EXPECT_EQ(Parsed(ParsePrefixPredicate("cc=N,o", "d")),
            (IndexPredicate{"d:cc", IndexOp::kPrefix, {"N,o"}}));
  EXPECT_THAT(ParsePrefixPredicate("cc=", "d").status().message(),
              HasSubstr("--prefix"));
  EXPECT_EQ(Parsed(ParseBetweenPredicate(R"(cc=A\,1,B)", "d")),
            (IndexPredicate{"d:cc", IndexOp::kBetween, {"A,1", "B"}}));
  Status s = ParseBetweenPredicate("cc=A,B,C", "d").status();
  EXPECT_THAT(s.message(), HasSubstr("--between"));
  EXPECT_THAT(s.message(), HasSubstr("LOW,HIGH"));
}

}  // namespace
}  // namespace bloomroute
