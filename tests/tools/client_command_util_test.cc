#include "tools/client_command_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/router_list_test_util.h"
#include "tests/tools/flags_test_util.h"
#include "tests/tools/import/unused_router_client.h"
#include "tools/local_cluster.h"

namespace bloomroute {
namespace {

class ClientCommandUtilTest : public ::testing::Test {};

TEST_F(ClientCommandUtilTest, QualifiesBareNamesWithTheFamily) {
  EXPECT_EQ(*QualifyColumn("country", "d"), "d:country");
  EXPECT_EQ(*QualifyColumn("e:country", "d"), "e:country");
  EXPECT_EQ(*QualifyColumn("e:", "d"), "e:");
  EXPECT_TRUE(QualifyColumn("", "d").status().IsInvalidArgument());
  EXPECT_TRUE(QualifyColumn(":x", "d").status().IsInvalidArgument());
  EXPECT_TRUE(
      QualifyColumn(std::string(2000, 'x'), "d").status().IsInvalidArgument());
}

TEST_F(ClientCommandUtilTest, WhereSplitsAtTheFirstEquals) {
  StatusOr<EqualityPredicate> p = ParseWhere("cc=NO", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->column, "d:cc");
  EXPECT_EQ(p->value, "NO");
  p = ParseWhere("x:eq=a=b", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->column, "x:eq");
  EXPECT_EQ(p->value, "a=b");
  p = ParseWhere("cc=", "d");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->value, "");
  EXPECT_TRUE(ParseWhere("cc", "d").status().IsInvalidArgument());
  Status s = ParseWhere("=NO", "d").status();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.message().find("--where"), std::string::npos) << s.message();
}

TEST_F(ClientCommandUtilTest, ColumnsSplitAtCommasAndDropDuplicates) {
  EXPECT_EQ(*ParseColumns({"a,b:c", "a", "e"}, "d"),
            (Projection{"d:a", "b:c", "d:e"}));
  EXPECT_TRUE(ParseColumns({}, "d")->empty());
  EXPECT_TRUE(ParseColumns({"a,,b"}, "d").status().IsInvalidArgument());
  EXPECT_TRUE(ParseColumns({"a,"}, "d").status().IsInvalidArgument());
  EXPECT_TRUE(ParseColumns({""}, "d").status().IsInvalidArgument());
}

TEST_F(ClientCommandUtilTest, RoutingLineCountsServers) {
  router::LookupResult r;
  r.routing.servers_in_cluster = 4;
  r.routing.asked = {{1, "h:1"}, {3, "h:3"}};
  r.routing.asked_not_current = {{3, "h:3"}};
  r.routing.with_rows = {{1, "h:1"}};
  EXPECT_EQ(RoutingLine(r),
            "routing: asked 2 of 4 servers, 1 with rows (1 asked because not "
            "current)");
  r.partial = true;
  r.missing = {{3, "h:3"}};
  EXPECT_EQ(RoutingLine(r),
            "routing: asked 2 of 4 servers, 1 with rows (1 asked because not "
            "current), partial: missing h:3");
  r.routing.broadcast_reason = "a range alone cannot be routed";
  EXPECT_EQ(RoutingLine(r.routing, false, {}),
            "routing: asked 2 of 4 servers, 1 with rows (1 asked because not "
            "current); a range alone cannot be routed");
}

// A router that knows the tables named, in that order.
class TablesRouter : public testing::UnusedRouterClient {
 public:
  explicit TablesRouter(std::vector<std::string> names) {
    for (std::string& n : names) tables_.push_back({0, std::move(n), {}});
  }
  StatusOr<std::vector<TableDescriptor>> ListTables() override {
    ++listed_;
    return tables_;
  }
  int listed_ = 0;

 private:
  std::vector<TableDescriptor> tables_;
};

const Status kNoTable = Status::NotFound("table 'nope' does not exist");

TEST_F(ClientCommandUtilTest, AnUnknownTableIsToldWithTheTablesThatExist) {
  TablesRouter router({"geo", "cities"});
  Status s = ExplainTableNotFound(router, "nope", kNoTable);
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(),
            "table 'nope' does not exist; the tables are 'geo', 'cities'");
  TablesRouter none({});
  EXPECT_EQ(ExplainTableNotFound(none, "nope", kNoTable).message(),
            "table 'nope' does not exist; there are no tables");
}

TEST_F(ClientCommandUtilTest, ManyTablesAreCountedNotListed) {
  std::vector<std::string> names;
  for (size_t i = 0; i < kTablesListed; ++i) names.push_back(std::to_string(i));
  TablesRouter ten(names);
  EXPECT_EQ(ExplainTableNotFound(ten, "nope", kNoTable).message(),
            "table 'nope' does not exist; the tables are '0', '1', '2', '3', "
            "'4', '5', '6', '7', '8', '9'");
  names.push_back("10");
  TablesRouter eleven(names);
  EXPECT_EQ(ExplainTableNotFound(eleven, "nope", kNoTable).message(),
            "table 'nope' does not exist; 11 tables exist (bloomroute shell -e "
            "list shows them)");
}

