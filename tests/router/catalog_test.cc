// Catalog: persistence across reopen, ids never reused, and records that do
// not decode.
#include "router/internal/catalog.h"

#include <gtest/gtest.h>

#include "common/coding.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::router_internal {
namespace {

CatalogTable Table(uint64_t id, std::string name) {
  CatalogTable t;
  t.descriptor.table_id = id;
  t.descriptor.name = std::move(name);
  t.descriptor.indexed_columns = {{1, "d:a"}, {2, "d:b"}};
  t.regions = {{10, "", "m", 1}, {11, "m", "", 2}};
  return t;
}

class CatalogTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

TEST_F(CatalogTest, PageTokenKeyIsCreatedOnceAndSurvivesReopen) {
  const std::string first(32, 'a');
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    StatusOr<std::string> key = c->PageTokenKey(first);
    ASSERT_TRUE(key.ok()) << key.status().ToString();
    EXPECT_EQ(*key, first);
    // Later calls keep the stored key, whatever fresh key they offer.
    EXPECT_EQ(*c->PageTokenKey(std::string(32, 'b')), first);
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->PageTokenKey(std::string(32, 'c')), first);
  EXPECT_TRUE(c->PageTokenKey("short").status().IsInvalidArgument());
}

TEST_F(CatalogTest, SurvivesReopenAndNeverReusesIds) {
  uint64_t table_id = 0;
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->AddServer("a:1"), 1u);
    EXPECT_EQ(*c->AddServer("b:2"), 2u);
    EXPECT_EQ(*c->AddServer("a:1"), 1u);
    table_id = c->NextTableId();
    CatalogTable t = Table(table_id, "geo");
    t.regions[0].region_id = c->NextRegionId();
    t.regions[1].region_id = c->NextRegionId();
    ASSERT_TRUE(c->PutTable(t).ok());
    EXPECT_TRUE(c->PutTable(Table(table_id + 100, "geo")).IsInvalidArgument());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Servers().size(), 2u);
  EXPECT_EQ(c->Servers()[1].address, "b:2");
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0].descriptor.name, "geo");
  EXPECT_GT(c->NextTableId(), table_id);
  EXPECT_GT(c->NextRegionId(), (*c->Tables())[0].regions[1].region_id);
  EXPECT_EQ(*c->AddServer("c:3"), 3u);
  ASSERT_TRUE(c->DeleteTable(table_id).ok());
  EXPECT_TRUE(c->DeleteTable(table_id).ok());
  EXPECT_TRUE(c->Tables()->empty());
  // A deleted table's id stays used.
  EXPECT_GT(c->NextTableId(), table_id);
}

TEST_F(CatalogTest, StateChangesAreReplacedInPlace) {
  auto c = std::move(Catalog::Open(dir_.path())).value();
  CatalogTable t = Table(c->NextTableId(), "geo");
  ASSERT_TRUE(c->PutTable(t).ok());
  t.state = CatalogTable::State::kDeleting;
  ASSERT_TRUE(c->PutTable(t).ok());
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0].state, CatalogTable::State::kDeleting);
}

