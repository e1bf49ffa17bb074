#include "thrift/server/internal/message_skipper.h"

#include <cstring>
#include <limits>

namespace bloomroute::thrift_internal {
namespace {

// The binary protocol's type codes (TType), which the skipper uses for both
// protocols: the compact protocol's are mapped to them (CompactType).
constexpr uint8_t kStop = 0, kBool = 2, kByte = 3, kDouble = 4, kI16 = 6,
                  kI32 = 8, kI64 = 10, kString = 11, kStruct = 12, kMap = 13,
                  kSet = 14, kList = 15;
constexpr uint8_t kBadType = 0xff;

constexpr uint8_t kCompactProtocolId = 0x82;
constexpr uint8_t kCompactVersion = 1;
constexpr uint8_t kStrictVersionByte0 = 0x80, kStrictVersionByte1 = 0x01;
constexpr size_t kMaxVarintBytes = 10;

bool IsValueType(uint8_t type) {
  switch (type) {
    case kBool:
    case kByte:
    case kDouble:
    case kI16:
    case kI32:
    case kI64:
    case kString:
    case kStruct:
    case kMap:
    case kSet:
    case kList:
      return true;
    default:
      return false;
  }
}

// The TType of a compact type code (TCompactProtocol's CType); kBadType for
// none. 1 and 2 are a boolean's (true, false).
uint8_t CompactType(uint8_t code) {
  static constexpr uint8_t kTypes[] = {kStop, kBool, kBool,   kByte,   kI16,
                                       kI32,  kI64,  kDouble, kString, kList,
                                       kSet,  kMap,  kStruct};
  return code < sizeof(kTypes) ? kTypes[code] : kBadType;
}

int32_t Be32At(const uint8_t* p) {
  uint32_t v = (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) |
               (uint32_t{p[2]} << 8) | uint32_t{p[3]};
  int32_t s;
  std::memcpy(&s, &v, sizeof(s));
  return s;
}

constexpr uint64_t kMaxLength = std::numeric_limits<int32_t>::max();

}  // namespace

void MessageSkipper::Reset() { *this = MessageSkipper(); }

MessageSkipper::Result MessageSkipper::Resume(const uint8_t* data,
                                              size_t size) {
  if (done_ != Result::kNeedMore) return done_;
  if (!started_) {
    if (size == 0) {
      needed_ = 1;
      return Result::kNeedMore;
    }
    compact_ = data[0] == kCompactProtocolId;
    started_ = true;
  }
  for (;;) {
    Token token = Token::kBad;
    switch (step_) {
      case Step::kHeader:
        token = Header(data, size);
        break;
      case Step::kFieldHeader:
        token = FieldHeader(data, size);
        break;
      case Step::kValue:
        token = Value(data, size);
        break;
      case Step::kElement:
        token = Element();
        break;
    }
    if (token == Token::kShort) return Result::kNeedMore;
    if (token == Token::kBad) return done_ = Result::kInvalid;
    if (done_ != Result::kNeedMore) return done_;
  }
}

MessageSkipper::Token MessageSkipper::Fixed(size_t size, uint64_t bytes) {
  if (size - pos_ < bytes) {
    needed_ = pos_ + bytes;
    return Token::kShort;
  }
  pos_ += bytes;
  return Token::kDone;
}

MessageSkipper::Token MessageSkipper::String(size_t size, uint64_t length_bytes,
                                             int64_t length) {
  if (length < 0) return Token::kBad;
  return Fixed(size, length_bytes + static_cast<uint64_t>(length));
}

MessageSkipper::Token MessageSkipper::Varint(const uint8_t* data, size_t size,
                                             uint64_t* value, size_t* bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < kMaxVarintBytes; ++i) {
    if (pos_ + i >= size) {
      needed_ = pos_ + i + 1;
      return Token::kShort;
    }
    const uint8_t b = data[pos_ + i];
    v |= uint64_t{b & 0x7fu} << (7 * i);
    if ((b & 0x80) == 0) {
      *value = v;
      *bytes = i + 1;
      return Token::kDone;
    }
  }
  return Token::kBad;
}

