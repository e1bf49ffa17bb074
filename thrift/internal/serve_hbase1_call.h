// ServeHbase1Call: the single exit for errors of the Thrift1 handler's calls
// (thrift/hbase1_service_handler.h), as serve_call.h is the Thrift2
// handler's.
//
// A Thrift1 call's body returns a Status and may call the Thrift2 handler,
// whose failures arrive as TIOError / TIllegalArgument. Every failure leaves
// as one of the exceptions the Thrift1 method declares:
//   InvalidArgument or NotFound (ours), TIllegalArgument, or a TIOError whose
//     message starts "InvalidArgument: "  -> IllegalArgument when the method
//                                            declares it, else IOError
//   anything else                         -> IOError (canRetry for
//                                            Unavailable)
// The message is the status' text ("InvalidArgument: ...", "NotFound: ...")
// or the Thrift2 exception's, which starts the same way. Any other
// exception (std::bad_alloc, a library error) becomes IOError naming the
// call, so the connection stays usable. A failure is noted in the thread's
// CallContext (the Thrift2 handler notes its own), for the call's metrics and
// the audit log.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_SERVE_HBASE1_CALL_H_
#define BLOOMROUTE_THRIFT_INTERNAL_SERVE_HBASE1_CALL_H_

#include <exception>
#include <new>
#include <string>

#include "common/call_context.h"
#include "common/status.h"
#include "thrift/gen-cpp/errors_types.h"
#include "thrift/gen-cpp/hbase1_service_types.h"

namespace bloomroute::thrift_internal {

// Which exceptions a Thrift1 method declares besides IOError.
enum class Hbase1Declares { kIOError, kIllegalArgument };

// Throws what `status` (not OK) becomes; returns for OK.
void ThrowIfHbase1Error(const Status& status, Hbase1Declares declares);
// Throws what a Thrift2 handler's exception becomes.
[[noreturn]] void ThrowHbase1IllegalArgument(const std::string& message,
                                             Hbase1Declares declares);
[[noreturn]] void ThrowHbase1IOError(const std::string& message, bool can_retry,
                                     Hbase1Declares declares);

template <typename Body>
void ServeHbase1Call(const char* call, Hbase1Declares declares, Body&& body) {
  Status status;
  try {
    status = body();
  } catch (const rpc::TIllegalArgument& e) {
    ThrowHbase1IllegalArgument(e.message, declares);
  } catch (const rpc::TIOError& e) {
    ThrowHbase1IOError(e.message, e.__isset.canRetry && e.canRetry, declares);
  } catch (const rpc::hbase1::AlreadyExists&) {
    throw;
  } catch (const std::bad_alloc&) {
    status = Status::IOError(std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    status = Status::IOError(std::string(call) + ": " + e.what());
  }
  if (CallContext* context = CurrentCall(); !status.ok() && context) {
    context->outcome = status.code();
  }
  ThrowIfHbase1Error(status, declares);
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_SERVE_HBASE1_CALL_H_
