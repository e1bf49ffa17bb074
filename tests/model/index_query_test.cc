// ValidateIndexPredicates: the bounds every index query is held to, whoever
// builds it (the router's LookupSpec, the region service's wire).
#include "model/index_query.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute {
namespace {

IndexQuery Equal(std::string column, std::string value) {
  IndexQuery q;
  q.equals.push_back({std::move(column), std::move(value)});
  return q;
}

TEST(IndexQueryTest, AQueryWithOnePredicateOnAValidColumnIsValid) {
  EXPECT_TRUE(ValidateIndexPredicates(Equal("d:cc", "NO")).ok());
  IndexQuery range;
  range.range = RangePredicate{"d:pop", std::string("1"), std::nullopt};
  EXPECT_TRUE(ValidateIndexPredicates(range).ok());
}

TEST(IndexQueryTest, AQueryWithoutPredicatesIsRefused) {
  Status s = ValidateIndexPredicates(IndexQuery());
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("no predicate"), std::string::npos);
}

TEST(IndexQueryTest, AColumnThatIsNotFamilyQualifierIsRefused) {
  EXPECT_TRUE(ValidateIndexPredicates(Equal("cc", "NO")).IsInvalidArgument());
}

TEST(IndexQueryTest, TooManyPredicatesAreRefusedNamingTheLimit) {
  IndexQuery q;
  for (size_t i = 0; i <= kMaxIndexPredicates; ++i) {
    q.equals.push_back({"d:c" + std::to_string(i), "v"});
  }
  Status s = ValidateIndexPredicates(q);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("kMaxIndexPredicates"), std::string::npos);
}

TEST(IndexQueryTest, ValuesAreBoundedInCountAndBytes) {
  IndexQuery many;
  many.in.push_back({"d:c", {}});
  for (size_t i = 0; i <= kMaxIndexPredicateValues; ++i) {
    many.in[0].values.push_back(std::to_string(i));
  }
  EXPECT_NE(
      ValidateIndexPredicates(many).ToString().find("kMaxIndexPredicateValues"),
      std::string::npos);

  IndexQuery big = Equal("d:a", std::string(kMaxIndexPredicateBytes, 'x'));
  EXPECT_TRUE(ValidateIndexPredicates(big).ok());
  big.range = RangePredicate{"d:b", std::string("y"), std::nullopt};
  EXPECT_NE(
      ValidateIndexPredicates(big).ToString().find("kMaxIndexPredicateBytes"),
      std::string::npos);
}

TEST(IndexQueryTest, AnInListMustBeNonEmptyAndDistinct) {
  IndexQuery q;
  q.in.push_back({"d:c", {}});
  EXPECT_NE(ValidateIndexPredicates(q).ToString().find("is empty"),
            std::string::npos);
  q.in[0].values = {"a", "b", "a"};
  EXPECT_NE(ValidateIndexPredicates(q).ToString().find("twice"),
            std::string::npos);
}

}  // namespace
}  // namespace bloomroute
