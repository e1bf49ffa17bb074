#include "thrift/server/security.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "thrift/server/access_control.h"

namespace bloomroute {
namespace {

TEST(SecurityTest, RolesRoundTripAndUnknownOnesAreRefused) {
  for (Role role : {Role::kRead, Role::kWrite, Role::kAdmin, Role::kNode,
                    Role::kRouter, Role::kRegionServer}) {
    StatusOr<Role> parsed = ParseRole(RoleName(role));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, role);
  }
  EXPECT_TRUE(ParseRole("none").status().IsInvalidArgument());
  EXPECT_TRUE(ParseRole("Admin").status().IsInvalidArgument());
  EXPECT_TRUE(ParseRole("").status().IsInvalidArgument());
}

TEST(SecurityTest, ClientRolesAreOrderedAndNodeIsApart) {
  EXPECT_TRUE(RoleAllows(Role::kAdmin, Role::kRead));
  EXPECT_TRUE(RoleAllows(Role::kWrite, Role::kWrite));
  EXPECT_FALSE(RoleAllows(Role::kRead, Role::kWrite));
  EXPECT_FALSE(RoleAllows(Role::kWrite, Role::kAdmin));
  EXPECT_FALSE(RoleAllows(Role::kAdmin, Role::kNode));
  EXPECT_FALSE(RoleAllows(Role::kNode, Role::kRead));
  EXPECT_TRUE(RoleAllows(Role::kNode, Role::kNode));
  EXPECT_FALSE(RoleAllows(Role::kNone, Role::kRead));
  EXPECT_FALSE(RoleAllows(Role::kNone, Role::kNone));
}

// A region server's certificate could call RegionService on every other
// region server as if it were the router (one "node" certificate served
// both). What needs kNode (every RegionService call) takes a router's
// certificate or the old shared one, never a region server's; the
// machines' roles make no client call.
TEST(SecurityTest, OnlyARouterOrTheSharedNodeCertificateCallsRegionServers) {
  EXPECT_TRUE(RoleAllows(Role::kRouter, Role::kNode));
  EXPECT_TRUE(RoleAllows(Role::kNode, Role::kNode));
  EXPECT_FALSE(RoleAllows(Role::kRegionServer, Role::kNode));
  for (Role machine : {Role::kNode, Role::kRouter, Role::kRegionServer}) {
    EXPECT_TRUE(IsNodeRole(machine));
    for (Role need : {Role::kRead, Role::kWrite, Role::kAdmin}) {
      EXPECT_FALSE(RoleAllows(machine, need)) << RoleName(machine);
      EXPECT_FALSE(RoleAllows(need, machine)) << RoleName(need);
    }
  }
  EXPECT_FALSE(RoleAllows(Role::kAdmin, Role::kRouter));
  EXPECT_FALSE(IsNodeRole(Role::kAdmin));
}

TEST(SecurityTest, TokenHashIsSha256InLowercaseHex) {
  // SHA-256("abc"), FIPS 180-2 appendix B.1.
  EXPECT_EQ(TokenHash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_NE(TokenHash("abd"), TokenHash("abc"));
}

TEST(SecurityTest, LoopbackHosts) {
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("::"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
  EXPECT_FALSE(IsLoopbackHost("example.org"));
  EXPECT_FALSE(IsLoopbackHost("128.0.0.1"));
}

TEST(SecurityTest, TlsOptionsNameTheMissingFile) {
  TlsOptions none;
  EXPECT_TRUE(none.ValidateForServer().ok());
  EXPECT_TRUE(none.ValidateForClient().ok());
  EXPECT_FALSE(none.enabled());

  TlsOptions ca_only;
  ca_only.ca_file = "ca.crt";
  EXPECT_TRUE(ca_only.enabled());
  EXPECT_TRUE(ca_only.ValidateForClient().ok());
  Status s = ca_only.ValidateForServer();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--tls-cert"), std::string::npos) << s.message();

  TlsOptions cert_no_key = ca_only;
  cert_no_key.cert_file = "node.crt";
  s = cert_no_key.ValidateForServer();
  EXPECT_NE(s.message().find("--tls-key"), std::string::npos) << s.message();
  s = cert_no_key.ValidateForClient();
  EXPECT_NE(s.message().find("--tls-key"), std::string::npos) << s.message();

  TlsOptions no_ca;
  no_ca.cert_file = "c.crt";
  no_ca.key_file = "c.key";
  s = no_ca.ValidateForClient();
  EXPECT_NE(s.message().find("--tls-ca"), std::string::npos) << s.message();
  EXPECT_FALSE(no_ca.ValidateForServer().ok());
}

// Region servers accept their calls only from routers (DESIGN.md): the
// paged snapshot needs the node role, as the whole-filter snapshot.
TEST(RegionServiceAccessTest, FilterImagePagesNeedTheNodeRole) {
  const auto access = thrift_internal::AccessControl::ForRegionService();
  EXPECT_EQ(access->Needed("getFilterImagePage"), Role::kNode);
  EXPECT_EQ(access->Needed("getFilterImagePage"),
            access->Needed("getFilterSnapshot"));
}

// The methods of the RouterService IDL, read from the service blocks of its
// three files (RouterService extends IndexService, which extends
// THBaseService).
// The methods the services of `files` (in thrift/) declare.
std::set<std::string> ServiceMethods(const std::vector<std::string>& files) {
  std::set<std::string> methods;
  for (const std::string& file : files) {
    std::ifstream in(std::string(BLOOMROUTE_THRIFT_DIR) + file);
    std::string line;
    bool in_service = false;
    // "  <type> name(" at the start of a declaration (types may be generic).
    const std::regex declaration(R"(^  [A-Za-z0-9_.<>, ]+ ([A-Za-z_]+)\()");
    while (std::getline(in, line)) {
      if (line.rfind("service ", 0) == 0) in_service = true;
      std::smatch m;
      if (in_service && std::regex_search(line, m, declaration)) {
        methods.insert(m[1]);
      }
    }
  }
  return methods;
}

// Every RouterService method is classified here, and the router's table
// agrees: a method added to the IDL fails this test until it is given a
// role; one the table forgets needs admin (closed, not open).
TEST(RouterServiceAccessTest, EveryMethodHasTheRoleItsKindNeeds) {
  const std::map<std::string, Role> expected = {
      // HBase's reads and table metadata.
      {"exists", Role::kRead},
      {"existsAll", Role::kRead},
      {"get", Role::kRead},
      {"getMultiple", Role::kRead},
      {"openScanner", Role::kRead},
      {"getScannerRows", Role::kRead},
      {"closeScanner", Role::kRead},
      {"getScannerResults", Role::kRead},
      {"getRegionLocation", Role::kRead},
      {"getAllRegionLocations", Role::kRead},
      {"getTableDescriptor", Role::kRead},
      {"getTableDescriptors", Role::kRead},
      {"tableExists", Role::kRead},
      {"isTableEnabled", Role::kRead},
      {"isTableDisabled", Role::kRead},
      {"isTableAvailable", Role::kRead},
      {"getThriftServerType", Role::kRead},
      {"getTableNamesByPattern", Role::kRead},
      {"getTableDescriptorsByPattern", Role::kRead},
      {"isTableAvailableWithSplit", Role::kRead},
      {"getClusterId", Role::kRead},
      // HBase's namespace metadata.
      {"getNamespaceDescriptor", Role::kRead},
      {"listNamespaceDescriptors", Role::kRead},
      {"listNamespaces", Role::kRead},
      {"getTableNamesByNamespace", Role::kRead},
      {"getTableDescriptorsByNamespace", Role::kRead},
      // HBase's online slow log: who called what (HBase needs its admin).
      {"getSlowLogResponses", Role::kAdmin},
      {"clearSlowLogResponses", Role::kAdmin},
      // HBase's grants: admin, or A on their scope (grant_check.h).
      {"grant", Role::kAdmin},
      {"revoke", Role::kAdmin},
      // HBase's writes.
      {"put", Role::kWrite},
      {"putMultiple", Role::kWrite},
      {"deleteSingle", Role::kWrite},
      {"deleteMultiple", Role::kWrite},
      {"checkAndPut", Role::kWrite},
      {"checkAndDelete", Role::kWrite},
      {"checkAndMutate", Role::kWrite},
      {"increment", Role::kWrite},
      {"append", Role::kWrite},
      {"mutateRow", Role::kWrite},
      // HBase's table administration.
      {"createTable", Role::kAdmin},
      {"deleteTable", Role::kAdmin},
      {"truncateTable", Role::kAdmin},
      {"enableTable", Role::kAdmin},
      {"disableTable", Role::kAdmin},
      // HBase's namespace administration: DDL as the table calls.
      {"createNamespace", Role::kAdmin},
      {"modifyNamespace", Role::kAdmin},
      {"deleteNamespace", Role::kAdmin},
      // HBase's online schema changes.
      {"modifyTable", Role::kAdmin},
      {"addColumnFamily", Role::kAdmin},
      {"modifyColumnFamily", Role::kAdmin},
      {"deleteColumnFamily", Role::kAdmin},
      // bloomroute's own.
      {"authenticate", Role::kNone},
      {"createIndexedTable", Role::kAdmin},
      {"listTables", Role::kRead},
      {"describeTable", Role::kRead},
      {"getByIndex", Role::kRead},
      {"getByIndexMultiple", Role::kRead},
      {"countByIndex", Role::kRead},
      {"getIndexStats", Role::kRead},
      {"getClusterStatus", Role::kRead},
      // Who is alive in a ZooKeeper cluster (admin routers).
      {"getClusterMembers", Role::kRead},
      {"bulkLoad", Role::kWrite},
      {"verifyIndex", Role::kAdmin},
      {"addIndex", Role::kAdmin},
      {"dropIndex", Role::kAdmin},
      {"getIndexStatus", Role::kRead},
      {"listServers", Role::kAdmin},
      {"listRegions", Role::kAdmin},
      {"addServer", Role::kAdmin},
      {"setServerAddress", Role::kAdmin},
      {"removeServer", Role::kAdmin},
      {"moveRegion", Role::kAdmin},
      {"splitRegion", Role::kAdmin},
      {"mergeRegions", Role::kAdmin},
      {"balance", Role::kAdmin},
      {"decommissionServer", Role::kAdmin},
      {"setQuota", Role::kAdmin},
      {"listQuotas", Role::kAdmin}};
  const std::set<std::string> idl =
      ServiceMethods({"/hbase_service.thrift", "/index_service.thrift",
                      "/router_service.thrift"});
  ASSERT_GE(idl.size(), 40u) << "the IDL's methods were not found";
  for (const std::string& method : idl) {
    EXPECT_EQ(expected.count(method), 1u) << method << " is not classified";
  }
  for (const auto& [method, role] : expected) {
    EXPECT_EQ(idl.count(method), 1u) << method << " is not in the IDL";
  }
  auto access = thrift_internal::AccessControl::ForRouterService("");
  ASSERT_TRUE(access.ok()) << access.status().ToString();
  for (const auto& [method, role] : expected) {
    if (method == "authenticate") continue;  // answered before any check
    EXPECT_EQ((*access)->Needed(method), role) << method;
  }
  EXPECT_EQ((*access)->Needed("aMethodNoOneClassified"), Role::kAdmin);
}

// The same for HBase's Thrift1 API (the router's --thrift1-listen port):
// each method needs the role of its Thrift2 counterpart.
TEST(Hbase1ServiceAccessTest, EveryMethodHasTheRoleItsKindNeeds) {
  std::map<std::string, Role> expected;
  for (const char* m : {"isTableEnabled",
                        "getTableNames",
                        "getTableNamesWithIsTableEnabled",
                        "getColumnDescriptors",
                        "getTableRegions",
                        "getRegionInfo",
                        "getThriftServerType",
                        "getClusterId",
                        "get",
                        "getVer",
                        "getVerTs",
                        "getRow",
                        "getRowWithColumns",
                        "getRowTs",
                        "getRowWithColumnsTs",
                        "getRows",
                        "getRowsWithColumns",
                        "getRowsTs",
                        "getRowsWithColumnsTs",
                        "scannerOpenWithScan",
                        "scannerOpen",
                        "scannerOpenWithStop",
                        "scannerOpenWithPrefix",
                        "scannerOpenTs",
                        "scannerOpenWithStopTs",
                        "scannerGet",
                        "scannerGetList",
                        "scannerClose"}) {
    expected[m] = Role::kRead;
  }
  for (const char* m :
       {"mutateRow", "mutateRowTs", "mutateRows", "mutateRowsTs",
        "atomicIncrement", "deleteAll", "deleteAllTs", "deleteAllRow",
        "deleteAllRowTs", "increment", "incrementRows", "append",
        "checkAndPut"}) {
    expected[m] = Role::kWrite;
  }
  for (const char* m :
       {"enableTable", "disableTable", "createTable", "deleteTable", "compact",
        "majorCompact", "grant", "revoke"}) {
    expected[m] = Role::kAdmin;
  }
  const std::set<std::string> idl = ServiceMethods({"/hbase1_service.thrift"});
  ASSERT_GE(idl.size(), 40u) << "the IDL's methods were not found";
  for (const std::string& method : idl) {
    EXPECT_EQ(expected.count(method), 1u) << method << " is not classified";
  }
  for (const auto& [method, role] : expected) {
    EXPECT_EQ(idl.count(method), 1u) << method << " is not in the IDL";
  }
  auto access = thrift_internal::AccessControl::ForHbase1Service();
  for (const auto& [method, role] : expected) {
    EXPECT_EQ(access->Needed(method), role) << method;
    EXPECT_EQ(thrift_internal::Hbase1CallRole(method), role) << method;
  }
  EXPECT_EQ(access->Needed("aMethodNoOneClassified"), Role::kAdmin);
  // Thrift1 has no authenticate: identities come from certificates.
  EXPECT_FALSE(access->admits_tokens());
}

}  // namespace
}  // namespace bloomroute
