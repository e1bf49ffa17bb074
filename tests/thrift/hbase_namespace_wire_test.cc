// HBase Thrift2 wire compatibility of the namespace calls (createNamespace,
// modifyNamespace, deleteNamespace, getNamespaceDescriptor,
// listNamespaceDescriptors, listNamespaces, getTableNamesByNamespace and
// getTableDescriptorsByNamespace), tables named in a namespace
// (TTableName.ns, "ns:t" in data calls), and the online schema changes
// (modifyTable, addColumnFamily, modifyColumnFamily, deleteColumnFamily),
// encoded as HBase's generated client sends them (hbase_wire_util.h).
//
// HBase's ids used (hbase.thrift): TNamespaceDescriptor {1 name,
// 2 configuration}; createNamespace / modifyNamespace {1 namespaceDesc};
// deleteNamespace, getNamespaceDescriptor, getTableNamesByNamespace and
// getTableDescriptorsByNamespace {1 name}; TTableName {1 ns, 2 qualifier};
// TTableDescriptor {1 tableName}; tableExists, disableTable and
// deleteTable {1 tableName}; createTable {1 desc}; modifyTable {1 desc};
// addColumnFamily / modifyColumnFamily {1 tableName, 2 column};
// deleteColumnFamily {1 tableName, 2 column (binary)};
// TColumnFamilyDescriptor {1 name, 10 maxVersions}; grant / revoke {1 info};
// TAccessControlEntity {1 username, 2 scope (TABLE 0, NAMESPACE 1),
// 4 actions, 5 tableName, 6 nsName}.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <thread>  // NOLINT: two clients at once
#include <vector>

#include "tests/thrift/hbase_wire_util.h"
#include "thrift/internal/schema_edits.h"

