// Shared helpers for region store tests: a temporary directory, a store
// with one table whose `d:country` and `d:feature` columns are indexed, and
// opening a store with some of its regions.
#ifndef BLOOMROUTE_TESTS_REGIONSTORE_REGION_STORE_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_REGIONSTORE_REGION_STORE_TEST_UTIL_H_

#include <gtest/gtest.h>
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
