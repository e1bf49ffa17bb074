// The operators' HTTP endpoints of real processes: after a workload, the
// router's and the region servers' /metrics agree with what the workload
// did (lookups counted, servers asked equal to the routing lines the CLI
// printed, rows on the servers), pass `promtool check metrics`, and
// /healthz, /readyz and /status answer. Under BLOOMROUTE_TEST_SECURE=1 the
// endpoints are HTTPS and need the client certificate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/http_get.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"
#include "tests/integration/secure_mode.h"

namespace bloomroute::testing {
namespace {

using ::testing::HasSubstr;

// The value of the series `name` (with its labels, e.g.
// `x{a="b"}`) in a scrape; -1 when absent.
double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// The sum of every series of `name` (any labels).
double SumOf(const std::string& text, const std::string& name) {
  double sum = 0;
  std::regex line("\n" + name + "(\\{[^}]*\\})? ([^\n]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), line);
       it != std::sregex_iterator(); ++it) {
    sum += std::stod((*it)[2].str());
  }
  return sum;
}

// promtool's verdict on a scrape: "" when it passes (or exit status and
// output).
std::string PromtoolCheck(const std::string& text, const std::string& path) {
  {
    std::ofstream out(path);
    out << text;
  }
  const std::string command = "promtool check metrics < " + path + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  return status == 0 ? "" : "status " + std::to_string(status) + ": " + output;
}

class MetricsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cluster_.ok()) << cluster_.error();
    router_url_ = StatusUrlBase(cluster_.router_line());
    ASSERT_FALSE(router_url_.empty()) << cluster_.router_line();
    EXPECT_EQ(router_url_.rfind(SecureMode() ? "https://" : "http://", 0), 0u)
        << router_url_;
    tls_ = SecureMode() ? &TestCerts().client : nullptr;
  }

  HttpAnswer Get(const std::string& base, const std::string& path) {
    return HttpGet(base, path, tls_);
  }

  ProcessCluster cluster_{2};
  std::string router_url_;
  const TlsOptions* tls_ = nullptr;
};

TEST_F(MetricsEndpointTest, CountersAgreeWithTheWorkloadAndPassPromtool) {
  RouterClient client(cluster_.router_port());
  rpc::client::TTableInfo info;
  client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}, 0, {"m"}));
  client->putMultiple("geo", {MakePut("apple", {{"d:cc", "NO"}}),
                              MakePut("bergen", {{"d:cc", "NO"}}),
                              MakePut("paris", {{"d:cc", "FR"}}),
                              MakePut("zurich", {{"d:cc", "CH"}})});
  // The lookups, each printing its routing line.
  int lookups = 0, rows = 0;
  int asked = 0, with_rows = 0, not_current = 0;
  const std::map<std::string, int> rows_of = {
      {"NO", 2}, {"FR", 1}, {"CH", 1}, {"SE", 0}};
  const std::regex routing(
      "routing: asked ([0-9]+) of [0-9]+ servers, ([0-9]+) with rows "
      "\\(([0-9]+) asked because not current\\)");
  for (const char* cc : {"NO", "FR", "CH", "SE", "NO"}) {
    CommandOutput r =
        RunCommand({"query", "--router",
                    "127.0.0.1:" + std::to_string(cluster_.router_port()),
                    "--table", "geo", "--where", std::string("cc=") + cc});
    ASSERT_EQ(r.code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, routing)) << r.err;
    ++lookups;
    rows += rows_of.at(cc);
    asked += std::stoi(m[1]);
    with_rows += std::stoi(m[2]);
    not_current += std::stoi(m[3]);
  }
  ASSERT_GT(asked, 0);

  const HttpAnswer router = Get(router_url_, "/metrics");
  ASSERT_EQ(router.status, 200) << router.body;
  const std::string& text = router.body;
  EXPECT_EQ(Sample(text, "bloomroute_lookups_total"), lookups) << text;
  EXPECT_EQ(Sample(text, "bloomroute_lookup_servers_asked_total"), asked);
  EXPECT_EQ(Sample(text, "bloomroute_lookup_servers_with_rows_total"),
            with_rows);
  EXPECT_EQ(Sample(text, "bloomroute_lookup_servers_asked_not_current_total"),
            not_current);
  EXPECT_EQ(Sample(text, "bloomroute_lookup_rows_returned_total"), rows);
  EXPECT_EQ(Sample(text, "bloomroute_lookup_fanout_count"), lookups);
  EXPECT_EQ(Sample(text, "bloomroute_tables"), 1);
  EXPECT_EQ(SumOf(text, "bloomroute_region_server_up"), 2) << text;
  EXPECT_EQ(Sample(text,
                   "bloomroute_calls_total{method=\"getByIndex\","
                   "outcome=\"ok\",service=\"router\"}"),
            lookups);
  EXPECT_EQ(Sample(text,
                   "bloomroute_calls_total{method=\"putMultiple\","
                   "outcome=\"ok\",service=\"router\"}"),
            1);
  EXPECT_GT(Sample(text, "process_resident_memory_bytes"), 0);
  EXPECT_EQ(PromtoolCheck(text, cluster_.dir() + "/router.prom"), "");

  // The region servers: their lookups are the servers the router asked,
  // and their rows are the rows written.
  double region_lookups = 0, region_rows = 0;
  for (int i = 0; i < cluster_.region_servers(); ++i) {
    const std::string url = StatusUrlBase(cluster_.region_server_line(i));
    ASSERT_FALSE(url.empty()) << cluster_.region_server_line(i);
    const HttpAnswer server = Get(url, "/metrics");
    ASSERT_EQ(server.status, 200);
    region_lookups +=
        std::max(0.0, Sample(server.body,
                             "bloomroute_calls_total{method=\"lookup\","
                             "outcome=\"ok\",service=\"region\"}"));
    region_rows += Sample(server.body, "bloomroute_regionserver_rows");
    EXPECT_GE(Sample(server.body, "bloomroute_regionserver_writes_total"), 1)
        << server.body;
    EXPECT_GE(
        Sample(server.body, "bloomroute_rocksdb_pending_compaction_bytes"), 0);
    EXPECT_EQ(PromtoolCheck(server.body, cluster_.dir() + "/region-" +
                                             std::to_string(i) + ".prom"),
              "");
  }
  EXPECT_EQ(region_lookups, asked);
  EXPECT_EQ(region_rows, 4);

  // Every metric the Grafana dashboard and the alert rules in deploy/ use
  // is served by one of the processes (the deploy test keeps the list), but
  // those that appear only once something happened.
  std::string served = text;
  for (int i = 0; i < cluster_.region_servers(); ++i) {
    served +=
        Get(StatusUrlBase(cluster_.region_server_line(i)), "/metrics").body;
  }
  const CommandOutput names = RunProgram(
      "/usr/bin/python3",
      {std::string(BLOOMROUTE_SOURCE_DIR) + "/tests/deploy/check_deploy.py",
       "--list-names"});
  ASSERT_EQ(names.code, 0) << names.err;
  std::istringstream list(names.out);
  int checked = 0;
  for (std::string name; std::getline(list, name);) {
    if (name == "bloomroute_region_operation_age_seconds" ||
        name == "bloomroute_thrift_refusals_total") {
      continue;  // only while an operation runs / once a bound refused
    }
    ++checked;
    EXPECT_THAT(served, HasSubstr("# TYPE " + name + " ")) << name;
  }
  EXPECT_GT(checked, 30);
}

