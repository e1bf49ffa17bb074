// Router: HBase's grants (router/grant.h) kept in the embedded catalog --
// merged, revoked, kept across a restart, and revoked with the table or
// namespace they are on when it is deleted, as HBase's AccessController
// does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/router/router_test_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::StoreCluster;

router::Grant G(const char* user, const char* ns, const char* table,
                const char* actions) {
  return std::move(router::MakeGrant(user, ns, table, actions)).value();
}

router::TableSpec Spec(const std::string& name) {
  router::TableSpec spec;
  spec.name = name;
  spec.indexed_columns = {"d:country"};
  return spec;
}

class RouterGrantsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }
  void Reopen() {
    router_.reset();
    router_ = testing::OpenRouter(cluster_);
    ASSERT_NE(router_, nullptr);
  }

  StoreCluster cluster_{2};
  std::unique_ptr<router::Router> router_;
};

TEST_F(RouterGrantsTest, GrantsAreStoredRevokedAndSurviveARestart) {
  EXPECT_TRUE(router_->Grants()->empty());
  ASSERT_TRUE(
      router_->ChangeGrant(G("bob", "", "t", "W"), router::GrantChange::kGrant)
          .ok());
  ASSERT_TRUE(
      router_
          ->ChangeGrant(G("bob", "geo", "", "RA"), router::GrantChange::kGrant)
          .ok());
  ASSERT_TRUE(
      router_
          ->ChangeGrant(G("amy", "geo", "", "R"), router::GrantChange::kGrant)
          .ok());
  ASSERT_TRUE(
      router_
          ->ChangeGrant(G("bob", "geo", "", "A"), router::GrantChange::kRevoke)
          .ok());
  ASSERT_TRUE(
      router_
          ->ChangeGrant(G("amy", "geo", "", ""), router::GrantChange::kRevoke)
          .ok());
  Reopen();
  EXPECT_EQ(*router_->Grants(), (std::vector<router::Grant>{
                                    G("bob", "", "t", "W"),
                                    G("bob", "geo", "", "R"),
                                }));
}

TEST_F(RouterGrantsTest, DeletingATableOrNamespaceRevokesItsGrants) {
  ASSERT_TRUE(router_->CreateNamespace({"geo", {}}).ok());
  ASSERT_TRUE(router_->CreateTable(Spec("geo:a")).ok());
  ASSERT_TRUE(router_->CreateTable(Spec("t")).ok());
  for (const router::Grant& g :
       {G("bob", "", "geo:a", "W"), G("amy", "", "geo:a", "A"),
        G("bob", "", "t", "W"), G("bob", "geo", "", "C")}) {
    ASSERT_TRUE(router_->ChangeGrant(g, router::GrantChange::kGrant).ok());
  }
  ASSERT_TRUE(router_->DeleteTable("geo:a").ok());
  EXPECT_EQ(*router_->Grants(), (std::vector<router::Grant>{
                                    G("bob", "", "t", "W"),
                                    G("bob", "geo", "", "C"),
                                }));
  ASSERT_TRUE(router_->DeleteNamespace("geo").ok());
  EXPECT_EQ(*router_->Grants(),
            (std::vector<router::Grant>{G("bob", "", "default:t", "W")}));
  ASSERT_TRUE(router_->DeleteTable("default:t").ok());
  EXPECT_TRUE(router_->Grants()->empty());
  Reopen();
  EXPECT_TRUE(router_->Grants()->empty());
}

}  // namespace
}  // namespace bloomroute
