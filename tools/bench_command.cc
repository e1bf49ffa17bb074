#include "tools/bench_command.h"

#include <algorithm>
#include <iostream>
#include <memory>
#include <utility>

#include "tools/bench/router_store.h"

namespace bloomroute {
namespace po = boost::program_options;

namespace {

// The decimal hashes of 19 digits lie in [10^18, 2^63).
constexpr uint64_t kLowest19Digits = 1'000'000'000'000'000'000ULL;
constexpr uint64_t kHashEnd = uint64_t{1} << 63;
// Enough leading digits to keep kMaxRegions split keys apart.
constexpr size_t kSplitDigits = 6;

}  // namespace

std::vector<std::string> YcsbSplitKeys(uint32_t regions) {
  std::vector<std::string> keys;
  const auto span = static_cast<unsigned __int128>(kHashEnd - kLowest19Digits);
  for (uint32_t i = 1; i < regions; ++i) {
    const auto value =
        static_cast<uint64_t>(kLowest19Digits + span * i / regions);
    std::string key = "user" + std::to_string(value).substr(0, kSplitDigits);
    if (keys.empty() || keys.back() < key) keys.push_back(std::move(key));
  }
  return keys;
}

BenchCommand::BenchCommand()
    : Command("bench",
              "benchmark a running cluster (ycsb: YCSB's core workloads)") {}

void BenchCommand::DeclareOptions(OptionTable* table) {
  table->String("subcommand", &subcommand_, "the benchmark: ycsb")
      .Choices({"ycsb"})
      .Required();
  connection_.Add(table);
  table
      ->String("workload", &workload_name_,
               "YCSB core workload a-f, or i (index lookups and updates)")
      .Choices({"a", "b", "c", "d", "e", "f", "i"})
      .Default("a");
  table
      ->String("phase", &phase_,
               "load: create the table and insert the records; run: the "
               "operations; both: load, then run")
      .Choices({"load", "run", "both"})
      .Default("both");
  table
      ->String("requestdistribution", &distribution_name_,
               "which records operations touch (default: the workload's)")
      .Choices({"zipfian", "uniform", "latest"});
  DeclareSizeRows(table);
  DeclareTableRows(table);
}

void BenchCommand::DeclareSizeRows(OptionTable* table) {
  table
      ->Integer("recordcount", &options_.record_count, 1000,
                "records the load phase inserts")
      .Range(1, IntegerOption::kNoUpperBound);
  table
      ->Integer("operationcount", &options_.operation_count, 1000,
                "operations of the run phase")
      .Range(1, IntegerOption::kNoUpperBound);
  table->Integer("threads", &options_.threads, 1, "client threads")
      .Range(1, 1024);
  table->Integer("fieldcount", &options_.field_count, 10, "fields a record")
      .Range(1, 1000);
  table->Integer("fieldlength", &options_.field_length, 100, "bytes a field")
      .Range(1, 1 << 20);
  table
      ->Integer("maxscanlength", &options_.max_scan_length, 100,
                "longest scan (rows, uniform from 1); also the most rows "
                "a workload-i lookup returns")
      .Range(1, kMaxRowsPerCall);
  table
      ->Integer("indexdomain", &options_.index_domain, 1000,
                "workload i: distinct values of the indexed field0")
      .Range(1, IntegerOption::kNoUpperBound);
}

void BenchCommand::DeclareTableRows(OptionTable* table) {
  table->String("table", &table_, "the table; the load phase creates it")
      .Default("usertable")
      .ValueName("T");
  table
      ->String("family", &options_.family,
               "the table's column family (YCSB's columnfamily)")
      .Default("family")
      .ValueName("F");
  table
      ->Integer("regions", &regions_, 0,
                "regions of a new table; 0 = one per region server")
      .Range(0, router::TableSpec::kMaxRegions);
  table->Integer("seed", &options_.seed, 1, "seeds every generator")
      .Range(0, IntegerOption::kNoUpperBound);
}

void BenchCommand::AddPositional(po::positional_options_description* p) {
  p->add("subcommand", 1);
}

Status BenchCommand::Validate() {
  BLOOMROUTE_ASSIGN_OR_RETURN(options_.workload,
                              ycsb::FindWorkload(workload_name_));
  if (!distribution_name_.empty()) {
    BLOOMROUTE_ASSIGN_OR_RETURN(options_.workload.distribution,
                                ycsb::ParseDistribution(distribution_name_));
  }
  if (table_.empty()) return Status::InvalidArgument("--table is empty");
  if (options_.family.empty() ||
      options_.family.find(':') != std::string::npos) {
    return Status::InvalidArgument("--family '" + options_.family +
                                   "' is empty or holds ':'");
  }
  return connection_.Validate();
}

Status BenchCommand::CheckTable(const router::TableInfo& existing) const {
  const std::string field0 = ycsb::FieldColumn(options_, 0);
  if (!options_.workload.indexed_field0 ||
      existing.descriptor.FindIndexed(field0) != nullptr) {
    return Status::OK();
  }
  return Status::InvalidArgument(
      "table " + table_ + " exists without an index on " + field0 +
      ", which workload i looks rows up by: add it with `bloomroute index "
      "add --table " +
      table_ + " --column " + field0 + "` or give another --table");
}

Status BenchCommand::EnsureTable(RouterClient& router) const {
  const std::string field0 = ycsb::FieldColumn(options_, 0);
  const bool indexed = options_.workload.indexed_field0;
  StatusOr<router::TableInfo> existing = router.DescribeTable(table_);
  if (existing.ok()) return CheckTable(*existing);
  if (!existing.status().IsNotFound()) return existing.status();
  uint32_t regions = regions_;
  if (regions == 0) {
    BLOOMROUTE_ASSIGN_OR_RETURN(router::ClusterStatus cluster,
                                router.GetClusterStatus());
    regions = std::max<uint32_t>(
        1, std::min<uint32_t>(static_cast<uint32_t>(cluster.servers.size()),
                              router::TableSpec::kMaxRegions));
  }
  router::TableSpec spec;
  spec.name = table_;
  spec.families = {options_.family};
  if (indexed) spec.indexed_columns = {field0};
  spec.split_keys = YcsbSplitKeys(regions);
  if (spec.split_keys.empty()) spec.region_count = 1;
  BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo created,
                              router.CreateTable(spec));
  std::cerr << "bloomroute bench ycsb: created table " << table_ << " with "
            << created.regions.size() << " regions, family " << options_.family
            << (indexed ? ", indexed column " + field0 : std::string())
            << std::endl;
  return Status::OK();
}

