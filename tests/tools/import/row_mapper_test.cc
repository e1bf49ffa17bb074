#include "tools/import/row_mapper.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bloomroute {
namespace {

using ::testing::HasSubstr;

class RowMapperTest : public ::testing::Test {
 protected:
  static RowMapperSpec Geo() {
    RowMapperSpec spec;
    spec.columns = {"id", "name", "cc", "tz"};
    spec.row_key = "id";
    spec.indexed = {"cc", "tz"};
    spec.max_value_bytes = 8;
    return spec;
  }
  static std::string Reason(const RowMapper& m, std::vector<std::string> f) {
    StatusOr<Mutation> put = m.Map(std::move(f));
    EXPECT_FALSE(put.ok());
    return put.ok() ? "" : put.status().message();
  }
};

TEST_F(RowMapperTest, MapsFieldsToCellsWithoutTheRowKeyOrEmptyFields) {
  auto mapper = RowMapper::Create(Geo());
  ASSERT_TRUE(mapper.ok()) << mapper.status().ToString();
  EXPECT_EQ(mapper->IndexedColumns(),
            (std::vector<std::string>{"d:cc", "d:tz"}));
  StatusOr<Mutation> put = mapper->Map({"42", "Oslo", "NO", ""});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_EQ(put->kind, Mutation::Kind::kPut);
  EXPECT_EQ(put->row_key, "42");
  EXPECT_EQ(put->cells,
            (std::vector<Cell>{{"d:name", "Oslo"}, {"d:cc", "NO"}}));

  RowMapperSpec other = Geo();
  other.family = "geo";
  other.row_key = "name";  // any column can be the key
  other.indexed = {"id"};
  put = RowMapper::Create(other)->Map({"7", "Bergen", "NO", "x"});
  ASSERT_TRUE(put.ok());
  EXPECT_EQ(put->row_key, "Bergen");
  EXPECT_EQ(
      put->cells,
      (std::vector<Cell>{{"geo:id", "7"}, {"geo:cc", "NO"}, {"geo:tz", "x"}}));
}

TEST_F(RowMapperTest, BadRecordsGiveTheirReason) {
  auto mapper = RowMapper::Create(Geo());
  ASSERT_TRUE(mapper.ok());
  EXPECT_EQ(Reason(*mapper, {"1", "a", "b"}), "3 fields, expected 4");
  EXPECT_EQ(Reason(*mapper, {"1", "a", "b", "c", "d"}), "5 fields, expected 4");
  EXPECT_EQ(Reason(*mapper, {"", "a", "b", "c"}), "empty row key");
  EXPECT_EQ(Reason(*mapper, {"1", "a", "123456789", "c"}),
            "value of 'cc' is 9 bytes, over 8");
  EXPECT_EQ(Reason(*mapper, {"1", "", "", ""}), "no value besides the row key");
  EXPECT_THAT(
      Reason(*mapper, {std::string(kMaxRowKeyBytes + 1, 'k'), "a", "b", "c"}),
      HasSubstr("row key of 32768 bytes"));
  EXPECT_TRUE(mapper->Map({"1", "12345678", "b", "c"}).ok());  // at the limit
}

TEST_F(RowMapperTest, CreateRejectsSpecsThatCannotWork) {
  const auto rejects = [](RowMapperSpec spec, const std::string& text) {
    StatusOr<RowMapper> m = RowMapper::Create(std::move(spec));
    ASSERT_FALSE(m.ok()) << text;
    EXPECT_TRUE(m.status().IsInvalidArgument());
    EXPECT_THAT(m.status().message(), HasSubstr(text));
  };
  RowMapperSpec s = Geo();
  s.row_key = "nope";
  rejects(s, "row key 'nope' is not a column");
  s = Geo();
  s.indexed = {"cc", "zz"};
  rejects(s, "indexed column 'zz' is not a column");
  s = Geo();
  s.indexed = {"id"};
  rejects(s, "cannot be indexed");
  s = Geo();
  s.indexed = {"cc", "cc"};
  rejects(s, "named twice");
  s = Geo();
  s.columns = {"id", "name", "id"};
  rejects(s, "named twice");
  s = Geo();
  s.columns = {"id", ""};
  s.indexed = {};
  rejects(s, "empty");
  s = Geo();
  s.columns = {"id"};
  s.indexed = {};
  rejects(s, "no column besides the row key");
  s = Geo();
  s.family = "a:b";
  rejects(s, "family");
  s = Geo();
  s.max_value_bytes = 0;
  rejects(s, "limit");
}

}  // namespace
}  // namespace bloomroute
