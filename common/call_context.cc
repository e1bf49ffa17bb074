#include "common/call_context.h"

namespace bloomroute {
namespace {
thread_local CallContext* current_call = nullptr;
}  // namespace

CallContext* CurrentCall() { return current_call; }

ScopedCallContext::ScopedCallContext(CallContext* call)
    : previous_(current_call) {
  current_call = call;
}

ScopedCallContext::~ScopedCallContext() { current_call = previous_; }

}  // namespace bloomroute