MessageSkipper::Token MessageSkipper::Push(Level level) {
  if (stack_.size() >= kMaxDepth) return Token::kBad;
  stack_.push_back(level);
  step_ = level.is_struct ? Step::kFieldHeader : Step::kElement;
  return Token::kDone;
}

void MessageSkipper::Pop() {
  stack_.pop_back();
  if (stack_.empty()) {
    done_ = Result::kWhole;
  } else {
    ValueDone();
  }
}

void MessageSkipper::ValueDone() {
  step_ = stack_.back().is_struct ? Step::kFieldHeader : Step::kElement;
}

MessageSkipper::Token MessageSkipper::Header(const uint8_t* data, size_t size) {
  const Token token =
      compact_ ? CompactHeader(data, size) : BinaryHeader(data, size);
  if (token != Token::kDone) return token;
  if (++header_part_ < 3) return Token::kDone;
  return Push(Level{});  // the arguments' struct
}

// Strict: version and type (4), name (4 + n), seqid (4). Not strict (the
// first byte is not 0x80): name (4 + n), type (1), seqid (4).
MessageSkipper::Token MessageSkipper::BinaryHeader(const uint8_t* data,
                                                   size_t size) {
  const bool strict = data[0] == kStrictVersionByte0;
  const int name_part = strict ? 1 : 0;
  if (header_part_ == name_part) {
    if (size - pos_ < 4) return Fixed(size, 4);
    return String(size, 4, Be32At(data + pos_));
  }
  if (header_part_ == 2) return Fixed(size, 4);  // seqid
  if (!strict) return Fixed(size, 1);            // type
  if (size - pos_ < 4) return Fixed(size, 4);
  if (data[pos_ + 1] != kStrictVersionByte1) return Token::kBad;
  return Fixed(size, 4);
}

// Protocol id and version with type (2), seqid (varint), name (varint + n).
MessageSkipper::Token MessageSkipper::CompactHeader(const uint8_t* data,
                                                    size_t size) {
  if (header_part_ == 0) {
    if (size - pos_ < 2) return Fixed(size, 2);
    if ((data[pos_ + 1] & 0x1f) != kCompactVersion) return Token::kBad;
    return Fixed(size, 2);
  }
  uint64_t value = 0;
  size_t bytes = 0;
  const Token token = Varint(data, size, &value, &bytes);
  if (token != Token::kDone) return token;
  if (header_part_ == 1) return Fixed(size, bytes);  // seqid
  if (value > kMaxLength) return Token::kBad;
  return String(size, bytes, static_cast<int64_t>(value));
}

MessageSkipper::Token MessageSkipper::FieldHeader(const uint8_t* data,
                                                  size_t size) {
  if (pos_ >= size) return Fixed(size, 1);
  const uint8_t first = data[pos_];
  if (first == kStop) {
    pos_ += 1;
    Pop();
    return Token::kDone;
  }
  if (!compact_) {
    if (!IsValueType(first)) return Token::kBad;
    const Token token = Fixed(size, 3);  // type, id
    if (token == Token::kDone) {
      pending_type_ = first;
      step_ = Step::kValue;
    }
    return token;
  }
  const uint8_t type = CompactType(first & 0x0f);
  if (type == kBadType || type == kStop) return Token::kBad;
  size_t bytes = 1;
  if ((first >> 4) == 0) {  // no delta: the id follows as a varint
    uint64_t id = 0;
    size_t id_bytes = 0;
    const size_t at = pos_;
    ++pos_;
    const Token token = Varint(data, size, &id, &id_bytes);
    pos_ = at;
    if (token != Token::kDone) return token;
    bytes += id_bytes;
  }
  pos_ += bytes;
  if (type == kBool) return Token::kDone;  // its value is in the type
  pending_type_ = type;
  step_ = Step::kValue;
  return Token::kDone;
}

MessageSkipper::Token MessageSkipper::Element() {
  Level& top = stack_.back();
  if (top.left == 0) {
    Pop();
    return Token::kDone;
  }
  pending_type_ = top.left % 2 == 0 ? top.key_type : top.value_type;
  --top.left;
  step_ = Step::kValue;
  return Token::kDone;
}

