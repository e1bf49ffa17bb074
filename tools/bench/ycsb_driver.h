// The YCSB client loop (site.ycsb.Client with CoreWorkload): the load phase
// inserts records 0..recordcount-1, the run phase does operationcount
// operations of the workload's mix, each over `threads` threads, every
// operation timed and its outcome counted (tools/bench/ycsb_measurements.h).
//
// The driver reaches the database only through Store (YCSB's DB interface),
// one per thread, so that tests run it against an in-memory store.
//
// Which record an operation touches (YCSB's CoreWorkload.nextKeynum):
//   zipfian  ScrambledZipfianGenerator over recordcount plus twice the
//            inserts expected (insertproportion * operationcount), so that
//            the popular records stay the same as inserts add records; a
//            draw of a record not inserted yet is drawn again
//   uniform  uniform over the loaded records
//   latest   SkewedLatestGenerator over the records inserted so far
// Inserts of the run phase take record numbers from recordcount on; a
// record counts as inserted once its insert succeeded (InsertSequence).
// Measured as YCSB does: a read-modify-write is one READ-MODIFY-WRITE
// operation and also a READ and an UPDATE.
//
// Example:
//   Options options;  options.workload = *FindWorkload("a");
//   PhaseResult load = RunLoad(options, factory);
//   PhaseResult run = RunTransactions(options, factory);
//   std::cout << run.measurements.Report(run.runtime_ms, run.operations);
#ifndef BLOOMROUTE_TOOLS_BENCH_YCSB_DRIVER_H_
#define BLOOMROUTE_TOOLS_BENCH_YCSB_DRIVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"
#include "model/rows.h"
#include "tools/bench/ycsb_measurements.h"
#include "tools/bench/ycsb_workload.h"

namespace bloomroute::ycsb {

// What the benchmark asks of a database. NotFound from Read means the row is
// missing (counted as Return=NOT_FOUND); any other failure is an ERROR.
// Used by one thread.
class Store {
 public:
  virtual ~Store() = default;
  // Reads every column of the row `key`.
  [[nodiscard]] virtual Status Read(const std::string& key) = 0;
  // Reads up to `count` rows from `start_key` on, in key order.
  [[nodiscard]] virtual Status Scan(const std::string& start_key,
                                    uint64_t count) = 0;
  // Writes `cells` into the row `key` (an update or an insert alike).
  [[nodiscard]] virtual Status Write(const std::string& key,
                                     const std::vector<Cell>& cells) = 0;
  // Reads up to `limit` rows whose `column` (indexed) equals `value`.
  [[nodiscard]] virtual Status Lookup(const std::string& column,
                                      const std::string& value,
                                      uint64_t limit) = 0;
};

// A store for worker thread `thread`; the driver opens one per thread
// before the phase starts (its failure ends the phase).
using StoreFactory =
    std::function<StatusOr<std::unique_ptr<Store>>(uint32_t thread)>;

struct PhaseResult {
  Measurements measurements;
  uint64_t runtime_ms = 0;
  uint64_t operations = 0;  // of the phase: records loaded, operations run
  uint64_t failures = 0;    // operations that did not end OK
  // The first failure's reason (OK when none), to say why on stderr.
  Status first_failure;
};

// Inserts records 0..recordcount-1 (every field) over options.threads
// threads. A store that cannot be opened is returned as the error.
StatusOr<PhaseResult> RunLoad(const Options& options,
                              const StoreFactory& stores);
// Runs options.operation_count operations of options.workload over
// options.threads threads, on the records a load phase of the same
// options inserted.
StatusOr<PhaseResult> RunTransactions(const Options& options,
                                      const StoreFactory& stores);

}  // namespace bloomroute::ycsb

#endif  // BLOOMROUTE_TOOLS_BENCH_YCSB_DRIVER_H_
