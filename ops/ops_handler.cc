#include "ops/ops_handler.h"

#include <cstdlib>
#include <exception>
#include <memory>
#include <utility>

#include "ops/html.h"

namespace bloomroute::ops {
namespace {

HttpResponse Text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

bool Authorized(const OpsEndpoints& e, const HttpRequest& request) {
  if (!e.require_credentials) return true;
  if (!request.client_cn.empty()) return true;
  const std::string token = request.BearerToken();
  return !token.empty() && e.token_accepted && e.token_accepted(token);
}

HttpResponse Serve(const OpsEndpoints& e, const HttpRequest& request) {
  const std::string& path = request.path;
  if (path == "/healthz") return Text(200, "ok\n");
  if (path != "/readyz" && path != "/metrics" && path != "/status" &&
      path != "/") {
    return Text(404, "not found: try /status, /metrics, /healthz or /readyz\n");
  }
  if (!Authorized(e, request)) {
    HttpResponse r = Text(401,
                          "give a client certificate of the cluster's CA or "
                          "an Authorization: Bearer token\n");
    r.headers.push_back({"WWW-Authenticate", "Bearer realm=\"bloomroute\""});
    return r;
  }
  if (path == "/") {
    HttpResponse r = Text(302, "see /status\n");
    r.headers.push_back({"Location", "/status"});
    return r;
  }
  if (path == "/readyz") {
    const Readiness ready = e.readiness();
    return Text(ready.ready ? 200 : 503,
                std::string(ready.ready ? "ready: " : "not ready: ") +
                    ready.reason + "\n");
  }
  if (path == "/metrics") {
    HttpResponse r = Text(200, e.registry->Render());
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    return r;
  }
  HttpResponse r = Text(200, e.status_page(static_cast<uint32_t>(
                                 RefreshSecondsFromQuery(request.query))));
  r.content_type = "text/html; charset=utf-8";
  return r;
}

std::string PathLabel(const std::string& path) {
  for (const char* known :
       {"/healthz", "/readyz", "/metrics", "/status", "/"}) {
    if (path == known) return path;
  }
  return "other";
}

}  // namespace

HttpHandler MakeOpsHandler(OpsEndpoints endpoints) {
  auto e = std::make_shared<const OpsEndpoints>(std::move(endpoints));
  return [e](const HttpRequest& request) {
    HttpResponse response;
    try {
      response = Serve(*e, request);
    } catch (const std::exception& ex) {
      response = Text(500, std::string("internal error: ") + ex.what() + "\n");
    }
    e->registry
        ->GetCounter("bloomroute_http_requests_total",
                     "Requests to the HTTP endpoint, by path and status code.",
                     {{"path", PathLabel(request.path)},
                      {"code", std::to_string(response.status)}})
        .Increment();
    return response;
  };
}

}  // namespace bloomroute::ops
