// The bytes of a reply: status line, the server's header fields, the
// handler's own fields (checked) and the body. No I/O, so that what goes on
// the wire is tested on its own.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_HTTP_INTERNAL_REPLY_H_
#define BLOOMROUTE_HTTP_INTERNAL_REPLY_H_

#include <string>
#include <string_view>

#include "http/http_server.h"

namespace bloomroute::http_internal {

// Whether `a` and `b` are equal but for ASCII case (header names, schemes).
bool EqualsIgnoringCase(std::string_view a, std::string_view b);

// Whether a handler's status can be sent: 200 to 599 (1xx are interim
// replies the server does not send; 100 to 199 are refused).
bool IsSendableStatus(int status);

// The reply to send for `response` (IsSendableStatus must hold):
//   HTTP/1.1 <status> <reason>
//   Content-Type, Content-Length (the body's size, for HEAD too; none on
//   204 and 304), Connection: keep-alive or close,
//   then response.headers but those the server sets (Content-Type,
//   Content-Length, Date, Connection, Transfer-Encoding) and those whose
//   name is not a token or whose value holds a control character (CR, LF,
//   NUL: a header cannot inject another),
//   then the body, unless `head` (or 204 and 304).
std::string SerializeReply(const HttpResponse& response, bool head,
                           bool keep_alive);

// A plain-text reply for an error the server answers itself: `status` with
// `message` and a newline as the body; 405 carries "Allow: GET, HEAD".
HttpResponse ErrorReply(int status, std::string_view message);

}  // namespace bloomroute::http_internal

#endif  // BLOOMROUTE_HTTP_INTERNAL_REPLY_H_
