// The checks every Thrift <-> model conversion makes, shared by the region
// service's (conversion/region_conversion.h) and the router service's
// (conversion/hbase_conversion.h, index_conversion.h, admin_conversion.h)
// conversions.
//
// A failed check names the field by its path in the message ("puts[2].row is
// missing", "query.limit is negative (-1)"). What a failure is depends on the
// direction: a request the server received is the caller's fault
// (kBadRequest: InvalidArgument); a result a client received is impossible
// from a correct server (kBadResult: Corruption). A server value that does not
// fit its wire type is IOError (Widen).
//
// The row and cell templates serve every generated struct with the same
// fields: a TColumnValue {column, value} and a TResult {optional row,
// columnValues}, whichever IDL declares it.
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_CHECKED_CONVERSION_H_
#define BLOOMROUTE_THRIFT_INTERNAL_CHECKED_CONVERSION_H_

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/status.h"
#include "index/scalable_split_counting_bloom_filter.h"
#include "model/rows.h"

namespace bloomroute::thrift_internal {

// How a failed check is reported.
using FailFn = Status (*)(std::string_view);
inline constexpr FailFn kBadRequest = &Status::InvalidArgument;
inline constexpr FailFn kBadResult = &Status::Corruption;

// "prefix[i]".
std::string At(const std::string& prefix, size_t i);

// OK when `isset`; otherwise fail("<field> is missing").
Status Require(bool isset, FailFn fail, const std::string& field);

// Require for several fields of the struct at path `f`, in order: the first
// that is not set fails("<f><name> is missing"), e.g.
//   RequireAll(kBadRequest, "tput", {{in.__isset.row, ".row"}}).
Status RequireAll(FailFn fail, const std::string& f,
                  std::initializer_list<std::pair<bool, const char*>> fields);

// A wire integer standing for the unsigned type U: fails for a negative value
// or one above U's maximum, naming the field and the value.
template <typename U, typename S>
Status Narrow(S in, FailFn fail, const std::string& field, U* out) {
  static_assert(std::is_unsigned_v<U> && std::is_signed_v<S>);
  if (in < 0) {
    return fail(field + " is negative (" + std::to_string(in) + ")");
  }
  if (static_cast<uint64_t>(in) > std::numeric_limits<U>::max()) {
    return fail(field + " is out of range (" + std::to_string(in) + ")");
  }
  *out = static_cast<U>(in);
  return Status::OK();
}

// A server value sent as the signed wire type S: IOError when it does not fit.
template <typename S, typename U>
Status Widen(U in, const std::string& field, S* out) {
  static_assert(std::is_unsigned_v<U> && std::is_signed_v<S>);
  if (static_cast<uint64_t>(in) >
      static_cast<uint64_t>(std::numeric_limits<S>::max())) {
    return Status::IOError(field + " = " + std::to_string(in) +
                           " does not fit the wire's " +
                           (sizeof(S) == 8 ? "i64" : "i32"));
  }
  *out = static_cast<S>(in);
  return Status::OK();
}

// A client's request value that does not fit the wire (Widen's IOError) is
// the caller's fault: InvalidArgument, and nothing is sent.
inline Status Unsendable(const Status& converted) {
  return converted.ok() ? converted
                        : Status::InvalidArgument(converted.message());
}

// ---- Cells and rows ----

// Every cell must have its column and value set (field "<f>[i].column").
// `Cells` is a vector of TColumnValue: an rvalue's columns and values are
// moved, not copied.
template <typename Cells>
Status CellsFromThriftFrom(Cells&& in, FailFn fail, const std::string& f,
                           std::vector<Cell>* out) {
  out->clear();
  out->reserve(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    // The field's name only for an error: built for every cell, it was a
    // tenth of a 1,000-row lookup's allocations (lookup_benchmark).
    if (!in[i].__isset.column || !in[i].__isset.value) {
      const std::string cf = At(f, i);
      BLOOMROUTE_RETURN_IF_ERROR(
          Require(in[i].__isset.column, fail, cf + ".column"));
      return Require(in[i].__isset.value, fail, cf + ".value");
    }
    if constexpr (std::is_rvalue_reference_v<Cells&&>) {
      out->push_back(Cell{std::move(in[i].column), std::move(in[i].value)});
    } else {
      out->push_back(Cell{in[i].column, in[i].value});
    }
  }
  return Status::OK();
}
template <typename TColumnValue>
Status CellsFromThrift(const std::vector<TColumnValue>& in, FailFn fail,
                       const std::string& f, std::vector<Cell>* out) {
  return CellsFromThriftFrom(in, fail, f, out);
}

template <typename TColumnValue>
std::vector<TColumnValue> CellsToThrift(const std::vector<Cell>& in) {
  std::vector<TColumnValue> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    out[i].__set_column(in[i].column);
    out[i].__set_value(in[i].value);
  }
  return out;
}

