// A decoded-size budget for one Thrift message: the binary protocol, charging
// what decoding a message makes the process allocate, and refusing the
// message once the charge passes the budget.
//
// Why. The binary protocol bounds a list by its entry count (the container
// limit) and by the bytes left in the frame, but it counts an encoded struct
// as zero bytes, and the generated code resize()s a vector to the claimed
// count before it reads the first entry. An empty struct is one byte on the
// wire (its stop byte) and 50 to 250 bytes in memory, so a 64 MiB frame of
// empty structs in nested lists decodes into gigabytes before any handler
// could check a field; a 20-byte reply that claims 2^28 entries makes the
// reader allocate tens of gigabytes. The frame limit bounds bytes on the
// wire; this budget bounds bytes in memory.
//
// What is charged (bytes, per message; readMessageBegin starts a new count):
//   a list or set of n entries  n * ElementBytes(type) (+ 48 per set entry
//                               for its tree node), before the vector is
//                               made: for a struct kStructElementBytes,
//                               which is at least the sizeof of every
//                               generated struct that is an element
//                               (static_asserts in the .cc);
//                               for a string sizeof(std::string); for a
//                               number its size
//   a map of n entries          n * (key + value + 48 for the tree node)
//   a string or binary          its length + 16 when it is longer than what
//                               std::string keeps inline (15): its heap block
//                               (the std::string itself is charged with the
//                               struct or list that holds it)
// The charges are upper bounds of what the generated code allocates, so a
// message that fits the budget allocates at most about the budget (plus the
// frame buffer itself).
//
// When a charge would pass the budget, DecodeBudgetExceeded (a
// TProtocolException of type SIZE_LIMIT) is thrown before the allocation: its
// message names the budget and `limit_name`, the option that changes it. A
// list, set or map of more entries than the container limit throws
// ContainerLimitExceeded (a DecodeBudgetExceeded) the same way, naming the
// limit. The message is then abandoned; the connection must be closed (the
// rest of the frame is unread). AnswerDecodeBudgetErrors() makes a server say
// so to the client first.
//
// Thread-safety: a protocol object belongs to one connection (as every
// Thrift protocol); the factory may be shared.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_DECODE_BUDGET_H_
#define BLOOMROUTE_THRIFT_INTERNAL_DECODE_BUDGET_H_

#include <thrift/TProcessor.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TCompactProtocol.h>
#include <thrift/protocol/TProtocolException.h>
#include <thrift/protocol/TVirtualProtocol.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

namespace bloomroute::thrift_internal {

// Thrown when a message's decoded size would pass its budget. Carries the
// message's name and sequence id (from readMessageBegin) so that a server
// can answer the call with an exception.
class DecodeBudgetExceeded
    : public apache::thrift::protocol::TProtocolException {
 public:
  DecodeBudgetExceeded(const std::string& message, std::string method,
                       int32_t seqid)
      : TProtocolException(SIZE_LIMIT, message),
        method_(std::move(method)),
        seqid_(seqid) {}
  const std::string& method() const { return method_; }
  int32_t seqid() const { return seqid_; }

 private:
  std::string method_;
  int32_t seqid_;
};

// A list, set or map with more entries than the container limit. The limit
// is the router's rows per call (kMaxRowsPerCall), so a server answers it
// as the handler answers a call over that limit: InvalidArgument, in the
// call's declared exception (AnswerDecodeBudgetErrors).
class ContainerLimitExceeded : public DecodeBudgetExceeded {
 public:
  using DecodeBudgetExceeded::DecodeBudgetExceeded;
};

// One message's charges against the budget and the container limit: what
// both budgeted protocols below keep and charge the same way (a value's
// size in memory does not depend on its encoding).
class MessageBudget {
 public:
  // At least the sizeof of every struct of the bloomroute IDL that is a
  // list, set or map element (checked at compile time in the .cc; raise it
  // when a struct outgrows it). HBase's TMutation (a union of TPut and
  // TDelete, 392 bytes) is the largest.
  static constexpr uint64_t kStructElementBytes = 392;

  // `budget_bytes` > 0. `container_limit`: entries per list, set or map
  // (0 = no limit, as Thrift's; over it: ContainerLimitExceeded).
  // `limit_name` names the option that sets the budget, for the error
  // ("--max-decoded-bytes").
  MessageBudget(uint64_t budget_bytes, int32_t container_limit,
                std::string limit_name);

  // The bytes a list or set entry of `type` costs in memory (0 for a type
  // that is not a value type).
  static uint64_t ElementBytes(apache::thrift::protocol::TType type);

  // Before a message's header is read: nothing charged, no call known.
  void Reset();
  // The call the message is (named in the errors thrown from now on).
  void Begin(const std::string& method, int32_t seqid);
  // Charge a container of `size` entries (checked against the limit
  // first), or a string of `size` bytes; throw DecodeBudgetExceeded when the
  // total would pass the budget.
  void List(apache::thrift::protocol::TType elem_type, uint32_t size);
  void Set(apache::thrift::protocol::TType elem_type, uint32_t size);
  void Map(apache::thrift::protocol::TType key_type,
           apache::thrift::protocol::TType value_type, uint32_t size);
  void String(int32_t size);

