// CallDispatcher: what the frame loop (frame_loop.h) does with one whole
// request frame of a connection, on a worker: it reads the method name from
// the message (ServerMetrics::Call), checks access control
// (../access_control.h) and then the call throttle (../call_throttle.h), runs
// the connection's processor on the frame when both pass, and records the call
// (metrics, the slow-call and audit logs: server_metrics.h).
//
// Contract. Run() reads c.frame and c.identity (an authenticate call may
// set it), may set c.close_after_reply, and returns the reply: a buffer that
// starts with c.ReplyPrefixBytes() for the transport's framing (the caller
// fills them in: Connection::SealReply) followed by the processor's output
// in the request's protocol (compact or binary: wire_transport.h), or
// nullptr when the connection must
// close (bytes that are not a valid message, a refused oneway call, a
// processor that gave up on the connection). A refused call is answered
// without running; a request past the decoded budget is answered with the
// exception that names it, and c.close_after_reply is set (the rest of its
// frame was never read). Run() neither frees the frame nor counts the reply:
// the request pool does (request_pool.h).
//
// Thread-safety: Run() from any number of workers at once, each with a
// connection of its own; the dispatcher holds no lock of its own (access
// control, the throttle and the metrics are thread-safe).
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_DISPATCH_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_DISPATCH_H_

#include <thrift/TConfiguration.h>
#include <thrift/protocol/TProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <string>

#include "thrift/server/access_control.h"
#include "thrift/server/call_throttle.h"
#include "thrift/server/internal/connection.h"
#include "thrift/server/internal/server_metrics.h"
#include "thrift/server/thrift_server.h"

namespace bloomroute::thrift_internal {

class CallDispatcher {
 public:
  // `name` prefixes the rare message logged for a call that failed with an
  // unexpected exception. `access` null: every call passes and no handler
  // sees a caller; `throttle` null: none. `metrics` (not null) outlives the
  // dispatcher. Requests are decoded with options.DecodedBudget() and
  // `config`'s bounds.
  CallDispatcher(std::string name, const ServerOptions& options,
                 std::shared_ptr<apache::thrift::TConfiguration> config,
                 std::shared_ptr<const AccessControl> access,
                 std::shared_ptr<CallThrottle> throttle,
                 ServerMetrics* metrics);
  CallDispatcher(const CallDispatcher&) = delete;
  CallDispatcher& operator=(const CallDispatcher&) = delete;

  // Runs c's whole request frame (above). c.processor is not null.
  std::shared_ptr<apache::thrift::transport::TMemoryBuffer> Run(
      Connection& c) const;

  // True when access is checked and `identity` may make no call yet: such a
  // connection gets small frames, a request's time to authenticate, and one
  // answer.
  bool MayCallNothing(const Identity& identity) const {
    return access_ != nullptr && !access_->MayCallAnything(identity);
  }
  // Whether access is checked (a TLS port).
  bool checks_access() const { return access_ != nullptr; }

 private:
  // Access control, then the throttle: kPass (with `*ticket` set when the
  // throttle charged the call), or their answer in `out`. `*outcome` names
  // a refusal for the metrics ("" when the call passed).
  AccessControl::Verdict Admit(Connection& c, const std::string& method,
                               apache::thrift::protocol::TProtocol* out,
                               std::unique_ptr<CallThrottle::Ticket>* ticket,
                               std::string* outcome) const;
  // Admit(), then the processor when the call passed; true when `output`
  // holds a reply to send. Throws what the processor throws.
  bool Process(
      Connection& c, const std::string& method,
      const std::shared_ptr<apache::thrift::transport::TMemoryBuffer>& output,
      std::string* outcome) const;

  const std::string name_;
  const uint64_t decoded_budget_;
  const std::shared_ptr<apache::thrift::TConfiguration> config_;
  const std::shared_ptr<const AccessControl> access_;
  const std::shared_ptr<CallThrottle> throttle_;
  ServerMetrics* const metrics_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_DISPATCH_H_
