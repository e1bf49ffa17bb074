// TableDirectory: the ready tables published from the catalog, found by
// name, with generations that survive every publish but a region switch's,
// and the running region operation carried by its table's state.
#include "router/internal/table_directory.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "router/internal/reshape_state.h"

namespace bloomroute::router_internal {
namespace {

CatalogTable Table(uint64_t id, const std::string& name) {
  CatalogTable t;
  t.descriptor.table_id = id;
  t.descriptor.name = name;
  t.regions = {{id * 10, "", "m", 1}, {id * 10 + 1, "m", "", 2}};
  return t;
}

TEST(TableDirectoryTest, PublishesReadyTablesOnly) {
  TableDirectory directory;
  CatalogTable deleting = Table(2, "gone");
  deleting.state = CatalogTable::State::kDeleting;
  directory.Publish({Table(1, "t"), deleting});
  ASSERT_TRUE(directory.Find("t").ok());
  EXPECT_TRUE(directory.Find("gone").status().IsNotFound());
  EXPECT_TRUE(directory.Find("nope").status().IsNotFound());
  ASSERT_EQ(directory.Tables().size(), 1u);
  const auto state = directory.Find("t").value();
  EXPECT_EQ(state->RegionFor("a"), 0u);
  EXPECT_EQ(state->RegionFor("m"), 1u);
  EXPECT_EQ(state->regions_by_server.at(2), std::vector<uint64_t>{11});
}

TEST(TableDirectoryTest, DisabledTableIsFoundOnlyInAnyState) {
  TableDirectory directory;
  CatalogTable t = Table(1, "t");
  t.enabled = false;
  directory.Publish({t});
  EXPECT_TRUE(directory.Find("t").status().IsInvalidArgument());
  EXPECT_TRUE(directory.FindAnyState("t").ok());
}

TEST(TableDirectoryTest, GenerationChangesOnlyForTheSwitchedTable) {
  TableDirectory directory;
  directory.Publish({Table(1, "a"), Table(2, "b")});
  std::weak_ptr<const int> a = directory.Generation("a");
  std::weak_ptr<const int> b = directory.Generation("b");
  directory.Publish({Table(1, "a"), Table(2, "b")});
  EXPECT_EQ(directory.Generation("a").lock(), a.lock());
  // Table 2 switched: its old generation expires once no state holds it.
  directory.Publish({Table(1, "a"), Table(2, "b")}, 2);
  EXPECT_EQ(directory.Generation("a").lock(), a.lock());
  EXPECT_TRUE(b.expired());
  EXPECT_TRUE(directory.Generation("none").expired());
}

TEST(TableDirectoryTest, RunningOperationRidesOnItsCopyingTable) {
  TableDirectory directory;
  auto op = std::make_shared<ReshapeState>();
  op->table_id = 1;
  directory.SetRunning(op);
  CatalogTable copying = Table(1, "a");
  copying.region_ops.push_back(CatalogRegionOp{});
  directory.Publish({copying, Table(2, "b")});
  EXPECT_EQ(directory.Find("a").value()->reshape, op);
  EXPECT_EQ(directory.Find("b").value()->reshape, nullptr);
  // Once switched, the record's operation no longer copies: no gate.
  copying.region_ops.front().state = CatalogRegionOp::State::kSwitched;
  directory.Publish({copying, Table(2, "b")});
  EXPECT_EQ(directory.Find("a").value()->reshape, nullptr);
  directory.SetRunning(nullptr);
  EXPECT_EQ(directory.Running(), nullptr);
}

}  // namespace
}  // namespace bloomroute::router_internal
