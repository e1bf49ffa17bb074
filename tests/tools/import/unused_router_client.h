// Test helper: a RouterClient whose every call fails with InvalidArgument
// ("not in this test"). A fake derives from it and overrides only the calls
// its test makes.
#ifndef BLOOMROUTE_TESTS_TOOLS_IMPORT_UNUSED_ROUTER_CLIENT_H_
#define BLOOMROUTE_TESTS_TOOLS_IMPORT_UNUSED_ROUTER_CLIENT_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "thrift/router_client.h"

namespace bloomroute::testing {

class UnusedRouterClient : public RouterClient {
 public:
  const std::string& address() const override { return address_; }
  StatusOr<router::TableInfo> CreateTable(const router::TableSpec&) override {
    return Unused();
  }
  Status DeleteTable(std::string_view) override { return Unused(); }
  StatusOr<std::vector<TableDescriptor>> ListTables() override {
    return Unused();
  }
  StatusOr<router::TableInfo> DescribeTable(std::string_view) override {
    return Unused();
  }
  Status DisableTable(std::string_view) override { return Unused(); }
  Status EnableTable(std::string_view) override { return Unused(); }
  StatusOr<bool> IsTableEnabled(std::string_view) override { return Unused(); }
  Status TruncateTable(std::string_view, bool) override { return Unused(); }
  Status DeleteDisabledTable(std::string_view) override { return Unused(); }
  Status AddIndex(std::string_view, const std::string&) override {
    return Unused();
  }
  Status DropIndex(std::string_view, const std::string&) override {
    return Unused();
  }
  StatusOr<std::vector<router::IndexState>> IndexStatus(
      std::string_view) override {
    return Unused();
  }
  Status Mutate(std::string_view, const std::vector<Mutation>&) override {
    return Unused();
  }
  StatusOr<std::optional<Row>> Increment(
      std::string_view, const std::string&,
      const std::vector<ColumnIncrement>&) override {
    return Unused();
  }
  StatusOr<std::vector<std::optional<Row>>> Get(
      std::string_view, const std::vector<GetRequest>&) override {
    return Unused();
  }
  StatusOr<int64_t> OpenScanner(std::string_view,
                                const router::ScanSpec&) override {
    return Unused();
  }
  StatusOr<std::vector<Row>> ScannerNext(int64_t, uint32_t) override {
    return Unused();
  }
  bool ScannerLost(int64_t) const override { return false; }
  Status CloseScanner(int64_t) override { return Unused(); }
  StatusOr<router::LookupResult> Lookup(std::string_view,
                                        const router::LookupSpec&) override {
    return Unused();
  }
  StatusOr<router::CountResult> Count(std::string_view,
                                      const router::LookupSpec&) override {
    return Unused();
  }
  StatusOr<std::vector<router::ServerIndexStats>> IndexStats() override {
    return Unused();
  }
  StatusOr<router::ClusterStatus> GetClusterStatus() override {
    return Unused();
  }
  StatusOr<std::vector<router::ServerSummary>> ListServers() override {
    return Unused();
  }
  StatusOr<coord::ClusterMembers> ClusterMembers() override { return Unused(); }
  StatusOr<std::vector<router::RegionSummary>> ListRegions(
      std::string_view) override {
    return Unused();
  }
  StatusOr<router::ServerRef> AddServer(const std::string&) override {
    return Unused();
  }
  Status SetServerAddress(router::ServerId, const std::string&) override {
    return Unused();
  }
  Status RemoveServer(router::ServerId) override { return Unused(); }
  StatusOr<router::RegionOpResult> MoveRegion(uint64_t,
                                              router::ServerId) override {
    return Unused();
  }
  StatusOr<router::RegionOpResult> SplitRegion(
      uint64_t, const std::optional<std::string>&) override {
    return Unused();
  }
  StatusOr<router::RegionOpResult> MergeRegions(uint64_t, uint64_t) override {
    return Unused();
  }
  StatusOr<router::BalanceReport> Balance(uint32_t) override {
    return Unused();
  }
  StatusOr<std::vector<router::BalanceReport::Step>> DecommissionServer(
      router::ServerId) override {
    return Unused();
  }
  Status SetQuota(const router::Quota&) override { return Unused(); }
  Status ChangeGrant(const router::Grant&, router::GrantChange) override {
    return Unused();
  }
  StatusOr<std::vector<router::Quota>> ListQuotas() override {
    return Unused();
  }
  Status BulkLoad(std::string_view, uint64_t, const std::string&) override {
    return Unused();
  }
  StatusOr<router::VerifyReport> VerifyIndex(std::string_view) override {
    return Unused();
  }

 protected:
  static Status Unused() { return Status::InvalidArgument("not in this test"); }

 private:
  const std::string address_ = "fake:1";
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_TOOLS_IMPORT_UNUSED_ROUTER_CLIENT_H_
