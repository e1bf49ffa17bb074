#include "common/java_regex.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute {
namespace {

TEST(JavaRegexTest, MatchesWholeAndFindsAnywhere) {
  StatusOr<JavaRegex> re = JavaRegex::Compile("b+c");
  ASSERT_TRUE(re.ok()) << re.status().ToString();
  EXPECT_TRUE(re->Matches("bbc"));
  EXPECT_FALSE(re->Matches("abbcd"));
  EXPECT_TRUE(re->Finds("abbcd"));
  EXPECT_FALSE(re->Finds("acb"));
  StatusOr<JavaRegex> anchored = JavaRegex::Compile("^ab");
  ASSERT_TRUE(anchored.ok());
  EXPECT_TRUE(anchored->Finds("abc"));
  EXPECT_FALSE(anchored->Finds("cab"));
}

TEST(JavaRegexTest, DotAllMatchesLineTerminators) {
  StatusOr<JavaRegex> plain = JavaRegex::Compile("a.b");
  StatusOr<JavaRegex> dot_all = JavaRegex::Compile("a.b", /*dot_all=*/true);
  ASSERT_TRUE(plain.ok() && dot_all.ok());
  EXPECT_FALSE(plain->Finds("a\nb"));
  EXPECT_TRUE(dot_all->Finds("a\nb"));
  // A '.' in a class or escaped stays a literal dot.
  StatusOr<JavaRegex> literal = JavaRegex::Compile("a[.]b\\.c", true);
  ASSERT_TRUE(literal.ok());
  EXPECT_TRUE(literal->Finds("a.b.c"));
  EXPECT_FALSE(literal->Finds("axb.c"));
  EXPECT_FALSE(literal->Finds("a.bxc"));
}

TEST(JavaRegexTest, JavaOnlyConstructsAreNamed) {
  StatusOr<JavaRegex> re = JavaRegex::Compile("(?i)abc", true);
  ASSERT_FALSE(re.ok());
  EXPECT_EQ(re.status().message(),
            "regex: an inline flag (?i at offset 0 is Java-only syntax "
            "bloomroute does not accept");
  EXPECT_FALSE(JavaRegex::Compile("a++").ok());
  EXPECT_FALSE(JavaRegex::Compile(std::string(1025, 'a')).ok());
}

}  // namespace
}  // namespace bloomroute
