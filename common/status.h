// Status: the result of an operation that can fail, without exceptions.
//
// Core code returns Status (or StatusOr<T>, see statusor.h) and never throws. A
// Status is either OK or carries one of a small set of codes and a message
// meant for a human:
//
//   InvalidArgument  the caller passed something that can never succeed as
//   given
//                    (bad configuration, out-of-range index, removing an absent
//                    element). Not retried.
//   NotFound         the named thing does not exist. Not retried.
//   Corruption       stored or received bytes fail validation (bad checksum,
//                    truncated, impossible sizes). Not retried.
//   Unavailable      a dependency is temporarily unreachable. The only code
//   that
//                    callers retry.
//   IOError          an operating-system or storage failure. Not retried.
//   Aborted          refused because of a concurrent change, with nothing
//                    done (a write carrying a fence token below the region
//                    server's fence). The caller may retry it as a new
//                    request; callers that cannot tell why do not.
//   PermissionDenied the caller is not authenticated, or its role does not
//                    allow the call (thrift/server/security.h); nothing was
//                    done. Not retried.
//
// Example:
//   Status s = counters.Decrement(i);
//   if (!s.ok()) return s;
//
// Thread-safety: a Status is a value; distinct objects may be used
// concurrently.
#ifndef BLOOMROUTE_COMMON_STATUS_H_
#define BLOOMROUTE_COMMON_STATUS_H_

#include <string>
#include <string_view>
#include <utility>

namespace bloomroute {

class [[nodiscard]] Status {
 public:
  enum class Code : int {
    kOk = 0,
    kInvalidArgument = 1,
    kNotFound = 2,
    kCorruption = 3,
    kUnavailable = 4,
    kIOError = 5,
    kAborted = 6,
    kPermissionDenied = 7,
  };

  // An OK status.
  Status() = default;

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string_view msg) {
    return Status(Code::kInvalidArgument, msg);
  }
  static Status NotFound(std::string_view msg) {
    return Status(Code::kNotFound, msg);
  }
  static Status Corruption(std::string_view msg) {
    return Status(Code::kCorruption, msg);
  }
  static Status Unavailable(std::string_view msg) {
    return Status(Code::kUnavailable, msg);
  }
  static Status IOError(std::string_view msg) {
    return Status(Code::kIOError, msg);
  }
  static Status Aborted(std::string_view msg) {
    return Status(Code::kAborted, msg);
  }
  static Status PermissionDenied(std::string_view msg) {
    return Status(Code::kPermissionDenied, msg);
  }

  bool ok() const { return code_ == Code::kOk; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsUnavailable() const { return code_ == Code::kUnavailable; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsAborted() const { return code_ == Code::kAborted; }
  bool IsPermissionDenied() const { return code_ == Code::kPermissionDenied; }

  // Only Unavailable is worth retrying; see the table above.
  bool IsRetryable() const { return code_ == Code::kUnavailable; }

  // "OK" or "<Code>: <message>", e.g. "Corruption: checksum mismatch".
  std::string ToString() const;

  // Returns a status with the same code and "context: message".
  Status WithContext(std::string_view context) const;

 private:
  Status(Code code, std::string_view msg) : code_(code), message_(msg) {}

  Code code_ = Code::kOk;
  std::string message_;
};

// The name of a code, e.g. "InvalidArgument".
const char* StatusCodeName(Status::Code code);

}  // namespace bloomroute

// Evaluates `expr` (a Status) and returns it from the calling function if not
// OK.
#define BLOOMROUTE_RETURN_IF_ERROR(expr)      \
  do {                                        \
    ::bloomroute::Status _br_status = (expr); \
    if (!_br_status.ok()) return _br_status;  \
  } while (0)

#endif  // BLOOMROUTE_COMMON_STATUS_H_
