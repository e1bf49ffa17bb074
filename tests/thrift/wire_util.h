// Test helpers: pass Thrift structs through the binary protocol, as a server
// receives them. (Generated __set_ methods do not mark default-requiredness
// fields as set; reading a message does, for every field it carries.)
#ifndef BLOOMROUTE_TESTS_THRIFT_WIRE_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_WIRE_UTIL_H_

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <memory>
#include <vector>

namespace bloomroute {

template <typename T>
T ThroughWire(const T& value) {
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol protocol(buffer);
  value.write(&protocol);
  T out;
  out.read(&protocol);
  return out;
}

template <typename T>
std::vector<T> ThroughWire(const std::vector<T>& values) {
  std::vector<T> out;
  for (const T& v : values) out.push_back(ThroughWire(v));
  return out;
}

}  // namespace bloomroute

#endif  // BLOOMROUTE_TESTS_THRIFT_WIRE_UTIL_H_