template <typename TResult>
TResult RowToThrift(const Row& row) {
  TResult out;
  out.__set_row(row.key);
  out.__set_columnValues(
      CellsToThrift<typename decltype(out.columnValues)::value_type>(
          row.cells));
  return out;
}

// A missing row becomes a TResult without `row` and with an (explicitly set)
// empty list of cells, as HBase answers.
template <typename TResult>
std::vector<TResult> OptionalRowsToThrift(
    const std::vector<std::optional<Row>>& in) {
  std::vector<TResult> out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i]) {
      out[i] = RowToThrift<TResult>(*in[i]);
    } else {
      out[i].__isset.columnValues = true;
    }
  }
  return out;
}

// A row in a result: `row` must be set (field "<f>.row").
template <typename TResult>
Status RowFromThrift(const TResult& in, const std::string& f, Row* out) {
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.row, kBadResult, f + ".row"));
  out->key = in.row;
  return CellsFromThrift(in.columnValues, kBadResult, f + ".columnValues",
                         &out->cells);
}

// RowFromThrift of a result the caller gives up: its key, columns and
// values are moved. A lookup's reply is mostly cells, and the router reads
// it only to pass it on: copying them was ~4 % of the process's CPU in a
// 63-row lookup under load (perf, `make compare`'s lookups).
template <typename TResult>
Status MoveRowFromThrift(TResult&& in, const std::string& f, Row* out) {
  static_assert(!std::is_lvalue_reference_v<TResult>, "an rvalue only");
  BLOOMROUTE_RETURN_IF_ERROR(Require(in.__isset.row, kBadResult, f + ".row"));
  out->key = std::move(in.row);
  return CellsFromThriftFrom(std::move(in.columnValues), kBadResult,
                             f + ".columnValues", &out->cells);
}

// A list converted entry by entry with fn(entry, "<f>[i]", &out_entry).
template <typename In, typename Out, typename Fn>
Status EachFromThrift(const std::vector<In>& in, const std::string& f, Fn fn,
                      std::vector<Out>* out) {
  out->assign(in.size(), Out());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(fn(in[i], At(f, i), &(*out)[i]));
  }
  return Status::OK();
}

// A list converted entry by entry with fn(entry, &out_entry), in the
// direction that names no field (a value that does not fit is IOError).
template <typename In, typename Out, typename Fn>
Status EachToThrift(const std::vector<In>& in, Fn fn, std::vector<Out>* out) {
  out->assign(in.size(), Out());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(fn(in[i], &(*out)[i]));
  }
  return Status::OK();
}

// Every row with `row_from` (a RowFromThrift-shaped converter: HBase's
// cells convert differently, thrift/conversion/hbase_conversion.h).
template <typename TResult, typename RowFn>
Status RowsFromThrift(const std::vector<TResult>& in, const std::string& f,
                      std::vector<Row>* out, RowFn row_from) {
  return EachFromThrift(in, f, row_from, out);
}
template <typename TResult>
Status RowsFromThrift(const std::vector<TResult>& in, const std::string& f,
                      std::vector<Row>* out) {
  return RowsFromThrift(in, f, out, &RowFromThrift<TResult>);
}
// The rows of a reply the caller gives up, moved (MoveRowFromThrift); `in`
// keeps its cells' timestamps for ResultTimestampsFromThrift.
template <typename TResult>
Status RowsFromThrift(std::vector<TResult>&& in, const std::string& f,
                      std::vector<Row>* out) {
  out->assign(in.size(), Row());
  for (size_t i = 0; i < in.size(); ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(
        MoveRowFromThrift(std::move(in[i]), At(f, i), &(*out)[i]));
  }
  return Status::OK();
}

