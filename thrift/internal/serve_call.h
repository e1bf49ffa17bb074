// ServeCall: the single exit for errors of every Thrift handler call.
//
// A handler method runs its body, which returns a Status, through ServeCall.
// A failed Status becomes TIllegalArgument or TIOError (status_conversion.h),
// or TIOError alone for the HBase calls that declare nothing else;
// any exception escaping the body (std::bad_alloc, a library error) becomes
// TIOError naming the call. So nothing but the two declared exceptions ever
// reaches a client, and its connection stays usable.
//
// Usage:
//   void Handler::get(rpc::TResult& result, const rpc::TGet& get) {
//     ServeCall("get", [&]() -> Status { ...; return Status::OK(); });
//   }
#ifndef BLOOMROUTE_THRIFT_INTERNAL_SERVE_CALL_H_
#define BLOOMROUTE_THRIFT_INTERNAL_SERVE_CALL_H_

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "common/call_context.h"
#include "common/status.h"
#include "thrift/status_conversion.h"

namespace bloomroute::thrift_internal {

// Runs `body`, turning an escaping exception into IOError naming the call.
// The outcome is noted in the thread's CallContext, for the call's metrics
// (server_metrics.h).
template <typename Body>
Status RunCallBody(const char* call, Body&& body) {
  Status status;
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Status::IOError(std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    status = Status::IOError(std::string(call) + ": " + e.what());
  }
  if (CallContext* context = CurrentCall()) context->outcome = status.code();
  return status;
}

// Calls that declare TIllegalArgument and TIOError (bloomroute's own, and
// HBase's getScannerRows and closeScanner).
template <typename Body>
void ServeCall(const char* call, Body&& body) {
  ThrowIfError(RunCallBody(call, std::forward<Body>(body)));
}

// HBase's calls that declare TIOError alone: every failure is a TIOError
// (ThrowIfErrorAsIOError), so an HBase client never sees an undeclared
// exception.
template <typename Body>
void ServeHBaseCall(const char* call, Body&& body) {
  ThrowIfErrorAsIOError(RunCallBody(call, std::forward<Body>(body)));
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_SERVE_CALL_H_
