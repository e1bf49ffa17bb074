// MessageSkipper: finds where one Thrift message ends in bytes that arrive a
// piece at a time, for transports without a frame length (the buffered
// transport: HBase's default). It walks the message's structure (header,
// fields, containers, strings) without decoding a value, and resumes where it
// stopped when more bytes arrive.
//
// Protocol: from the message's first byte, as the server chooses its
// protocol (wire_transport.h): 0x82 is the compact protocol, anything else
// binary (0x80 strict, else the non-strict header whose name length comes
// first).
//
// Cost. Each call goes on from the last whole token (a field header, a
// number, a string with its length, a container header); a token that has
// not arrived whole is tried again on the next call, and the longest such
// token without a length in it is 10 bytes (a varint), so a message of n
// bytes costs O(n) over all the calls however it is split, never a rescan
// of what was read. Once the length of a string (or the count of a
// container) is read, needed() is the least the whole message can be: at
// least the string's end, so a reader can refuse a message over its limit
// before its bytes arrive, and read large values in large pieces without
// reading past the message's end.
//
// Bounds: nesting at most kMaxDepth structs and containers (Thrift's default
// recursion limit); a negative length or count, an unknown type or a bad
// protocol version make the message invalid. Nothing is allocated for a
// claimed size: the stack holds one entry per nesting level.
//
// Thread-safety: one thread at a time (a connection's).
#ifndef BLOOMROUTE_THRIFT_SERVER_INTERNAL_MESSAGE_SKIPPER_H_
#define BLOOMROUTE_THRIFT_SERVER_INTERNAL_MESSAGE_SKIPPER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace bloomroute::thrift_internal {

class MessageSkipper {
 public:
  static constexpr size_t kMaxDepth = 64;

  enum class Result {
    kNeedMore,  // the message goes on: at least needed() bytes in all
    kWhole,     // the message ends at end()
    kInvalid,   // not a Thrift message of either protocol
  };

  MessageSkipper() = default;

  // Goes on over `data[0, size)`, the bytes of the message so far: the same
  // bytes as at the last call, and perhaps more (after Reset(): from the
  // message's first byte). Past kWhole or kInvalid it returns the same.
  Result Resume(const uint8_t* data, size_t size);
  // After kNeedMore: the least number of bytes the whole message has
  // (more than `size`).
  uint64_t needed() const { return needed_; }
  // After kWhole: the message's length (<= size; the rest is the next
  // message's).
  size_t end() const { return pos_; }
  // Forgets the message, for the next one.
  void Reset();

 private:
  // What the token at pos_ is.
  enum class Step : uint8_t {
    kHeader,       // the message header (one token per protocol field)
    kFieldHeader,  // a struct's next field, or its stop
    kValue,        // a value of pending_type_
    kElement,      // the top container's next element, or its end
  };
  // A struct, or a container with `left` elements to go (a map's keys and
  // values alternate, key first: `left` starts at twice its entries).
  struct Level {
    bool is_struct = true;
    uint8_t key_type = 0;    // a list's or set's element type; a map's key
    uint8_t value_type = 0;  // a map's value type (= key_type otherwise)
    uint64_t left = 0;
  };
  enum class Token { kDone, kShort, kBad };

  Token Header(const uint8_t* data, size_t size);
  Token BinaryHeader(const uint8_t* data, size_t size);
  Token CompactHeader(const uint8_t* data, size_t size);
  Token FieldHeader(const uint8_t* data, size_t size);
  Token Element();
  // Pops the top level; the message is whole when it was the last.
  void Pop();
  Token Value(const uint8_t* data, size_t size);
  Token BinaryValue(const uint8_t* data, size_t size);
  Token CompactValue(const uint8_t* data, size_t size);
  Token BinaryContainer(const uint8_t* data, size_t size);
  Token CompactContainer(const uint8_t* data, size_t size);
  // Consumes `bytes` fixed bytes, or asks for them.
  Token Fixed(size_t size, uint64_t bytes);
  // Consumes a string whose length (`length_bytes` long, value `length`)
  // starts at pos_.
  Token String(size_t size, uint64_t length_bytes, int64_t length);
  // Reads a varint at pos_ (not consumed); `*bytes` its length.
  Token Varint(const uint8_t* data, size_t size, uint64_t* value,
               size_t* bytes);
  Token Push(Level level);
  // After a value: the enclosing struct wants its next field header, the
  // enclosing container its next element.
  void ValueDone();

  bool compact_ = false;
  bool started_ = false;
  Result done_ = Result::kNeedMore;  // kWhole or kInvalid once decided
  Step step_ = Step::kHeader;
  int header_part_ = 0;       // the next token of the message header
  uint8_t pending_type_ = 0;  // a binary-protocol TType, in both protocols
  std::vector<Level> stack_;
  size_t pos_ = 0;
  uint64_t needed_ = 0;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_INTERNAL_MESSAGE_SKIPPER_H_
