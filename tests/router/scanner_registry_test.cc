#include "router/internal/scanner_registry.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

namespace bloomroute::router_internal {
namespace {

std::shared_ptr<Scanner> NewScanner(router::ScannerClient client,
                                    const std::string& principal = "") {
  auto scanner = std::make_shared<Scanner>();
  scanner->table = "t";
  scanner->client = client;
  scanner->principal = principal;
  return scanner;
}

ScannerRegistry::Limits SmallLimits() {
  ScannerRegistry::Limits limits;
  limits.max_scanners = 4;
  limits.max_per_client = 2;
  limits.max_per_principal = 3;
  limits.idle_timeout_ms = 60000;
  return limits;
}

TEST(ScannerRegistryTest, ScannersBelongToTheClientThatOpenedThem) {
  ScannerRegistry registry(SmallLimits());
  StatusOr<int64_t> id = registry.Add(NewScanner(1));
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_GT(*id, 0);
  EXPECT_NE(registry.Find(*id, 1), nullptr);
  EXPECT_EQ(registry.Find(*id, 2), nullptr);
  EXPECT_EQ(registry.Table(*id), "t");
  EXPECT_TRUE(registry.Close(*id, 2).IsNotFound());
  EXPECT_TRUE(registry.Close(*id, 1).ok());
  EXPECT_TRUE(registry.Close(*id, 1).IsNotFound());
  EXPECT_EQ(registry.Table(*id), "");
}

// A principal's scanner answers any of its connections (HBase's scanner
// ids are not tied to a connection) and outlives the one that opened it;
// a scanner without a principal stays its connection's.
TEST(ScannerRegistryTest, APrincipalsScannerWorksFromEachOfItsClients) {
  ScannerRegistry registry(SmallLimits());
  StatusOr<int64_t> alices = registry.Add(NewScanner(1, "alice"));
  StatusOr<int64_t> anonymous = registry.Add(NewScanner(1));
  ASSERT_TRUE(alices.ok() && anonymous.ok());
  EXPECT_NE(registry.Find(*alices, 2, "alice"), nullptr);
  EXPECT_EQ(registry.Find(*alices, 2, "bob"), nullptr);
  EXPECT_EQ(registry.Find(*alices, 2, ""), nullptr);
  EXPECT_EQ(registry.Find(*anonymous, 2, ""), nullptr);
  EXPECT_EQ(registry.Find(*anonymous, 2, "alice"), nullptr);
  // Client 1's connection closes: only its anonymous scanner goes.
  registry.CloseAll(1);
  EXPECT_EQ(registry.Table(*anonymous), "");
  EXPECT_NE(registry.Find(*alices, 3, "alice"), nullptr);
  EXPECT_TRUE(registry.Close(*alices, 3, "bob").IsNotFound());
  EXPECT_TRUE(registry.Close(*alices, 3, "alice").ok());
  EXPECT_EQ(registry.Table(*alices), "");
}

TEST(ScannerRegistryTest, CapsPerClientPerPrincipalAndInAll) {
  ScannerRegistry registry(SmallLimits());
  StatusOr<int64_t> first = registry.Add(NewScanner(1, "alice"));
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(registry.Add(NewScanner(1, "alice")).ok());
  // The client's cap (2), then the principal's (3) over two clients.
  EXPECT_TRUE(registry.Add(NewScanner(1, "alice")).status().IsUnavailable());
  ASSERT_TRUE(registry.Add(NewScanner(2, "alice")).ok());
  EXPECT_TRUE(registry.Add(NewScanner(3, "alice")).status().IsUnavailable());
  // The cap of all scanners (4).
  ASSERT_TRUE(registry.Add(NewScanner(3, "bob")).ok());
  EXPECT_TRUE(registry.Add(NewScanner(4)).status().IsUnavailable());
  // Closing client 1's connection keeps alice's scanners (they are hers,
  // not the connection's); closing one frees its client's and her place.
  registry.CloseAll(1);
  EXPECT_TRUE(registry.Add(NewScanner(4, "alice")).status().IsUnavailable());
  ASSERT_TRUE(registry.Close(*first, 4, "alice").ok());
  EXPECT_TRUE(registry.Add(NewScanner(4, "alice")).ok());
}

TEST(ScannerRegistryTest, IdleScannersExpire) {
  ScannerRegistry::Limits limits = SmallLimits();
  limits.idle_timeout_ms = 1;
  ScannerRegistry registry(limits);
  StatusOr<int64_t> id = registry.Add(NewScanner(1));
  ASSERT_TRUE(id.ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  registry.Expire();
  EXPECT_EQ(registry.Find(*id, 1), nullptr);
}

TEST(ScannerRegistryTest, ARepeatedCallStartsWhereTheOneItRepeatsDid) {
  Scanner scanner;
  scanner.spec.start_row = "a";
  ASSERT_TRUE(scanner.BeginCall(1).ok());
  scanner.spec.start_row = "m";  // the call moved on
  scanner.returned = 5;
  ASSERT_TRUE(scanner.BeginCall(1).ok());  // a repeat of call 1
  EXPECT_EQ(scanner.spec.start_row, "a");
  EXPECT_EQ(scanner.returned, 0u);
  EXPECT_TRUE(scanner.BeginCall(3).IsInvalidArgument());  // 2 is next
  ASSERT_TRUE(scanner.BeginCall(2).ok());
  EXPECT_EQ(scanner.next_seq, 3u);
}

}  // namespace
}  // namespace bloomroute::router_internal
