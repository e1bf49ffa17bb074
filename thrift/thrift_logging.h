// Where Thrift's own messages go. The Thrift library reports some failures
// through apache::thrift::GlobalOutput as well as by throwing (a socket that
// did not open: "TSocket::open() error on socket (after THRIFT_POLL) <Host:
// 127.0.0.1 Port: 9092>: Connection refused"); by default it prints them to
// stderr as "Thrift: <date> ...". That line is noise: a client command would
// print it before its own one-line reason, and a router whose region server
// is down would print it many times a second.
//
// RouteThriftOutputToLog sends them through the project's log (common/log.h)
// instead, component "thrift":
//   kClient  at debug level, so not shown by default: the command's own
//            error says what failed.
//   kServer  as warnings, rate-limited (LogRateLimiter): one line per peer
//            and kind of error per interval, the next one counting those
//            suppressed. The interval is 10 s, or BLOOMROUTE_LOG_INTERVAL_MS
//            milliseconds when that environment variable holds a positive
//            number (for tests).
//
// Thread-safety: call RouteThriftOutputToLog before starting threads that
// use Thrift (a later call takes effect, but a message being written may
// still go the old way); the messages may come from any thread.
#ifndef BLOOMROUTE_THRIFT_THRIFT_LOGGING_H_
#define BLOOMROUTE_THRIFT_THRIFT_LOGGING_H_

#include <string>
#include <string_view>

namespace bloomroute {

enum class ThriftOutput { kClient, kServer };

void RouteThriftOutputToLog(ThriftOutput mode);

// What a Thrift message is about, for the rate limit: the peer named in it
// ("<Host: H Port: P>" becomes "H:P"; "" when none is named) and the kind of
// error (the message without the peer, e.g. "TSocket::open() error on socket
// (after THRIFT_POLL): Connection refused").
struct ThriftMessageSource {
  std::string peer;
  std::string kind;
};
ThriftMessageSource SourceOfThriftMessage(std::string_view message);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_THRIFT_LOGGING_H_
