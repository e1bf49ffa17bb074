// StatusOr<T>: either a value of type T or a non-OK Status explaining its
// absence.
//
// Modelled on absl::StatusOr. Use it for functions that produce a value or
// fail:
//
//   StatusOr<DdcfCounterVector> v = DdcfCounterVector::Create(m, 4);
//   if (!v.ok()) return v.status();
//   v->Increment(0);
//
// Constructing a StatusOr from an OK Status is a programming error; it is
// turned into an InvalidArgument status so that it can never be mistaken for a
// value. value() / operator* on a StatusOr without a value aborts (it is a bug
// in the caller, who must check ok() first).
#ifndef BLOOMROUTE_COMMON_STATUSOR_H_
#define BLOOMROUTE_COMMON_STATUSOR_H_

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <type_traits>
#include <utility>

#include "common/status.h"

namespace bloomroute {

template <typename T>
class [[nodiscard]] StatusOr {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>,
                "StatusOr<Status> is not allowed");

 public:
  // A failed result. `status` must not be OK.
  StatusOr(Status status)  // NOLINT(google-explicit-constructor)
      : status_(std::move(status)) {
    if (status_.ok()) {
      status_ = Status::InvalidArgument("StatusOr constructed from OK status");
    }
  }
  // A successful result holding `value`.
  StatusOr(T value)  // NOLINT(google-explicit-constructor)
      : value_(std::move(value)) {}

  StatusOr(const StatusOr&) = default;
  StatusOr(StatusOr&&) noexcept = default;
  StatusOr& operator=(const StatusOr&) = default;
  StatusOr& operator=(StatusOr&&) noexcept = default;

  bool ok() const { return value_.has_value(); }
  // OK when a value is held, the failure otherwise.
  const Status& status() const { return status_; }

  const T& value() const& {
    CheckValue();
    return *value_;
  }
  T& value() & {
    CheckValue();
    return *value_;
  }
  T&& value() && {
    CheckValue();
    return std::move(*value_);
  }

  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

 private:
  void CheckValue() const {
    if (!value_.has_value()) {
      std::fprintf(stderr, "StatusOr has no value: %s\n",
                   status_.ToString().c_str());
      std::abort();
    }
  }

  Status status_;
  std::optional<T> value_;
};

}  // namespace bloomroute

// Evaluates `rexpr` (a StatusOr<T>); on failure returns its status from the
// calling function, otherwise moves the value into `lhs` (a declaration or an
// lvalue).
#define BLOOMROUTE_ASSIGN_OR_RETURN(lhs, rexpr) \
  BLOOMROUTE_ASSIGN_OR_RETURN_IMPL_(            \
      BLOOMROUTE_CONCAT_(_br_statusor_, __LINE__), lhs, rexpr)
#define BLOOMROUTE_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                      \
  if (!tmp.ok()) return tmp.status();                      \
  lhs = std::move(tmp).value()
#define BLOOMROUTE_CONCAT_(a, b) BLOOMROUTE_CONCAT_INNER_(a, b)
#define BLOOMROUTE_CONCAT_INNER_(a, b) a##b

#endif  // BLOOMROUTE_COMMON_STATUSOR_H_
