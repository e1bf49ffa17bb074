// ServerDirectory: membership persisted in the catalog and published to
// readers, and entries that stay valid after they leave the set.
#include "router/internal/server_directory.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/router/fake_region_client.h"

namespace bloomroute::router_internal {
namespace {

// Connects every address but "refused:1".
class Factory : public router::RegionClientFactory {
 public:
  StatusOr<std::unique_ptr<router::RegionClient>> Connect(
      ServerId, const std::string& address) override {
    if (address == "refused:1") return Status::Unavailable("refused");
    return std::unique_ptr<router::RegionClient>(
        std::make_unique<router::FakeRegionClient>());
  }
};

class ServerDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    catalog_ = std::move(Catalog::Open(dir_.path())).value();
    index_ = std::move(router::GlobalIndex::Create(
                           router::FakeRegionClient::SmallConfig()))
                 .value();
  }
  size_t Members() const {
    size_t n = 0;
    for (const CatalogServer& s : catalog_->Servers()) n += !s.removed;
    return n;
  }

  testing::TempDir dir_;
  std::unique_ptr<Catalog> catalog_;
  std::unique_ptr<router::GlobalIndex> index_;
  ServerDirectory servers_{std::make_shared<Factory>()};
};

TEST_F(ServerDirectoryTest, AddPersistsAndPublishesOnceAnAddress) {
  bool added = false;
  auto entry = servers_.Add("a:1", catalog_.get(), index_.get(), &added);
  ASSERT_TRUE(entry.ok()) << entry.status().ToString();
  EXPECT_TRUE(added);
  const ServerId id = (*entry)->ref.id;
  EXPECT_EQ(servers_.Snapshot()->count(id), 1u);
  EXPECT_EQ(&servers_.Get(id), entry->get());
  EXPECT_EQ(Members(), 1u);
  auto again = servers_.Add("a:1", catalog_.get(), index_.get(), &added);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(added);
  EXPECT_EQ(again->get(), entry->get());
  EXPECT_EQ(Members(), 1u);
}

TEST_F(ServerDirectoryTest, AFailedAddLeavesNoMember) {
  bool added = true;
  EXPECT_TRUE(servers_.Add("", catalog_.get(), index_.get(), &added)
                  .status()
                  .IsInvalidArgument());
  EXPECT_FALSE(added);
  EXPECT_FALSE(
      servers_.Add("refused:1", catalog_.get(), index_.get(), &added).ok());
  EXPECT_EQ(Members(), 0u);
  EXPECT_TRUE(servers_.Snapshot()->empty());
}

TEST_F(ServerDirectoryTest, RepointReplacesTheEntryAndRemoveKeepsItFindable) {
  bool added = false;
  auto entry = servers_.Add("a:1", catalog_.get(), index_.get(), &added);
  ASSERT_TRUE(entry.ok());
  const ServerId id = (*entry)->ref.id;
  auto same = servers_.Repoint(id, "a:1", catalog_.get(), index_.get());
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(*same, nullptr);  // the address it had
  auto moved = servers_.Repoint(id, "b:2", catalog_.get(), index_.get());
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_EQ(servers_.Get(id).ref.address, "b:2");
  EXPECT_TRUE(servers_.Repoint(id + 1, "c:3", catalog_.get(), index_.get())
                  .status()
                  .IsNotFound());
  ASSERT_TRUE(servers_.Remove(id, catalog_.get(), index_.get()).ok());
  EXPECT_TRUE(servers_.Snapshot()->empty());
  EXPECT_EQ(Members(), 0u);
  // A call already under way still finds the removed entry.
  ASSERT_NE(servers_.Find(id), nullptr);
  EXPECT_EQ(servers_.Find(id)->ref.address, "b:2");
  EXPECT_EQ(servers_.Find(id + 1), nullptr);
  EXPECT_TRUE(servers_.Remove(id, catalog_.get(), index_.get()).IsNotFound());
}

TEST_F(ServerDirectoryTest, ConnectMembersConnectsTheCatalogsMembers) {
  ASSERT_TRUE(catalog_->AddServer("a:1").ok());
  ASSERT_TRUE(catalog_->AddServer("b:2").ok());
  ASSERT_TRUE(servers_.ConnectMembers(*catalog_, index_.get()).ok());
  EXPECT_EQ(servers_.Snapshot()->size(), 2u);
}

}  // namespace
}  // namespace bloomroute::router_internal