TEST_F(MetricsEndpointTest, HealthReadinessAndStatusAnswer) {
  EXPECT_EQ(Get(router_url_, "/healthz").body, "ok\n");
  const HttpAnswer ready = Get(router_url_, "/readyz");
  EXPECT_EQ(ready.status, 200) << ready.body;
  EXPECT_THAT(ready.body, HasSubstr("2 of 2 region servers answered"));
  const HttpAnswer page = Get(router_url_, "/status");
  EXPECT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("<table id=\"servers\">"));
  EXPECT_THAT(page.body, HasSubstr(cluster_.region_server_address(1)));
  const std::string region_url = StatusUrlBase(cluster_.region_server_line(0));
  EXPECT_EQ(Get(region_url, "/readyz").status, 200);
  EXPECT_THAT(Get(region_url, "/status").body,
              HasSubstr("<table id=\"regions\">"));
  if (SecureMode()) {
    // Without a client certificate: /healthz only.
    EXPECT_EQ(HttpGet(router_url_, "/healthz").status, 200);
    EXPECT_EQ(HttpGet(router_url_, "/metrics").status, 401);
  }
}

}  // namespace
}  // namespace bloomroute::testing

namespace bloomroute::testing {
namespace {

// The slow-call and audit logs of a router process, in its --log-file.
TEST(CallLogTest, SlowCallsAndAdminCallsAreLogged) {
  TempDir logs;
  const std::string log = logs.path() + "/router.log";
  ProcessCluster cluster(1, {}, {"--slow-call-ms", "1", "--log-file", log});
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  RouterClient client(cluster.router_port());
  rpc::client::TTableInfo info;
  client->createIndexedTable(info, MakeTableSpec("geo", {"d:cc"}, 0, {}));
  // 20,000 rows with their index entries: well over 1 ms.
  std::vector<rpc::client::TPut> puts;
  for (int i = 0; i < 20000; ++i) {
    puts.push_back(MakePut("row" + std::to_string(i), {{"d:cc", "NO"}}));
  }
  client->putMultiple("geo", puts);
  std::vector<rpc::client::TServerSummary> servers;
  client->listServers(servers);
  std::ifstream in(log);
  const std::string text((std::istreambuf_iterator<char>(in)),
                         std::istreambuf_iterator<char>());
  const std::string who = SecureMode() ? "root" : "anonymous@127.0.0.1:";
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "Z WARN slow-call: putMultiple by " + who +
                        "[0-9]* table geo took [0-9]+ ms, asked 0 servers, "
                        "returned 0 rows: ok\n"))
      << text;
  EXPECT_THAT(text, HasSubstr("INFO audit: " + who));
  EXPECT_THAT(text, ::testing::ContainsRegex("INFO audit: [^ ]+ "
                                             "createIndexedTable table geo: "
                                             "ok\n"));
  EXPECT_THAT(text, ::testing::ContainsRegex("INFO audit: [^ ]+ "
                                             "listServers: ok\n"));
  // A data call is no admin call.
  EXPECT_THAT(text,
              ::testing::Not(HasSubstr("audit: " + who + " putMultiple")));
}

}  // namespace
}  // namespace bloomroute::testing