TEST(CatalogRecordTest, RoundTripsAndRejectsEveryTruncation) {
  const CatalogTable t = Table(5, "geo");
  const std::string bytes = Catalog::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(Catalog::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(Catalog::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  EXPECT_TRUE(Catalog::DecodeTable(bytes + "x", &back).IsCorruption());
  std::string bad_version = bytes;
  bad_version[0] = 9;
  EXPECT_TRUE(Catalog::DecodeTable(bad_version, &back).IsCorruption());
  // A huge region count is refused before anything is allocated.
  // The regions (2 x 21 bytes) follow their 4-byte count, before the next
  // column id, the (empty) task list and the (empty) list of region
  // operations, 4 bytes each.
  std::string huge = bytes.substr(0, bytes.size() - 12 - 42 - 4);
  EXPECT_TRUE(Catalog::DecodeTable(huge + std::string(4, '\xff') +
                                       bytes.substr(bytes.size() - 12 - 42),
                                   &back)
                  .IsCorruption());
}

TEST(CatalogRecordTest, FamiliesAttributesStateAndRetiredRegionsRoundTrip) {
  CatalogTable t = Table(5, "geo");
  t.descriptor.families = {"d", "e"};
  t.descriptor.attributes = {{"bloomroute.index", "d:a,d:b"},
                             {std::string("k\0ey", 4), "v"}};
  t.enabled = false;
  t.retired_regions = {{3, "", "", 2}};
  const std::string bytes = Catalog::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(Catalog::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  EXPECT_FALSE(back.enabled);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(Catalog::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  // A bad enabled flag is Corruption.
  CatalogTable on = t;
  on.enabled = true;
  const std::string on_bytes = Catalog::EncodeTable(on);
  size_t diff = 0;
  while (diff < bytes.size() && bytes[diff] == on_bytes[diff]) ++diff;
  ASSERT_LT(diff, bytes.size());
  std::string bad = bytes;
  bad[diff] = 7;
  EXPECT_TRUE(Catalog::DecodeTable(bad, &back).IsCorruption());
}

// Version 3: the building flag, the next column id and the index tasks.
TEST(CatalogRecordTest, IndexTasksAndColumnStatesRoundTrip) {
  CatalogTable t = Table(5, "geo");
  t.descriptor.indexed_columns.push_back({7, "d:cc", /*building=*/true});
  t.next_column_id = 9;
  CatalogIndexTask build;
  build.kind = CatalogIndexTask::Kind::kBuild;
  build.column = {7, "d:cc", true};
  build.regions = {{1, true, "zz"}, {2, false, std::string("r\0w", 3)}};
  build.rows = 1234;
  CatalogIndexTask drop;
  drop.kind = CatalogIndexTask::Kind::kDrop;
  drop.column = {8, "d:old", false};
  t.index_tasks = {build, drop};
  const std::string bytes = Catalog::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(Catalog::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  EXPECT_EQ(back.NextColumnId(), 9u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(Catalog::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  // Older records have no next column id: above every id in use.
  t.next_column_id = 0;
  EXPECT_EQ(t.NextColumnId(), 9u);
  t.index_tasks.clear();
  EXPECT_EQ(t.NextColumnId(), 8u);
}

TEST(CatalogRecordTest, RegionOperationsRoundTrip) {
  CatalogTable t = Table(5, "geo");
  CatalogRegionOp split;
  split.kind = CatalogRegionOp::Kind::kSplit;
  split.state = CatalogRegionOp::State::kSwitched;
  split.sources = {t.regions[0]};
  split.targets = {{40, "", "m", 2}, {41, "m", t.regions[0].end_key, 2}};
  t.region_ops = {split};
  const std::string bytes = Catalog::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(Catalog::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(Catalog::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  // An unknown kind or state is refused, not guessed.
  t.region_ops.clear();
  const size_t ops_at = Catalog::EncodeTable(t).size() - 4;
  for (size_t field : {ops_at + 4, ops_at + 5}) {
    std::string bad = bytes;
    bad[field] = 9;
    CatalogTable out;
    EXPECT_TRUE(Catalog::DecodeTable(bad, &out).IsCorruption()) << field;
  }
  // A version 3 record (no operations) still reads.
  std::string v3 = Catalog::EncodeTable(t);
  v3[0] = 3;
  v3.resize(v3.size() - 4);
  CatalogTable old;
  ASSERT_TRUE(Catalog::DecodeTable(v3, &old).ok());
  EXPECT_EQ(old, t);
}

// The format before families and attributes (version 1), written byte by
// byte: such records still read, as enabled tables without families.
TEST(CatalogRecordTest, DecodesTheVersionOneFormat) {
  std::string v1(1, '\1');
  PutFixed64(&v1, 5);
  PutLengthPrefixed(&v1, "geo");
  PutFixed8(&v1, 1);  // ready
  PutFixed32(&v1, 2);
  PutFixed32(&v1, 1);
  PutLengthPrefixed(&v1, "d:a");
  PutFixed32(&v1, 2);
  PutLengthPrefixed(&v1, "d:b");
  PutFixed32(&v1, 2);
  for (const CatalogRegion& r : Table(5, "geo").regions) {
    PutFixed64(&v1, r.region_id);
    PutLengthPrefixed(&v1, r.start_key);
    PutLengthPrefixed(&v1, r.end_key);
    PutFixed32(&v1, r.server);
  }
  CatalogTable back;
  ASSERT_TRUE(Catalog::DecodeTable(v1, &back).ok());
  EXPECT_EQ(back, Table(5, "geo"));
  EXPECT_TRUE(back.enabled);
  EXPECT_TRUE(back.descriptor.families.empty());
  EXPECT_TRUE(back.retired_regions.empty());
  EXPECT_TRUE(Catalog::DecodeTable(v1 + "x", &back).IsCorruption());
}

TEST_F(CatalogTest, FamiliesAttributesAndStateSurviveReopen) {
  CatalogTable t;
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    t = Table(c->NextTableId(), "geo");
    t.descriptor.families = {"d"};
    t.descriptor.attributes = {{"owner", "ops"}};
    t.enabled = false;
    ASSERT_TRUE(c->PutTable(t).ok());
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  ASSERT_EQ(c->Tables()->size(), 1u);
  EXPECT_EQ((*c->Tables())[0], t);
}

}  // namespace
}  // namespace bloomroute::router_internal

namespace bloomroute::router_internal {
namespace {

TEST_F(CatalogTest, ServersAreReAddressedAndRemovedByIdAcrossReopen) {
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    ASSERT_EQ(*c->AddServer("a:1"), 1u);
    ASSERT_EQ(*c->AddServer("b:2"), 2u);
    ASSERT_EQ(*c->AddServer("c:3"), 3u);
    ASSERT_TRUE(c->SetServerAddress(1, "a:9").ok());
    // An address may belong to one member only.
    Status taken = c->SetServerAddress(1, "b:2");
    EXPECT_TRUE(taken.IsInvalidArgument()) << taken.ToString();
    EXPECT_NE(taken.message().find("b:2"), std::string::npos);
    EXPECT_TRUE(c->SetServerAddress(1, "a:9").ok());  // its own: no change
    EXPECT_TRUE(c->SetServerAddress(7, "x:1").IsNotFound());
    ASSERT_TRUE(c->RemoveServer(2).ok());
    EXPECT_TRUE(c->RemoveServer(2).IsNotFound());
    EXPECT_TRUE(c->RemoveServer(9).IsNotFound());
    EXPECT_TRUE(c->SetServerAddress(2, "y:1").IsNotFound());
    // The old address of 1 is free again; a removed server's address too,
    // under a new id (ids are never reused).
    EXPECT_EQ(*c->AddServer("a:1"), 4u);
    EXPECT_EQ(*c->AddServer("a:9"), 1u);
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  const std::vector<CatalogServer> servers = c->Servers();
  ASSERT_EQ(servers.size(), 4u);
  EXPECT_EQ(servers[0].address, "a:9");
  EXPECT_FALSE(servers[0].removed);
  EXPECT_EQ(servers[1].address, "b:2");
  EXPECT_TRUE(servers[1].removed);
  EXPECT_FALSE(servers[2].removed);
  EXPECT_EQ(servers[3].address, "a:1");
  EXPECT_EQ(*c->AddServer("b:2"), 5u);
  EXPECT_EQ(*c->AddServer("c:3"), 3u);
}

TEST(CatalogRecordTest, ServerRecordsOfVersionOneDecodeAsMembers) {
  std::string v1(1, '\1');
  PutLengthPrefixed(&v1, "a:1");
  CatalogServer back;
  ASSERT_TRUE(Catalog::DecodeServer(v1, &back).ok());
  EXPECT_EQ(back.address, "a:1");
  EXPECT_FALSE(back.removed);
  EXPECT_TRUE(Catalog::DecodeServer(v1 + "x", &back).IsCorruption());

  CatalogServer removed;
  removed.address = "b:2";
  removed.removed = true;
  const std::string v2 = Catalog::EncodeServer(removed);
  ASSERT_TRUE(Catalog::DecodeServer(v2, &back).ok());
  EXPECT_EQ(back.address, "b:2");
  EXPECT_TRUE(back.removed);
  for (size_t n = 0; n < v2.size(); ++n) {
    EXPECT_TRUE(Catalog::DecodeServer(v2.substr(0, n), &back).IsCorruption())
        << n;
  }
  std::string bad_state = v2;
  bad_state.back() = 9;
  EXPECT_TRUE(Catalog::DecodeServer(bad_state, &back).IsCorruption());
}

router::Quota Quota(std::string user, std::string table, uint64_t requests,
                    uint64_t bytes) {
  router::Quota q;
  q.user = std::move(user);
  q.table = std::move(table);
  if (requests != 0) q.requests = {requests, 1};
  if (bytes != 0) q.bytes = {bytes, 60};
  return q;
}

// Quotas are set, replaced and removed by user and table, each change
// persisted before it returns and published as a new snapshot.
TEST_F(CatalogTest, QuotasAreReplacedRemovedAndSurviveReopen) {
  const router::Quota alice = Quota("alice", "", 100, 0);
  const router::Quota alice_geo = Quota("alice", "geo", 10, 1 << 20);
  const router::Quota bob = Quota("bob", "", 0, 5000);
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_TRUE(c->Quotas()->empty());
    ASSERT_TRUE(c->PutQuota(bob).ok());
    ASSERT_TRUE(c->PutQuota(alice_geo).ok());
    const auto before = c->Quotas();
    ASSERT_TRUE(c->PutQuota(Quota("alice", "", 7, 0)).ok());
    EXPECT_NE(c->Quotas(), before);        // a new snapshot
    EXPECT_EQ(before->size(), 2u);         // the old one is unchanged
    ASSERT_TRUE(c->PutQuota(alice).ok());  // replaces alice's
    // Removing one that is not there changes nothing.
    ASSERT_TRUE(c->PutQuota(Quota("carol", "", 0, 0)).ok());
    EXPECT_EQ(*c->Quotas(),
              (std::vector<router::Quota>{alice, alice_geo, bob}));
    // Refused, and nothing written.
    EXPECT_TRUE(c->PutQuota(Quota("", "", 1, 0)).IsInvalidArgument());
    router::Quota bad = alice;
    bad.requests.seconds = 0;
    EXPECT_TRUE(c->PutQuota(bad).IsInvalidArgument());
  }
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->Quotas(),
              (std::vector<router::Quota>{alice, alice_geo, bob}));
    ASSERT_TRUE(c->PutQuota(Quota("alice", "geo", 0, 0)).ok());  // removes
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->Quotas(), (std::vector<router::Quota>{alice, bob}));
}

TEST(CatalogRecordTest, QuotaRecordsRoundTripAndRejectBadBytes) {
  const router::Quota q = Quota("us\x01er", "t\xff", 12, 34);
  const std::string key = Catalog::QuotaKey(q);
  const std::string value = Catalog::EncodeQuota(q);
  router::Quota back;
  ASSERT_TRUE(Catalog::DecodeQuota(key, value, &back).ok());
  EXPECT_EQ(back, q);
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_TRUE(
        Catalog::DecodeQuota(key, value.substr(0, n), &back).IsCorruption())
        << n;
  }
  EXPECT_TRUE(Catalog::DecodeQuota(key, value + "x", &back).IsCorruption());
  EXPECT_TRUE(
      Catalog::DecodeQuota(key.substr(0, 2), value, &back).IsCorruption());
  // A record without a limit, or with a period of 0, is not one we wrote.
  EXPECT_TRUE(Catalog::DecodeQuota(
                  key, Catalog::EncodeQuota(Quota("u", "", 0, 0)), &back)
                  .IsCorruption());
  router::Quota zero = q;
  zero.requests.seconds = 0;
  EXPECT_TRUE(Catalog::DecodeQuota(key, Catalog::EncodeQuota(zero), &back)
                  .IsCorruption());
}

// The coordinator's epoch is the start count; a floor (router
// --min-coordinator-epoch) lifts it, durably, and later starts go on above.
TEST_F(CatalogTest, RouterStartsJumpToAFloorAndGoOnAboveIt) {
  {
    auto c = std::move(Catalog::Open(dir_.path())).value();
    EXPECT_EQ(*c->RecordRouterStart(), 1u);
    EXPECT_EQ(*c->RecordRouterStart(8), 8u);
    EXPECT_EQ(*c->RecordRouterStart(3), 9u);  // a floor below: no effect
  }
  auto c = std::move(Catalog::Open(dir_.path())).value();
  EXPECT_EQ(*c->RecordRouterStart(), 10u);
}

}  // namespace
}  // namespace bloomroute::router_internal
