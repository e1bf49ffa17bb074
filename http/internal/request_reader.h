// RequestReader: the HTTP server's one parsing path, bytes in, requests or
// the error to answer out. It does no I/O, so that it can be fed any
// chunking of any bytes (tests/http/request_reader_fuzz_test.cc).
//
// Built on Boost.Beast's request_parser (header_limit, body_limit) with
// what the server adds: only GET and HEAD (405 otherwise), only HTTP/1.0
// and 1.1 (505), an origin-form target (a path starting with '/', 400
// otherwise), and a bound on bytes kept between calls.
//
// Memory: the reader keeps the bytes of a request that it cannot parse yet
// (a partial header or chunk line), at most limits.max_header_bytes plus
// the last Feed's bytes; past that the request is refused. A body is kept
// up to limits.max_body_bytes.
//
// Example:
//   RequestReader reader(RequestLimits{16 << 10, 0});
//   for (;;) {
//     switch (reader.Feed(ReadSomeBytes())) {
//       case RequestReader::State::kNeedMore: continue;
//       case RequestReader::State::kComplete: Serve(reader.TakeRequest());
//                                              reader.Next(); ...
//       case RequestReader::State::kError: Answer(reader.error_status());
//     }
//   }
//
// Thread-safety: none; one reader per connection.
#ifndef BLOOMROUTE_HTTP_INTERNAL_REQUEST_READER_H_
#define BLOOMROUTE_HTTP_INTERNAL_REQUEST_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "http/http_server.h"

namespace bloomroute::http_internal {

struct RequestLimits {
  uint32_t max_header_bytes = 16 << 10;  // request line and fields
  uint32_t max_body_bytes = 0;
};

class RequestReader {
 public:
  enum class State {
    kNeedMore,  // feed more bytes
    kComplete,  // request() is ready; later bytes are kept for Next()
    kError,     // answer error_status() and close the connection
  };

  explicit RequestReader(RequestLimits limits);
  ~RequestReader();
  RequestReader(const RequestReader&) = delete;
  RequestReader& operator=(const RequestReader&) = delete;

  // Takes the next bytes of the stream, split anywhere. After kComplete or
  // kError, further bytes are kept (kComplete) or ignored (kError) and the
  // state stays until Next().
  State Feed(std::string_view bytes);
  // Begins the next request on the same stream, parsing the bytes kept
  // after the last one (pipelining): its state, kNeedMore when none.
  // After kError the reader stays in kError.
  State Next();

  State state() const { return state_; }
  // Whether any byte of the current request has arrived (the request
  // timeout runs from it).
  bool started() const;

  // After kComplete: the request's method, path, query, header fields
  // (names in lower case; a chunked body's trailer fields are dropped) and
  // body; the connection fields of HttpRequest are left empty. TakeRequest
  // moves it out (call once per request).
  const HttpRequest& request() const { return request_; }
  HttpRequest TakeRequest() { return std::move(request_); }
  // After kComplete: whether the connection may carry another request
  // (HTTP/1.1 without "Connection: close", or 1.0 with keep-alive).
  bool keep_alive() const { return keep_alive_; }

  // After kError: 400 (malformed), 405 (not GET or HEAD), 413 (body over
  // the limit), 431 (header over the limit), 505 (not HTTP/1.x).
  int error_status() const { return error_status_; }
  // After kError: the bound that was hit, by HttpServerStats' names
  // ("malformed", "header_bytes", "body_bytes"), or nullptr for a method
  // the server does not serve (not a bound).
  const char* error_bound() const { return error_bound_; }
  // After kError: what was wrong, for a log line or the reply's body.
  const std::string& error_message() const { return error_message_; }

  // Bytes kept and not parsed yet.
  size_t buffered_bytes() const { return pending_.size(); }

 private:
  struct Parser;

  State Parse();
  State AfterHeader();
  State Complete();
  State Fail(int status, const char* bound, std::string message);

  const RequestLimits limits_;
  std::unique_ptr<Parser> parser_;
  std::string pending_;  // received, not yet taken by the parser
  bool header_checked_ = false;
  size_t header_bytes_ = 0;   // taken by the parser for the header
  size_t header_fields_ = 0;  // fields before a chunked body's trailer
  State state_ = State::kNeedMore;
  HttpRequest request_;
  bool keep_alive_ = false;
  int error_status_ = 0;
  const char* error_bound_ = nullptr;
  std::string error_message_;
};

}  // namespace bloomroute::http_internal

#endif  // BLOOMROUTE_HTTP_INTERNAL_REQUEST_READER_H_
