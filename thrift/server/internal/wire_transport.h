// The transports and protocols one server port speaks, and how a connection's
// first bytes choose among them (thrift_server.h says why each is there).
//
// Transport, once per connection, from its first bytes (at most 5):
//   "POST "                 HTTP (THttpClient): each request a POST whose
//                           body, Content-Length bytes, is one message
//   0x80 or 0x82            buffered (unframed): the message itself, binary
//                           strict or compact. A frame would claim at least
//                           2 GiB, more than any frame limit.
//   a length of at most     buffered, non-strict binary: the length is the
//   255, then a letter or _ method name's, and the 5th byte its first
//                           letter (as a frame's first byte, a letter starts
//                           no message of any protocol)
//   any other 4-byte        framed: the 5th byte starts the message: 0x80
//   length                  (binary strict), 0x82 (compact) or 0x00 (the
//                           first byte of a non-strict binary name length);
//                           anything else is a frame that is no message,
//                           refused when it has arrived (as ever)
// A length of 0 or over the limit with no other reading refuses the
// connection after 4 bytes (as a frame header over the limit always did),
// without waiting for a 5th.
// Protocol, per message, from its first byte: 0x82 is compact, anything else
// binary (0x80 strict, else not strict: the name's length first). Replies
// use the request's protocol and transport; binary replies are strict, which
// every binary reader takes (as HBase's server writes them).
//
// HTTP: a request head (request line and headers) of at most kMaxHttpHeadBytes
// with "POST" and HTTP/1.0 or 1.1; any path. Content-Length is required and
// bounds the body as a frame's length does. What the server cannot take is
// answered with a status, and the connection closed: 400 (a malformed head,
// no body), 411 (no Content-Length, or a Transfer-Encoding: chunked bodies
// are not taken), 413 (a body over the frame limit), 431 (a head over
// kMaxHttpHeadBytes). Connections are kept alive unless the client says
// "Connection: close" (or speaks HTTP/1.0 without "keep-alive").
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_WIRE_TRANSPORT_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_WIRE_TRANSPORT_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bloomroute::thrift_internal {

enum class WireTransport {
  kUnknown,  // not yet decided: more bytes are needed
  kFramed,
  kBuffered,
  kHttp,
  kRefused,  // none of them: close the connection
};

// The bytes that always decide the transport.
inline constexpr size_t kTransportProbeBytes = 5;

// The transport of a connection whose first `size` bytes are `bytes`
// (above); kUnknown while more are needed (size < kTransportProbeBytes).
// `limit` is the largest frame.
WireTransport DetectTransport(const uint8_t* bytes, size_t size,
                              uint32_t limit);

// True when the message starting at `first_byte` is in the compact protocol.
inline bool IsCompactMessage(uint8_t first_byte) { return first_byte == 0x82; }

// The longest HTTP request head read; a longer one is answered 431.
inline constexpr size_t kMaxHttpHeadBytes = 16 << 10;
// The room a reply buffer keeps before an HTTP reply's body for its head.
inline constexpr size_t kHttpReplyHeadRoom = 128;

// What a request head says.
struct HttpRequestHead {
  int status = 0;  // 0: acceptable; else the error status to answer with
  uint32_t content_length = 0;
  bool keep_alive = true;
};

// Parses `head`, a request head through its blank line (CRLF CRLF); the body
// may be at most `limit` bytes.
HttpRequestHead ParseHttpRequestHead(std::string_view head, uint32_t limit);

// The head of a 200 reply carrying `body_bytes` of application/x-thrift; at
// most kHttpReplyHeadRoom bytes.
std::string HttpReplyHead(size_t body_bytes, bool keep_alive);

// A whole reply of error `status` (400, 411, 413, 431) that closes the
// connection.
std::string HttpErrorReply(int status);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_WIRE_TRANSPORT_H_
