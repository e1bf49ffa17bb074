#include "tools/client_command_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace bloomroute {
namespace {

class ClientCommandUtilTest : public ::testing::Test {};

TEST_F(ClientCommandUtilTest, QualifiesBareNamesWithTheFamily) {
  EXPECT_EQ(*QualifyColumn("country", "d"), "d:country");
  EXPECT_EQ(*QualifyColumn("e:country", "d"), "e:country");
  EXPECT_EQ(*QualifyColumn("e:", "d"), "e:");
  EXPECT_TRUE(QualifyColumn("", "d").status().IsInvalidArgument());
  EXPECT_TRUE(QualifyColumn(":x", "d").status().IsInvalidArgument());
  EXPECT_TRUE(
      QualifyColumn(std::string(2000, 'x'), "d").status().IsInvalidArgument());
}

TEST_F(ClientCommandUtilTest, WhereSplitsAtTheFirstEquals) {
  StatusOr<EqualityPredicate> p = ParseWhere("cc=NO", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->column, "d:cc");
  EXPECT_EQ(p->value, "NO");
  p = ParseWhere("x:eq=a=b", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->column, "x:eq");
  EXPECT_EQ(p->value, "a=b");
  p = ParseWhere("cc=", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->value, "");
  EXPECT_TRUE(ParseWhere("cc", "d").status().IsInvalidArgument());
  Status s = ParseWhere("=NO", "d").status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--where"), std::string::npos) << s.message();
}

TEST_F(ClientCommandUtilTest, ColumnsSplitAtCommasAndDropDuplicates) {
  EXPECT_EQ(*ParseColumns({"a,b:c", "a", "e"}, "d"),
            (Projection{"d:a", "b:c", "d:e"}));
  EXPECT_TRUE(ParseColumns({}, "d")->empty());
  EXPECT_TRUE(ParseColumns({"a,,b"}, "d").status().IsInvalidArgument());
  EXPECT_TRUE(ParseColumns({"a,"}, "d").status().IsInvalidArgument());
  EXPECT_TRUE(ParseColumns({""}, "d").status().IsInvalidArgument());
}

TEST_F(ClientCommandUtilTest, RoutingLineCountsServers) {
  router::LookupResult r;
  r.routing.servers_in_cluster = 4;
  r.routing.asked = {{1, "h:1"}, {3, "h:3"}};
  r.routing.asked_not_current = {{3, "h:3"}};
  r.routing.with_rows = {{1, "h:1"}};
  EXPECT_EQ(RoutingLine(r),
            "routing: asked 2 of 4 servers, 1 with rows (1 asked because not "
            "current)");
  r.partial = true;
  r.missing = {{3, "h:3"}};
  EXPECT_EQ(RoutingLine(r),
            "routing: asked 2 of 4 servers, 1 with rows (1 asked because not "
            "current), partial: missing h:3");
}

}  // namespace
}  // namespace bloomroute
