#include "tools/bench/ycsb_driver.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

namespace bloomroute::ycsb {
namespace {

using Clock = std::chrono::steady_clock;

enum class Phase : uint32_t { kLoad = 1, kRun = 2 };

Rng SeededRng(const Options& options, uint32_t thread, Phase phase) {
  std::seed_seq seq{static_cast<uint32_t>(options.seed),
                    static_cast<uint32_t>(options.seed >> 32), thread,
                    static_cast<uint32_t>(phase)};
  return Rng(seq);
}

Outcome OutcomeOf(const Status& status) {
  if (status.ok()) return Outcome::kOk;
  return status.IsNotFound() ? Outcome::kNotFound : Outcome::kError;
}

// One thread's measurements and its first failure.
class Recorder {
 public:
  // Runs `op`, timing it, and records it as `name`; its status.
  template <typename Fn>
  Status Timed(const char* name, Fn&& op) {
    const Clock::time_point start = Clock::now();
    Status status = op();
    Record(name, start, status);
    return status;
  }
  void Record(const char* name, Clock::time_point start, const Status& status) {
    const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(
                            Clock::now() - start)
                            .count();
    measurements_.Record(name, static_cast<uint64_t>(micros),
                         OutcomeOf(status));
    if (!status.ok() && first_failure_.ok()) first_failure_ = status;
  }
  void MergeInto(PhaseResult* result) const {
    result->measurements.Merge(measurements_);
    if (result->first_failure.ok()) result->first_failure = first_failure_;
  }

 private:
  Measurements measurements_;
  Status first_failure_;
};

// Which record an operation touches (see the header).
class KeyChooser {
 public:
  KeyChooser(const Options& options, const InsertSequence* inserted)
      : distribution_(options.workload.distribution), inserted_(inserted) {
    switch (distribution_) {
      case Distribution::kZipfian: {
        const auto expected_inserts =
            static_cast<uint64_t>(static_cast<double>(options.operation_count) *
                                  options.workload.insert * 2.0);
        zipfian_.emplace(0, options.record_count + expected_inserts - 1);
        break;
      }
      case Distribution::kUniform:
        uniform_.emplace(0, options.record_count - 1);
        break;
      case Distribution::kLatest:
        latest_.emplace(inserted);
        break;
    }
  }

  uint64_t Next(Rng& rng) {
    if (latest_) return latest_->Next(rng);
    if (uniform_) return uniform_->Next(rng);
    uint64_t record;
    do {
      record = zipfian_->Next(rng);
    } while (record > inserted_->Last());
    return record;
  }

 private:
  Distribution distribution_;
  const InsertSequence* inserted_;
  std::optional<ScrambledZipfianGenerator> zipfian_;
  std::optional<UniformGenerator> uniform_;
  std::optional<SkewedLatestGenerator> latest_;
};

// One thread of the run phase: its generators and its store.
class Worker {
 public:
  Worker(const Options& options, InsertSequence* inserted, Store* store,
         uint32_t thread)
      : options_(options),
        inserted_(inserted),
        store_(store),
        rng_(SeededRng(options, thread, Phase::kRun)),
        operation_({options.workload.read, options.workload.update,
                    options.workload.insert, options.workload.scan,
                    options.workload.read_modify_write,
                    options.workload.lookup}),
        keys_(options, inserted),
        fields_(0, options.field_count - 1),
        scan_length_(1, options.max_scan_length),
        index_values_(0, options.index_domain - 1) {}

  void Run(uint64_t operations) {
    for (uint64_t i = 0; i < operations; ++i) DoOne();
  }
  const Recorder& recorder() const { return recorder_; }

 private:
  // In the order of the weights given to operation_.
  void DoOne() {
    switch (operation_.Next(rng_)) {
      case 0:
        return (void)Read(KeyName(keys_.Next(rng_)));
      case 1:
        return (void)Update(KeyName(keys_.Next(rng_)));
      case 2:
        return Insert();
      case 3:
        return Scan();
      case 4:
        return ReadModifyWrite();
      default:
        return Lookup();
    }
  }

  Status Read(const std::string& key) {
    return recorder_.Timed("READ", [&] { return store_->Read(key); });
  }

