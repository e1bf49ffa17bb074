// Conversions for the region service's index lifecycle calls
// (updateTableIndexes, backfillIndex, dropIndexEntries) and the table
// descriptor they and region descriptors carry. As in
// region_types_conversion.h: a request that does not convert is
// InvalidArgument naming the field, a result Corruption; a value that does
// not fit the wire is IOError.
#ifndef BLOOMROUTE_THRIFT_REGION_TABLE_CONVERSION_H_
#define BLOOMROUTE_THRIFT_REGION_TABLE_CONVERSION_H_

#include <string>

#include "common/status.h"
#include "model/region_protocol.h"
#include "model/rows.h"
#include "thrift/gen-cpp/region_service_types.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute {

// `f` names the field in messages; `fail` is kBadRequest or kBadResult.
Status TableFromThrift(const rpc::TTableDescriptor& in,
                       thrift_internal::FailFn fail, const std::string& f,
                       TableDescriptor* out);
Status TableToThrift(const TableDescriptor& in, rpc::TTableDescriptor* out);

Status ToThrift(const IndexChunkResult& in, rpc::TIndexChunkResult* out);
Status FromThrift(const rpc::TIndexChunkResult& in, IndexChunkResult* out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_REGION_TABLE_CONVERSION_H_
