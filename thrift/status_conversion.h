// Status <-> Thrift exception: the one place where a failed Status becomes what
// a bloomroute service throws, and where a client turns that back into the
// server's Status.
//
//   InvalidArgument, NotFound            -> rpc::TIllegalArgument
//   Corruption, Unavailable, IOError     -> rpc::TIOError
//
// The exception's message is always set, to Status::ToString(), e.g.
// "InvalidArgument: row key is empty": the code name first, so a client
// adapter can restore the exact code (StatusFromServerMessage).
#ifndef BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_
#define BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_

#include <string_view>

#include "common/status.h"

namespace bloomroute {

// Returns when `status` is OK; otherwise throws the exception it maps to.
void ThrowIfError(const Status& status);

// For HBase's THBaseService calls, which declare TIOError alone: returns when
// `status` is OK, otherwise throws TIOError with Status::ToString() as its
// message (the code name first, so a client can still tell the cases apart)
// and canRetry set, true exactly for Unavailable.
void ThrowIfErrorAsIOError(const Status& status);

// True when a non-OK status with this code is sent as TIllegalArgument (the
// caller's fault, nothing written), false when sent as TIOError.
bool IsIllegalArgumentCode(Status::Code code);

// The Status a server sent as the message of a TIllegalArgument / TIOError:
// the failure code named at the start of `message` with the rest as its
// message, so that ThrowIfError(s) followed by this restores s exactly
// ("NotFound: region 7 is not open" -> NotFound "region 7 is not open"). A
// message that does not start with a failure code's name and ": " (another
// server's, or none) keeps `fallback` as the code and stays whole. `fallback`
// must not be kOk (it is taken as kIOError then).
Status StatusFromServerMessage(std::string_view message, Status::Code fallback);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_STATUS_CONVERSION_H_