Status BenchCommand::RunPhase(const std::string& phase) {
  const ycsb::StoreFactory stores =
      [this](uint32_t) -> StatusOr<std::unique_ptr<ycsb::Store>> {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                                connection_.Connect());
    return ycsb::MakeRouterStore(std::move(router), table_);
  };
  BLOOMROUTE_ASSIGN_OR_RETURN(ycsb::PhaseResult result,
                              phase == "load"
                                  ? ycsb::RunLoad(options_, stores)
                                  : ycsb::RunTransactions(options_, stores));
  std::cout << "# bloomroute bench ycsb: " << phase << " phase, workload "
            << options_.workload.name << "\n"
            << result.measurements.Report(result.runtime_ms, result.operations)
            << std::flush;
  if (result.failures == 0) return Status::OK();
  return result.first_failure.WithContext(
      phase + " phase: " + std::to_string(result.failures) + " of " +
      std::to_string(result.operations) +
      " operations did not end OK; the first");
}

Status BenchCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              connection_.Connect());
  if (phase_ != "run") {
    BLOOMROUTE_RETURN_IF_ERROR(EnsureTable(*router));
    BLOOMROUTE_RETURN_IF_ERROR(RunPhase("load"));
  } else {
    // A run on a missing table, or workload i's on a table without its
    // index, would fail every operation: say so once.
    BLOOMROUTE_ASSIGN_OR_RETURN(
        router::TableInfo existing,
        ExplainTableNotFound(*router, table_, router->DescribeTable(table_)));
    BLOOMROUTE_RETURN_IF_ERROR(CheckTable(existing));
  }
  if (phase_ == "load") return Status::OK();
  return RunPhase("run");
}

std::string BenchCommand::HelpEpilog() const {
  return "Workloads (YCSB's core workloads, and i):\n"
         "  a  50% read, 50% update, zipfian\n"
         "  b  95% read, 5% update, zipfian\n"
         "  c  100% read, zipfian\n"
         "  d  95% read, 5% insert, latest\n"
         "  e  95% scan (1..maxscanlength rows), 5% insert, zipfian\n"
         "  f  50% read, 50% read-modify-write, zipfian\n"
         "  i  90% lookup by the indexed field0, 10% update of field0;\n"
         "     field0 values zipfian over --indexdomain values\n"
         "Keys are \"user\" + FNV-1a 64 of the record number (YCSB's\n"
         "insertorder=hashed); zipfian is YCSB's scrambled zipfian (constant\n"
         "0.99). Each phase prints YCSB's report lines ([OVERALL],\n"
         "[READ], ...) to stdout. Run the load and run phases with the same\n"
         "--recordcount, --fieldcount and --table. Exit 1 when any\n"
         "operation failed or found no row.\n";
}

}  // namespace bloomroute
