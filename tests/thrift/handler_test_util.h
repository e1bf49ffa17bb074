// Test helpers shared by the Thrift handler and server tests: fault injection
// for the doubles a handler calls (FakeRegionStore, FakeRouter), and the
// checks every handler must pass -- each failure leaves as the declared
// exception its Status maps to, and nothing else ever leaves.
#ifndef BLOOMROUTE_TESTS_THRIFT_HANDLER_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_HANDLER_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "thrift/gen-cpp/errors_types.h"
#include "thrift/status_conversion.h"

namespace bloomroute::testing {

// What a double's calls do besides their work: each call counts itself, then
// throws std::runtime_error(`explosion`) when ThrowOnCall is set, or returns
// the status FailWith set (OK by default). Thread-safe.
class FaultInjector {
 public:
  explicit FaultInjector(std::string explosion)
      : explosion_(std::move(explosion)) {}

  void FailWith(Status status) {
    std::lock_guard<std::mutex> lock(fault_mutex_);
    fail_ = std::move(status);
  }
  void ThrowOnCall(bool value) {
    std::lock_guard<std::mutex> lock(fault_mutex_);
    throw_ = value;
  }
  int calls() const {
    std::lock_guard<std::mutex> lock(fault_mutex_);
    return calls_;
  }

 protected:
  // Call first in every method of the double.
  Status Enter() const {
    std::lock_guard<std::mutex> lock(fault_mutex_);
    ++calls_;
    if (throw_) throw std::runtime_error(explosion_);
    return fail_;
  }

 private:
  const std::string explosion_;
  mutable std::mutex fault_mutex_;
  mutable int calls_ = 0;  // guarded by fault_mutex_
  Status fail_;            // guarded by fault_mutex_
  bool throw_ = false;     // guarded by fault_mutex_
};

// A handler call by name, with valid arguments.
using HandlerCall = std::pair<std::string, std::function<void()>>;

// Every call throws what `failure` maps to (TIllegalArgument or TIOError),
// with failure.ToString() as the message.
inline void ExpectEveryCallFailsWith(const std::vector<HandlerCall>& calls,
                                     const Status& failure) {
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name + " with " + failure.ToString());
    try {
      call();
      ADD_FAILURE() << "nothing thrown";
    } catch (const rpc::TIllegalArgument& e) {
      EXPECT_TRUE(IsIllegalArgumentCode(failure.code()));
      EXPECT_EQ(e.message, failure.ToString());
    } catch (const rpc::TIOError& e) {
      EXPECT_FALSE(IsIllegalArgumentCode(failure.code()));
      EXPECT_EQ(e.message, failure.ToString());
    }
  }
}

// Every status code a double can fail with, for ExpectEveryCallFailsWith.
inline std::vector<Status> EveryFailure() {
  return {Status::InvalidArgument("bad"), Status::NotFound("gone"),
          Status::Corruption("rot"), Status::Unavailable("later"),
          Status::IOError("disk")};
}

// Every call throws TIOError "<name>: <explosion>" when the double below
// throws `explosion`.
inline void ExpectEveryCallThrowsTIOError(const std::vector<HandlerCall>& calls,
                                          const std::string& explosion) {
  for (const auto& [name, call] : calls) {
    SCOPED_TRACE(name);
    try {
      call();
      ADD_FAILURE() << "nothing thrown";
    } catch (const rpc::TIOError& e) {
      EXPECT_THAT(e.message, ::testing::HasSubstr(name + ": " + explosion));
    }
  }
}

// `call` throws TIllegalArgument whose message contains `text`.
inline void ExpectIllegal(const std::function<void()>& call,
                          const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no TIllegalArgument for " << text;
  } catch (const rpc::TIllegalArgument& e) {
    EXPECT_THAT(e.message, ::testing::HasSubstr(text));
  }
}

// `call` throws TIOError whose message contains `text` (HBase's calls, which
// declare nothing else: "InvalidArgument: ...", "NotFound: ...").
inline void ExpectIOError(const std::function<void()>& call,
                          const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no TIOError for " << text;
  } catch (const rpc::TIOError& e) {
    EXPECT_THAT(e.message, ::testing::HasSubstr(text));
  }
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_THRIFT_HANDLER_TEST_UTIL_H_
