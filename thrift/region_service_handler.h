// RegionServiceHandler: implements the generated rpc::RegionServiceIf by
// calling a RegionStore.
//
// Each call converts its request (conversion/region_conversion.h), calls the
// store and converts the result. Every failure leaves through one function: a
// failed Status becomes TIllegalArgument or TIOError (status_conversion.h), and
// any other exception (std::bad_alloc, a library error) becomes TIOError, so
// nothing but the two declared exceptions ever reaches the client and the
// connection stays usable.
//
// Thread-safety: the handler holds no state of its own; calls may run
// concurrently because RegionStore's may.
#ifndef BLOOMROUTE_THRIFT_REGION_SERVICE_HANDLER_H_
#define BLOOMROUTE_THRIFT_REGION_SERVICE_HANDLER_H_

#include <memory>
#include <vector>

#include "regionstore/region_store.h"
#include "thrift/gen-cpp/RegionService.h"

namespace bloomroute {

class RegionServiceHandler : public rpc::RegionServiceIf {
 public:
  // `store` must not be null; the handler shares its ownership.
  explicit RegionServiceHandler(std::shared_ptr<RegionStore> store);
  RegionServiceHandler(const RegionServiceHandler&) = delete;
  RegionServiceHandler& operator=(const RegionServiceHandler&) = delete;

  // The coordinator's calls pass coordinator_epoch on (RegionStore,
  // "Coordinator epochs").
  void openRegion(const rpc::TRegionDescriptor& region, int64_t incarnation,
                  bool staging, int64_t coordinator_epoch) override;
  void splitPoint(rpc::TSplitPoint& result, int64_t region_id) override;
  void exportRows(rpc::TExportedRows& result, int64_t region_id,
                  const std::string& start_row, const std::string& stop_row,
                  int32_t max_rows, int64_t max_bytes) override;
  void closeRegion(int64_t region_id, int64_t coordinator_epoch) override;
  void dropRegion(int64_t region_id, int64_t coordinator_epoch) override;
  void listRegions(std::vector<rpc::TRegionDescriptor>& result) override;
  void listRegionIds(std::vector<int64_t>& result) override;
  void getRegionStats(rpc::TRegionStatsPage& result, int64_t table_id,
                      int64_t after_region_id, int32_t max_regions,
                      bool skip_row_count) override;
  void mutateRows(rpc::TWriteResult& result,
                  const std::vector<rpc::TMutation>& mutations,
                  int64_t fence_token) override;
  void getMultiple(std::vector<rpc::TResult>& result,
                   const std::vector<rpc::TGet>& gets,
                   int64_t max_bytes) override;
  void scan(rpc::TScanResult& result, const rpc::TScan& scan) override;
  void lookup(rpc::TIndexQueryResult& result,
              const rpc::TIndexQuery& query) override;
  void getFilterSnapshot(rpc::TFilterSnapshot& result,
                         int64_t fence_token) override;
  void getFilterImagePage(rpc::TFilterImagePage& result, int64_t fence_token,
                          int64_t image_id, int64_t offset) override;
  void getFilterOpsSince(rpc::TFilterOpsSince& result, int64_t epoch,
                         int64_t seq, int64_t incarnation,
                         int64_t fence_token) override;
  void getFilterStatus(rpc::TFilterStatus& result) override;
  void compactFilter() override;
  void setFilterConfig(const rpc::TFilterConfig& config,
                       int64_t coordinator_epoch) override;
  void syncWal() override;
  void subscribeOps(rpc::TOpSubscribeGrant& result,
                    const rpc::TOpSubscribeRequest& request) override;
  void bulkLoad(rpc::TWriteResult& result, int64_t region_id,
                const std::string& file, int64_t fence_token) override;
  void verifyIndex(rpc::TIndexReport& result, int64_t table_id) override;
  void updateTableIndexes(const rpc::TTableDescriptor& table,
                          int64_t coordinator_epoch) override;
  void backfillIndex(rpc::TIndexChunkResult& result, int64_t region_id,
                     int32_t column_id, const std::string& after_row,
                     int32_t max_rows, int64_t fence_token,
                     int64_t coordinator_epoch) override;
  void dropIndexEntries(rpc::TIndexChunkResult& result, int64_t region_id,
                        int32_t column_id, int32_t max_entries,
                        int64_t fence_token,
                        int64_t coordinator_epoch) override;

 private:
  const std::shared_ptr<RegionStore> store_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_REGION_SERVICE_HANDLER_H_
