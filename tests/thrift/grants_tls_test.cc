// HBase's grant / revoke over TLS (thrift/server/grant_check.h): a grant
// raises its user's role on its table or namespace alone, from the next
// call; a revoke takes it back; grant and revoke need admin, or A on their
// scope.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/thrift/fake_router.h"
#include "tests/thrift/tls_test_util.h"
#include "thrift/router_client.h"
#include "thrift/router_server.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Certs;
using ::testing::HasSubstr;

class RouterGrantsTlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RouterServerOptions options;
    options.port = 0;
    options.threads = 2;
    options.tls = certs_.Node();
    auto server = RouterServer::Start(router_, options);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    admin_ = Connect("root");
    reader_ = Connect("reader");
    ASSERT_NE(admin_, nullptr);
    ASSERT_NE(reader_, nullptr);
  }

  std::unique_ptr<RouterClient> Connect(const std::string& user) {
    RouterClientOptions options;
    options.tls = certs_.Client(user);
    options.connect_timeout_ms = 5000;
    options.call_timeout_ms = 5000;
    auto client =
        ConnectRouter("127.0.0.1:" + std::to_string(server_->port()), options);
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return client.ok() ? std::move(client).value() : nullptr;
  }

  static router::Grant Grant(const std::string& user, const std::string& ns,
                             const std::string& table,
                             const std::string& actions) {
    return std::move(router::MakeGrant(user, ns, table, actions)).value();
  }
  static std::vector<Mutation> OnePut() {
    return {Mutation::Put(0, "oslo", {Cell{"d:cc", "NO"}})};
  }
  // Whether `client`'s put on `table` reached the router; a refusal must be
  // PermissionDenied.
  bool Puts(RouterClient& client, const std::string& table) {
    router_->mutations.clear();
    const Status s = client.Mutate(table, OnePut());
    EXPECT_TRUE(s.ok() || s.IsPermissionDenied()) << s.ToString();
    return s.ok() && router_->mutations.size() == 1;
  }

  Certs certs_;
  std::shared_ptr<FakeRouter> router_ = std::make_shared<FakeRouter>();
  std::unique_ptr<RouterServer> server_;
  std::unique_ptr<RouterClient> admin_;
  std::unique_ptr<RouterClient> reader_;
};

TEST_F(RouterGrantsTlsTest, ATableGrantAllowsItsTableAloneUntilRevoked) {
  EXPECT_FALSE(Puts(*reader_, "t"));
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "", "t", "W"),
                                router::GrantChange::kGrant)
                  .ok());
  ASSERT_EQ(router_->Grants()->size(), 1u);
  EXPECT_TRUE(Puts(*reader_, "t"));
  EXPECT_TRUE(Puts(*reader_, "default:t"));  // the same table
  EXPECT_FALSE(Puts(*reader_, "t2"));
  EXPECT_FALSE(Puts(*reader_, "geo:t"));
  // W is no admin: table DDL is still refused.
  Status s = reader_->DisableTable("t");
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  // Another user gains nothing from it.
  auto writer = Connect("writer");
  ASSERT_NE(writer, nullptr);
  s = writer->DisableTable("t");
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();

  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "", "t", "W"),
                                router::GrantChange::kRevoke)
                  .ok());
  EXPECT_TRUE(router_->Grants()->empty());
  s = reader_->Mutate("t", OnePut());
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("reader has role read"));
}

TEST_F(RouterGrantsTlsTest, ANamespaceGrantCoversEveryTableOfTheNamespace) {
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "geo", "", "W"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_TRUE(Puts(*reader_, "geo:a"));
  EXPECT_TRUE(Puts(*reader_, "geo:b"));
  EXPECT_FALSE(Puts(*reader_, "a"));
  EXPECT_FALSE(Puts(*reader_, "apps:a"));
  // C on the namespace is admin there: its tables' DDL, not another's.
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "geo", "", "C"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_TRUE(reader_->DisableTable("geo:a").ok());
  Status s = reader_->DisableTable("apps:a");
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  // Namespace DDL needs the global admin role, as in HBase.
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "geo", "", ""),
                                router::GrantChange::kRevoke)
                  .ok());
  EXPECT_FALSE(Puts(*reader_, "geo:a"));
}

TEST_F(RouterGrantsTlsTest, GrantingNeedsAdminOrAOnTheScope) {
  Status s = reader_->ChangeGrant(Grant("reader", "", "t", "W"),
                                  router::GrantChange::kGrant);
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  EXPECT_THAT(s.message(), HasSubstr("grant needs role admin"));
  // A on table geo:a: the reader may grant there, and nowhere else.
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "", "geo:a", "A"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_TRUE(reader_
                  ->ChangeGrant(Grant("writer", "", "geo:a", "R"),
                                router::GrantChange::kGrant)
                  .ok());
  s = reader_->ChangeGrant(Grant("writer", "", "geo:b", "R"),
                           router::GrantChange::kGrant);
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  s = reader_->ChangeGrant(Grant("writer", "geo", "", "R"),
                           router::GrantChange::kRevoke);
  EXPECT_TRUE(s.IsPermissionDenied()) << s.ToString();
  // A on the namespace: every table of it, and the namespace itself.
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "geo", "", "A"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_TRUE(reader_
                  ->ChangeGrant(Grant("writer", "", "geo:b", "R"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_TRUE(reader_
                  ->ChangeGrant(Grant("writer", "geo", "", "W"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_EQ(router_->Grants()->size(), 5u);
}

TEST_F(RouterGrantsTlsTest, ExecGivesNothingAndBadLettersAreRefused) {
  ASSERT_TRUE(admin_
                  ->ChangeGrant(Grant("reader", "", "t", "RX"),
                                router::GrantChange::kGrant)
                  .ok());
  EXPECT_FALSE(Puts(*reader_, "t"));
  router::Grant bad{"reader", "default", "t", "Q"};
  Status s = admin_->ChangeGrant(bad, router::GrantChange::kGrant);
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("'Q' is none of R, W, X, C, A"));
  bad.actions = "";
  s = admin_->ChangeGrant(bad, router::GrantChange::kGrant);
  EXPECT_THAT(s.message(), HasSubstr("grant names no action"));
  ASSERT_EQ(router_->Grants()->size(), 1u);
  EXPECT_EQ((*router_->Grants())[0].actions, "RX");
}

}  // namespace
}  // namespace bloomroute
