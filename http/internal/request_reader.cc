#include "http/internal/request_reader.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cctype>
#include <iterator>
#include <utility>

namespace bloomroute::http_internal {

namespace beast_http = boost::beast::http;

struct RequestReader::Parser {
  explicit Parser(const RequestLimits& limits) {
    parser.header_limit(limits.max_header_bytes);
    parser.body_limit(limits.max_body_bytes);
    // Stop after the header, so that the method is checked before any of
    // the body is taken.
    parser.eager(false);
  }
  beast_http::request_parser<beast_http::string_body> parser;
};

namespace {

std::string Lower(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return lower;
}

}  // namespace

RequestReader::RequestReader(RequestLimits limits)
    : limits_(limits), parser_(std::make_unique<Parser>(limits)) {}

RequestReader::~RequestReader() = default;

bool RequestReader::started() const {
  return !pending_.empty() || parser_->parser.got_some();
}

RequestReader::State RequestReader::Feed(std::string_view bytes) {
  if (state_ == State::kError) return state_;
  pending_.append(bytes.data(), bytes.size());
  if (state_ == State::kComplete) return state_;
  return Parse();
}

RequestReader::State RequestReader::Next() {
  if (state_ == State::kError) return state_;
  parser_ = std::make_unique<Parser>(limits_);
  header_checked_ = false;
  header_bytes_ = 0;
  header_fields_ = 0;
  request_ = HttpRequest();
  keep_alive_ = false;
  state_ = State::kNeedMore;
  return Parse();
}

RequestReader::State RequestReader::Parse() {
  auto& parser = parser_->parser;
  while (state_ == State::kNeedMore) {
    if (!header_checked_ && parser.is_header_done()) {
      if (AfterHeader() != State::kNeedMore) break;
      continue;
    }
    if (parser.is_done()) return Complete();
    if (pending_.empty()) break;
    boost::beast::error_code error;
    const bool in_header = !parser.is_header_done();
    const size_t used = parser.put(
        boost::asio::const_buffer(pending_.data(), pending_.size()), error);
    pending_.erase(0, used);
    if (in_header) header_bytes_ += used;
    if (error == beast_http::error::need_more || (!error && used == 0)) {
      // Beast takes a header or chunk line only whole: what it left is
      // kept, bounded here (Beast bounds the header itself, not a chunk
      // line or the trailer).
      if (pending_.size() <= limits_.max_header_bytes) break;
      return parser.is_header_done()
                 ? Fail(400, "malformed", "a chunk line or trailer too long")
                 : Fail(431, "header_bytes", "header too large");
    }
    if (error == beast_http::error::header_limit) {
      return Fail(431, "header_bytes", "header too large");
    }
    if (error == beast_http::error::body_limit) {
      return Fail(413, "body_bytes", "body too large");
    }
    if (error == beast_http::error::bad_version) {
      return Fail(505, "malformed", "not HTTP/1.0 or HTTP/1.1");
    }
    if (error) return Fail(400, "malformed", error.message());
  }
  return state_;
}

RequestReader::State RequestReader::AfterHeader() {
  header_checked_ = true;
  // Beast's own count lets a header past its limit through when it came in
  // pieces; this one counts what the header took.
  if (header_bytes_ > limits_.max_header_bytes) {
    return Fail(431, "header_bytes", "header too large");
  }
  const auto& header = parser_->parser.get();
  header_fields_ =
      static_cast<size_t>(std::distance(header.begin(), header.end()));
  if (header.version() != 10 && header.version() != 11) {
    return Fail(505, "malformed", "not HTTP/1.0 or HTTP/1.1");
  }
  if (header.method() != beast_http::verb::get &&
      header.method() != beast_http::verb::head) {
    return Fail(405, nullptr,
                "method " + std::string(header.method_string()) +
                    " not allowed (GET, HEAD)");
  }
  if (header.target().empty() || header.target().front() != '/') {
    return Fail(400, "malformed", "the target is not a path");
  }
  return state_;
}

RequestReader::State RequestReader::Complete() {
  auto& message = parser_->parser.get();
  request_.method = std::string(message.method_string());
  const std::string_view target(message.target().data(),
                                message.target().size());
  const size_t question = target.find('?');
  request_.path = std::string(target.substr(0, question));
  request_.query = question == std::string_view::npos
                       ? std::string()
                       : std::string(target.substr(question + 1));
  // The header's fields only: a chunked body's trailer fields (Beast adds
  // them to the same list) are dropped, as a proxy could not vouch for them.
  size_t taken = 0;
  for (const auto& field : message) {
    if (taken++ == header_fields_) break;
    request_.headers.emplace_back(
        Lower(std::string_view(field.name_string().data(),
                               field.name_string().size())),
        std::string(field.value()));
  }
  request_.body = std::move(message.body());
  keep_alive_ = message.keep_alive();
  state_ = State::kComplete;
  return state_;
}

RequestReader::State RequestReader::Fail(int status, const char* bound,
                                         std::string message) {
  error_status_ = status;
  error_bound_ = bound;
  error_message_ = std::move(message);
  pending_.clear();
  pending_.shrink_to_fit();
  state_ = State::kError;
  return state_;
}

}  // namespace bloomroute::http_internal