MessageSkipper::Token MessageSkipper::Value(const uint8_t* data, size_t size) {
  if (pending_type_ == kStruct) return Push(Level{});
  if (pending_type_ == kMap || pending_type_ == kList ||
      pending_type_ == kSet) {
    return compact_ ? CompactContainer(data, size)
                    : BinaryContainer(data, size);
  }
  const Token token =
      compact_ ? CompactValue(data, size) : BinaryValue(data, size);
  if (token == Token::kDone) ValueDone();
  return token;
}

MessageSkipper::Token MessageSkipper::BinaryValue(const uint8_t* data,
                                                  size_t size) {
  switch (pending_type_) {
    case kBool:
    case kByte:
      return Fixed(size, 1);
    case kI16:
      return Fixed(size, 2);
    case kI32:
      return Fixed(size, 4);
    case kI64:
    case kDouble:
      return Fixed(size, 8);
    case kString:
      if (size - pos_ < 4) return Fixed(size, 4);
      return String(size, 4, Be32At(data + pos_));
    default:
      return Token::kBad;
  }
}

MessageSkipper::Token MessageSkipper::CompactValue(const uint8_t* data,
                                                   size_t size) {
  switch (pending_type_) {
    case kBool:  // in a container: a byte each
    case kByte:
      return Fixed(size, 1);
    case kDouble:
      return Fixed(size, 8);
    case kI16:
    case kI32:
    case kI64:
    case kString: {
      uint64_t value = 0;
      size_t bytes = 0;
      const Token token = Varint(data, size, &value, &bytes);
      if (token != Token::kDone) return token;
      if (pending_type_ != kString) return Fixed(size, bytes);
      if (value > kMaxLength) return Token::kBad;
      return String(size, bytes, static_cast<int64_t>(value));
    }
    default:
      return Token::kBad;
  }
}

// Map: key type (1), value type (1), count (4); list and set: element type
// (1), count (4).
MessageSkipper::Token MessageSkipper::BinaryContainer(const uint8_t* data,
                                                      size_t size) {
  const bool map = pending_type_ == kMap;
  const uint64_t bytes = map ? 6 : 5;
  if (size - pos_ < bytes) return Fixed(size, bytes);
  Level level;
  level.is_struct = false;
  level.key_type = data[pos_];
  level.value_type = map ? data[pos_ + 1] : level.key_type;
  const int32_t count = Be32At(data + pos_ + bytes - 4);
  if (count < 0 || !IsValueType(level.key_type) ||
      !IsValueType(level.value_type)) {
    return Token::kBad;
  }
  level.left = uint64_t(count) * (map ? 2 : 1);
  pos_ += bytes;
  return Push(level);
}

// Map: count (varint), then key and value types (1) unless it is empty;
// list and set: count (4 bits, or 15 and a varint) with the element type.
MessageSkipper::Token MessageSkipper::CompactContainer(const uint8_t* data,
                                                       size_t size) {
  Level level;
  level.is_struct = false;
  uint64_t count = 0;
  size_t bytes = 0;
  if (pending_type_ == kMap) {
    const Token token = Varint(data, size, &count, &bytes);
    if (token != Token::kDone) return token;
    if (count != 0) {
      if (size - pos_ < bytes + 1) return Fixed(size, bytes + 1);
      level.key_type = CompactType(data[pos_ + bytes] >> 4);
      level.value_type = CompactType(data[pos_ + bytes] & 0x0f);
      ++bytes;
    } else {
      level.key_type = level.value_type = kByte;
    }
    count *= 2;
  } else {
    if (pos_ >= size) return Fixed(size, 1);
    level.key_type = level.value_type = CompactType(data[pos_] & 0x0f);
    count = data[pos_] >> 4;
    bytes = 1;
    if (count == 15) {
      ++pos_;
      size_t count_bytes = 0;
      const Token token = Varint(data, size, &count, &count_bytes);
      --pos_;
      if (token != Token::kDone) return token;
      bytes += count_bytes;
    }
  }
  if (count > 2 * kMaxLength || !IsValueType(level.key_type) ||
      !IsValueType(level.value_type)) {
    return Token::kBad;
  }
  level.left = count;
  pos_ += bytes;
  return Push(level);
}

}  // namespace bloomroute::thrift_internal
