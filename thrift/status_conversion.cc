#include "thrift/status_conversion.h"

#include "thrift/gen-cpp/errors_types.h"

namespace bloomroute {
namespace {

Status WithCode(Status::Code code, std::string_view message) {
  switch (code) {
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(message);
    case Status::Code::kNotFound:
      return Status::NotFound(message);
    case Status::Code::kCorruption:
      return Status::Corruption(message);
    case Status::Code::kUnavailable:
      return Status::Unavailable(message);
    case Status::Code::kAborted:
      return Status::Aborted(message);
    case Status::Code::kPermissionDenied:
      return Status::PermissionDenied(message);
    case Status::Code::kOk:
    case Status::Code::kIOError:
      break;
  }
  return Status::IOError(message);
}

}  // namespace

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
  if (status.code() == Status::Code::kUnavailable) e.__set_canRetry(true);
  throw e;
}

void ThrowIfErrorAsIOError(const Status& status) {
  if (status.ok()) return;
  rpc::TIOError e;
  e.__set_message(status.ToString());
  e.__set_canRetry(status.code() == Status::Code::kUnavailable);
  throw e;
}

Status StatusFromServerMessage(std::string_view message,
                               Status::Code fallback) {
  for (Status::Code code :
       {Status::Code::kInvalidArgument, Status::Code::kNotFound,
        Status::Code::kCorruption, Status::Code::kUnavailable,
        Status::Code::kIOError, Status::Code::kAborted,
        Status::Code::kPermissionDenied}) {
    const std::string_view name = StatusCodeName(code);
    if (message.size() >= name.size() + 2 &&
        message.substr(0, name.size()) == name &&
        message.substr(name.size(), 2) == ": ") {
      return WithCode(code, message.substr(name.size() + 2));
    }
  }
  return WithCode(fallback, message);
}

}  // namespace bloomroute
