// Table attributes and column families: the `bloomroute.index` attribute's
// parser and formatter, family and attribute validation, and the family
// check every data call makes.
#include "model/table_attributes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace bloomroute {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ErrorOf(std::string_view value) {
  StatusOr<std::vector<std::string>> r = ParseIndexAttribute(value);
  EXPECT_FALSE(r.ok()) << value;
  return r.ok() ? std::string() : r.status().ToString();
}

TEST(IndexAttributeTest, ParsesColumnsInOrderAndFormatsThemBack) {
  StatusOr<std::vector<std::string>> r = ParseIndexAttribute("d:cc,d:name,e:");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(*r, ElementsAre("d:cc", "d:name", "e:"));
  EXPECT_EQ(FormatIndexAttribute(*r), "d:cc,d:name,e:");
  // Spaces around an entry are not part of it.
  r = ParseIndexAttribute(" d:cc , d:name");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(*r, ElementsAre("d:cc", "d:name"));
  // A qualifier may hold ':' (the family ends at the first one).
  r = ParseIndexAttribute("d:a:b");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(*r, ElementsAre("d:a:b"));
}

TEST(IndexAttributeTest, RejectsEmptyNamesWithTheirPosition) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("bloomroute.index is empty"));
  EXPECT_THAT(ErrorOf("  "), HasSubstr("bloomroute.index is empty"));
  EXPECT_THAT(ErrorOf("d:a,,d:b"), HasSubstr("entry 2 is empty"));
  EXPECT_THAT(ErrorOf("d:a,"), HasSubstr("entry 2 is empty"));
  EXPECT_THAT(ErrorOf(",d:a"), HasSubstr("entry 1 is empty"));
}

TEST(IndexAttributeTest, RejectsBadColumnNamesAndDuplicates) {
  EXPECT_THAT(ErrorOf("d:a,cc"), HasSubstr("entry 2 'cc' is not"));
  EXPECT_THAT(ErrorOf(":a"), HasSubstr("entry 1 ':a'"));
  EXPECT_THAT(ErrorOf("d:a,d:b,d:a"), HasSubstr("'d:a' is named twice"));
  EXPECT_THAT(ErrorOf("d:a, d:a"), HasSubstr("'d:a' is named twice"));
  const std::string long_name = "d:" + std::string(kMaxColumnNameBytes, 'q');
  EXPECT_THAT(ErrorOf(long_name), HasSubstr("entry 1"));
}

TEST(IndexAttributeTest, RejectsMoreColumnsOrBytesThanTheLimits) {
  std::string value;
  for (uint32_t i = 0; i <= kMaxIndexedColumnsPerTable; ++i) {
    value += (i == 0 ? "" : ",") + std::string("d:c") + std::to_string(i);
  }
  EXPECT_THAT(ErrorOf(value), HasSubstr("at most 256 indexed columns"));
  // Few columns, many bytes: the value is bounded before it is split.
  const std::string huge(kMaxIndexAttributeBytes + 1, 'q');
  EXPECT_THAT(ErrorOf("d:" + huge), HasSubstr("bytes, over the limit of"));
  // Within the value's bound, but over the bytes of column names.
  std::string names;
  for (int i = 0; i < 20; ++i) {
    names += (i == 0 ? "" : ",") + std::string("d:") + std::to_string(i) +
             std::string(1000, 'q');
  }
  EXPECT_THAT(ErrorOf(names), HasSubstr("over the limit of 16384"));
}

TEST(FamiliesTest, ValidatesNamesCountAndBytes) {
  EXPECT_TRUE(ValidateFamilies({}).ok());
  EXPECT_TRUE(ValidateFamilies({"d", "e"}).ok());
  EXPECT_THAT(ValidateFamilies({"d", ""}).ToString(),
              HasSubstr("column family 2 is empty"));
  EXPECT_THAT(ValidateFamilies({"d:x"}).ToString(), HasSubstr("':'"));
  EXPECT_THAT(ValidateFamilies({"d", "d"}).ToString(),
              HasSubstr("'d' is declared twice"));
  std::vector<std::string> many;
  for (uint32_t i = 0; i <= kMaxFamilies; ++i) {
    many.push_back(std::to_string(i));
  }
  EXPECT_THAT(ValidateFamilies(many).ToString(),
              HasSubstr("at most 256 column families"));
  std::vector<std::string> big;
  for (int i = 0; i < 20; ++i) {
    big.push_back(std::to_string(i) + std::string(1000, 'f'));
  }
  EXPECT_THAT(ValidateFamilies(big).ToString(),
              HasSubstr("over the limit of 16384"));
}

TEST(AttributesTest, BoundsCountAndBytes) {
  EXPECT_TRUE(ValidateAttributes({{"a", "b"}}).ok());
  EXPECT_THAT(ValidateAttributes({{"", "b"}}).ToString(),
              HasSubstr("empty attribute name"));
  std::map<std::string, std::string> many;
  for (uint32_t i = 0; i <= kMaxAttributes; ++i) many[std::to_string(i)] = "";
  EXPECT_THAT(ValidateAttributes(many).ToString(),
              HasSubstr("at most 256 attributes"));
  EXPECT_THAT(ValidateAttributes({{"k", std::string(kMaxAttributeBytes, 'v')}})
                  .ToString(),
              HasSubstr("over the limit of 65536"));
}