TEST_F(ClientCommandUtilTest, OtherFailuresAreLeftAsTheyAre) {
  TablesRouter router({"geo"});
  // Not NotFound: the tables are not asked for.
  const Status refused = Status::InvalidArgument("column 'x' is not indexed");
  EXPECT_EQ(ExplainTableNotFound(router, "geo", refused).ToString(),
            refused.ToString());
  EXPECT_EQ(router.listed_, 0);
  EXPECT_TRUE(ExplainTableNotFound(router, "geo", Status::OK()).ok());
  // A NotFound of something else (the table exists): as it is.
  const Status scanner = Status::NotFound("scanner 7 is not open");
  EXPECT_EQ(ExplainTableNotFound(router, "geo", scanner).ToString(),
            scanner.ToString());
  // ListTables fails (UnusedRouterClient): as it is.
  testing::UnusedRouterClient unused;
  EXPECT_EQ(ExplainTableNotFound(unused, "nope", kNoTable).ToString(),
            kNoTable.ToString());
  // The StatusOr form passes a value through.
  StatusOr<int> value = ExplainTableNotFound(router, "nope", StatusOr<int>(3));
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
}

class RouterConnectionFlagsTest : public ::testing::Test {
 protected:
  std::string File(const std::string& name, const std::string& text) {
    return testing::WriteFile(dir_.path() + "/" + name, text);
  }
  testing::TempDir dir_;
};

TEST_F(RouterConnectionFlagsTest, WithoutFlagsTheConnectionIsPlain) {
  RouterConnectionFlags flags;
  testing::ParseFlags(flags, {});
  ASSERT_TRUE(flags.Validate().ok());
  EXPECT_EQ(flags.router(), kDefaultRouterAddress);
  RouterClientOptions base;
  base.call_timeout_ms = 777;
  const RouterClientOptions options = flags.ClientOptions(base);
  EXPECT_FALSE(options.tls.enabled());
  EXPECT_EQ(options.token, "");
  EXPECT_EQ(options.call_timeout_ms, 777);
}

TEST_F(RouterConnectionFlagsTest, TlsFilesAndTheTokenReachTheClientOptions) {
  const std::string ca = File("ca.pem", "x"), cert = File("c.pem", "x"),
                    key = File("c.key", "x");
  const std::string token(64, 'e');
  RouterConnectionFlags flags;
  testing::ParseFlags(
      flags, {"--router", "10.0.0.7:9090", "--tls-ca", ca, "--tls-cert", cert,
              "--tls-key", key, "--token-file", File("token", token + "\r\n")});
  ASSERT_TRUE(flags.Validate().ok());
  RouterClientOptions base;
  base.call_timeout_ms = 777;
  const RouterClientOptions options = flags.ClientOptions(base);
  EXPECT_EQ(options.tls.ca_file, ca);
  EXPECT_EQ(options.tls.cert_file, cert);
  EXPECT_EQ(options.tls.key_file, key);
  EXPECT_EQ(options.token, token);
  EXPECT_EQ(options.call_timeout_ms, 777);
  EXPECT_EQ(flags.router(), "10.0.0.7:9090");
  EXPECT_TRUE(flags.Connect(base).ok());  // does not connect
}

TEST_F(RouterConnectionFlagsTest, ATokenNeedsTls) {
  RouterConnectionFlags flags;
  testing::ParseFlags(flags, {"--token-file", File("token", "abc\n")});
  const Status s = flags.Validate();
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_EQ(s.message(),
            "--token-file needs --tls-ca: a token must not travel in the "
            "clear");
}

TEST_F(RouterConnectionFlagsTest, ClientFlagsCarryTheConnectionFlags) {
  ClientFlags flags;
  testing::ParseFlags(flags, {"--table", "t", "--tls-ca", File("ca.pem", "x"),
                              "--token-file", File("token", "abc\n")});
  ASSERT_TRUE(flags.Validate().ok());
  EXPECT_EQ(flags.connection().ClientOptions().token, "abc");
  EXPECT_TRUE(flags.connection().ClientOptions().tls.enabled());

  ClientFlags refused;
  testing::ParseFlags(refused, {"--table", "t", "--tls-cert", "c.pem"});
  EXPECT_THAT(refused.Validate().message(), ::testing::HasSubstr("--tls-ca"));
}

