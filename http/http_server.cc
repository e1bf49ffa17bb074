#include "http/http_server.h"

#include <cctype>
#include <string>

#include "http/internal/reply.h"

namespace bloomroute {

using http_internal::EqualsIgnoringCase;

namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
    text.remove_prefix(1);
  }
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
    text.remove_suffix(1);
  }
  return text;
}

Status OutOfRange(const char* field, int64_t value, int64_t low, int64_t high) {
  return Status::InvalidArgument(
      std::string("http: ") + field + " " + std::to_string(value) +
      " is not in [" + std::to_string(low) + ", " + std::to_string(high) + "]");
}

Status ValidateTls(const HttpServerOptions& o) {
  const bool any = !o.tls_ca_file.empty() || !o.tls_cert_file.empty() ||
                   !o.tls_key_file.empty();
  const bool all = !o.tls_ca_file.empty() && !o.tls_cert_file.empty() &&
                   !o.tls_key_file.empty();
  if (any && !all) {
    return Status::InvalidArgument(
        "http: HTTPS needs tls_ca_file, tls_cert_file and tls_key_file");
  }
  if (!any && !o.tls_crl_file.empty()) {
    return Status::InvalidArgument("http: tls_crl_file needs HTTPS");
  }
  return Status::OK();
}

}  // namespace

const std::string* HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return &value;
  }
  return nullptr;
}

std::string HttpRequest::BearerToken() const {
  const std::string* authorization = Header("authorization");
  if (authorization == nullptr) return std::string();
  const std::string_view value = Trim(*authorization);
  constexpr std::string_view kScheme = "bearer";
  if (value.size() <= kScheme.size() ||
      !EqualsIgnoringCase(value.substr(0, kScheme.size()), kScheme) ||
      (value[kScheme.size()] != ' ' && value[kScheme.size()] != '\t')) {
    return std::string();
  }
  return std::string(Trim(value.substr(kScheme.size())));
}

Status HttpServerOptions::Validate() const {
  if (host.empty()) return Status::InvalidArgument("http: host is empty");
  if (port < 0 || port > 65535) return OutOfRange("port", port, 0, 65535);
  if (threads < 1 || threads > kMaxThreads) {
    return OutOfRange("threads", threads, 1, kMaxThreads);
  }
  if (max_connections < 1 || max_connections > kMaxConnections) {
    return OutOfRange("max_connections", max_connections, 1, kMaxConnections);
  }
  if (max_header_bytes < 1024 || max_header_bytes > kMaxHeaderBytes) {
    return OutOfRange("max_header_bytes", max_header_bytes, 1024,
                      kMaxHeaderBytes);
  }
  if (max_body_bytes > kMaxBodyBytes) {
    return OutOfRange("max_body_bytes", max_body_bytes, 0, kMaxBodyBytes);
  }
  const std::pair<const char*, int> timeouts[] = {
      {"idle_timeout_ms", idle_timeout_ms},
      {"request_timeout_ms", request_timeout_ms},
      {"reply_timeout_ms", reply_timeout_ms}};
  for (const auto& [name, value] : timeouts) {
    if (value < 1 || value > kMaxTimeoutMs) {
      return OutOfRange(name, value, 1, kMaxTimeoutMs);
    }
  }
  return ValidateTls(*this);
}

}  // namespace bloomroute
