// Test helpers: a RegionService client on loopback and request builders.
#ifndef BLOOMROUTE_TESTS_THRIFT_REGION_CLIENT_UTIL_H_
#define BLOOMROUTE_TESTS_THRIFT_REGION_CLIENT_UTIL_H_

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "thrift/gen-cpp/RegionService.h"

namespace bloomroute::testing {

// A connected client; the connection closes on destruction.
class RegionClient {
 public:
  explicit RegionClient(int port, int timeout_ms = 10000)
      : RegionClient(std::make_shared<apache::thrift::transport::TSocket>(
                         "127.0.0.1", port),
                     timeout_ms) {}
  // Over `socket` (not yet open), e.g. a TLS one.
  explicit RegionClient(
      std::shared_ptr<apache::thrift::transport::TSocket> socket,
      int timeout_ms = 10000) {
    socket->setConnTimeout(timeout_ms);
    socket->setRecvTimeout(timeout_ms);
    socket->setSendTimeout(timeout_ms);
    transport_ =
        std::make_shared<apache::thrift::transport::TFramedTransport>(socket);
    client_ = std::make_unique<rpc::RegionServiceClient>(
        std::make_shared<apache::thrift::protocol::TBinaryProtocol>(
            transport_));
    transport_->open();
  }
  ~RegionClient() {
    try {
      transport_->close();
    } catch (...) {  // closing a broken connection may throw; nothing to do
    }
  }
  RegionClient(const RegionClient&) = delete;
  RegionClient& operator=(const RegionClient&) = delete;

  rpc::RegionServiceClient* operator->() { return client_.get(); }

 private:
  std::shared_ptr<apache::thrift::transport::TTransport> transport_;
  std::unique_ptr<rpc::RegionServiceClient> client_;
};

// Table 7 "places" with d:country (column 1) and d:feature (column 2)
// indexed; region `id` over [start, end).
inline rpc::TRegionDescriptor WirePlacesRegion(int64_t id, std::string start,
                                               std::string end) {
  rpc::TTableDescriptor table;
  table.__set_tableId(7);
  table.__set_name("places");
  rpc::TIndexedColumn country;
  country.__set_columnId(1);
  country.__set_name("d:country");
  rpc::TIndexedColumn feature;
  feature.__set_columnId(2);
  feature.__set_name("d:feature");
  table.__set_indexedColumns({country, feature});
  rpc::TRegionDescriptor region;
  region.__set_regionId(id);
  region.__set_table(table);
  region.__set_startKey(start);
  region.__set_endKey(end);
  return region;
}

inline rpc::TMutation Put(int64_t region, const std::string& row,
                          const std::map<std::string, std::string>& cells) {
  rpc::TMutation m;
  m.__set_type(rpc::TMutationType::PUT);
  m.__set_regionId(region);
  m.__set_row(row);
  std::vector<rpc::TColumnValue> values;
  for (const auto& [column, value] : cells) {
    rpc::TColumnValue cell;
    cell.__set_column(column);
    cell.__set_value(value);
    values.push_back(cell);
  }
  m.__set_columnValues(values);
  return m;
}

inline rpc::TMutation Delete(int64_t region, const std::string& row) {
  rpc::TMutation m;
  m.__set_type(rpc::TMutationType::DELETE);
  m.__set_regionId(region);
  m.__set_row(row);
  return m;
}

inline rpc::TGet Get(int64_t region, const std::string& row) {
  rpc::TGet get;
  get.__set_regionId(region);
  get.__set_row(row);
  return get;
}

inline rpc::TIndexQuery WhereEquals(const std::string& column,
                                    const std::string& value,
                                    int32_t limit = 1000) {
  rpc::TIndexQuery query;
  query.__set_tableId(7);
  rpc::TEqualityPredicate p;
  p.__set_column(column);
  p.__set_value(value);
  query.__set_equals({p});
  query.__set_limit(limit);
  return query;
}

// The cells of a result as a map (empty for a missing row).
inline std::map<std::string, std::string> Cells(const rpc::TResult& result) {
  std::map<std::string, std::string> cells;
  for (const auto& c : result.columnValues) cells[c.column] = c.value;
  return cells;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_THRIFT_REGION_CLIENT_UTIL_H_