namespace bloomroute {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using namespace ::bloomroute::hbase_wire;  // NOLINT: the wire helpers

// TNamespaceDescriptor {1 name, 2 configuration with one entry}.
std::string Namespace(const std::string& name, const std::string& key = "",
                      const std::string& value = "") {
  std::string body = BinaryField(1, name);
  if (!key.empty()) body += OneEntryMap(2, key, value);
  return body;
}
// TTableName {1 ns, 2 qualifier}.
std::string TableName(const std::string& ns, const std::string& qualifier) {
  return BinaryField(1, ns) + BinaryField(2, qualifier);
}
// createTable's arguments: a table with family d, d:cc indexed.
std::string CreateTableArgs(const std::string& ns,
                            const std::string& qualifier) {
  return StructField(1, StructField(1, TableName(ns, qualifier)) +
                            StructList(2, {BinaryField(1, "d")}) +
                            OneEntryMap(3, "bloomroute.index", "d:cc"));
}
// A map<string, string> value as pairs.
std::vector<std::string> MapEntries(const Value& map) {
  std::vector<std::string> out;
  for (const Value& v : map.elements) out.push_back(v.bytes);
  return out;
}

using HBaseNamespaceWireTest = HBaseWireTest;

TEST_F(HBaseNamespaceWireTest, NamespacesAreMadeListedModifiedAndDeleted) {
  EXPECT_THAT(Success("listNamespaces", "").elements.size(), 2u);
  Success("createNamespace", StructField(1, Namespace("geo", "owner", "ops")));
  EXPECT_THAT(Failure("createNamespace", StructField(1, Namespace("geo"))),
              AllOf(StartsWith("InvalidArgument: "),
                    HasSubstr("NamespaceExistException")));
  const Value geo = Success("getNamespaceDescriptor", BinaryField(1, "geo"));
  EXPECT_EQ(geo.Field(1).bytes, "geo");
  EXPECT_THAT(MapEntries(geo.Field(2)), ElementsAre("owner", "ops"));
  Success("modifyNamespace", StructField(1, Namespace("geo", "owner", "dev")));
  EXPECT_THAT(
      MapEntries(
          Success("getNamespaceDescriptor", BinaryField(1, "geo")).Field(2)),
      ElementsAre("owner", "dev"));
  std::vector<std::string> names;
  for (const Value& v : Success("listNamespaces", "").elements) {
    names.push_back(v.bytes);
  }
  EXPECT_THAT(names, ElementsAre("default", "geo", "hbase"));
  const Value descriptors = Success("listNamespaceDescriptors", "");
  ASSERT_EQ(descriptors.elements.size(), 3u);
  EXPECT_EQ(descriptors.elements[1].Field(1).bytes, "geo");
  EXPECT_THAT(MapEntries(descriptors.elements[1].Field(2)),
              ElementsAre("owner", "dev"));
  Success("deleteNamespace", BinaryField(1, "geo"));
  EXPECT_THAT(
      Failure("getNamespaceDescriptor", BinaryField(1, "geo")),
      AllOf(StartsWith("NotFound: "), HasSubstr("NamespaceNotFoundException")));
  EXPECT_THAT(Failure("modifyNamespace", StructField(1, Namespace("geo"))),
              StartsWith("NotFound: "));
  EXPECT_THAT(Failure("deleteNamespace", BinaryField(1, "default")),
              HasSubstr("Reserved namespace"));
}

TEST_F(HBaseNamespaceWireTest, BadNamesAreRefused) {
  for (const char* bad : {"geo-1", "a:b", ""}) {
    EXPECT_THAT(Failure("createNamespace", StructField(1, Namespace(bad))),
                StartsWith("InvalidArgument: "))
        << bad;
  }
  // A descriptor without its name.
  EXPECT_THAT(Failure("createNamespace", StructField(1, "")),
              HasSubstr("namespaceDesc.name"));
}

TEST_F(HBaseNamespaceWireTest, TablesLiveInANamespace) {
  EXPECT_THAT(
      Failure("createTable", CreateTableArgs("geo", "cities")),
      AllOf(StartsWith("NotFound: "), HasSubstr("NamespaceNotFoundException")));
  EXPECT_THAT(Failure("createTable", CreateTableArgs("hbase", "mine")),
              StartsWith("InvalidArgument: "));
  Success("createNamespace", StructField(1, Namespace("geo")));
  Success("createTable", CreateTableArgs("geo", "cities"));
  Success("createTable", CreateTableArgs("default", "cities"));
  ASSERT_TRUE(t::WaitAllCurrent(*router_));
  Success("put",
          BinaryField(1, "geo:cities") + StructField(2, PutBody("oslo", "NO")));
  const Value got = Success("get", BinaryField(1, "geo:cities") +
                                       StructField(2, BinaryField(1, "oslo")));
  EXPECT_EQ(got.Field(1).bytes, "oslo");
  // The table of default with the same qualifier holds nothing of it.
  EXPECT_FALSE(Success("get", BinaryField(1, "cities") +
                                  StructField(2, BinaryField(1, "oslo")))
                   .Has(1));
  EXPECT_EQ(
      Success("tableExists", StructField(1, TableName("geo", "cities"))).number,
      1);
  EXPECT_EQ(
      Success("tableExists", StructField(1, TableName("geo", "towns"))).number,
      0);
  EXPECT_EQ(
      Success("tableExists", StructField(1, TableName("hbase", "meta"))).number,
      1);
  EXPECT_EQ(
      Success("tableExists", StructField(1, TableName("hbase", "namespace")))
          .number,
      1);
  EXPECT_EQ(
      Success("tableExists", StructField(1, TableName("hbase", "acl"))).number,
      0);
  const Value names =
      Success("getTableNamesByNamespace", BinaryField(1, "geo"));
  ASSERT_EQ(names.elements.size(), 1u);
  EXPECT_EQ(names.elements[0].Field(1).bytes, "geo");
  EXPECT_EQ(names.elements[0].Field(2).bytes, "cities");
  const Value in_default =
      Success("getTableDescriptorsByNamespace", BinaryField(1, "default"));
  ASSERT_EQ(in_default.elements.size(), 1u);
  EXPECT_EQ(in_default.elements[0].Field(1).Field(1).bytes, "default");
  EXPECT_EQ(in_default.elements[0].Field(1).Field(2).bytes, "cities");
  const Value described =
      Success("getTableDescriptor", StructField(1, TableName("geo", "cities")));
  EXPECT_EQ(described.Field(1).Field(1).bytes, "geo");
  EXPECT_THAT(Failure("getTableNamesByNamespace", BinaryField(1, "nope")),
              StartsWith("NotFound: "));

  // A namespace holding a table is not deleted.
  EXPECT_THAT(Failure("deleteNamespace", BinaryField(1, "geo")),
              HasSubstr("Only empty namespaces can be removed. Namespace "
                        "'geo' has 1 tables"));
  Success("disableTable", StructField(1, TableName("geo", "cities")));
  Success("deleteTable", StructField(1, TableName("geo", "cities")));
  Success("deleteNamespace", BinaryField(1, "geo"));
}

// The attributes of getTableDescriptor(default:geo) by key.
std::map<std::string, std::string> Attributes(const Value& desc) {
  std::map<std::string, std::string> out;
  const std::vector<Value>& e = desc.Field(3).elements;
  for (size_t i = 0; i + 1 < e.size(); i += 2) out[e[i].bytes] = e[i + 1].bytes;
  return out;
}
std::vector<std::string> Families(const Value& desc) {
  std::vector<std::string> out;
  for (const Value& f : desc.Field(2).elements) out.push_back(f.Field(1).bytes);
  return out;
}

class HBaseSchemaWireTest : public HBaseWireTest {
 protected:
  Value Describe() {
    return Success("getTableDescriptor",
                   StructField(1, TableName("default", "geo")));
  }
  // modifyTable(geo: families `families`, bloomroute.index = `index`).
  std::string ModifyArgs(const std::vector<std::string>& families,
                         const std::string& index) {
    std::vector<std::string> columns;
    for (const std::string& f : families) columns.push_back(BinaryField(1, f));
    return StructField(1, StructField(1, TableName("default", "geo")) +
                              StructList(2, columns) +
                              OneEntryMap(3, "bloomroute.index", index));
  }
};

// modifyTable's bloomroute.index adds an index online: built by the
// router's maintenance as `bloomroute index add` builds it, then served
// (HBase's filtered scan takes it, and getTableDescriptor names it).
TEST_F(HBaseSchemaWireTest, ModifyTableAddsAnIndexThatIsBuiltOnline) {
  CreateGeo();
  auto named = [](const std::string& row) {
    return BinaryField(1, row) + StructList(2, {CellValue("d", "cc", "NO"),
                                                CellValue("d", "name", "x")});
  };
  Success("putMultiple", BinaryField(1, "geo") +
                             StructList(2, {named("oslo"), named("umea")}));
  Success("modifyTable", ModifyArgs({"d"}, "d:cc,d:name"));
  EXPECT_EQ(Attributes(Describe()).at("bloomroute.index"), "d:cc");
  auto states = router_->IndexStatus("geo");
  ASSERT_TRUE(states.ok());
  ASSERT_EQ(states->size(), 2u);
  EXPECT_EQ((*states)[1].column, "d:name");
  EXPECT_EQ((*states)[1].state, router::IndexState::State::kBuilding);
  for (int i = 0; i < 1000; ++i) {
    if ((*router_->IndexStatus("geo"))[1].state ==
        router::IndexState::State::kReady) {
      break;
    }
    router_->RunMaintenance();
  }
  EXPECT_EQ(Attributes(Describe()).at("bloomroute.index"), "d:cc,d:name");
  router::LookupSpec lookup;
  lookup.equals = {{"d:name", "x"}};
  auto found = router_->Lookup("geo", lookup);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->rows.size(), 2u);
  // Left out of the attribute: dropped.
  Success("modifyTable", ModifyArgs({"d"}, "d:name"));
  EXPECT_EQ(Attributes(Describe()).at("bloomroute.index"), "d:name");
}

