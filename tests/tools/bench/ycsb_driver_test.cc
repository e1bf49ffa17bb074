#include "tools/bench/ycsb_driver.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace bloomroute::ycsb {
namespace {

// Rows in memory, shared by the threads' stores; Write fails for keys in
// `failing`.
struct Table {
  std::mutex mutex;
  std::map<std::string, std::map<std::string, std::string>> rows;
  std::map<std::string, uint64_t> lookups;  // value -> count
  uint64_t scanned_rows = 0;
  std::string failing;  // a key whose writes fail
};

class MemoryStore : public Store {
 public:
  explicit MemoryStore(Table* table) : table_(table) {}
  Status Read(const std::string& key) override {
    std::lock_guard<std::mutex> lock(table_->mutex);
    if (table_->rows.count(key) == 0) return Status::NotFound(key);
    return Status::OK();
  }
  Status Scan(const std::string& start_key, uint64_t count) override {
    std::lock_guard<std::mutex> lock(table_->mutex);
    auto it = table_->rows.lower_bound(start_key);
    for (uint64_t i = 0; i < count && it != table_->rows.end(); ++i, ++it) {
      ++table_->scanned_rows;
    }
    return Status::OK();
  }
  Status Write(const std::string& key,
               const std::vector<Cell>& cells) override {
    std::lock_guard<std::mutex> lock(table_->mutex);
    if (key == table_->failing) return Status::Unavailable("down");
    for (const Cell& c : cells) table_->rows[key][c.column] = c.value;
    return Status::OK();
  }
  Status Lookup(const std::string& column, const std::string& value,
                uint64_t limit) override {
    std::lock_guard<std::mutex> lock(table_->mutex);
    EXPECT_EQ(column, "family:field0");
    EXPECT_EQ(limit, 100u);
    ++table_->lookups[value];
    return Status::OK();
  }

 private:
  Table* table_;
};

class YcsbDriverTest : public ::testing::Test {
 protected:
  Options Workload(const char* name) {
    Options options;
    options.workload = *FindWorkload(name);
    options.record_count = 200;
    options.operation_count = 1000;
    options.threads = 3;
    options.field_count = 4;
    options.field_length = 8;
    return options;
  }
  StoreFactory Stores() {
    return [this](uint32_t) -> StatusOr<std::unique_ptr<Store>> {
      return std::unique_ptr<Store>(std::make_unique<MemoryStore>(&table_));
    };
  }
  PhaseResult Run(const Options& options, bool load) {
    StatusOr<PhaseResult> r =
        load ? RunLoad(options, Stores()) : RunTransactions(options, Stores());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(*r) : PhaseResult();
  }

  Table table_;
};

TEST_F(YcsbDriverTest, LoadInsertsEveryRecordWithEveryField) {
  const Options options = Workload("a");
  PhaseResult load = Run(options, true);
  EXPECT_EQ(load.operations, 200u);
  EXPECT_EQ(load.failures, 0u);
  EXPECT_EQ(load.measurements.Operations("INSERT"), 200u);
  ASSERT_EQ(table_.rows.size(), 200u);
  for (uint64_t r = 0; r < 200; ++r) {
    ASSERT_EQ(table_.rows.count(KeyName(r)), 1u) << r;
    EXPECT_EQ(table_.rows[KeyName(r)].size(), 4u);
  }
}

TEST_F(YcsbDriverTest, WorkloadAReadsAndUpdatesLoadedRecords) {
  const Options options = Workload("a");
  Run(options, true);
  PhaseResult run = Run(options, false);
  const uint64_t reads = run.measurements.Operations("READ");
  const uint64_t updates = run.measurements.Operations("UPDATE");
  EXPECT_EQ(reads + updates, 1000u);
  EXPECT_NEAR(reads / 1000.0, 0.5, 0.08);  // 5 sd
  EXPECT_EQ(run.failures, 0u);             // every read found its row
  EXPECT_EQ(table_.rows.size(), 200u);
}

TEST_F(YcsbDriverTest, WorkloadEScansAndInsertsNewRecords) {
  const Options options = Workload("e");
  Run(options, true);
  PhaseResult run = Run(options, false);
  const uint64_t inserts = run.measurements.Operations("INSERT");
  EXPECT_EQ(run.measurements.Operations("SCAN") + inserts, 1000u);
  EXPECT_EQ(table_.rows.size(), 200u + inserts);
  EXPECT_GT(table_.scanned_rows, 0u);
  EXPECT_EQ(run.failures, 0u);
}

TEST_F(YcsbDriverTest, WorkloadDReadsWhatItInserted) {
  const Options options = Workload("d");
  Run(options, true);
  PhaseResult run = Run(options, false);
  EXPECT_EQ(run.measurements.Operations("READ") +
                run.measurements.Operations("INSERT"),
            1000u);
  EXPECT_EQ(run.failures, 0u);
}

TEST_F(YcsbDriverTest, ReadModifyWriteCountsAsReadAndUpdateToo) {
  const Options options = Workload("f");
  Run(options, true);
  PhaseResult run = Run(options, false);
  const uint64_t rmw = run.measurements.Operations("READ-MODIFY-WRITE");
  EXPECT_GT(rmw, 0u);
  EXPECT_EQ(run.measurements.Operations("UPDATE"), rmw);
  EXPECT_EQ(run.measurements.Operations("READ"), 1000u);
}

// Workload I: field0 holds zipfian values; lookups ask for them, updates
// change them.
TEST_F(YcsbDriverTest, WorkloadILooksUpAndUpdatesTheIndexedField) {
  Options options = Workload("i");
  options.index_domain = 50;
  Run(options, true);
  std::map<std::string, int> loaded;
  for (auto& [key, row] : table_.rows) ++loaded[row["family:field0"]];
  EXPECT_LE(loaded.size(), 50u);
  PhaseResult run = Run(options, false);
  const uint64_t lookups = run.measurements.Operations("LOOKUP");
  EXPECT_EQ(lookups + run.measurements.Operations("UPDATE"), 1000u);
  EXPECT_NEAR(lookups / 1000.0, 0.9, 0.05);  // 5 sd
  uint64_t asked = 0;
  for (const auto& [value, n] : table_.lookups) {
    EXPECT_EQ(value[0], 'v');
    asked += n;
  }
  EXPECT_EQ(asked, lookups);
}

TEST_F(YcsbDriverTest, FailedOperationsAreCountedWithTheFirstReason) {
  Options options = Workload("a");
  options.record_count = 1;  // every operation touches record 0
  Run(options, true);
  table_.failing = KeyName(0);
  PhaseResult run = Run(options, false);
  EXPECT_EQ(run.failures, run.measurements.Operations("UPDATE"));
  EXPECT_GT(run.failures, 0u);
  EXPECT_TRUE(run.first_failure.IsUnavailable());
  EXPECT_NE(run.measurements.Report(1, 1000).find("[UPDATE], Return=ERROR"),
            std::string::npos);
}

TEST_F(YcsbDriverTest, ReadsOfMissingRowsAreNotFound) {
  const Options options = Workload("c");
  PhaseResult run = Run(options, false);  // nothing loaded
  EXPECT_EQ(run.failures, 1000u);
  EXPECT_TRUE(run.first_failure.IsNotFound());
}

TEST_F(YcsbDriverTest, AStoreThatCannotOpenFailsThePhase) {
  StoreFactory broken = [](uint32_t) -> StatusOr<std::unique_ptr<Store>> {
    return Status::Unavailable("no router");
  };
  EXPECT_TRUE(RunLoad(Workload("a"), broken).status().IsUnavailable());
}

}  // namespace
}  // namespace bloomroute::ycsb