  uint64_t charged() const { return charged_; }
  uint64_t budget() const { return budget_; }

 private:
  void Charge(uint64_t bytes, const char* what, uint32_t entries);
  void CheckEntries(uint32_t entries, const char* what) const;

  const uint64_t budget_;
  const uint32_t container_limit_;  // 0: none
  const std::string limit_name_;
  uint64_t charged_ = 0;
  std::string method_;  // of the message being read
  int32_t seqid_ = 0;
};

// The reads both budgeted protocols charge alike: the message's header
// (which starts a new budget) and containers. `Protocol` is the budgeted
// protocol (TVirtualProtocol dispatches to it), `Base` Thrift's protocol
// it reads with.
template <typename Protocol, typename Base>
class BudgetedReads
    : public apache::thrift::protocol::TVirtualProtocol<Protocol, Base> {
 public:
  // The bytes charged since the current message began.
  uint64_t charged() const { return budget_.charged(); }
  uint64_t budget() const { return budget_.budget(); }

  // The reading functions TVirtualProtocol dispatches to (they hide the base
  // class's).
  uint32_t readMessageBegin(std::string& name,
                            apache::thrift::protocol::TMessageType& type,
                            int32_t& seqid) {
    budget_.Reset();
    const uint32_t read = Base::readMessageBegin(name, type, seqid);
    budget_.Begin(name, seqid);
    return read;
  }
  uint32_t readListBegin(apache::thrift::protocol::TType& elem_type,
                         uint32_t& size) {
    const uint32_t read = Base::readListBegin(elem_type, size);
    budget_.List(elem_type, size);
    return read;
  }
  uint32_t readSetBegin(apache::thrift::protocol::TType& elem_type,
                        uint32_t& size) {
    const uint32_t read = Base::readSetBegin(elem_type, size);
    budget_.Set(elem_type, size);
    return read;
  }
  uint32_t readMapBegin(apache::thrift::protocol::TType& key_type,
                        apache::thrift::protocol::TType& value_type,
                        uint32_t& size) {
    const uint32_t read = Base::readMapBegin(key_type, value_type, size);
    budget_.Map(key_type, value_type, size);
    return read;
  }

 protected:
  // The container limit is checked by the budget (MessageBudget), not by
  // the base class, whose error carries no call to answer.
  BudgetedReads(
      std::shared_ptr<apache::thrift::transport::TTransport> transport,
      MessageBudget budget)
      : apache::thrift::protocol::TVirtualProtocol<Protocol, Base>(
            std::move(transport)),
        budget_(std::move(budget)) {}

  MessageBudget budget_;
};

// TBinaryProtocol (strict reads and writes) with the budget above.
class BudgetedBinaryProtocol
    : public BudgetedReads<BudgetedBinaryProtocol,
                           apache::thrift::protocol::TBinaryProtocolT<
                               apache::thrift::transport::TTransport>> {
 public:
  static constexpr uint64_t kStructElementBytes =
      MessageBudget::kStructElementBytes;

  // As MessageBudget's.
  BudgetedBinaryProtocol(
      std::shared_ptr<apache::thrift::transport::TTransport> transport,
      uint64_t budget_bytes, int32_t container_limit, std::string limit_name);

  uint32_t readString(std::string& str);
  uint32_t readBinary(std::string& str);
};

// TCompactProtocol with the same budget, charged the same way; for servers
// that take compact requests. Strings are also bounded by `string_limit`
// (the message's size: a compact string's buffer is made before its bytes
// are read).
class BudgetedCompactProtocol
    : public BudgetedReads<BudgetedCompactProtocol,
                           apache::thrift::protocol::TCompactProtocolT<
                               apache::thrift::transport::TTransport>> {
 public:
  BudgetedCompactProtocol(
      std::shared_ptr<apache::thrift::transport::TTransport> transport,
      uint64_t budget_bytes, int32_t container_limit, int32_t string_limit,
      std::string limit_name);

  uint32_t readString(std::string& str);
  uint32_t readBinary(std::string& str);
};

// Makes a BudgetedBinaryProtocol for each connection.
class BudgetedBinaryProtocolFactory
    : public apache::thrift::protocol::TProtocolFactory {
 public:
  BudgetedBinaryProtocolFactory(uint64_t budget_bytes, int32_t container_limit,
                                std::string limit_name);
  std::shared_ptr<apache::thrift::protocol::TProtocol> getProtocol(
      std::shared_ptr<apache::thrift::transport::TTransport> transport)
      override;

 private:
  const uint64_t budget_;
  const int32_t container_limit_;
  const std::string limit_name_;
};

// Wraps a server's processor: when decoding a call passes its budget, answers
// the call with a TApplicationException (PROTOCOL_ERROR) carrying the
// budget's message; when a container passes its limit, with the call's
// declared exception, "InvalidArgument: ..." naming the limit (TIOError for
// HBase's calls that declare nothing else, TIllegalArgument for the others:
// see serve_call.h). Then rethrows so that the server closes the connection.
// Everything else passes through unchanged.
std::shared_ptr<apache::thrift::TProcessor> AnswerDecodeBudgetErrors(
    std::shared_ptr<apache::thrift::TProcessor> processor);

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_DECODE_BUDGET_H_
