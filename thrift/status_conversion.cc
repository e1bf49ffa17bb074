#include "thrift/status_conversion.h"

#include "thrift/gen-cpp/errors_types.h"

namespace bloomroute {

bool IsIllegalArgumentCode(Status::Code code) {
  // NotFound is the caller's fault too: the region or table it named is not
  // served here, and retrying the same request cannot succeed.
  return code == Status::Code::kInvalidArgument ||
         code == Status::Code::kNotFound;
}

void ThrowIfError(const Status& status) {
  if (status.ok()) return;
  if (IsIllegalArgumentCode(status.code())) {
    rpc::TIllegalArgument e;
    e.__set_message(status.ToString());
    throw e;
  }
  rpc::TIOError e;
  e.__set_message(status.ToString());
  throw e;
}

}  // namespace bloomroute
