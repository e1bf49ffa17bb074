#include "router/grant.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "router/catalog_records.h"

namespace bloomroute::router {
namespace {

Grant G(const char* user, const char* ns, const char* table,
        const char* actions) {
  return std::move(MakeGrant(user, ns, table, actions)).value();
}

TEST(GrantTest, MakeGrantChecksAndCanonicalizes) {
  const Grant t = G("bob", "", "default:t", "AWRAX");
  EXPECT_EQ(t.ns, "default");
  EXPECT_EQ(t.table, "t");  // as the router names it
  EXPECT_EQ(t.actions, "RWXA");
  const Grant geo = G("bob", "geo", "", "C");
  EXPECT_TRUE(geo.is_namespace());
  EXPECT_EQ(G("bob", "", "geo:t", "R").ns, "geo");
  EXPECT_TRUE(MakeGrant("", "geo", "", "R").status().IsInvalidArgument());
  EXPECT_TRUE(
      MakeGrant(std::string(Grant::kMaxUserBytes + 1, 'u'), "geo", "", "R")
          .status()
          .IsInvalidArgument());
  EXPECT_TRUE(MakeGrant("bob", "geo", "", "r").status().IsInvalidArgument());
  EXPECT_TRUE(MakeGrant("bob", "ge-o", "", "R").status().IsInvalidArgument());
  EXPECT_TRUE(MakeGrant("bob", "", "a:b:c", "R").status().IsInvalidArgument());
}

TEST(GrantTest, GrantMergesRevokeTakesAwayAndEmptyScopesGo) {
  std::vector<Grant> list;
  list = *WithGrantChange(list, G("bob", "", "t", "W"), GrantChange::kGrant);
  list = *WithGrantChange(list, G("bob", "", "t", "RA"), GrantChange::kGrant);
  list = *WithGrantChange(list, G("amy", "geo", "", "R"), GrantChange::kGrant);
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].user, "amy");  // by user first
  EXPECT_EQ(list[1].actions, "RWA");
  list = *WithGrantChange(list, G("bob", "", "t", "WA"), GrantChange::kRevoke);
  EXPECT_EQ(list[1].actions, "R");
  list = *WithGrantChange(list, G("bob", "", "t2", ""), GrantChange::kRevoke);
  EXPECT_EQ(list.size(), 2u);  // nothing to revoke: unchanged
  list = *WithGrantChange(list, G("bob", "", "t", ""), GrantChange::kRevoke);
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].user, "amy");
  const auto [first, last] = GrantsOf(list, "amy");
  EXPECT_EQ(last - first, 1);
  const auto [none, none_end] = GrantsOf(list, "bob");
  EXPECT_EQ(none, none_end);
}

TEST(GrantTest, TheListIsBoundedInCountAndBytes) {
  std::vector<Grant> list;
  for (size_t i = 0; i < Grant::kMaxGrants; ++i) {
    list.push_back(
        G(("u" + std::to_string(100000 + i)).c_str(), "ns", "", "R"));
  }
  EXPECT_TRUE(
      WithGrantChange(list, G("zed", "ns", "", "R"), GrantChange::kGrant)
          .status()
          .IsInvalidArgument());
  // A change of a scope that exists still applies.
  EXPECT_TRUE(
      WithGrantChange(list, G("u100000", "ns", "", "W"), GrantChange::kGrant)
          .ok());
  std::vector<Grant> big;
  const std::string user(Grant::kMaxUserBytes, 'u');
  Status last;
  for (int i = 0; i < 1100 && last.ok(); ++i) {
    StatusOr<std::vector<Grant>> next = WithGrantChange(
        big, G(user.c_str(), ("n" + std::to_string(i)).c_str(), "", "R"),
        GrantChange::kGrant);
    last = next.status();
    if (next.ok()) big = std::move(*next);
  }
  EXPECT_TRUE(last.IsInvalidArgument());  // past 1 MiB of names
}

TEST(GrantTest, RecordsRoundTripAndRefuseBadBytes) {
  const std::vector<Grant> list = {G("bob", "", "geo:t", "RW"),
                                   G("bob", "geo", "", "XCA")};
  std::vector<Grant> back;
  ASSERT_TRUE(
      CatalogRecords::DecodeGrants(CatalogRecords::EncodeGrants(list), &back)
          .ok());
  EXPECT_EQ(back, list);
  ASSERT_TRUE(CatalogRecords::DecodeGrants("", &back).ok());
  EXPECT_TRUE(back.empty());
  std::string bytes = CatalogRecords::EncodeGrants(list);
  EXPECT_TRUE(
      CatalogRecords::DecodeGrants(bytes.substr(0, bytes.size() - 1), &back)
          .IsCorruption());
  bytes.back() = 'Z';  // no action letter
  EXPECT_TRUE(CatalogRecords::DecodeGrants(bytes, &back).IsCorruption());
}

}  // namespace
}  // namespace bloomroute::router
