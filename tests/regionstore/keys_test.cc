#include "regionstore/internal/keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace bloomroute::regionstore_internal {
namespace {

TEST(KeysTest, EscapedValuesKeepByteOrderAndAreSelfDelimiting) {
  // Random values over a tiny alphabet with many 0x00 and 0xFF bytes, fixed
  // seed: the order of index keys must be (value, row) order.
  std::mt19937_64 rng(5);
  const char alphabet[] = {'\0', '\x01', 'a', '\xff'};
  std::vector<std::pair<std::string, std::string>> pairs;
  for (int i = 0; i < 2000; ++i) {
    std::string value, row;
    for (int j = 0, n = rng() % 5; j < n; ++j) value += alphabet[rng() % 4];
    for (int j = 0, n = 1 + rng() % 3; j < n; ++j) row += alphabet[rng() % 4];
    pairs.emplace_back(value, row);
  }
  std::vector<std::string> keys;
  for (const auto& [v, r] : pairs) keys.push_back(IndexKey(3, 9, v, r));
  std::sort(pairs.begin(), pairs.end());
  std::sort(keys.begin(), keys.end());
  for (size_t i = 0; i < pairs.size(); ++i) {
    IndexKeyParts parts;
    ASSERT_TRUE(ParseIndexKey(keys[i], &parts).ok());
    EXPECT_EQ(parts.region_id, 3u);
    EXPECT_EQ(parts.column_id, 9u);
    EXPECT_EQ(parts.value, pairs[i].first);
    EXPECT_EQ(parts.row, pairs[i].second);
  }
}

TEST(KeysTest, MalformedIndexKeysAreCorruption) {
  IndexKeyParts parts;
  EXPECT_TRUE(ParseIndexKey("short", &parts).IsCorruption());
  std::string k = IndexColumnPrefix(1, 2) + "abc";  // no terminator
  EXPECT_TRUE(ParseIndexKey(k, &parts).IsCorruption());
  k = IndexColumnPrefix(1, 2) + std::string("a\0\x05", 3);  // bad escape
  EXPECT_TRUE(ParseIndexKey(k, &parts).IsCorruption());
}

TEST(KeysTest, RegionAndValuePrefixesBoundTheirRanges) {
  const std::string p = IndexValuePrefix(1, 2, "NO");
  EXPECT_EQ(IndexKey(1, 2, "NO", "row").rfind(p, 0), 0u);
  EXPECT_NE(IndexKey(1, 2, "NOR", "").rfind(p, 0), 0u);  // no prefix clash
  EXPECT_LT(RowKey(1, std::string(10, '\xff')), RowKey(2, ""));
  EXPECT_EQ(PrefixSuccessor("ab\xff"), "ac");
  EXPECT_EQ(PrefixSuccessor("\xff\xff"), "");
  EXPECT_EQ(ParseOpKey(OpKey(123456789)), 123456789u);
  EXPECT_LT(OpKey(255), OpKey(256));
  ValueKeyParts v;
  const std::string key = ValueKey(7, 1, std::string("N\0", 2));
  ASSERT_TRUE(ParseValueKey(key, &v).ok());  // v points into key
  EXPECT_EQ(v.table_id, 7u);
  EXPECT_EQ(v.column_id, 1u);
  EXPECT_EQ(v.value, std::string("N\0", 2));
}

}  // namespace
}  // namespace bloomroute::regionstore_internal