TEST(FamilyCheckTest, DeclaredFamiliesAreEnforcedUndeclaredAcceptAny) {
  TableDescriptor any;
  any.name = "t";
  EXPECT_TRUE(CheckColumnFamily(any, "zz:q").ok());
  TableDescriptor t;
  t.name = "geo";
  t.families = {"d", "e"};
  EXPECT_TRUE(CheckColumnFamily(t, "d:q").ok());
  EXPECT_TRUE(CheckColumnFamily(t, "e").ok());  // a projection's family
  const Status s = CheckColumnFamily(t, "x:q");
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_THAT(s.ToString(),
              HasSubstr("column family 'x' does not exist in table 'geo'"));
  EXPECT_TRUE(CheckColumnFamily(t, "x").IsInvalidArgument());
  EXPECT_TRUE(CheckProjectionFamilies(t, {"d:a", "e"}).ok());
  EXPECT_TRUE(CheckProjectionFamilies(t, {"d:a", "f"}).IsInvalidArgument());
  EXPECT_TRUE(
      CheckMutationFamilies(t, Mutation::Put(0, "r", {{"d:a", "1"}})).ok());
  EXPECT_TRUE(CheckMutationFamilies(t, Mutation::Put(0, "r", {{"g:a", "1"}}))
                  .IsInvalidArgument());
  EXPECT_TRUE(CheckMutationFamilies(t, Mutation::Delete(0, "r")).ok());
  EXPECT_TRUE(CheckMutationFamilies(t, Mutation::Delete(0, "r", {"g:a"}))
                  .IsInvalidArgument());
}

TEST(IndexAttributeTest, WithIndexAttributeNamesTheIndexedColumns) {
  TableDescriptor t;
  t.name = "geo";
  EXPECT_TRUE(WithIndexAttribute(t).attributes.empty());
  t.indexed_columns = {{1, "d:a"}, {2, "e:b"}};
  t.attributes = {{"owner", "ops"}};
  const TableDescriptor with = WithIndexAttribute(t);
  EXPECT_EQ(with.attributes.at("bloomroute.index"), "d:a,e:b");
  EXPECT_EQ(with.attributes.at("owner"), "ops");
  EXPECT_EQ(with.indexed_columns, t.indexed_columns);
}

TEST(FamilyCheckTest, ServerDescriptorKeepsFamiliesAndDropsAttributes) {
  TableDescriptor t;
  t.table_id = 3;
  t.name = "geo";
  t.indexed_columns = {{1, "d:a"}};
  t.families = {"d"};
  t.attributes = {{"k", "v"}};
  const TableDescriptor s = ServerDescriptor(t);
  EXPECT_EQ(s.table_id, 3u);
  EXPECT_EQ(s.name, "geo");
  EXPECT_EQ(s.indexed_columns, t.indexed_columns);
  EXPECT_EQ(s.families, t.families);  // region servers check bulk loads
  EXPECT_TRUE(s.attributes.empty());
}

TEST(FamilySettingsTest, FormatsAndParsesBack) {
  std::map<std::string, FamilySettings> families;
  families["d"].settings = {{"blockSize", 8192}, {"inMemory", 1}};
  families["d"].attributes = {{"k", std::string("v\0w", 3)}};
  families["e"].configuration = {{"hbase.x", "y"}};
  families["f"];  // empty: left out
  const std::string value = FormatFamilySettings(families);
  StatusOr<std::map<std::string, FamilySettings>> back =
      ParseFamilySettings(value);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  families.erase("f");
  EXPECT_EQ(*back, families);
  EXPECT_TRUE(ParseFamilySettings(FormatFamilySettings({}))->empty());
}

TEST(FamilySettingsTest, RejectsWhatItDidNotWrite) {
  std::map<std::string, FamilySettings> families;
  families["d"].settings = {{"scope", 1}};
  const std::string value = FormatFamilySettings(families);
  EXPECT_TRUE(ParseFamilySettings("").status().IsCorruption());
  EXPECT_TRUE(ParseFamilySettings(std::string(1, 2) + value.substr(1))
                  .status()
                  .IsCorruption());  // an unknown version
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_TRUE(ParseFamilySettings(value.substr(0, n)).status().IsCorruption())
        << n;
  }
  EXPECT_TRUE(ParseFamilySettings(value + "x").status().IsCorruption());
  // A count far above the bytes present is refused before any allocation.
  std::string huge = value.substr(0, 1) + std::string("\xff\xff\xff\x7f");
  EXPECT_TRUE(ParseFamilySettings(huge).status().IsCorruption());
}

}  // namespace
}  // namespace bloomroute
