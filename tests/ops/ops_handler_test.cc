#include "ops/ops_handler.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::ops {
namespace {

class OpsHandlerTest : public testing::Test {
 protected:
  HttpHandler Handler(bool require_credentials) {
    OpsEndpoints e;
    e.readiness = [this] { return Readiness{ready_, "because"}; };
    e.status_page = [this](uint32_t refresh) {
      last_refresh_ = refresh;
      return std::string("<html>page</html>");
    };
    e.token_accepted = [](const std::string& token) { return token == "good"; };
    e.require_credentials = require_credentials;
    e.registry = &registry_;
    return MakeOpsHandler(e);
  }

  static HttpRequest Get(std::string path, std::string query = "") {
    HttpRequest r;
    r.method = "GET";
    r.path = std::move(path);
    r.query = std::move(query);
    return r;
  }

  metrics::Registry registry_;
  bool ready_ = true;
  uint32_t last_refresh_ = 99;
};

TEST_F(OpsHandlerTest, ServesTheFourEndpoints) {
  HttpHandler h = Handler(false);
  registry_.GetCounter("x_total", "x").Increment(7);
  EXPECT_EQ(h(Get("/healthz")).status, 200);
  EXPECT_EQ(h(Get("/healthz")).body, "ok\n");
  const HttpResponse metrics = h(Get("/metrics"));
  EXPECT_EQ(metrics.status, 200);
  EXPECT_EQ(metrics.content_type, "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics.body.find("x_total 7\n"), std::string::npos);
  EXPECT_EQ(h(Get("/readyz")).body, "ready: because\n");
  ready_ = false;
  EXPECT_EQ(h(Get("/readyz")).status, 503);
  EXPECT_EQ(h(Get("/readyz")).body, "not ready: because\n");
  const HttpResponse page = h(Get("/status", "refresh=5"));
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(last_refresh_, 5u);
  h(Get("/status"));
  EXPECT_EQ(last_refresh_, 0u);
  const HttpResponse root = h(Get("/"));
  EXPECT_EQ(root.status, 302);
  ASSERT_EQ(root.headers.size(), 1u);
  EXPECT_EQ(root.headers[0].second, "/status");
  EXPECT_EQ(h(Get("/etc/passwd")).status, 404);
}

TEST_F(OpsHandlerTest, RequestsAreCountedWithABoundedPathLabel) {
  HttpHandler h = Handler(false);
  h(Get("/metrics"));
  h(Get("/nope-1"));
  h(Get("/nope-2"));
  const std::string text = registry_.Render();
  EXPECT_NE(text.find("bloomroute_http_requests_total{code=\"200\",path="
                      "\"/metrics\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bloomroute_http_requests_total{code=\"404\",path="
                      "\"other\"} 2\n"),
            std::string::npos)
      << text;
}

TEST_F(OpsHandlerTest, CredentialsAreNeededForAllButHealthz) {
  HttpHandler h = Handler(true);
  EXPECT_EQ(h(Get("/healthz")).status, 200);
  for (const char* path : {"/metrics", "/readyz", "/status", "/"}) {
    const HttpResponse refused = h(Get(path));
    EXPECT_EQ(refused.status, 401) << path;
    ASSERT_FALSE(refused.headers.empty());
    EXPECT_EQ(refused.headers[0].first, "WWW-Authenticate");
    HttpRequest bad = Get(path);
    bad.headers.push_back({"authorization", "Bearer bad"});
    EXPECT_EQ(h(bad).status, 401) << path;
    HttpRequest token = Get(path);
    token.headers.push_back({"authorization", "Bearer good"});
    EXPECT_NE(h(token).status, 401) << path;
    HttpRequest cert = Get(path);
    cert.tls = true;
    cert.client_cn = "prometheus";
    EXPECT_NE(h(cert).status, 401) << path;
  }
}

TEST_F(OpsHandlerTest, AFailingPageIsA500NotACrash) {
  OpsEndpoints e;
  e.readiness = []() -> Readiness { throw std::runtime_error("boom"); };
  e.status_page = [](uint32_t) -> std::string { return ""; };
  e.registry = &registry_;
  HttpHandler h = MakeOpsHandler(e);
  const HttpResponse r = h(Get("/readyz"));
  EXPECT_EQ(r.status, 500);
  EXPECT_NE(r.body.find("boom"), std::string::npos);
}

}  // namespace
}  // namespace bloomroute::ops
