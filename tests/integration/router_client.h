// Test helpers: a RouterService client (the client API of bloomroute,
// thrift/router_service.thrift) and builders for its requests.
//
//   RouterClient client("127.0.0.1", port);
//   client->createIndexedTable(info, MakeTableSpec("geo", {"d:country"}, 4));
//   client->put("geo", MakePut("oslo", {{"d:country", "NO"}}));
//   rpc::client::TIndexResult found;
//   client->getByIndex(found, "geo", MakeQuery({{"d:country", "NO"}}));
//   EXPECT_EQ(RowKeys(found.rows), (std::vector<std::string>{"oslo"}));
//
// The builders set every field they are given, so the router sees them as
// sent; a test that wants a field missing builds the struct itself.
#ifndef BLOOMROUTE_TESTS_INTEGRATION_ROUTER_CLIENT_H_
#define BLOOMROUTE_TESTS_INTEGRATION_ROUTER_CLIENT_H_

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tests/integration/secure_mode.h"
#include "thrift/gen-cpp/RouterService.h"

namespace bloomroute::testing {

// A connected client (framed transport, binary protocol, as the router
// serves); the connection closes on destruction. The constructor throws
// apache::thrift::transport::TTransportException when it cannot connect.
// Not thread-safe: use one client per thread.
class RouterClient {
 public:
  // In the suite's secure run (secure_mode.h) the connection is TLS with
  // the test CA's admin client certificate.
  RouterClient(const std::string& host, int port, int timeout_ms = 30000) {
    std::shared_ptr<apache::thrift::transport::TSocket> socket = TestSocket(
        host, port, SecureMode() ? TestCerts().client : TlsOptions());
    socket->setConnTimeout(timeout_ms);
    socket->setRecvTimeout(timeout_ms);
    socket->setSendTimeout(timeout_ms);
    transport_ =
        std::make_shared<apache::thrift::transport::TFramedTransport>(socket);
    client_ = std::make_unique<rpc::client::RouterServiceClient>(
        std::make_shared<apache::thrift::protocol::TBinaryProtocol>(
            transport_));
    transport_->open();
  }
  explicit RouterClient(int port) : RouterClient("127.0.0.1", port) {}
  ~RouterClient() {
    try {
      transport_->close();
    } catch (...) {  // closing a broken connection may throw; nothing to do
    }
  }
  RouterClient(const RouterClient&) = delete;
  RouterClient& operator=(const RouterClient&) = delete;

  rpc::client::RouterServiceClient* operator->() { return client_.get(); }
  rpc::client::RouterServiceClient& operator*() { return *client_; }