// Family edits from two connections at once: each edits the table's
// current descriptor, so none may be lost (HBase runs them as procedures
// under the table's lock).
TEST_F(HBaseSchemaWireTest, ConcurrentFamilyEditsAreAllKept) {
  CreateGeo();
  constexpr int kPerClient = 8;
  auto add = [&](char prefix) {
    t::RawConnection connection(server_->port());
    ASSERT_TRUE(connection.connected());
    for (int i = 0; i < kPerClient; ++i) {
      const std::string family = std::string(1, prefix) + std::to_string(i);
      ASSERT_TRUE(
          connection.Send(Call("addColumnFamily", i + 1,
                               StructField(1, TableName("default", "geo")) +
                                   StructField(2, BinaryField(1, family)))));
      std::string payload;
      ASSERT_TRUE(connection.Receive(&payload)) << family;
      const Reply reply = Decode(payload);
      ASSERT_TRUE(reply.ok) << family;
      EXPECT_FALSE(reply.result.Has(1))
          << family << ": " << reply.result.Field(1).Field(1).bytes;
    }
  };
  std::thread a(add, 'a');
  std::thread b(add, 'b');
  a.join();
  b.join();
  std::vector<std::string> families = Families(Describe());
  std::vector<std::string> expected = {"d"};
  for (char prefix : {'a', 'b'}) {
    for (int i = 0; i < kPerClient; ++i) {
      expected.push_back(std::string(1, prefix) + std::to_string(i));
    }
  }
  std::sort(families.begin(), families.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(families, expected);
}

TEST_F(HBaseSchemaWireTest, ColumnFamiliesAreAddedModifiedAndDeleted) {
  CreateGeo();
  const std::string geo = StructField(1, TableName("default", "geo"));
  Success("addColumnFamily", geo + StructField(2, BinaryField(1, "e")));
  EXPECT_THAT(Families(Describe()), ElementsAre("d", "e"));
  EXPECT_THAT(
      Failure("addColumnFamily", geo + StructField(2, BinaryField(1, "e"))),
      HasSubstr("already exists"));
  // A storage setting kept and given back (blockSize, field 4).
  Success("modifyColumnFamily",
          geo + StructField(2, BinaryField(1, "e") + I32Field(4, 8192)));
  EXPECT_EQ(Describe().Field(2).elements[1].Field(4).number, 8192);
  EXPECT_THAT(
      Failure("modifyColumnFamily", geo + StructField(2, BinaryField(1, "x"))),
      HasSubstr("does not exist"));
  // The index stays through family edits.
  EXPECT_EQ(Attributes(Describe()).at("bloomroute.index"), "d:cc");
  // A family holding cells is not deleted (the router does not delete a
  // family's cells on the servers); one without cells is.
  Success("put",
          BinaryField(1, "geo") +
              StructField(2, BinaryField(1, "r") +
                                 StructList(2, {CellValue("e", "q", "v")})));
  EXPECT_THAT(Failure("deleteColumnFamily", geo + BinaryField(2, "e")),
              AllOf(StartsWith("InvalidArgument: "),
                    HasSubstr("holds cells of family 'e'")));
  EXPECT_THAT(Failure("deleteColumnFamily", geo + BinaryField(2, "d")),
              HasSubstr("drop the index first"));
  Success("deleteSingle",
          BinaryField(1, "geo") +
              StructField(2, BinaryField(1, "r") +
                                 StructList(2, {BinaryField(1, "e") +
                                                BinaryField(2, "q")})));
  Success("deleteColumnFamily", geo + BinaryField(2, "e"));
  EXPECT_THAT(Families(Describe()), ElementsAre("d"));
  EXPECT_THAT(Failure("deleteColumnFamily", geo + BinaryField(2, "e")),
              HasSubstr("does not exist"));
}

// A schema call waits for another one at most kSchemaEditWait, then is
// answered Unavailable (retry): schema calls queued behind a long one (a
// family removal scanning a large table) do not hold the server's workers.
TEST_F(HBaseSchemaWireTest, ASchemaCallWaitsForAnotherOnlySoLong) {
  CreateGeo();
  const std::string geo = StructField(1, TableName("default", "geo"));
  {
    std::unique_lock<std::timed_mutex> held;
    ASSERT_TRUE(thrift_internal::LockSchemaEdits(&held).ok());
    EXPECT_THAT(
        Failure("addColumnFamily", geo + StructField(2, BinaryField(1, "e"))),
        AllOf(StartsWith("Unavailable: "), HasSubstr("another schema change")));
  }
  Success("addColumnFamily", geo + StructField(2, BinaryField(1, "e")));
  EXPECT_THAT(Families(Describe()), ElementsAre("d", "e"));
}

// HBase edits the schema of a disabled table as of an enabled one (the
// usual way before online schema changes): the families are checked for
// cells all the same.
TEST_F(HBaseSchemaWireTest, ADisabledTablesFamiliesAreEdited) {
  CreateGeo();
  const std::string geo = StructField(1, TableName("default", "geo"));
  Success("addColumnFamily", geo + StructField(2, BinaryField(1, "e")));
  Success("addColumnFamily", geo + StructField(2, BinaryField(1, "f")));
  Success("put",
          BinaryField(1, "geo") +
              StructField(2, BinaryField(1, "r") +
                                 StructList(2, {CellValue("f", "q", "v")})));
  Success("disableTable", geo);
  Success("modifyColumnFamily",
          geo + StructField(2, BinaryField(1, "e") + I32Field(4, 8192)));
  Success("deleteColumnFamily", geo + BinaryField(2, "e"));
  EXPECT_THAT(Failure("deleteColumnFamily", geo + BinaryField(2, "f")),
              HasSubstr("holds cells of family 'f'"));
  Success("modifyTable", ModifyArgs({"d", "f", "g"}, "d:cc"));
  Success("enableTable", geo);
  EXPECT_THAT(Families(Describe()), ElementsAre("d", "f", "g"));
}

// grant / revoke {1 info}: a TAccessControlEntity on a table (scope 0) or
// a namespace (scope 1).
std::string Entity(const std::string& user, int32_t scope,
                   const std::string& actions, const std::string& name) {
  return StructField(1, BinaryField(1, user) + I32Field(2, scope) +
                            BinaryField(4, actions) +
                            BinaryField(scope == 0 ? 5 : 6, name));
}

// Without TLS there are no identities to check, but grants are kept (and
// hold once the router serves TLS): each answers true, as HBase's.
TEST_F(HBaseNamespaceWireTest, GrantsAreKeptAndRevokedOverTheWire) {
  EXPECT_EQ(Success("grant", Entity("bob", 0, "RW", "default:t")).number, 1);
  EXPECT_EQ(Success("grant", Entity("bob", 1, "C", "geo")).number, 1);
  EXPECT_EQ(Success("revoke", Entity("bob", 0, "R", "t")).number, 1);
  ASSERT_EQ(router_->Grants()->size(), 2u);
  EXPECT_EQ((*router_->Grants())[0].table, "t");
  EXPECT_EQ((*router_->Grants())[0].actions, "W");
  EXPECT_EQ((*router_->Grants())[1].ns, "geo");
  EXPECT_THAT(Failure("grant", Entity("bob", 0, "RWQ", "t")),
              AllOf(StartsWith("InvalidArgument: "),
                    HasSubstr("'Q' is none of R, W, X, C, A")));
  EXPECT_THAT(Failure("grant", Entity("bob", 1, "R", "ge-o")),
              StartsWith("InvalidArgument: "));
  EXPECT_THAT(Failure("grant", Entity("", 1, "R", "geo")),
              HasSubstr("a grant needs a user"));
  EXPECT_EQ(Success("revoke", Entity("bob", 1, "", "geo")).number, 1);
  EXPECT_EQ(router_->Grants()->size(), 1u);
}

}  // namespace
}  // namespace bloomroute
