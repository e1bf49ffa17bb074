// Experiment 4, ddcf: tables 2-8 of the DDCF paper (../shared/papers/002,
// section 5). A counting filter for n = 10^6 elements at P = 1 % (m = ceil(n
// ln(1/P) / ln(2)^2) = 9,585,059 counters, k = 7, 4-bit base counters) built
// three ways: DCF (one overflow vector, rebuilt by copying), DDCF (one-bit
// planes) and DCBF (a list of 4-bit counting filters). One element is inserted
// 64 times and removed again, which makes each of them grow and shrink; then
// 1, 5,000 and 10,000 distinct elements are inserted and removed. Times are
// medians over repeats of single operations (steady_clock), memory is
// MemoryBytes(), exact.
#include <cmath>
#include <functional>
#include <memory>

#include "lab/dynamic_count_bloom_filter.h"
#include "lab/dynamic_count_filter.h"
#include "lab/experiments/experiments.h"

namespace bloomroute::lab {

namespace {

constexpr uint32_t kBaseBits = 4;
constexpr uint32_t kRepeats = 64;
constexpr int kFilters = 3;  // DCF, DDCF, DCBF

using Factory = std::function<StatusOr<std::unique_ptr<MembershipFilter>>()>;

template <typename T>
StatusOr<std::unique_ptr<MembershipFilter>> Own(StatusOr<T> f) {
  if (!f.ok()) return f.status();
  return std::unique_ptr<MembershipFilter>(
      std::make_unique<T>(std::move(f).value()));
}

struct Geometry {
  uint64_t capacity, counters;
  uint32_t hashes;
};

Geometry GeometryFor(uint64_t capacity, double fpr) {
  const double ln2 = std::log(2.0);
  const double m = std::ceil(capacity * std::log(1 / fpr) / (ln2 * ln2));
  return {capacity, static_cast<uint64_t>(m),
          static_cast<uint32_t>(std::lround(m / capacity * ln2))};
}

std::vector<Factory> Factories(const Geometry& g) {
  return {
      [g] { return Own(DcfFilter::Create(g.counters, g.hashes, kBaseBits)); },
      [g] { return Own(DdcfFilter::Create(g.counters, g.hashes, kBaseBits)); },
      [g] {
        return Own(
            DynamicCountBloomFilter::Create(g.counters, g.hashes, kBaseBits));
      }};
}

// One run of "insert one element 64 times, remove it 64 times": the time of
// each operation and the memory after it, index t = count before a remove /
// after an insert.
struct RepeatRun {
  std::vector<double> insert_ns = std::vector<double>(kRepeats + 1);
  std::vector<double> remove_ns = std::vector<double>(kRepeats + 1);
  std::vector<uint64_t> insert_bytes = std::vector<uint64_t>(kRepeats + 1);
  std::vector<uint64_t> remove_bytes = std::vector<uint64_t>(kRepeats + 1);
};

StatusOr<RepeatRun> RunRepeated(const Factory& make, const LabOptions& o) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<MembershipFilter> f, make());
  const ElementHash key = LabKey(o.seed, kPresentStream, 0);
  RepeatRun run;
  for (uint32_t t = 1; t <= kRepeats; ++t) {
    Stopwatch watch;
    BLOOMROUTE_RETURN_IF_ERROR(f->Insert(key));
    run.insert_ns[t] = watch.ElapsedNanos();
    run.insert_bytes[t] = f->MemoryBytes();
  }
  for (uint32_t t = kRepeats; t >= 1; --t) {
    Stopwatch watch;
    BLOOMROUTE_RETURN_IF_ERROR(f->Remove(key));
    run.remove_ns[t] = watch.ElapsedNanos();
    run.remove_bytes[t] = f->MemoryBytes();
  }
  return run;
}

std::string Mib(uint64_t bytes) {
  return FormatFixed(static_cast<double>(bytes) / (1024.0 * 1024.0), 3);
}

// Median over runs of field[t].
double MedianAt(const std::vector<RepeatRun>& runs,
                std::vector<double> RepeatRun::*field, uint32_t t) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back((r.*field)[t]);
  return Median(v);
}

