// Fuzzing ReadBulkFile: valid bulk files are mutated (bit flips, byte
// overwrites, truncations, splices of other files' bytes, length-like fields
// set to huge values), their whole-file checksum is fixed up afterwards so
// that the mutation reaches the structural checks and RocksDB's parser, and
// ReadBulkFile must return an error or a well-formed result, never crash,
// hang or read out of bounds (this test runs in the sanitizer build).
//
// Seeds are the iteration numbers, so a failure names its seed and repeats.
// BLOOMROUTE_FUZZ_ITERATIONS sets the count (default 400, about a second;
// e.g. 100000 for a soak), BLOOMROUTE_FUZZ_SEED the first seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "regionstore/bulk_file.h"
#include "regionstore/internal/bulk_table_check.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute {
namespace {

using regionstore_internal::BulkTableBlock;
using regionstore_internal::CheckBulkTable;
using testing::TempDir;

// CRC32C (Castagnoli), bitwise: RocksDB's block checksum before masking.
uint32_t Crc32c(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (char ch : data) {
    crc ^= static_cast<uint8_t>(ch);
    for (int k = 0; k < 8; ++k)
      crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
  }
  return ~crc;
}

// Recomputes the checksum in each block's trailer (the blocks of the valid
// file the bytes were mutated from), as RocksDB's format_version 2 stores
// it: the masked CRC32C of the block and its compression type byte.
void FixBlockChecksums(const std::vector<BulkTableBlock>& blocks,
                       std::string* body) {
  for (const BulkTableBlock& b : blocks) {
    if (b.offset + b.size + 5 > body->size()) continue;
    const uint32_t crc =
        Crc32c(std::string_view(*body).substr(b.offset, b.size + 1));
    const uint32_t masked = ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
    for (int i = 0; i < 4; ++i) {
      (*body)[b.offset + b.size + 1 + i] = static_cast<char>(masked >> (8 * i));
    }
  }
}

uint64_t EnvOr(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void WriteAll(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

class BulkFileFuzzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One row; many rows over several data blocks; binary keys and values.
    seeds_.push_back(Make({{"k", {{"d:a", "1"}}}}));
    std::vector<Row> many;
    for (int i = 0; i < 60; ++i) {
      char key[16];
      std::snprintf(key, sizeof(key), "row%04d", i);
      many.push_back(
          {key,
           {{"d:a", std::string(300, static_cast<char>('a' + i % 26))},
            {"d:b", std::to_string(i)}}});
    }
    seeds_.push_back(Make(many));
    seeds_.push_back(Make({{std::string("\0\x01", 2), {{"d:x", "\xff\0"}}},
                           {std::string("\xff", 1), {{"e:", ""}}}}));
    for (const std::string& s : seeds_) {
      blocks_.emplace_back();
      ASSERT_TRUE(CheckBulkTable(Body(s), &blocks_.back()).ok());
      // Fixing up a valid file's checksums changes nothing.
      std::string body = Body(s);
      FixBlockChecksums(blocks_.back(), &body);
      ASSERT_EQ(body, Body(s));
    }
  }

  std::string Make(const std::vector<Row>& rows) {
    const std::string path = dir_.path() + "/seed.sst";
    auto w = BulkFileWriter::Create(path);
    EXPECT_TRUE(w.ok());
    for (const Row& r : rows) EXPECT_TRUE((*w)->Add(r.key, r.cells).ok());
    EXPECT_TRUE((*w)->Finish().ok());
    return ReadAll(path);
  }

  // The bytes a mutation may touch (the file without its trailer).
  static std::string Body(const std::string& file) {
    return file.substr(0, file.size() - kBulkFileTrailerBytes);
  }

  std::string Mutate(std::mt19937_64* random) {
    auto pick = [&](uint64_t n) {
      return n == 0
                 ? 0
                 : std::uniform_int_distribution<uint64_t>(0, n - 1)(*random);
    };
    const size_t seed = pick(seeds_.size());
    std::string body = Body(seeds_[seed]);
    const int mutations = 1 + static_cast<int>(pick(3));
    for (int m = 0; m < mutations && !body.empty(); ++m) {
      // Half of the mutations hit the last 128 bytes: the footer, the
      // index and the properties, where the lengths and offsets are.
      const uint64_t tail = std::min<uint64_t>(body.size(), 128);
      const uint64_t at =
          pick(2) == 0 ? body.size() - tail + pick(tail) : pick(body.size());
      switch (pick(6)) {
        case 0:  // a bit flip
          body[at] ^= static_cast<char>(1u << pick(8));
          break;
        case 1:  // a byte overwritten
          body[at] = static_cast<char>(pick(256));
          break;
        case 2:  // truncated
          body.resize(at);
          break;
        case 3: {  // a splice of another seed's bytes
          const std::string other = Body(seeds_[pick(seeds_.size())]);
          const uint64_t from = pick(other.size());
          const uint64_t n =
              std::min<uint64_t>(1 + pick(64), other.size() - from);
          body.replace(at, std::min<uint64_t>(n, body.size() - at),
                       other.substr(from, n));
          break;
        }
        case 4: {  // a length-like varint made huge
          static const char kHuge[] = "\xff\xff\xff\xff\x0f";
          body.replace(at, std::min<uint64_t>(5, body.size() - at), kHuge, 5);
          break;
        }
        default: {  // a fixed32 made huge or zero
          const std::string v = pick(2) ? std::string("\xff\xff\xff\x7f", 4)
                                        : std::string(4, '\0');
          body.replace(at, std::min<uint64_t>(4, body.size() - at), v);
          break;
        }
      }
    }
    // Fixed up: no checksum must be what stops the mutation. Half of the
    // time the blocks' own checksums too, so that RocksDB parses the
    // mutated blocks (where the mutation kept the seed's layout).
    if (pick(2) == 0) FixBlockChecksums(blocks_[seed], &body);
    return SealBulkFile(body);
  }

  TempDir dir_;
  std::vector<std::string> seeds_;
  std::vector<std::vector<BulkTableBlock>> blocks_;  // per seed
};

TEST_F(BulkFileFuzzTest, MutatedFilesGiveAnErrorOrWellFormedRows) {
  for (const std::string& s : seeds_) {
    const std::string path = dir_.path() + "/valid.sst";
    WriteAll(path, s);
    ASSERT_TRUE(ReadBulkFile(path, BulkFileLimits()).ok());
  }
  const uint64_t iterations = EnvOr("BLOOMROUTE_FUZZ_ITERATIONS", 400);
  const uint64_t first = EnvOr("BLOOMROUTE_FUZZ_SEED", 1);
  const std::string path = dir_.path() + "/mutated.sst";
  // Refused by the trailer or table checks, or later (by RocksDB, the
  // properties or the rows).
  uint64_t accepted = 0, refused_early = 0, refused_late = 0;
  for (uint64_t seed = first; seed < first + iterations; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 random(seed);
    WriteAll(path, Mutate(&random));
    StatusOr<std::vector<Row>> rows = ReadBulkFile(path, BulkFileLimits());
    if (!rows.ok()) {
      const std::string& m = rows.status().message();
      const bool early = m.find("bulk file table:") != std::string::npos ||
                         m.find("trailer") != std::string::npos;
      ++(early ? refused_early : refused_late);
      continue;
    }
    ++accepted;
    ASSERT_FALSE(rows->empty());
    for (size_t i = 0; i < rows->size(); ++i) {
      const Row& r = (*rows)[i];
      ASSERT_FALSE(r.key.empty());
      ASSERT_LE(r.key.size(), kMaxRowKeyBytes);
      ASSERT_FALSE(r.cells.empty());
      if (i > 0) {
        ASSERT_LT((*rows)[i - 1].key, r.key);
      }
    }
  }
  std::printf(
      "fuzz: %llu iterations from seed %llu: %llu accepted, %llu "
      "refused by the structural checks, %llu later\n",
      static_cast<unsigned long long>(iterations),
      static_cast<unsigned long long>(first),
      static_cast<unsigned long long>(accepted),
      static_cast<unsigned long long>(refused_early),
      static_cast<unsigned long long>(refused_late));
  // Mutations reach every stage: the structural checks, and past them
  // RocksDB's parser and the row checks (the checksums were fixed up).
  if (iterations >= 400) {
    EXPECT_GT(refused_early, 0u);
    EXPECT_GT(refused_late + accepted, iterations / 20);
  }
}

}  // namespace
}  // namespace bloomroute