TEST_F(RouterConnectionFlagsTest, AListOfRoutersIsChecked) {
  RouterConnectionFlags flags;
  testing::ParseFlags(flags, {"--router", "10.0.0.7:9090,10.0.0.8:9090"});
  ASSERT_TRUE(flags.Validate().ok());
  EXPECT_EQ(flags.router(), "10.0.0.7:9090,10.0.0.8:9090");
  EXPECT_EQ(flags.AsArgs()[0], "--router=10.0.0.7:9090,10.0.0.8:9090");
  EXPECT_TRUE(flags.Connect().ok());  // does not connect
  for (const char* bad : {"h:1,,h:2", "h:1,h:1", "h:1,h:0", "h:1,h", "h:1,"}) {
    RouterConnectionFlags refused;
    testing::ParseFlags(refused, {"--router", bad});
    const Status s = refused.Validate();
    EXPECT_TRUE(s.IsInvalidArgument()) << bad << ": " << s.ToString();
    EXPECT_THAT(s.message(), ::testing::StartsWith("--router: ")) << bad;
  }
  RouterConnectionFlags zero;
  testing::ParseFlags(zero, {"--router", "h:1,h:0"});
  EXPECT_EQ(zero.Validate().message(), "--router: router 'h:0' has port 0");
}

// Two proxies in front of one local cluster's router stand in for two
// routers; stopping a proxy is that router dying, with the scanners of its
// connections.
class RouterListScanTest : public ::testing::Test {
 protected:
  static constexpr int kRows = 2500;

  void SetUp() override {
    LocalClusterOptions options;
    options.data_dir = dir_.path() + "/data";
    options.servers = 2;
    options.router_port = 0;
    options.http = false;
    auto cluster = LocalCluster::Start(options);
    ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
    cluster_ = std::move(cluster).value();
    for (int i = 0; i < 2; ++i) {
      proxies_.push_back(
          std::make_unique<testing::RouterListProxy>(cluster_->router_port()));
      ASSERT_TRUE(proxies_.back()->ok());
    }
    RouterListOptions list;
    list.start = 0;
    auto client = ConnectRouter(
        proxies_[0]->address() + "," + proxies_[1]->address(), {}, list);
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    client_ = std::move(client).value();
    ASSERT_TRUE(
        client_->CreateTable(router::TableSpec{"rows", {}, {"k1", "k2"}, 0})
            .ok());
    for (int i = 0; i < kRows; i += 500) {
      std::vector<Mutation> batch;
      for (int j = i; j < i + 500; ++j) {
        batch.push_back(Mutation::Put(0, Key(j), {{"d:v", "x"}}));
      }
      ASSERT_TRUE(client_->Mutate("rows", batch).ok());
    }
  }

  static std::string Key(int i) {
    std::string digits = std::to_string(i);
    return "k" + std::string(4 - digits.size(), '0') + digits;
  }
  static std::vector<std::string> Keys(int begin, int end) {
    std::vector<std::string> out;
    for (int i = begin; i < end; ++i) out.push_back(Key(i));
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<LocalCluster> cluster_;
  std::vector<std::unique_ptr<testing::RouterListProxy>> proxies_;
  std::unique_ptr<RouterClient> client_;
};

// The router of the scanner dies after the first batch: the scan goes on
// from the other router after the last row received, every row once.
TEST_F(RouterListScanTest, AScanWhoseRouterStopsGivesEveryRowOnce) {
  std::vector<std::string> keys;
  auto read = ScanEach(*client_, "rows", router::ScanSpec{}, kRows + 10,
                       [&](std::vector<Row>& batch) {
                         for (const Row& row : batch) keys.push_back(row.key);
                         if (keys.size() == kScanBatchRows) {
                           proxies_[0]->Stop();
                         }
                         return Status::OK();
                       });
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, static_cast<uint64_t>(kRows));
  EXPECT_EQ(keys, Keys(0, kRows));
  EXPECT_EQ(proxies_[0]->Count("openScanner"), 1u);
  EXPECT_EQ(proxies_[1]->Count("openScanner"), 1u);
}

// The limit counts the rows of both scanners; a stop row ends the second.
TEST_F(RouterListScanTest, AReopenedScanKeepsItsLimitAndRange) {
  router::ScanSpec spec;
  spec.start_row = Key(100);
  spec.stop_row = Key(2200);
  std::vector<std::string> keys;
  auto read =
      ScanEach(*client_, "rows", spec, 1500, [&](std::vector<Row>& batch) {
        for (const Row& row : batch) keys.push_back(row.key);
        if (keys.size() == kScanBatchRows) {
          proxies_[0]->Stop();
        }
        return Status::OK();
      });
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(keys, Keys(100, 1600));
  keys.clear();
  auto rows = ScanRows(*client_, "rows", spec, 100000);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->size(), 2100u);
}

// Every router gone: the reopen fails, and says so.
TEST_F(RouterListScanTest, AScanWithNoRouterLeftFails) {
  auto read = ScanEach(*client_, "rows", router::ScanSpec{}, kRows,
                       [&](std::vector<Row>&) {
                         proxies_[0]->Stop();
                         proxies_[1]->Stop();
                         return Status::OK();
                       });
  EXPECT_TRUE(read.status().IsUnavailable()) << read.status().ToString();
  EXPECT_THAT(read.status().message(),
              ::testing::HasSubstr("no router answered openScanner"));
}

}  // namespace
}  // namespace bloomroute
