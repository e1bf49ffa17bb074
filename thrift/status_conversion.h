// Status -> Thrift exception: the one place where a failed Status becomes what
// a bloomroute service throws.
//
//   InvalidArgument, NotFound            -> rpc::TIllegalArgument
//   Corruption, Unavailable, IOError     -> rpc::TIOError
//
// The exception's message is always set, to Status::ToString(), e.g.
// "InvalidArgument: row key is empty": the code name first, so a client
// adapter can restore the exact code.
#ifndef BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_
#define BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_

#include "common/status.h"

namespace bloomroute {

// Returns when `status` is OK; otherwise throws the exception it maps to.
void ThrowIfError(const Status& status);

// True when a non-OK status with this code is sent as TIllegalArgument (the
// caller's fault, nothing written), false when sent as TIOError.
bool IsIllegalArgumentCode(Status::Code code);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_
