#include "thrift/security.h"

#include <gtest/gtest.h>

#include "thrift/internal/access_control.h"

namespace bloomroute {
namespace {

TEST(SecurityTest, RolesRoundTripAndUnknownOnesAreRefused) {
  for (Role role : {Role::kRead, Role::kWrite, Role::kAdmin, Role::kNode}) {
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

}  // namespace
}  // namespace bloomroute
