// The router's view of a region server's data model: regions, rows,
// mutations, index queries and filter ops, as RegionClient passes them.
//
// Why a copy and not regionstore/types.h: router/ and regionstore/ never
// include each other (the router reaches region servers only over RPC, and
// the region server must not change when the router does). These are plain
// values with the same fields and meaning as their regionstore namesakes; the
// Thrift RegionClient converts the wire structs to them, as the region
// server's handler converts to its own. They live in namespace
// bloomroute::router so that code seeing both (thrift/) cannot confuse them.
//
// Columns are "family:qualifier"; row keys and values are bytes.
#ifndef BLOOMROUTE_ROUTER_TYPES_H_
#define BLOOMROUTE_ROUTER_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "index/element_hash.h"
#include "index/scalable_split_counting_bloom_filter.h"

namespace bloomroute::router {

struct IndexedColumn {
  uint32_t column_id = 0;  // unique within the table; part of the element hash
  std::string name;        // "family:qualifier"
};

struct TableDescriptor {
  uint64_t table_id = 0;  // assigned by the router, never reused
  std::string name;
  std::vector<IndexedColumn> indexed_columns;
};

struct RegionDescriptor {
  uint64_t region_id = 0;  // unique per server
  TableDescriptor table;
  std::string start_key;  // inclusive; empty = from the first row
  std::string end_key;    // exclusive; empty = to the last row
};

struct Cell {
  std::string column;
  std::string value;
};

// Cells sorted by column, each column at most once.
struct Row {
  std::string key;
  std::vector<Cell> cells;
};

// "family" or "family:qualifier" entries; empty = every column.
using Projection = std::vector<std::string>;

struct Mutation {
  enum class Kind { kPut, kDelete };
  Kind kind = Kind::kPut;
  uint64_t region_id = 0;
  std::string row_key;
  std::vector<Cell> cells;           // kPut: columns to add or overwrite
  std::vector<std::string> columns;  // kDelete: empty removes the whole row
};

struct GetRequest {
  uint64_t region_id = 0;
  std::string row_key;
  Projection columns;
};

struct ScanRequest {
  uint64_t region_id = 0;
  std::string start_row;  // inclusive; empty = region start
  std::string stop_row;   // exclusive; empty = region end
  uint32_t limit = 0;     // rows, at least 1
  Projection columns;
};

struct ScanResult {
  std::vector<Row> rows;
  std::optional<std::string> resume_row;  // set when rows remain
};

struct EqualityPredicate {
  std::string column;
  std::string value;
};

// column in [lower, upper) in byte order; an unset bound is open.
struct RangePredicate {
  std::string column;
  std::optional<std::string> lower;
  std::optional<std::string> upper;
};

// A conjunction of the equalities and the range (if any).
struct IndexQuery {
  uint64_t table_id = 0;
  std::vector<uint64_t> region_ids;  // empty = every open region of the table
  std::vector<EqualityPredicate> equals;
  std::optional<RangePredicate> range;
  uint32_t limit = 0;
  Projection columns;
};

struct IndexQueryResult {
  std::vector<Row> rows;
  bool truncated = false;  // more rows matched than were returned
};

// One change to a region server's filter: the unit the router replays.
struct FilterOp {
  enum class Kind : uint8_t { kInsert = 1, kRemove = 2 };
  uint64_t seq = 0;  // dense, increasing across epochs; 1 is the first op
  Kind kind = Kind::kInsert;
  ElementHash hash;
  uint32_t stage = 0;  // stage inserted into / removed from
};

// What one write changed in the server's filter: its ops in sequence order.
// An epoch other than the replica's means the filter was rebuilt.
struct WriteResult {
  uint64_t epoch = 0;
  std::vector<FilterOp> ops;
  // The server's last op seq once this write committed; 0 = not sent. Unlike
  // regionstore's WriteResult this field exists because a write that changes
  // no filter counter (a value's second row) carries no op, yet may be
  // acknowledged before an earlier write's op reaches the router: only this
  // number tells the replica it is behind (see global_index.h).
  uint64_t last_seq = 0;
};

struct FilterSnapshot {
  uint64_t epoch = 0;
  uint64_t last_seq = 0;  // the ops up to here are in `filter`
  std::string filter;     // ScalableSplitCountingBloomFilter::Serialize()
};

struct FilterOpsSince {
  uint64_t epoch = 0;
  // The requested ops were trimmed or belong to another epoch; `ops` is empty.
  bool too_old = false;
  std::vector<FilterOp> ops;  // seq > the requested one, in order
  uint64_t last_seq = 0;      // the server's newest op; ops may stop before
};

struct FilterStatus {
  uint64_t epoch = 0;
  uint64_t last_seq = 0;
  SscbfStats stats;
};

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_TYPES_H_
