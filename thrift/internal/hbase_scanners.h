// HBaseScanners: what the RouterService handler keeps of an HBase scanner
// between getScannerRows calls, for the two TScan fields the router's
// scanner does not know: `limit` (rows in all) and `batchSize` (HBase's
// Scan.setBatch: at most this many cells per TResult, a wider row returned
// as several results in order).
//
// A scanner with neither is not kept: each call goes to the router as is.
// A kept scanner reads rows from the router (Fetch) no more than its limit
// allows and no more than the results asked for, splits them into results
// of at most batchSize cells, and keeps what the call did not return -- the
// rest of a split row and the rows read with it, at most one router reply
// (the router's --max-reply-bytes) -- for the next call, which returns those
// first without asking the router.
//
// Call sequence numbers (callSeq, router.h's ScannerNext): a kept scanner
// checks them itself, by the router's rule, since a call served from what
// was kept does not reach the router. It sends the router its own numbers,
// one per call that reads, so that repeating a call (a retry after a lost
// reply) restores what was kept and left before that call, and repeats its
// read in the router too: the same results again, nothing skipped.
//
// Usage (the handler):
//   scanners.Add(id, {limit, batch_cells});
//   StatusOr<std::vector<ScannerResult>> results = scanners.Next(
//       id, num_rows, call_seq, [&](uint32_t n, uint64_t seq) {
//         return router.ScannerNext(id, n, seq, client);
//       });
//   scanners.Remove(id);  // closed
//
// Thread-safety: thread-safe; calls on one scanner are serialized (each
// holds the scanner's mutex while it reads from the router).
#ifndef BLOOMROUTE_THRIFT_INTERNAL_HBASE_SCANNERS_H_
#define BLOOMROUTE_THRIFT_INTERNAL_HBASE_SCANNERS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"

namespace bloomroute::thrift_internal {

// One result of getScannerRows: a row, or a part of one.
struct ScannerResult {
  Row row;               // the row's key and some or all of its cells
  bool partial = false;  // more cells of this row follow (TResult.partial)
};

class HBaseScanners {
 public:
  struct Options {
    uint64_t limit = 0;        // rows in all; 0: every row
    uint32_t batch_cells = 0;  // cells per result; 0: whole rows
    // Who opened the scanner: the router's ScannerClient and principal
    // ("": none). What is kept is served to them alone (MayRead).
    uint64_t client = 0;
    std::string principal{};  // braces: aggregate inits may omit it
  };
  // Reads up to `max_rows` (0..kMaxRowsPerCall) rows from the router's
  // scanner, call `call_seq` of its sequence (0: unsequenced).
  using Fetch = std::function<StatusOr<std::vector<Row>>(uint32_t max_rows,
                                                         uint64_t call_seq)>;

  HBaseScanners() = default;
  HBaseScanners(const HBaseScanners&) = delete;
  HBaseScanners& operator=(const HBaseScanners&) = delete;

  // Keeps `scanner` (just opened) when `options` sets a limit or a batch;
  // otherwise does nothing.
  void Add(int32_t scanner, Options options);
  // Forgets `scanner` (closed); a scanner not kept is no error.
  void Remove(int32_t scanner);
  // Whether the caller (`client`, as `principal`) may read `scanner`, by
  // the router's rule (router.h, OpenScanner): the client that opened it,
  // or the same non-empty principal. True for a scanner not kept: the
  // router then decides at `fetch`.
  bool MayRead(int32_t scanner, uint64_t client, std::string_view principal);
  // Forgets the kept scanners `gone` says are no longer open (a kept
  // scanner may outlive the connection that opened it).
  void RemoveIf(const std::function<bool(int32_t scanner)>& gone);

  // One getScannerRows call: up to `num_rows` results (0: none, after the
  // router found the scanner), in key order. A scanner not kept: `fetch`'s
  // rows as they are. A kept one: InvalidArgument for `call_seq` out of
  // order (naming the expected number); otherwise the results as above,
  // empty when the scan or its limit is done. `fetch`'s error is returned
  // as is; NotFound also forgets the scanner.
  StatusOr<std::vector<ScannerResult>> Next(int32_t scanner, uint32_t num_rows,
                                            uint64_t call_seq,
                                            const Fetch& fetch);

 private:
  struct State;

  std::shared_ptr<State> Find(int32_t scanner);

  std::mutex mu_;
  std::map<int32_t, std::shared_ptr<State>> scanners_;  // guarded by mu_
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_HBASE_SCANNERS_H_
