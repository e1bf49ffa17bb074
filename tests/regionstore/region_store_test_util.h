// Shared helpers for region store tests: a temporary directory, a store
// with one table whose `d:country` and `d:feature` columns are indexed, and
// opening a store with some of its regions.
#ifndef BLOOMROUTE_TESTS_REGIONSTORE_REGION_STORE_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_REGIONSTORE_REGION_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdio.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "regionstore/region_store.h"

namespace bloomroute::testing {

// A fresh directory, removed with everything in it on destruction.
class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "bloomroute-test-XXXXXX")
            .string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

inline TableDescriptor PlacesTable() {
  TableDescriptor t;
  t.table_id = 7;
  t.name = "places";
  t.indexed_columns = {{1, "d:country"}, {2, "d:feature"}};
  return t;
}

// Region `id` of PlacesTable() over [start, end).
inline RegionDescriptor PlacesRegion(uint64_t id, std::string start,
                                     std::string end) {
  return RegionDescriptor{id, PlacesTable(), std::move(start), std::move(end)};
}

// A store at `path` with `regions` open; null, after a test failure that
// says why, when the store or a region cannot be opened.
inline std::unique_ptr<RegionStore> OpenStoreWithRegions(
    const std::string& path, const RegionStoreOptions& options,
    const std::vector<RegionDescriptor>& regions) {
  auto store = RegionStore::Open(path, options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  for (const RegionDescriptor& region : regions) {
    const Status opened = (*store)->OpenRegion(region);
    EXPECT_TRUE(opened.ok()) << opened.ToString();
    if (!opened.ok()) return nullptr;
  }
  return std::move(store).value();
}

inline Mutation PutPlace(uint64_t region, std::string row, std::string country,
                         std::string feature, std::string name = "x") {
  return Mutation::Put(region, std::move(row),
                       {{"d:country", std::move(country)},
                        {"d:feature", std::move(feature)},
                        {"d:name", std::move(name)}});
}

// `n` puts of rows "<prefix>000", "<prefix>001", ... (three digits) in
// `region`, each with country "NO", feature "PPL" and name `name`.
inline std::vector<Mutation> NumberedPlaces(uint64_t region,
                                            const std::string& prefix, int n,
                                            const std::string& name = "x") {
  std::vector<Mutation> batch;
  for (int i = 0; i < n; ++i) {
    char key[16];
    snprintf(key, sizeof(key), "%03d", i);
    batch.push_back(PutPlace(region, prefix + key, "NO", "PPL", name));
  }
  return batch;
}

// A fixture's base: a store in a fresh directory with regions 1 ["", "m")
// and 2 ["m", "") of PlacesTable() open.
class TwoPlacesRegionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Reopen({PlacesRegion(1, "", "m"), PlacesRegion(2, "m", "")});
  }
  // Closes the store and opens it again, with `regions` open.
  void Reopen(const std::vector<RegionDescriptor>& regions,
              const RegionStoreOptions& options = RegionStoreOptions()) {
    store_.reset();
    store_ = OpenStoreWithRegions(dir_.path(), options, regions);
    ASSERT_NE(store_, nullptr);
  }
  // NumberedPlaces(region, prefix, n) with names of 100 bytes, one batch.
  void PutRows(uint64_t region, const std::string& prefix, int n) {
    const Status s =
        store_->Apply(NumberedPlaces(region, prefix, n, std::string(100, 'x')))
            .status();
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  TempDir dir_;
  std::unique_ptr<RegionStore> store_;
};

inline IndexQuery Where(std::vector<EqualityPredicate> equals,
                        uint32_t limit = 1000) {
  IndexQuery q;
  q.table_id = PlacesTable().table_id;
  q.equals = std::move(equals);
  q.limit = limit;
  return q;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_REGIONSTORE_REGION_STORE_TEST_UTIL_H_
