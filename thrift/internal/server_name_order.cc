// The order of TServerName the generated code needs for set<TServerName>
// (getSlowLogResponses, clearSlowLogResponses): Thrift declares a struct's
// operator< but leaves its definition to the user. By host, port, start
// code; an unset optional field sorts before a set one.
#include <tuple>

#include "thrift/gen-cpp/hbase_service_types.h"

namespace bloomroute::rpc::client {

bool TServerName::operator<(const TServerName& other) const {
  auto key = [](const TServerName& n) {
    return std::make_tuple(n.hostName, n.__isset.port,
                           n.__isset.port ? n.port : 0, n.__isset.startCode,
                           n.__isset.startCode ? n.startCode : 0);
  };
  return key(*this) < key(other);
}

}  // namespace bloomroute::rpc::client
