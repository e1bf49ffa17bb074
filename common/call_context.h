// CallContext: what one call served by this process did, for its metrics,
// the slow-call log and the audit log. The server's call wrapper
// (thrift/internal/serve_call.h) puts one on the calling thread for the
// call's duration; code below it (the handler, the router's lookup) adds
// what it learns -- the table, the servers a lookup asked -- without
// passing it through every signature, as a trace context would.
//
// Example:
//   if (CallContext* call = CurrentCall()) call->servers_asked += asked;
//
// Thread-safety: a context belongs to the thread that runs the call; work
// the call hands to other threads reports back through the calling thread.
#ifndef BLOOMROUTE_COMMON_CALL_CONTEXT_H_
#define BLOOMROUTE_COMMON_CALL_CONTEXT_H_

#include <cstdint>
#include <string>

#include "common/status.h"

namespace bloomroute {

struct CallContext {
  std::string table;           // the table the call named; empty if none
  uint32_t servers_asked = 0;  // region servers a lookup or scan asked
  uint64_t rows = 0;           // rows returned
  // How the call ended, as its handler saw it (kOk until it says otherwise).
  Status::Code outcome = Status::Code::kOk;
};

// The calling thread's call, or nullptr outside one.
CallContext* CurrentCall();

// Notes the table the current call names (nothing outside a call).
inline void NoteCallTable(const std::string& table) {
  if (CallContext* call = CurrentCall()) call->table = table;
}

// Makes `call` the calling thread's current call until destroyed (then the
// previous one is current again).
class ScopedCallContext {
 public:
  explicit ScopedCallContext(CallContext* call);
  ~ScopedCallContext();
  ScopedCallContext(const ScopedCallContext&) = delete;
  ScopedCallContext& operator=(const ScopedCallContext&) = delete;

 private:
  CallContext* previous_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_COMMON_CALL_CONTEXT_H_