  // One field, or workload I's indexed field0 with a new value.
  Status Update(const std::string& key) {
    Cell cell;
    if (options_.workload.indexed_field0) {
      cell =
          Cell{FieldColumn(options_, 0), IndexValue(index_values_.Next(rng_))};
    } else {
      cell =
          Cell{FieldColumn(options_, static_cast<uint32_t>(fields_.Next(rng_))),
               RandomValue(rng_, options_.field_length)};
    }
    return recorder_.Timed(
        "UPDATE", [&] { return store_->Write(key, {std::move(cell)}); });
  }

  void Insert() {
    const uint64_t record = inserted_->Next();
    const std::vector<Cell> cells =
        NewRecord(options_, rng_, index_values_.Next(rng_));
    const Status status = recorder_.Timed(
        "INSERT", [&] { return store_->Write(KeyName(record), cells); });
    if (status.ok()) inserted_->Acknowledge(record);
  }

  void Scan() {
    const std::string start = KeyName(keys_.Next(rng_));
    const uint64_t length = scan_length_.Next(rng_);
    (void)recorder_.Timed("SCAN", [&] { return store_->Scan(start, length); });
  }

  void ReadModifyWrite() {
    const std::string key = KeyName(keys_.Next(rng_));
    const Clock::time_point start = Clock::now();
    Status status = Read(key);
    if (status.ok()) status = Update(key);
    recorder_.Record("READ-MODIFY-WRITE", start, status);
  }

  void Lookup() {
    const std::string value = IndexValue(index_values_.Next(rng_));
    (void)recorder_.Timed("LOOKUP", [&] {
      return store_->Lookup(FieldColumn(options_, 0), value,
                            options_.max_scan_length);
    });
  }

  const Options& options_;
  InsertSequence* inserted_;
  Store* store_;
  Rng rng_;
  DiscreteGenerator operation_;
  KeyChooser keys_;
  UniformGenerator fields_;
  UniformGenerator scan_length_;
  ScrambledZipfianGenerator index_values_;
  Recorder recorder_;
};

// Opens a store per thread, runs body(thread, store, recorder) on each
// thread and merges what they recorded; the wall time of the threads.
StatusOr<PhaseResult> RunThreads(
    const Options& options, const StoreFactory& stores, uint64_t operations,
    const std::function<void(uint32_t, Store*, Recorder*)>& body) {
  std::vector<std::unique_ptr<Store>> opened;
  for (uint32_t t = 0; t < options.threads; ++t) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, stores(t));
    opened.push_back(std::move(store));
  }
  std::vector<Recorder> recorders(options.threads);
  std::vector<std::thread> threads;
  const Clock::time_point start = Clock::now();
  for (uint32_t t = 0; t < options.threads; ++t) {
    threads.emplace_back([&, t] { body(t, opened[t].get(), &recorders[t]); });
  }
  for (std::thread& thread : threads) thread.join();
  PhaseResult result;
  result.runtime_ms = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                            start)
          .count());
  result.operations = operations;
  for (const Recorder& r : recorders) r.MergeInto(&result);
  result.failures = result.measurements.Failures();
  return result;
}

}  // namespace

StatusOr<PhaseResult> RunLoad(const Options& options,
                              const StoreFactory& stores) {
  std::atomic<uint64_t> next{0};
  return RunThreads(
      options, stores, options.record_count,
      [&](uint32_t thread, Store* store, Recorder* recorder) {
        Rng rng = SeededRng(options, thread, Phase::kLoad);
        ScrambledZipfianGenerator index_values(0, options.index_domain - 1);
        for (uint64_t record = next++; record < options.record_count;
             record = next++) {
          const std::vector<Cell> cells =
              NewRecord(options, rng, index_values.Next(rng));
          (void)recorder->Timed(
              "INSERT", [&] { return store->Write(KeyName(record), cells); });
        }
      });
}

StatusOr<PhaseResult> RunTransactions(const Options& options,
                                      const StoreFactory& stores) {
  InsertSequence inserted(options.record_count);
  return RunThreads(
      options, stores, options.operation_count,
      [&](uint32_t thread, Store* store, Recorder* recorder) {
        Worker worker(options, &inserted, store, thread);
        const uint64_t share =
            options.operation_count / options.threads +
            (thread < options.operation_count % options.threads ? 1 : 0);
        worker.Run(share);
        *recorder = worker.recorder();
      });
}

}  // namespace bloomroute::ycsb
