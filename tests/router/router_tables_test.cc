// Router: the bounds on table creation (how many tables, how many bytes of
// split keys and indexed column names a table holds) and the cost of the
// periodic maintenance pass when the catalog did not change.
//
// The maintenance test counts the bytes this process allocates (a counting
// global operator new), so this is a binary of its own and not run under the
// sanitizers, which replace operator new themselves.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "tests/router/router_test_util.h"

namespace {
std::atomic<uint64_t> g_allocated_bytes{0};
}  // namespace

// GCC pairs the replaced operator delete's free() with the built-in new.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
  g_allocated_bytes.fetch_add(size, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace bloomroute {
namespace {

using ::bloomroute::testing::RouterOptionsFor;
using ::bloomroute::testing::StoreCluster;
using ::testing::HasSubstr;

// `n` ascending split keys of `bytes` bytes each.
std::vector<std::string> SplitKeys(int n, size_t bytes) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    std::string k = std::to_string(100000 + i);
    k.resize(bytes, 'k');
    keys.push_back(std::move(k));
  }
  return keys;
}

class RouterTablesTest : public ::testing::Test {
 protected:
  std::unique_ptr<router::Router> Open(router::RouterOptions options) {
    auto r = router::Router::Open(options, cluster_.Factory());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  router::RouterOptions Options() {
    router::RouterOptions o = RouterOptionsFor(cluster_);
    o.background_maintenance = false;  // passes only when the test asks
    return o;
  }

  StoreCluster cluster_{2};
};

// 1,023 split keys of 2 KiB are 2 MiB of descriptor; a describeTable reply
// repeats each key twice (end of one region, start of the next).
TEST_F(RouterTablesTest, RefusesATableOverTheDescriptorByteLimit) {
  auto router = Open(Options());
  ASSERT_NE(router, nullptr);
  router::TableSpec spec{"wide", {"d:cc"}, SplitKeys(1023, 2048), 0};
  auto created = router->CreateTable(spec);
  ASSERT_FALSE(created.ok()) << "a 2 MiB table was created";
  EXPECT_TRUE(created.status().IsInvalidArgument());
  EXPECT_THAT(created.status().message(), HasSubstr("--max-table-bytes"));
  EXPECT_TRUE(router->ListTables().empty());
  // Just under the limit is fine.
  spec.split_keys = SplitKeys(500, 2000);
  EXPECT_TRUE(router->CreateTable(spec).ok());
}

TEST_F(RouterTablesTest, RefusesTablesPastTheLimitAndLongColumnNames) {
  router::RouterOptions options = Options();
  options.max_tables = 2;
  auto router = Open(options);
  ASSERT_NE(router, nullptr);
  ASSERT_TRUE(router->CreateTable({"a", {"d:cc"}, {}, 1}).ok());
  ASSERT_TRUE(router->CreateTable({"b", {"d:cc"}, {}, 1}).ok());
  auto third = router->CreateTable({"c", {"d:cc"}, {}, 1});
  EXPECT_TRUE(third.status().IsInvalidArgument());
  EXPECT_THAT(third.status().message(), HasSubstr("--max-tables"));
  // Deleting one makes room again.
  ASSERT_TRUE(router->DeleteTable("a").ok());
  EXPECT_TRUE(router->CreateTable({"c", {"d:cc"}, {}, 1}).ok());

  // 256 indexed columns of 1 KiB each: 256 KiB copied into every region
  // descriptor; the names together may take 16 KiB.
  std::vector<std::string> columns;
  for (int i = 0; i < 256; ++i) {
    columns.push_back("d:" + std::to_string(1000 + i) + std::string(1000, 'q'));
  }
  ASSERT_TRUE(router->DeleteTable("b").ok());
  auto wide = router->CreateTable({"wide", columns, {}, 1});
  EXPECT_TRUE(wide.status().IsInvalidArgument());
  EXPECT_THAT(wide.status().message(), HasSubstr("over the limit of 16384"));
}

TEST_F(RouterTablesTest, ValidatesTheLimits) {
  router::RouterOptions options = Options();
  options.max_tables = 0;
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  options = Options();
  options.max_tables = router::RouterOptions::kMaxTablesLimit + 1;
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  options = Options();
  options.max_table_bytes = router::RouterOptions::kMaxTableBytes + 1;
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  options.max_table_bytes = router::RouterOptions::kMinTableBytes - 1;
  EXPECT_TRUE(options.Validate().IsInvalidArgument());
  EXPECT_TRUE(Options().Validate().ok());
}

// A maintenance pass with nothing to do must not copy the catalog: with a
// table of 800 KB of split keys, 20 passes used to allocate 20 copies of it
// (16 MB) and hold the DDL lock meanwhile.
TEST_F(RouterTablesTest, MaintenanceDoesNotCopyAnUnchangedCatalog) {
  auto router = Open(Options());
  ASSERT_NE(router, nullptr);
  constexpr size_t kTableBytes = 200 * 4096;
  ASSERT_TRUE(
      router->CreateTable({"big", {"d:cc"}, SplitKeys(200, 4096), 0}).ok());
  router->RunMaintenance();  // settle: replicas current, regions open
  const uint64_t before = g_allocated_bytes.load();
  constexpr int kPasses = 20;
  for (int i = 0; i < kPasses; ++i) router->RunMaintenance();
  const uint64_t allocated = g_allocated_bytes.load() - before;
  std::cout << kPasses << " maintenance passes allocated " << allocated
            << " bytes\n";
  EXPECT_LT(allocated, kTableBytes) << "a catalog copy per pass";
}

}  // namespace
}  // namespace bloomroute
