// RowSink: where `bloomroute import` sends its rows, batch by batch. The
// online sink writes through the router's client API (RouterClient::Mutate)
// with several batches in flight; a bulk sink (rows grouped per region into
// sorted files) can implement the same interface.
//
// Order. A row written twice ends with the later write: a batch that shares
// a row key with a batch still in flight waits for it before it is sent. A
// batch must not hold a row key twice (the import driver cuts a batch before
// a repeated key), because a batch is not applied in order across regions.
//
// Acknowledgement. rows_written() counts only rows of batches the router
// acknowledged. After a failure the sink takes no more batches; Finish()
// waits for the batches in flight and returns the first failure.
//
// Thread-safety: Write and Finish are called from one thread (the driver);
// rows_written() may be called from any thread.
#ifndef BLOOMROUTE_TOOLS_IMPORT_ROW_SINK_H_
#define BLOOMROUTE_TOOLS_IMPORT_ROW_SINK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute {

class RouterClient;

class RowSink {
 public:
  virtual ~RowSink() = default;
  RowSink(const RowSink&) = delete;
  RowSink& operator=(const RowSink&) = delete;

  // Takes a batch of puts with distinct row keys; may return before it is
  // acknowledged, and blocks while the sink is full. Returns the sink's
  // first failure so far (the batch is then not taken).
  [[nodiscard]] virtual Status Write(std::vector<Mutation> batch) = 0;
  // Waits until every batch taken was acknowledged or failed; the first
  // failure, or OK. No Write after Finish.
  [[nodiscard]] virtual Status Finish() = 0;
  // Rows of acknowledged batches.
  virtual uint64_t rows_written() const = 0;

 protected:
  RowSink() = default;
};

struct BulkSinkOptions {
  // Rows kept in memory, about, before they are sorted and sent.
  size_t buffer_bytes = 256 << 20;
  // One bulk file, at most: well within the router's frame (64 MiB) and a
  // region server's file limits (32 MiB, 1000000 rows by default).
  size_t file_bytes = 16 << 20;
  uint64_t file_rows = 100000;
  uint32_t in_flight = 4;  // regions being written and sent at once
};

// Bulk import (`import --bulk`): buffers the rows of `table` per region (the
// regions DescribeTable gives when the sink is made), and when the buffer
// is full, and at Finish, writes each region's rows sorted by key into bulk
// files (regionstore/bulk_file.h) in a temporary directory and sends them
// with RouterClient::BulkLoad, each file applied atomically by its region
// server as puts. The result is the same as the online sink's: a key written
// twice ends with the later write's columns (loads of a region run in
// order). rows_written() counts the rows given (as the online sink does) of
// regions whose files were all acknowledged: it moves in steps. The temporary
// files are removed (also on failure, when the sink is destroyed). After an
// interrupt (interrupt.h) no more files are written or sent, and Finish drops
// the buffered rows and returns InterruptedStatus(). NotFound when the table
// does not exist; the client's errors.
StatusOr<std::unique_ptr<RowSink>> NewBulkSink(RouterClient* client,
                                               std::string table,
                                               const BulkSinkOptions& options);

// Writes batches to `table` through `client` (not owned, must outlive the
// sink) from `in_flight` threads (at least 1): up to `in_flight` batches are
// being written at once, and Write blocks while that many are. A failed
// Mutate fails the sink with the router's message.
std::unique_ptr<RowSink> NewOnlineSink(RouterClient* client, std::string table,
                                       uint32_t in_flight);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_ROW_SINK_H_
