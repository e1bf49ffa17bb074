#include "tools/bench/ycsb_workload.h"

#include <cctype>

namespace bloomroute::ycsb {
namespace {

WorkloadSpec Spec(char name, Distribution distribution) {
  WorkloadSpec spec;
  spec.name = name;
  spec.distribution = distribution;
  return spec;
}

}  // namespace

StatusOr<Distribution> ParseDistribution(std::string_view name) {
  if (name == "zipfian") return Distribution::kZipfian;
  if (name == "uniform") return Distribution::kUniform;
  if (name == "latest") return Distribution::kLatest;
  return Status::InvalidArgument("unknown request distribution '" +
                                 std::string(name) +
                                 "': give zipfian, uniform or latest");
}

StatusOr<WorkloadSpec> FindWorkload(std::string_view name) {
  const char letter =
      name.size() == 1
          ? static_cast<char>(std::tolower(static_cast<unsigned char>(name[0])))
          : '\0';
  WorkloadSpec spec = Spec(letter, Distribution::kZipfian);
  switch (letter) {
    case 'a':
      spec.read = spec.update = 0.5;
      return spec;
    case 'b':
      spec.read = 0.95;
      spec.update = 0.05;
      return spec;
    case 'c':
      spec.read = 1.0;
      return spec;
    case 'd':
      spec.distribution = Distribution::kLatest;
      spec.read = 0.95;
      spec.insert = 0.05;
      return spec;
    case 'e':
      spec.scan = 0.95;
      spec.insert = 0.05;
      return spec;
    case 'f':
      spec.read = spec.read_modify_write = 0.5;
      return spec;
    case 'i':
      spec.lookup = 0.9;
      spec.update = 0.1;
      spec.indexed_field0 = true;
      return spec;
    default:
      break;
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