struct Distinct {
  double create_ms = 0, insert_ms = 0, remove_ms = 0;
  uint64_t bytes = 0;
};

StatusOr<Distinct> RunDistinct(const Factory& make, uint64_t count,
                               const LabOptions& o) {
  Distinct d;
  Stopwatch create;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<MembershipFilter> f, make());
  d.create_ms = create.ElapsedSeconds() * 1e3;
  Stopwatch insert;
  for (uint64_t i = 0; i < count; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(f->Insert(LabKey(o.seed, kPresentStream, i)));
  }
  d.insert_ms = insert.ElapsedSeconds() * 1e3;
  d.bytes = f->MemoryBytes();
  Stopwatch remove;
  for (uint64_t i = 0; i < count; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(f->Remove(LabKey(o.seed, kPresentStream, i)));
  }
  d.remove_ms = remove.ElapsedSeconds() * 1e3;
  return d;
}

MarkdownTable RepeatTable(const std::vector<std::vector<RepeatRun>>& runs,
                          bool inserts);
MarkdownTable DistinctTable(const std::vector<Factory>& factories,
                            const LabOptions& o, uint32_t repeats,
                            Status* status);

}  // namespace

StatusOr<LabReport> RunDdcf(const LabOptions& o) {
  const Geometry g = GeometryFor(o.quick ? 10000 : 1000000, 0.01);
  const uint32_t repeats = o.quick ? 1 : 5;
  const std::vector<Factory> factories = Factories(g);
  std::vector<std::vector<RepeatRun>> runs(kFilters);
  for (int f = 0; f < kFilters; ++f) {
    for (uint32_t rep = 0; rep < repeats; ++rep) {
      BLOOMROUTE_ASSIGN_OR_RETURN(RepeatRun run, RunRepeated(factories[f], o));
      runs[f].push_back(std::move(run));
    }
  }
  Status status;
  MarkdownTable distinct = DistinctTable(factories, o, repeats, &status);
  BLOOMROUTE_RETURN_IF_ERROR(status);
  LabReport r;
  r.experiment = "ddcf";
  r.title = "ddcf: DDCF vs DCF vs DCBF (DDCF paper, tables 2-8)";
  r.notes = {
      "capacity n = " + FormatCount(g.capacity) +
          " at P = 1 %: m = " + FormatCount(g.counters) +
          " counters, k = " + std::to_string(g.hashes) +
          ", 4-bit base counters (DCBF: 4-bit "
          "counting filters)",
      "times are medians over " + std::to_string(repeats) +
          " runs; \"paper\" columns quote the published tables (seconds, "
          "Python, MiB)"};
  r.table_captions = {
      "Inserting one element t times: time of the t-th insert (us) and memory "
      "after it (MiB). The paper measures DCF/DDCF at t = 16, 32, 64 and DCBF "
      "at 16, 31, 46:",
      "Removing it again: time of the remove that takes the count from t to "
      "t - 1 (us) and memory after it (MiB):",
      "Distinct elements: creation, inserting them all and removing them all "
      "(ms), memory after the inserts (MiB):"};
  r.tables = {RepeatTable(runs, true), RepeatTable(runs, false),
              std::move(distinct)};
  return r;
}

