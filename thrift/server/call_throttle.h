// CallThrottle: a check the frame loop (internal/frame_loop.h) makes on every
// request frame that access control passed, before the processor decodes a byte
// of its arguments, and a charge after the call ran. The router's quotas
// (quota_throttle.h) are one; region servers have none.
//
// Thread-safety: Admit and Settle are called from the workers, concurrently.
#ifndef BLOOMROUTE_THRIFT_SERVER_CALL_THROTTLE_H_
#define BLOOMROUTE_THRIFT_SERVER_CALL_THROTTLE_H_

#include <thrift/protocol/TProtocol.h>

#include <cstddef>
#include <cstdint>
#include <memory>

#include "thrift/server/access_control.h"
#include "thrift/server/security.h"

namespace bloomroute::thrift_internal {

class CallThrottle {
 public:
  // What an admitted call was charged to, for Settle.
  class Ticket {
   public:
    virtual ~Ticket() = default;
  };

  virtual ~CallThrottle() = default;

  // Checks the request in `frame` (one whole request frame, without its
  // length) of `caller`: kPass (with `*ticket` set when the call is charged
  // and must be settled), kAnswered with a refusal written to `out`, or
  // kClose for a refused oneway call (which has no reply to carry one).
  virtual AccessControl::Verdict Admit(const uint8_t* frame, size_t size,
                                       const Identity& caller,
                                       apache::thrift::protocol::TProtocol* out,
                                       std::unique_ptr<Ticket>* ticket) = 0;
  // Charges an admitted call's reply of `reply_bytes`.
  virtual void Settle(Ticket& ticket, uint64_t reply_bytes) = 0;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_CALL_THROTTLE_H_
