// ServeCall: the single exit for errors of every Thrift handler call.
//
// A handler method runs its body, which returns a Status, through ServeCall.
// A failed Status becomes TIllegalArgument or TIOError (status_conversion.h);
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

#include "common/status.h"
#include "thrift/status_conversion.h"

namespace bloomroute::thrift_internal {

template <typename Body>
void ServeCall(const char* call, Body&& body) {
  Status status;
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Status::IOError(std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    status = Status::IOError(std::string(call) + ": " + e.what());
  }
  ThrowIfError(status);
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_SERVE_CALL_H_