namespace {

// Published tables 5, 6 and 8, quoted; "" where the paper has no figure.
std::string PaperTime(bool insert, int filter, uint32_t t) {
  static const char* kInsert[3][5] = {{"0.121", "", "214.938", "", "522.938"},
                                      {"0.107", "", "0.222", "", "0.521"},
                                      {"0.211", "0.531", "", "0.803", ""}};
  static const char* kRemove[3][5] = {{"0.0079", "", "157.562", "", "313.687"},
                                      {"0.008", "", "0.009", "", "0.011"},
                                      {"0.015", "0.015", "", "0.015", ""}};
  const uint32_t points[5] = {16, 31, 32, 46, 64};
  for (int i = 0; i < 5; ++i) {
    if (points[i] == t) return (insert ? kInsert : kRemove)[filter][i];
  }
  return "";
}

std::string PaperMemory(int filter, uint32_t t) {
  static const char* kMemory[3][5] = {{"5.727", "", "7.305", "", "8.433"},
                                      {"5.727", "", "7.305", "", "8.433"},
                                      {"9.164", "14.046", "", "19.432", ""}};
  const uint32_t points[5] = {16, 31, 32, 46, 64};
  for (int i = 0; i < 5; ++i) {
    if (points[i] == t) return kMemory[filter][i];
  }
  return "";
}

MarkdownTable RepeatTable(const std::vector<std::vector<RepeatRun>>& runs,
                          bool inserts) {
  MarkdownTable t({"t", "DCF us", "DDCF us", "DCBF us", "DCF MiB", "DDCF MiB",
                   "DCBF MiB", "paper s (DCF / DDCF / DCBF)",
                   "paper MiB (DCF / DDCF / DCBF)"});
  auto time_field = inserts ? &RepeatRun::insert_ns : &RepeatRun::remove_ns;
  for (uint32_t at : {15u, 16u, 31u, 32u, 46u, 64u}) {
    std::vector<std::string> row = {std::to_string(at)};
    for (int f = 0; f < kFilters; ++f) {
      row.push_back(FormatFixed(MedianAt(runs[f], time_field, at) / 1e3, 2));
    }
    for (int f = 0; f < kFilters; ++f) {
      const RepeatRun& first = runs[f][0];
      row.push_back(
          Mib(inserts ? first.insert_bytes[at] : first.remove_bytes[at]));
    }
    row.push_back(PaperTime(inserts, 0, at) + " / " +
                  PaperTime(inserts, 1, at) + " / " +
                  PaperTime(inserts, 2, at));
    row.push_back(inserts ? PaperMemory(0, at) + " / " + PaperMemory(1, at) +
                                " / " + PaperMemory(2, at)
                          : "");
    t.AddRow(std::move(row));
  }
  return t;
}

MarkdownTable DistinctTable(const std::vector<Factory>& factories,
                            const LabOptions& o, uint32_t repeats,
                            Status* status) {
  static const char* kNames[kFilters] = {"DCF", "DDCF", "DCBF"};
  // Published tables 2, 3, 4 and 7 (seconds, MiB), quoted.
  static const char* kPaper[3][kFilters] = {
      {"0.184 / 0.00350 / 0.004", "0.179 / 0.00351 / 0.004",
       "0.180 / 0.00350 / 0.004"},
      {"0.184 / 17.358 / 20.921", "0.179 / 17.252 / 20.844",
       "0.180 / 17.250 / 20.899"},
      {"0.184 / 34.692 / 41.232", "0.179 / 34.392 / 42.106",
       "0.180 / 34.396 / 42.172"}};
  MarkdownTable t({"filter", "elements", "create ms", "insert ms", "remove ms",
                   "MiB", "paper s (create / insert / remove)", "paper MiB"});
  const uint64_t counts[3] = {1, 5000, 10000};
  for (int c = 0; c < 3; ++c) {
    const uint64_t count = counts[c];
    for (int f = 0; f < kFilters; ++f) {
      std::vector<double> create, insert, remove;
      uint64_t bytes = 0;
      for (uint32_t rep = 0; rep < repeats; ++rep) {
        StatusOr<Distinct> d = RunDistinct(factories[f], count, o);
        if (!d.ok()) {
          *status = d.status();
          return t;
        }
        create.push_back(d->create_ms);
        insert.push_back(d->insert_ms);
        remove.push_back(d->remove_ms);
        bytes = d->bytes;
      }
      t.AddRow({kNames[f], FormatCount(count), FormatFixed(Median(create), 3),
                FormatFixed(Median(insert), 3), FormatFixed(Median(remove), 3),
                Mib(bytes), kPaper[c][f], "4.582"});
    }
  }
  return t;
}

}  // namespace

}  // namespace bloomroute::lab
