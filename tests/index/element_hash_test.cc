#include "index/element_hash.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

#include "common/coding.h"
#include "tests/index/filter_test_util.h"

namespace bloomroute {
namespace {

std::string Encode(uint64_t table, uint64_t column, std::string_view value) {
  std::string e;
  PutFixed64(&e, table);
  PutFixed64(&e, column);
  PutFixed64(&e, value.size());
  e.append(value);
  return e;
}

TEST(ElementHashTest, IsXxh3OfTheLengthPrefixedEncoding) {
  // Short values are hashed from a stack buffer, long ones from a heap copy;
  // both must equal the documented encoding hashed in one call.
  for (size_t len : {0, 1, 15, 231, 232, 233, 1000, 100000}) {
    std::string value(len, 'v');
    for (size_t i = 0; i < len; ++i) value[i] = static_cast<char>(i * 31);
    EXPECT_EQ(HashElement(11, 22, value), HashBytes(Encode(11, 22, value)))
        << "length " << len;
  }
}

TEST(ElementHashTest, PinnedValueGuardsThePersistedFormat) {
  // Element hashes are stored in op logs and distinct-value records: a change
  // to the encoding or the seed must be a deliberate format change.
  const ElementHash h = HashElement(1, 2, "NO");
  EXPECT_EQ(ToHex(h), ToHex(HashElement(1, 2, std::string("NO"))));
  EXPECT_EQ(ToHex(h), "b4782c8a59a82be4:09897ea583e44aa4");
}

TEST(ElementHashTest, EveryPartOfTheElementMatters) {
  std::set<std::pair<uint64_t, uint64_t>> seen;
  auto add = [&](uint64_t t, uint64_t c, std::string_view v) {
    const ElementHash h = HashElement(t, c, v);
    return seen.insert({h.low, h.high}).second;
  };
  EXPECT_TRUE(add(1, 2, "ab"));
  EXPECT_TRUE(add(2, 1, "ab"));  // table and column swapped
  EXPECT_TRUE(add(1, 2, "ba"));
  EXPECT_TRUE(add(1, 2, ""));  // empty value is a value
  EXPECT_TRUE(add(1, 2, std::string("\0", 1)));
  EXPECT_TRUE(add(1, 2, std::string("ab\0", 3)));  // trailing NUL byte
  EXPECT_FALSE(add(1, 2, "ab"));                   // deterministic
}

TEST(ElementHashTest, ProbePositionStaysInRange) {
  for (uint64_t m : {1ull, 2ull, 3ull, 1000ull, 1443ull, (1ull << 32)}) {
    for (uint64_t i = 0; i < 2000; ++i) {
      const ElementHash h = testing::Key(i);
      for (uint32_t probe = 0; probe < 70; probe += 7) {
        ASSERT_LT(ProbePosition(h, probe, m), m);
      }
    }
  }
  EXPECT_EQ(ProbePosition(ElementHash{~0ull, ~0ull}, 5, 10), 9u);
  EXPECT_EQ(ProbePosition(ElementHash{0, 0}, 0, 10), 0u);
}

TEST(ElementHashTest, ProbesAreUniform) {
  // Chi-square over 100 slots with 1,000,000 probes (probe numbers 0..9 of
  // 100,000 keys): 99 degrees of freedom, mean 99, sd 14. A bound of 200 is
  // beyond 7 sd; a biased reduction (e.g. a bad modulo) lands far above it.
  constexpr uint64_t kSlots = 100;
  std::vector<uint64_t> counts(kSlots, 0);
  uint64_t total = 0;
  for (uint64_t i = 0; i < 100000; ++i) {
    const ElementHash h = testing::Key(i);
    for (uint32_t probe = 0; probe < 10; ++probe) {
      ++counts[ProbePosition(h, probe, kSlots)];
      ++total;
    }
  }
  const double expected = static_cast<double>(total) / kSlots;
  double chi2 = 0;
  for (uint64_t c : counts) {
    chi2 += (c - expected) * (c - expected) / expected;
  }
  EXPECT_LT(chi2, 200.0);
}

}  // namespace
}  // namespace bloomroute
