// The operators' HTTP endpoints of a bloomroute process, as one HttpHandler
// for HttpServer (http/http_server.h):
//   /healthz   200 "ok": the process answers (never needs credentials, so a
//              load balancer or Kubernetes may probe it)
//   /readyz    200 "ready: <reason>" or 503 "not ready: <reason>"
//   /metrics   the registry in Prometheus's text format 0.0.4
//   /status    the process's HTML status page (?refresh=N reloads it every
//              N seconds, N in [1, 3600])
//   /          a redirect to /status
// Anything else is 404. Each request is counted in
// bloomroute_http_requests_total{path,code} (paths other than these as
// "other", so a client cannot grow the label set).
//
// Credentials. With `require_credentials` (the process serves HTTPS under
// --secure) every endpoint but /healthz needs a client certificate of the
// cluster's CA (HttpRequest::client_cn) or an "Authorization: Bearer" token
// that `token_accepted` accepts; otherwise 401 with a WWW-Authenticate
// header. Any role may read them: they show what `bloomroute admin
// servers` would, and nothing of the rows.
//
// Thread-safety: the handler may be called from several threads at once;
// so are the callbacks.
#ifndef BLOOMROUTE_OPS_OPS_HANDLER_H_
#define BLOOMROUTE_OPS_OPS_HANDLER_H_

#include <cstdint>
#include <functional>
#include <string>

#include "common/metrics.h"
#include "http/http_server.h"

namespace bloomroute::ops {

// What /readyz answers: ready, or not and why.
struct Readiness {
  bool ready = false;
  std::string reason;  // one line for people, also when ready
};

struct OpsEndpoints {
  std::function<Readiness()> readiness;
  // The status page's HTML, reloading itself every `refresh_seconds` (0:
  // never).
  std::function<std::string(uint32_t refresh_seconds)> status_page;
  // Whether a bearer token is valid here (null: no token is).
  std::function<bool(const std::string& token)> token_accepted;
  bool require_credentials = false;
  metrics::Registry* registry = &metrics::DefaultRegistry();
};

HttpHandler MakeOpsHandler(OpsEndpoints endpoints);

}  // namespace bloomroute::ops

#endif  // BLOOMROUTE_OPS_OPS_HANDLER_H_
