// CatalogRecords: every record round-trips, and bytes that are not a record
// (truncated, of an unknown version, out of bounds) are Corruption.
#include "router/catalog_records.h"

#include <gtest/gtest.h>

#include "common/coding.h"

namespace bloomroute::router {
namespace {

CatalogTable Table(uint64_t id, std::string name) {
  CatalogTable t;
  t.descriptor.table_id = id;
  t.descriptor.name = std::move(name);
  t.descriptor.indexed_columns = {{1, "d:a"}, {2, "d:b"}};
  t.regions = {{10, "", "m", 1}, {11, "m", "", 2}};
  return t;
}

TEST(CatalogRecordTest, RoundTripsAndRejectsEveryTruncation) {
  const CatalogTable t = Table(5, "geo");
  const std::string bytes = CatalogRecords::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(CatalogRecords::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(
        CatalogRecords::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  EXPECT_TRUE(CatalogRecords::DecodeTable(bytes + "x", &back).IsCorruption());
  std::string bad_version = bytes;
  bad_version[0] = 9;
  EXPECT_TRUE(CatalogRecords::DecodeTable(bad_version, &back).IsCorruption());
  // A huge region count is refused before anything is allocated.
  // The regions (2 x 21 bytes) follow their 4-byte count, before the next
  // column id, the (empty) task list and the (empty) list of region
  // operations, 4 bytes each.
  std::string huge = bytes.substr(0, bytes.size() - 12 - 42 - 4);
  EXPECT_TRUE(
      CatalogRecords::DecodeTable(
          huge + std::string(4, '\xff') + bytes.substr(bytes.size() - 12 - 42),
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
  const std::string bytes = CatalogRecords::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(CatalogRecords::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  EXPECT_FALSE(back.enabled);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(
        CatalogRecords::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  // A bad enabled flag is Corruption.
  CatalogTable on = t;
  on.enabled = true;
  const std::string on_bytes = CatalogRecords::EncodeTable(on);
  size_t diff = 0;
  while (diff < bytes.size() && bytes[diff] == on_bytes[diff]) ++diff;
  ASSERT_LT(diff, bytes.size());
  std::string bad = bytes;
  bad[diff] = 7;
  EXPECT_TRUE(CatalogRecords::DecodeTable(bad, &back).IsCorruption());
}

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
  const std::string bytes = CatalogRecords::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(CatalogRecords::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  EXPECT_EQ(back.NextColumnId(), 9u);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(
        CatalogRecords::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
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
  const std::string bytes = CatalogRecords::EncodeTable(t);
  CatalogTable back;
  ASSERT_TRUE(CatalogRecords::DecodeTable(bytes, &back).ok());
  EXPECT_EQ(back, t);
  for (size_t n = 0; n < bytes.size(); ++n) {
    CatalogTable out;
    EXPECT_TRUE(
        CatalogRecords::DecodeTable(bytes.substr(0, n), &out).IsCorruption())
        << n;
  }
  // An unknown kind or state is refused, not guessed.
  t.region_ops.clear();
  const size_t ops_at = CatalogRecords::EncodeTable(t).size() - 4;
  for (size_t field : {ops_at + 4, ops_at + 5}) {
    std::string bad = bytes;
    bad[field] = 9;
    CatalogTable out;
    EXPECT_TRUE(CatalogRecords::DecodeTable(bad, &out).IsCorruption()) << field;
  }
  // A version 3 record (no operations) still reads.
  std::string v3 = CatalogRecords::EncodeTable(t);
  v3[0] = 3;
  v3.resize(v3.size() - 4);
  CatalogTable old;
  ASSERT_TRUE(CatalogRecords::DecodeTable(v3, &old).ok());
  EXPECT_EQ(old, t);
}

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
  ASSERT_TRUE(CatalogRecords::DecodeTable(v1, &back).ok());
  EXPECT_EQ(back, Table(5, "geo"));
  EXPECT_TRUE(back.enabled);
  EXPECT_TRUE(back.descriptor.families.empty());
  EXPECT_TRUE(back.retired_regions.empty());
  EXPECT_TRUE(CatalogRecords::DecodeTable(v1 + "x", &back).IsCorruption());
}

TEST(CatalogRecordTest, ServerRecordsOfVersionOneDecodeAsMembers) {
  std::string v1(1, '\1');
  PutLengthPrefixed(&v1, "a:1");
  CatalogServer back;
  ASSERT_TRUE(CatalogRecords::DecodeServer(v1, &back).ok());
  EXPECT_EQ(back.address, "a:1");
  EXPECT_FALSE(back.removed);
  EXPECT_TRUE(CatalogRecords::DecodeServer(v1 + "x", &back).IsCorruption());

  CatalogServer removed;
  removed.address = "b:2";
  removed.removed = true;
  const std::string v2 = CatalogRecords::EncodeServer(removed);
  ASSERT_TRUE(CatalogRecords::DecodeServer(v2, &back).ok());
  EXPECT_EQ(back.address, "b:2");
  EXPECT_TRUE(back.removed);
  for (size_t n = 0; n < v2.size(); ++n) {
    EXPECT_TRUE(
        CatalogRecords::DecodeServer(v2.substr(0, n), &back).IsCorruption())
        << n;
  }
  std::string bad_state = v2;
  bad_state.back() = 9;
  EXPECT_TRUE(CatalogRecords::DecodeServer(bad_state, &back).IsCorruption());
}

TEST(CatalogRecordTest, QuotaRecordsRoundTripAndRejectBadBytes) {
  Quota q;
  q.user = "us\x01er";
  q.table = "t\xff";
  q.requests = {12, 1};
  q.bytes = {34, 60};
  const std::string key = CatalogRecords::QuotaKey(q);
  const std::string value = CatalogRecords::EncodeQuota(q);
  Quota back;
  ASSERT_TRUE(CatalogRecords::DecodeQuota(key, value, &back).ok());
  EXPECT_EQ(back, q);
  for (size_t n = 0; n < value.size(); ++n) {
    EXPECT_TRUE(CatalogRecords::DecodeQuota(key, value.substr(0, n), &back)
                    .IsCorruption())
        << n;
  }
  EXPECT_TRUE(
      CatalogRecords::DecodeQuota(key, value + "x", &back).IsCorruption());
  EXPECT_TRUE(CatalogRecords::DecodeQuota(key.substr(0, 2), value, &back)
                  .IsCorruption());
  // A record without a limit, or with a period of 0, is not one we wrote.
  Quota no_limit;
  no_limit.user = "u";
  EXPECT_TRUE(CatalogRecords::DecodeQuota(
                  key, CatalogRecords::EncodeQuota(no_limit), &back)
                  .IsCorruption());
  Quota zero = q;
  zero.requests.seconds = 0;
  EXPECT_TRUE(
      CatalogRecords::DecodeQuota(key, CatalogRecords::EncodeQuota(zero), &back)
          .IsCorruption());
}

}  // namespace
}  // namespace bloomroute::router
