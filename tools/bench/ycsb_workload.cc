#include "tools/bench/ycsb_workload.h"

#include <cctype>
#include <utility>

namespace bloomroute::ycsb {
namespace {

constexpr Distribution kZipfian = Distribution::kZipfian;

// YCSB's workloads/workload[a-f] and ours; the columns as WorkloadSpec's:
// name, read, update, insert, scan, read-modify-write, lookup.
const WorkloadSpec kWorkloads[] = {
    {'a', 0.5, 0.5, 0, 0, 0, 0, kZipfian, false},
    {'b', 0.95, 0.05, 0, 0, 0, 0, kZipfian, false},
    {'c', 1.0, 0, 0, 0, 0, 0, kZipfian, false},
    {'d', 0.95, 0, 0.05, 0, 0, 0, Distribution::kLatest, false},
    {'e', 0, 0, 0.05, 0.95, 0, 0, kZipfian, false},
    {'f', 0.5, 0, 0, 0, 0.5, 0, kZipfian, false},
    {'i', 0, 0.1, 0, 0, 0, 0.9, kZipfian, true},
};

}  // namespace

StatusOr<Distribution> ParseDistribution(std::string_view name) {
  const std::pair<const char*, Distribution> kNames[] = {
      {"zipfian", Distribution::kZipfian},
      {"uniform", Distribution::kUniform},
      {"latest", Distribution::kLatest}};
  for (const auto& [word, distribution] : kNames) {
    if (name == word) return distribution;
  }
  return Status::InvalidArgument("unknown request distribution '" +
                                 std::string(name) +
                                 "': give zipfian, uniform or latest");
}

StatusOr<WorkloadSpec> FindWorkload(std::string_view name) {
  if (name.size() == 1) {
    const auto letter =
        static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])));
    for (const WorkloadSpec& spec : kWorkloads) {
      if (spec.name == letter) return spec;
    }
  }
  return Status::InvalidArgument("unknown workload '" + std::string(name) +
                                 "': give a, b, c, d, e, f or i");
}

std::string FieldColumn(const Options& options, uint32_t field) {
  return options.family + ":field" + std::to_string(field);
}

std::string IndexValue(uint64_t n) { return "v" + std::to_string(n); }

std::string RandomValue(Rng& rng, uint32_t length) {
  // Printable ASCII from '!' on, 6 bits at a time: 10 characters a draw.
  std::string value(length, ' ');
  uint64_t bits = 0;
  int left = 0;
  for (char& c : value) {
    if (left == 0) {
      bits = rng();
      left = 10;
    }
    c = static_cast<char>('!' + (bits & 63));
    bits >>= 6;
    --left;
  }
  return value;
}

std::vector<Cell> NewRecord(const Options& options, Rng& rng,
                            uint64_t index_value) {
  std::vector<Cell> cells;
  cells.reserve(options.field_count);
  for (uint32_t f = 0; f < options.field_count; ++f) {
    std::string value = f == 0 && options.workload.indexed_field0
                            ? IndexValue(index_value)
                            : RandomValue(rng, options.field_length);
    cells.push_back(Cell{FieldColumn(options, f), std::move(value)});
  }
  return cells;
}

}  // namespace bloomroute::ycsb
