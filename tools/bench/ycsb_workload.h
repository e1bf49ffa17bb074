// YCSB's core workloads (site.ycsb.workloads.CoreWorkload and the
// workloads/workload[a-f] property files) and bloomroute's own workload I,
// as the parameters `bloomroute bench ycsb` runs them with.
//
//   workload  operations                          request distribution
//   a         50% read, 50% update                zipfian
//   b         95% read, 5% update                 zipfian
//   c         100% read                           zipfian
//   d         95% read, 5% insert                 latest
//   e         95% scan, 5% insert                 zipfian (scan length
//                                                 uniform in 1..maxscanlength)
//   f         50% read, 50% read-modify-write     zipfian
//   i         90% lookup, 10% update of field0    zipfian
//
// Workload I: field0 is an indexed column holding "v<N>", N drawn zipfian
// (scrambled) from [0, indexdomain); a lookup asks the router for the rows
// whose field0 equals a value drawn the same way (at most maxscanlength
// rows); an update gives a row's field0 a newly drawn value, so the index
// and the routing filters change under the lookups.
//
// Records as YCSB writes them: row key KeyName(record) (tools/bench/
// ycsb_generators.h), columns FAMILY:field0 .. FAMILY:field<fieldcount-1>,
// each fieldlength random printable characters. A read reads the whole row;
// an update writes one field (YCSB's writeallfields=false); an insert
// writes every field.
#ifndef BLOOMROUTE_TOOLS_BENCH_YCSB_WORKLOAD_H_
#define BLOOMROUTE_TOOLS_BENCH_YCSB_WORKLOAD_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/statusor.h"
#include "model/rows.h"
#include "tools/bench/ycsb_generators.h"

namespace bloomroute::ycsb {

enum class Distribution { kZipfian, kUniform, kLatest };

// InvalidArgument naming the accepted words for another one.
StatusOr<Distribution> ParseDistribution(std::string_view name);

struct WorkloadSpec {
  char name = 'a';
  // Proportions of the operations (YCSB's readproportion, ...), summing to 1.
  double read = 0;
  double update = 0;
  double insert = 0;
  double scan = 0;
  double read_modify_write = 0;
  double lookup = 0;
  Distribution distribution = Distribution::kZipfian;
  // Workload I: field0 is indexed and drawn from the index domain.
  bool indexed_field0 = false;
};

// The workload of letter `name` ("a".."f", "i", either case); InvalidArgument
// "unknown workload 'x': give a, b, c, d, e, f or i" for any other.
StatusOr<WorkloadSpec> FindWorkload(std::string_view name);

struct Options {
  WorkloadSpec workload;
  uint64_t record_count = 1000;     // recordcount, >= 1
  uint64_t operation_count = 1000;  // operationcount
  uint32_t field_count = 10;        // fieldcount, >= 1
  uint32_t field_length = 100;      // fieldlength, >= 1
  uint64_t max_scan_length = 100;   // maxscanlength, >= 1
  uint32_t threads = 1;             // >= 1
  uint64_t index_domain = 1000;     // workload I's field0 values, >= 1
  uint64_t seed = 1;
  std::string family = "family";
};

// "FAMILY:field<i>".
std::string FieldColumn(const Options& options, uint32_t field);
// The value of workload I's field0 for index value `n`: "v<n>".
std::string IndexValue(uint64_t n);
// `length` random printable characters (YCSB's RandomByteIterator).
std::string RandomValue(Rng& rng, uint32_t length);
// Every field of a new record; field0 is IndexValue(index_value) when the
// workload indexes it.
std::vector<Cell> NewRecord(const Options& options, Rng& rng,
                            uint64_t index_value);

}  // namespace bloomroute::ycsb

#endif  // BLOOMROUTE_TOOLS_BENCH_YCSB_WORKLOAD_H_