// The inverse of OptionalRowsToThrift: a TResult without `row` is a missing
// row, and must then have no cells.
template <typename TResult, typename RowFn>
Status OptionalRowsFromThrift(const std::vector<TResult>& in,
                              const std::string& f,
                              std::vector<std::optional<Row>>* out,
                              RowFn row_from) {
  out->assign(in.size(), std::nullopt);
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].__isset.row) {
      if (!in[i].columnValues.empty()) {
        return kBadResult(At(f, i) + " has cells but no row");
      }
      continue;
    }
    Row row;
    BLOOMROUTE_RETURN_IF_ERROR(row_from(in[i], At(f, i), &row));
    (*out)[i] = std::move(row);
  }
  return Status::OK();
}
template <typename TResult>
Status OptionalRowsFromThrift(const std::vector<TResult>& in,
                              const std::string& f,
                              std::vector<std::optional<Row>>* out) {
  return OptionalRowsFromThrift(in, f, out, &RowFromThrift<TResult>);
}

// ---- Filter stats ----

// A TStageStats received by a client (numbers checked: Corruption).
template <typename TStageStats>
Status StageFromThrift(const TStageStats& in, const std::string& f,
                       StageStats* out) {
  StageGeometry& g = out->geometry;
  for (auto [wire, field, name] :
       {std::tuple{in.stage, &g.stage, ".stage"},
        {in.slices, &g.slices, ".slices"},
        {in.firstProbe, &g.first_probe, ".firstProbe"},
        {in.planes, &out->planes, ".planes"}}) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, f + name, field));
  }
  for (auto [wire, field, name] :
       {std::tuple{in.sliceLength, &g.slice_length, ".sliceLength"},
        {in.capacity, &g.capacity, ".capacity"},
        {in.elements, &out->elements, ".elements"},
        {in.memoryBytes, &out->memory_bytes, ".memoryBytes"}}) {
    BLOOMROUTE_RETURN_IF_ERROR(Narrow(wire, kBadResult, f + name, field));
  }
  g.target_fpr = in.targetFpr;
  out->fill = in.fill;
  out->estimated_fpr = in.estimatedFpr;
  return Status::OK();
}

// A stage's stats into a TStageStats {stage, targetFpr, slices, sliceLength,
// capacity, firstProbe, elements, fill, estimatedFpr, planes, memoryBytes}.
template <typename TStageStats>
Status StageToThrift(const StageStats& in, TStageStats* out) {
  int32_t stage = 0, slices = 0, first_probe = 0, planes = 0;
  int64_t slice_length = 0, capacity = 0, elements = 0, memory = 0;
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.geometry.stage, "stage", &stage));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.geometry.slices, "slices", &slices));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.geometry.first_probe, "first_probe", &first_probe));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.planes, "planes", &planes));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.geometry.slice_length, "slice_length", &slice_length));
  BLOOMROUTE_RETURN_IF_ERROR(
      Widen(in.geometry.capacity, "capacity", &capacity));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.elements, "elements", &elements));
  BLOOMROUTE_RETURN_IF_ERROR(Widen(in.memory_bytes, "memory_bytes", &memory));
  out->__set_stage(stage);
  out->__set_targetFpr(in.geometry.target_fpr);
  out->__set_slices(slices);
  out->__set_sliceLength(slice_length);
  out->__set_capacity(capacity);
  out->__set_firstProbe(first_probe);
  out->__set_elements(elements);
  out->__set_fill(in.fill);
  out->__set_estimatedFpr(in.estimated_fpr);
  out->__set_planes(planes);
  out->__set_memoryBytes(memory);
  return Status::OK();
}

template <typename TStageStats>
Status StagesToThrift(const std::vector<StageStats>& in,
                      std::vector<TStageStats>* out) {
  return EachToThrift(in, &StageToThrift<TStageStats>, out);
}

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_CHECKED_CONVERSION_H_
