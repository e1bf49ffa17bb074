#include "thrift/server/internal/wire_transport.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace bloomroute::thrift_internal {
namespace {

constexpr char kPost[] = "POST ";  // kTransportProbeBytes long
constexpr uint8_t kStrictBinary = 0x80;
constexpr uint8_t kCompact = 0x82;
// The longest method name a non-strict buffered message may start with
// (the IDLs' longest is under 40 bytes).
constexpr uint32_t kMaxNonStrictNameBytes = 255;

// Case-insensitive equality of ASCII header names and tokens.
bool SameToken(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// A Content-Length value: digits only; false when it is anything else or
// passes 2^32.
bool ParseLength(std::string_view value, uint64_t* length) {
  if (value.empty() || value.size() > 10) return false;
  uint64_t n = 0;
  for (char ch : value) {
    if (ch < '0' || ch > '9') return false;
    n = n * 10 + static_cast<uint64_t>(ch - '0');
  }
  *length = n;
  return true;
}

// The request line: "POST <target> HTTP/1.x"; false for anything else.
// `*http10` for HTTP/1.0.
bool ParseRequestLine(std::string_view line, bool* http10) {
  if (line.substr(0, 5) != kPost) return false;
  const size_t space = line.rfind(' ');
  if (space <= 5) return false;
  const std::string_view version = line.substr(space + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") return false;
  *http10 = version == "HTTP/1.0";
  return true;
}

const char* Reason(int status) {
  switch (status) {
    case 411:
      return "Length Required";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    default:
      return "Bad Request";
  }
}

}  // namespace

WireTransport DetectTransport(const uint8_t* bytes, size_t size,
                              uint32_t limit) {
  if (size == 0) return WireTransport::kUnknown;
  if (bytes[0] == kStrictBinary || bytes[0] == kCompact) {
    return WireTransport::kBuffered;
  }
  const size_t post = std::min(size, kTransportProbeBytes);
  if (std::memcmp(bytes, kPost, post) == 0) {
    return size < kTransportProbeBytes ? WireTransport::kUnknown
                                       : WireTransport::kHttp;
  }
  if (size < 4) return WireTransport::kUnknown;
  const uint32_t length = (uint32_t{bytes[0]} << 24) |
                          (uint32_t{bytes[1]} << 16) |
                          (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]};
  // As a frame's length or as a non-strict name's, this is refused.
  if (length == 0 || length > limit) return WireTransport::kRefused;
  if (size < kTransportProbeBytes) return WireTransport::kUnknown;
  // A method name's first letter after a name's length: as a frame's first
  // byte it would start no message of any protocol.
  const uint8_t fifth = bytes[4];
  const bool name_start = std::isalpha(fifth) != 0 || fifth == '_';
  return length <= kMaxNonStrictNameBytes && name_start
             ? WireTransport::kBuffered
             : WireTransport::kFramed;
}

HttpRequestHead ParseHttpRequestHead(std::string_view head, uint32_t limit) {
  HttpRequestHead out;
  bool http10 = false;
  size_t line_end = head.find("\r\n");
  if (line_end == std::string_view::npos ||
      !ParseRequestLine(head.substr(0, line_end), &http10)) {
    out.status = 400;
    return out;
  }
  bool has_length = false, chunked = false, keep_alive = false, close = false;
  uint64_t length = 0;
  for (size_t at = line_end + 2; at < head.size();) {
    const size_t end = head.find("\r\n", at);
    if (end == std::string_view::npos || end == at) break;  // the blank line
    const std::string_view line = head.substr(at, end - at);
    at = end + 2;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      out.status = 400;
      return out;
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (SameToken(name, "content-length")) {
      uint64_t n = 0;
      if (!ParseLength(value, &n) || (has_length && n != length)) {
        out.status = 400;
        return out;
      }
      has_length = true;
      length = n;
    } else if (SameToken(name, "transfer-encoding")) {
      chunked = true;  // no transfer coding is taken
    } else if (SameToken(name, "connection")) {
      close = close || SameToken(value, "close");
      keep_alive = keep_alive || SameToken(value, "keep-alive");
    }
  }
  if (chunked || !has_length) {
    out.status = 411;
  } else if (length > limit) {
    out.status = 413;
  } else if (length == 0) {
    out.status = 400;  // no message
  }
  out.content_length = static_cast<uint32_t>(std::min<uint64_t>(length, limit));
  out.keep_alive = !close && (!http10 || keep_alive);
  return out;
}

std::string HttpReplyHead(size_t body_bytes, bool keep_alive) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/x-thrift\r\n"
         "Content-Length: " +
         std::to_string(body_bytes) + "\r\n" +
         (keep_alive ? "" : "Connection: close\r\n") + "\r\n";
}

std::string HttpErrorReply(int status) {
  const std::string reason = Reason(status);
  return "HTTP/1.1 " + std::to_string(status) + " " + reason +
         "\r\nContent-Type: text/plain\r\nContent-Length: " +
         std::to_string(reason.size() + 1) + "\r\nConnection: close\r\n\r\n" +
         reason + "\n";
}

}  // namespace bloomroute::thrift_internal
