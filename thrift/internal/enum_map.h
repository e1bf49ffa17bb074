// EnumMap: one enum's values in the model and on the wire, as a table, so
// that each enum conversion is one constexpr array instead of two
// hand-written switches (one per direction) that must agree.
//
// Thrift enums travel as i32, and the IDL declares enum fields i32 (see
// "Enums" in thrift/hbase_service.thrift), so any i32 may arrive: FromThrift
// looks the value up and fails, naming the field, for one the table lacks.
//
// Example:
//   inline constexpr EnumMap<RegionState, 2> kRegionStates(
//       {{{RegionState::kOpen, rpc::TRegionState::OPEN},
//         {RegionState::kClosed, rpc::TRegionState::CLOSED}}},
//       "{field} is not a region state ({value})");
//   out.__set_state(kRegionStates.ToThrift(in.state));
//   BLOOMROUTE_ASSIGN_OR_RETURN(
//       out->state, kRegionStates.FromThrift(in.state, kBadResult, f));
//
// Thread-safety: immutable; every function is pure.
#ifndef BLOOMROUTE_THRIFT_INTERNAL_ENUM_MAP_H_
#define BLOOMROUTE_THRIFT_INTERNAL_ENUM_MAP_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/statusor.h"
#include "thrift/internal/checked_conversion.h"

namespace bloomroute::thrift_internal {

template <typename Model, size_t N>
class EnumMap {
 public:
  struct Pair {
    Model model;
    int32_t thrift;
  };

  // `pairs`: each model value once and each Thrift value once. `unknown`:
  // the message for a Thrift value the table lacks, "{field}" and "{value}"
  // standing for the field's path and the value (each at most once).
  constexpr EnumMap(const std::array<Pair, N>& pairs, const char* unknown)
      : pairs_(pairs), unknown_(unknown) {}

  // The Thrift value of `model`. A value the table lacks (only an enum
  // object holding no enumerator can be one) maps to the first pair's.
  constexpr int32_t ToThrift(Model model) const {
    for (const Pair& p : pairs_) {
      if (p.model == model) return p.thrift;
    }
    return pairs_[0].thrift;
  }

  // The model value of `thrift`; nullopt when the table lacks it.
  constexpr std::optional<Model> Find(int32_t thrift) const {
    for (const Pair& p : pairs_) {
      if (p.thrift == thrift) return p.model;
    }
    return std::nullopt;
  }

  // The model value of `thrift`, or fail(<the unknown message>) naming
  // `field`: InvalidArgument for a request (kBadRequest), Corruption for a
  // reply (kBadResult).
  StatusOr<Model> FromThrift(int32_t thrift, FailFn fail,
                             const std::string& field) const {
    if (std::optional<Model> model = Find(thrift)) return *model;
    return fail(UnknownMessage(thrift, field));
  }

  const std::array<Pair, N>& pairs() const { return pairs_; }

 private:
  std::string UnknownMessage(int32_t thrift, const std::string& field) const {
    std::string message = unknown_;
    Replace("{field}", field, &message);
    Replace("{value}", std::to_string(thrift), &message);
    return message;
  }
  static void Replace(std::string_view key, const std::string& value,
                      std::string* text) {
    const size_t at = text->find(key);
    if (at != std::string::npos) text->replace(at, key.size(), value);
  }

  std::array<Pair, N> pairs_;
  const char* unknown_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_INTERNAL_ENUM_MAP_H_
