#include "thrift/internal/enum_map.h"

#include <gtest/gtest.h>

#include <string>

namespace bloomroute::thrift_internal {
namespace {

enum class Colour { kRed, kGreen, kBlue };

// Wire values that are not the model's: the table, not the order, decides.
constexpr EnumMap<Colour, 3> kColours(
    {{{Colour::kGreen, 7}, {Colour::kRed, 5}, {Colour::kBlue, 9}}},
    "{field} is not a colour ({value})");

TEST(EnumMapTest, EveryPairConvertsBothWays) {
  for (const auto& pair : kColours.pairs()) {
    EXPECT_EQ(kColours.ToThrift(pair.model), pair.thrift);
    StatusOr<Colour> back =
        kColours.FromThrift(pair.thrift, kBadRequest, "colour");
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, pair.model);
  }
  static_assert(kColours.ToThrift(Colour::kBlue) == 9);
  static_assert(*kColours.Find(5) == Colour::kRed);
}

// An i32 the table lacks fails naming the field and the value: a request's
// is InvalidArgument, a reply's Corruption.
TEST(EnumMapTest, AnUnknownValueIsRefusedNamingTheField) {
  EXPECT_FALSE(kColours.Find(6).has_value());
  StatusOr<Colour> request = kColours.FromThrift(6, kBadRequest, "paint.hue");
  ASSERT_FALSE(request.ok());
  EXPECT_TRUE(request.status().IsInvalidArgument());
  EXPECT_EQ(request.status().message(), "paint.hue is not a colour (6)");
  StatusOr<Colour> reply = kColours.FromThrift(-1, kBadResult, "result.hue");
  ASSERT_FALSE(reply.ok());
  EXPECT_TRUE(reply.status().IsCorruption());
  EXPECT_EQ(reply.status().message(), "result.hue is not a colour (-1)");
}

// A message may put the value before the field's text ends, or leave out
// either placeholder.
TEST(EnumMapTest, TheMessageIsTheTablesTemplate) {
  constexpr EnumMap<Colour, 1> kValueFirst({{{Colour::kRed, 0}}},
                                           "{field} is {value}, not a TColour");
  EXPECT_EQ(kValueFirst.FromThrift(3, kBadRequest, "op").status().message(),
            "op is 3, not a TColour");
  constexpr EnumMap<Colour, 1> kFieldOnly({{{Colour::kRed, 0}}},
                                          "{field} has no known value");
  EXPECT_EQ(kFieldOnly.FromThrift(3, kBadResult, "kind").status().message(),
            "kind has no known value");
}

}  // namespace
}  // namespace bloomroute::thrift_internal
