#include "http/internal/reply.h"

// Boost 1.74's beast/http/status.hpp uses std::ostream without including it.
#include <boost/beast/http/status.hpp>
#include <cctype>
#include <ostream>
#include <string>

namespace bloomroute::http_internal {

namespace {

// RFC 9110's token characters.
bool IsToken(std::string_view name) {
  if (name.empty()) return false;
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0) continue;
    if (std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

bool IsFieldValue(std::string_view value) {
  for (const char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

bool IsServersField(std::string_view name) {
  for (const char* own : {"content-type", "content-length", "date",
                          "connection", "transfer-encoding"}) {
    if (EqualsIgnoringCase(name, own)) return true;
  }
  return false;
}

std::string ReasonPhrase(int status) {
  const auto reason = boost::beast::http::obsolete_reason(
      static_cast<boost::beast::http::status>(status));
  if (reason.empty() || reason.front() == '<') return "Status";
  return std::string(reason);
}

}  // namespace

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IsSendableStatus(int status) { return status >= 200 && status <= 599; }

std::string SerializeReply(const HttpResponse& response, bool head,
                           bool keep_alive) {
  const bool no_body = response.status == 204 || response.status == 304;
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " " +
                    ReasonPhrase(response.status) + "\r\n";
  if (IsFieldValue(response.content_type) && !response.content_type.empty()) {
    out += "Content-Type: " + response.content_type + "\r\n";
  }
  if (!no_body) {
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  out += keep_alive ? "Connection: keep-alive\r\n" : "Connection: close\r\n";
  for (const auto& [name, value] : response.headers) {
    if (!IsToken(name) || !IsFieldValue(value) || IsServersField(name)) {
      continue;
    }
    out += name + ": " + value + "\r\n";
  }
  out += "\r\n";
  if (!head && !no_body) out += response.body;
  return out;
}

HttpResponse ErrorReply(int status, std::string_view message) {
  HttpResponse reply;
  reply.status = status;
  reply.body = std::string(message) + "\n";
  if (status == 405) reply.headers.emplace_back("Allow", "GET, HEAD");
  return reply;
}

}  // namespace bloomroute::http_internal
