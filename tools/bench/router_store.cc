#include "tools/bench/router_store.h"

#include <optional>
#include <utility>
#include <vector>

#include "tools/client_command_util.h"

namespace bloomroute::ycsb {
namespace {

class RouterStore : public Store {
 public:
  RouterStore(std::unique_ptr<RouterClient> router, std::string table)
      : router_(std::move(router)), table_(std::move(table)) {}

  Status Read(const std::string& key) override {
    StatusOr<std::vector<std::optional<Row>>> found =
        router_->Get(table_, {GetRequest{0, key, {}}});
    if (!found.ok()) return found.status().WithContext("read " + key);
    if (found->empty() || !found->front()) {
      return Status::NotFound("read " + key + ": no such row");
    }
    return Status::OK();
  }

  Status Scan(const std::string& start_key, uint64_t count) override {
    const router::ScanSpec spec{start_key, "", {}};
    StatusOr<uint64_t> read =
        ScanEach(*router_, table_, spec, count,
                 [](std::vector<Row>&) { return Status::OK(); });
    if (!read.ok()) return read.status().WithContext("scan from " + start_key);
    return Status::OK();
  }

  Status Write(const std::string& key,
               const std::vector<Cell>& cells) override {
    Status status = router_->Mutate(table_, {Mutation::Put(0, key, cells)});
    return status.ok() ? status : status.WithContext("write " + key);
  }

  Status Lookup(const std::string& column, const std::string& value,
                uint64_t limit) override {
    router::LookupSpec spec;
    spec.equals = {EqualityPredicate{column, value}};
    spec.limit = static_cast<uint32_t>(limit);
    StatusOr<router::LookupResult> found = router_->Lookup(table_, spec);
    if (!found.ok()) {
      return found.status().WithContext("lookup " + column + "=" + value);
    }
    return Status::OK();
  }

 private:
  std::unique_ptr<RouterClient> router_;
  const std::string table_;
};

}  // namespace

std::unique_ptr<Store> MakeRouterStore(std::unique_ptr<RouterClient> router,
                                       std::string table) {
  return std::make_unique<RouterStore>(std::move(router), std::move(table));
}

}  // namespace bloomroute::ycsb
