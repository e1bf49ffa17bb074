// Conversions between model/ (rows, index queries, region protocol) and the
// Thrift structs of region_service.thrift, both directions:
// region_conversion.cc (regions, mutations, reads, filters),
// region_conversion_index.cc (index queries and their results) and
// region_conversion_table.cc (table descriptors and the index lifecycle calls).
//
// Requests (client -> server) are converted with FromThrift on the server and
// ToThrift on the client; results the other way round. Every FromThrift
// checks what the wire cannot: a field the server needs is present (default
// requiredness sets __isset when a field was sent), an enum has a known value,
// and a number sent as i64 / i32 fits the unsigned type it stands for. A
// request that fails a check gives InvalidArgument naming the field (e.g.
// "mutations[2].regionId is negative (-1)"); a result that fails one gives
// Corruption. ToThrift fails only when a server value does not fit the wire
// type (IOError); the two halves of an element hash are bit patterns and are
// copied bit for bit.
//
// Semantic checks (empty row key, key outside the region, value over the
// limit, ...) are the RegionStore's; these functions only translate.
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_CONVERSION_REGION_CONVERSION_H_
#define BLOOMROUTE_THRIFT_CONVERSION_REGION_CONVERSION_H_

#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "model/index_query.h"
#include "model/region_protocol.h"
#include "model/rows.h"
#include "regionstore/region_store.h"
#include "thrift/gen-cpp/region_service_types.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute {

// Requests: server side.
Status FromThrift(const rpc::TRegionDescriptor& in, RegionDescriptor* out);
Status FromThrift(const std::vector<rpc::TMutation>& in,
                  std::vector<Mutation>* out);
Status FromThrift(const std::vector<rpc::TGet>& in,
                  std::vector<GetRequest>* out);
Status FromThrift(const rpc::TScan& in, ScanRequest* out);
Status FromThrift(const rpc::TIndexQuery& in, IndexQuery* out);
// Every field present and the config valid (SscbfConfig::Validate), else
// InvalidArgument naming the field ("config.baseBits is missing").
Status FromThrift(const rpc::TFilterConfig& in, SscbfConfig* out);
// A region id, epoch or sequence number passed as a call argument.
Status UnsignedFromThrift(int64_t in, const char* field, uint64_t* out);

// Requests: client side.
// A region id, epoch or sequence number passed as a call argument (IOError
// when it does not fit an i64).
Status UnsignedToThrift(uint64_t in, const char* field, int64_t* out);
Status ToThrift(const RegionDescriptor& in, rpc::TRegionDescriptor* out);
Status ToThrift(const std::vector<Mutation>& in,
                std::vector<rpc::TMutation>* out);
Status ToThrift(const std::vector<GetRequest>& in, std::vector<rpc::TGet>* out);
Status ToThrift(const ScanRequest& in, rpc::TScan* out);
Status ToThrift(const IndexQuery& in, rpc::TIndexQuery* out);
// Also for TFilterStatus.config. IOError when n0 does not fit an i64.
Status ToThrift(const SscbfConfig& in, rpc::TFilterConfig* out);

// Results: server side.
Status ToThrift(const std::vector<RegionDescriptor>& in,
                std::vector<rpc::TRegionDescriptor>* out);
Status ToThrift(const WriteResult& in, rpc::TWriteResult* out);
// A missing row becomes a TResult without `row` and without cells.
Status ToThrift(const std::vector<std::optional<Row>>& in,
                std::vector<rpc::TResult>* out);
Status ToThrift(const ScanResult& in, rpc::TScanResult* out);
// The same, moving the rows into the reply.
Status ToThrift(ScanResult&& in, rpc::TScanResult* out);
Status ToThrift(const IndexQueryResult& in, rpc::TIndexQueryResult* out);
// The same, moving the rows' keys, columns and values into the reply.
Status ToThrift(IndexQueryResult&& in, rpc::TIndexQueryResult* out);
Status ToThrift(const FilterSnapshot& in, rpc::TFilterSnapshot* out);
Status ToThrift(const FilterOpsSince& in, rpc::TFilterOpsSince* out);
Status ToThrift(const FilterImagePage& in, rpc::TFilterImagePage* out);
Status ToThrift(const FilterStatus& in, rpc::TFilterStatus* out);
Status ToThrift(const IndexReport& in, rpc::TIndexReport* out);

// Results: client side (Corruption for a value the server cannot have sent).
Status FromThrift(const std::vector<rpc::TRegionDescriptor>& in,
                  std::vector<RegionDescriptor>* out);
Status FromThrift(const rpc::TWriteResult& in, WriteResult* out);
Status FromThrift(const std::vector<rpc::TResult>& in,
                  std::vector<std::optional<Row>>* out);
Status FromThrift(const rpc::TScanResult& in, ScanResult* out);
// The same, moving the rows' keys, columns and values out of `in`.
Status FromThrift(rpc::TScanResult&& in, ScanResult* out);
Status FromThrift(const rpc::TIndexQueryResult& in, IndexQueryResult* out);
// The same, moving the rows' keys, columns and values out of `in`.
Status FromThrift(rpc::TIndexQueryResult&& in, IndexQueryResult* out);
Status FromThrift(const rpc::TFilterSnapshot& in, FilterSnapshot* out);
Status FromThrift(const rpc::TFilterOpsSince& in, FilterOpsSince* out);
// Every field required; the image id and incarnation are bits.
Status FromThrift(const rpc::TFilterImagePage& in, FilterImagePage* out);
// `config` is checked as a request's is, but Corruption; when the server
// sent none, out->config is left as it was.
Status FromThrift(const rpc::TFilterStatus& in, FilterStatus* out);
Status FromThrift(const rpc::TIndexReport& in, IndexReport* out);

// ---- Tables and the index lifecycle calls (updateTableIndexes,
// backfillIndex, dropIndexEntries; region_conversion_table.cc) ----

// `f` names the field in messages; `fail` is kBadRequest or kBadResult.
Status TableFromThrift(const rpc::TTableDescriptor& in,
                       thrift_internal::FailFn fail, const std::string& f,
                       TableDescriptor* out);
Status TableToThrift(const TableDescriptor& in, rpc::TTableDescriptor* out);

Status ToThrift(const IndexChunkResult& in, rpc::TIndexChunkResult* out);
Status FromThrift(const rpc::TIndexChunkResult& in, IndexChunkResult* out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_CONVERSION_REGION_CONVERSION_H_
