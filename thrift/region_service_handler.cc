#include "thrift/region_service_handler.h"

#include <exception>
#include <new>
#include <string>
#include <utility>

#include "thrift/region_types_conversion.h"
#include "thrift/status_conversion.h"

namespace bloomroute {
namespace {

// Runs one call's body and turns every way it can fail into a declared
// exception: the handler's single exit for errors.
template <typename Body>
void Serve(const char* call, Body&& body) {
  Status status;
  try {
    status = body();
  } catch (const std::bad_alloc&) {
    status = Status::IOError(std::string(call) + ": out of memory");
  } catch (const std::exception& e) {
    status = Status::IOError(std::string(call) + ": " + e.what());
  }
  ThrowIfError(status);
}

}  // namespace

RegionServiceHandler::RegionServiceHandler(std::shared_ptr<RegionStore> store)
    : store_(std::move(store)) {}

void RegionServiceHandler::openRegion(const rpc::TRegionDescriptor& region) {
  Serve("openRegion", [&]() -> Status {
    RegionDescriptor descriptor;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(region, &descriptor));
    return store_->OpenRegion(descriptor);
  });
}

void RegionServiceHandler::closeRegion(int64_t region_id) {
  Serve("closeRegion", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    return store_->CloseRegion(id);
  });
}

void RegionServiceHandler::dropRegion(int64_t region_id) {
  Serve("dropRegion", [&]() -> Status {
    uint64_t id = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(region_id, "regionId", &id));
    return store_->DropRegion(id);
  });
}

void RegionServiceHandler::listRegions(
    std::vector<rpc::TRegionDescriptor>& result) {
  Serve("listRegions",
        [&]() -> Status { return ToThrift(store_->ListRegions(), &result); });
}

void RegionServiceHandler::mutateRows(
    rpc::TWriteResult& result, const std::vector<rpc::TMutation>& mutations) {
  Serve("mutateRows", [&]() -> Status {
    std::vector<Mutation> batch;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(mutations, &batch));
    BLOOMROUTE_ASSIGN_OR_RETURN(WriteResult written, store_->Apply(batch));
    return ToThrift(written, &result);
  });
}

void RegionServiceHandler::getMultiple(std::vector<rpc::TResult>& result,
                                       const std::vector<rpc::TGet>& gets) {
  Serve("getMultiple", [&]() -> Status {
    std::vector<GetRequest> requests;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(gets, &requests));
    BLOOMROUTE_ASSIGN_OR_RETURN(auto rows, store_->Get(requests));
    return ToThrift(rows, &result);
  });
}

void RegionServiceHandler::scan(rpc::TScanResult& result,
                                const rpc::TScan& scan) {
  Serve("scan", [&]() -> Status {
    ScanRequest request;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(scan, &request));
    BLOOMROUTE_ASSIGN_OR_RETURN(ScanResult rows, store_->Scan(request));
    return ToThrift(rows, &result);
  });
}

void RegionServiceHandler::lookup(rpc::TIndexQueryResult& result,
                                  const rpc::TIndexQuery& query) {
  Serve("lookup", [&]() -> Status {
    IndexQuery request;
    BLOOMROUTE_RETURN_IF_ERROR(FromThrift(query, &request));
    BLOOMROUTE_ASSIGN_OR_RETURN(IndexQueryResult rows, store_->Lookup(request));
    return ToThrift(rows, &result);
  });
}

void RegionServiceHandler::getFilterSnapshot(rpc::TFilterSnapshot& result) {
  Serve("getFilterSnapshot", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(FilterSnapshot snapshot, store_->Snapshot());
    return ToThrift(snapshot, &result);
  });
}

void RegionServiceHandler::getFilterOpsSince(rpc::TFilterOpsSince& result,
                                             int64_t epoch, int64_t seq) {
  Serve("getFilterOpsSince", [&]() -> Status {
    uint64_t e = 0;
    uint64_t s = 0;
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(epoch, "epoch", &e));
    BLOOMROUTE_RETURN_IF_ERROR(UnsignedFromThrift(seq, "seq", &s));
    BLOOMROUTE_ASSIGN_OR_RETURN(FilterOpsSince ops, store_->OpsSince(e, s));
    return ToThrift(ops, &result);
  });
}

void RegionServiceHandler::getFilterStatus(rpc::TFilterStatus& result) {
  Serve("getFilterStatus", [&]() -> Status {
    return ToThrift(store_->GetFilterStatus(), &result);
  });
}

void RegionServiceHandler::compactFilter() {
  Serve("compactFilter", [&]() -> Status { return store_->CompactFilter(); });
}

void RegionServiceHandler::verifyIndex(rpc::TIndexReport& result) {
  Serve("verifyIndex", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(IndexReport report, store_->VerifyIndex());
    return ToThrift(report, &result);
  });
}

}  // namespace bloomroute