 private:
  std::shared_ptr<apache::thrift::transport::TTransport> transport_;
  std::unique_ptr<rpc::client::RouterServiceClient> client_;
};

using CellMap = std::map<std::string, std::string>;  // column -> value

// "family:qualifier" split at its first ':' (HBase's TColumnValue and
// TColumn carry the parts apart); no ':' = a family without qualifier.
inline std::pair<std::string, std::optional<std::string>> SplitColumn(
    const std::string& column) {
  const size_t colon = column.find(':');
  if (colon == std::string::npos) return {column, std::nullopt};
  return {column.substr(0, colon), column.substr(colon + 1)};
}

// HBase's table name for `name` in the default namespace.
inline rpc::client::TTableName TableName(const std::string& name) {
  rpc::client::TTableName table;
  table.__set_qualifier(name);
  table.__isset.qualifier = true;  // as received: a C++ client sends it
  return table;
}

// A table with these indexed columns; `region_count` 0 = one region per
// region server. `split_keys`, when given, decide the regions instead.
inline rpc::client::TTableSpec MakeTableSpec(
    const std::string& name, const std::vector<std::string>& indexed_columns,
    int32_t region_count = 0, const std::vector<std::string>& split_keys = {}) {
  rpc::client::TTableSpec spec;
  spec.__set_name(name);
  spec.__set_indexedColumns(indexed_columns);
  spec.__set_splitKeys(split_keys);
  if (region_count > 0) spec.__set_regionCount(region_count);
  return spec;
}

inline std::vector<rpc::client::TColumnValue> ColumnValues(
    const CellMap& cells) {
  std::vector<rpc::client::TColumnValue> values;
  for (const auto& [column, value] : cells) {
    rpc::client::TColumnValue cell;
    auto [family, qualifier] = SplitColumn(column);
    cell.__set_family(family);
    cell.__set_qualifier(qualifier.value_or(""));
    cell.__set_value(value);
    values.push_back(std::move(cell));
  }
  return values;
}

inline std::vector<rpc::client::TColumn> Columns(
    const std::vector<std::string>& names) {
  std::vector<rpc::client::TColumn> columns(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    auto [family, qualifier] = SplitColumn(names[i]);
    columns[i].__set_family(family);
    if (qualifier) columns[i].__set_qualifier(*qualifier);
  }
  return columns;
}

inline rpc::client::TPut MakePut(const std::string& row, const CellMap& cells) {
  rpc::client::TPut put;
  put.__set_row(row);
  put.__set_columnValues(ColumnValues(cells));
  return put;
}

// `columns` empty = every column.
inline rpc::client::TGet MakeGet(const std::string& row,
                                 const std::vector<std::string>& columns = {}) {
  rpc::client::TGet get;
  get.__set_row(row);
  get.__set_columns(Columns(columns));
  return get;
}

// `columns` empty = the whole row.
inline rpc::client::TDelete MakeDelete(
    const std::string& row, const std::vector<std::string>& columns = {}) {
  rpc::client::TDelete del;
  del.__set_row(row);
  del.__set_columns(Columns(columns));
  return del;
}

// [start, stop); empty = unbounded.
inline rpc::client::TScan MakeScan(const std::string& start = "",
                                   const std::string& stop = "") {
  rpc::client::TScan scan;
  if (!start.empty()) scan.__set_startRow(start);
  if (!stop.empty()) scan.__set_stopRow(stop);
  return scan;
}

// The AND of column = value for each entry of `equals`, in map order.
inline rpc::client::TIndexQuery MakeQuery(
    const CellMap& equals, std::optional<int32_t> limit = std::nullopt,
    bool allow_partial = false, bool ask_all = false) {
  rpc::client::TIndexQuery query;
  std::vector<rpc::client::TEqualityPredicate> predicates;
  for (const auto& [column, value] : equals) {
    rpc::client::TEqualityPredicate p;
    auto [family, qualifier] = SplitColumn(column);
    p.__set_family(family);
    p.__set_qualifier(qualifier.value_or(""));
    p.__set_value(value);
    predicates.push_back(std::move(p));
  }
  query.__set_predicates(std::move(predicates));
  if (limit) query.__set_limit(*limit);
  query.__set_allowPartial(allow_partial);
  query.__set_askAll(ask_all);
  return query;
}

// The cells of a result (empty for a missing row).
inline CellMap CellsOf(const rpc::client::TResult& result) {
  CellMap cells;
  for (const auto& c : result.columnValues) {
    cells[c.family + ":" + c.qualifier] = c.value;
  }
  return cells;
}

// The row keys of results, in their order (missing rows skipped).
inline std::vector<std::string> RowKeys(
    const std::vector<rpc::client::TResult>& results) {
  std::vector<std::string> keys;
  for (const auto& r : results) {
    if (r.__isset.row) keys.push_back(r.row);
  }
  return keys;
}

// The ids of servers, in their order.
inline std::vector<int32_t> ServerIds(
    const std::vector<rpc::client::TServerRef>& servers) {
  std::vector<int32_t> ids;
  for (const auto& s : servers) ids.push_back(s.id);
  return ids;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_ROUTER_CLIENT_H_
