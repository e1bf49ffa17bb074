// ServerDirectory: the router's region servers -- who the members are, at
// which address, and the client that reaches each -- and the membership
// changes (a server added, re-pointed, removed) that the catalog persists.
//
// Locking. The member set is an immutable ServerMap published by pointer
// (mu_ guards the pointer and the retired entries only): readers take a
// snapshot (Snapshot) and iterate it. Membership changes are serialized by
// the caller (RouterImpl holds ddl_mu_, so that placement sees one set).
// Entries are never destroyed before the directory, so Get(id) stays valid
// for every id that was ever published.
#ifndef BLOOMROUTE_ROUTER_INTERNAL_SERVER_DIRECTORY_H_
#define BLOOMROUTE_ROUTER_INTERNAL_SERVER_DIRECTORY_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "router/global_index.h"
#include "router/internal/catalog.h"
#include "router/region_client.h"
#include "router/router_reports.h"

namespace bloomroute::router_internal {

using router::ServerId;

struct ServerEntry {
  router::ServerRef ref;
  std::unique_ptr<router::RegionClient> client;
  // The server's regions must be opened on it again (at start, after it
  // failed to answer, and when a new run of it was seen: a restarted server
  // serves no region until they are reopened).
  mutable std::atomic<bool> reopen{true};
  // The run of the server the regions were last opened on.
  mutable std::atomic<uint64_t> opened_incarnation{0};
  // The run of the server known to have the cluster's filter config (the
  // router set it, or a status showed it); 0: none.
  mutable std::atomic<uint64_t> config_incarnation{0};
  // Why the last reopening failed (empty after a success), for
  // GetClusterStatus; maintenance retries every pass meanwhile.
  mutable std::mutex reopen_error_mu;
  mutable std::string reopen_error;  // guarded by reopen_error_mu
  void SetReopenError(std::string error) const {
    std::lock_guard<std::mutex> lock(reopen_error_mu);
    reopen_error = std::move(error);
  }
  std::string ReopenError() const {
    std::lock_guard<std::mutex> lock(reopen_error_mu);
    return reopen_error;
  }
};

using ServerMap = std::map<ServerId, std::shared_ptr<ServerEntry>>;

// InvalidArgument unless `address` is something the router may store as a
// region server's address (1 to 300 bytes, no space or control character):
// the router does not parse addresses (its factory does), but bounds them.
[[nodiscard]] Status ValidateServerAddress(const std::string& address);

class ServerDirectory {
 public:
  explicit ServerDirectory(
      std::shared_ptr<router::RegionClientFactory> factory);
  ServerDirectory(const ServerDirectory&) = delete;
  ServerDirectory& operator=(const ServerDirectory&) = delete;

  // The members now: one pointer copy under mu_. Empty before
  // ConnectMembers.
  std::shared_ptr<const ServerMap> Snapshot() const;
  // The entry of member `id` (or of a removed one), valid for the
  // directory's life; nullptr for an id never published.
  ServerEntry* Find(ServerId id) const;
  // Find for an id known to have been published: one the catalog, the
  // index or a snapshot gave (Add publishes a member before the index or
  // the catalog's tables can name it). Aborts on an unknown id (a bug, not
  // input).
  ServerEntry& Get(ServerId id) const;

  // Members being decommissioned: nothing is placed on them, and the
  // balancer moves nothing to them.
  void SetDraining(ServerId id, bool draining);
  bool Draining(ServerId id) const;

  // Membership changes. The caller serializes them with each other and
  // with placement (RouterImpl's ddl_mu_).
  //
  // Connects every member of `catalog` at its stored address and adds it to
  // `index`; Corruption when a region of the catalog is on a server that is
  // not a member; the factory's or the index's error otherwise.
  [[nodiscard]] Status ConnectMembers(const CatalogStore& catalog,
                                      router::GlobalIndex* index);
  // Adds a server at `address` (persisted before the server hears of its
  // id, published before the index lists it). When a member already has
  // that address, returns its entry with *added false. InvalidArgument for
  // a bad address or a full cluster; the catalog's, factory's or index's
  // error otherwise, with nothing left behind but a removed entry.
  StatusOr<std::shared_ptr<ServerEntry>> Add(const std::string& address,
                                             CatalogStore* catalog,
                                             router::GlobalIndex* index,
                                             bool* added);
  // Points member `id` at `address` (persisted): a new entry replaces the
  // old, which lets go of its connections, and the index's replica is
  // marked stale. Returns the new entry, or null when the address is
  // unchanged. NotFound for a non-member; InvalidArgument for a bad
  // address.
  StatusOr<std::shared_ptr<ServerEntry>> Repoint(ServerId id,
                                                 const std::string& address,
                                                 CatalogStore* catalog,
                                                 router::GlobalIndex* index);
  // Removes member `id` (persisted) from the set and the index.
  // InvalidArgument while the catalog places any region on it (tables
  // being deleted, retired regions and operations in flight count);
  // NotFound for a non-member.
  [[nodiscard]] Status Remove(ServerId id, CatalogStore* catalog,
                              router::GlobalIndex* index);

 private:
  // A new entry for member `id` at `address`, connected; the factory's
  // error otherwise.
  StatusOr<std::shared_ptr<ServerEntry>> Connect(ServerId id,
                                                 const std::string& address);
  // Publishes `next` as the member set; `retired` (a replaced or removed
  // entry, or null) is kept alive for calls still using it.
  void Publish(ServerMap next, std::shared_ptr<ServerEntry> retired);

  const std::shared_ptr<router::RegionClientFactory> factory_;
  mutable std::mutex mu_;
  // Guarded by mu_: the members (the pointer; the map is immutable), and
  // every entry that left the map (replaced by Repoint, removed by Remove;
  // the removed by id, so that Get() of a call already under way still
  // finds them). A replaced entry has released its client's connections (a
  // few hundred bytes are left per entry).
  std::shared_ptr<const ServerMap> servers_ = std::make_shared<ServerMap>();
  std::vector<std::shared_ptr<ServerEntry>> replaced_;
  std::map<ServerId, std::shared_ptr<ServerEntry>> removed_;
  std::set<ServerId> draining_;  // guarded by mu_
};

}  // namespace bloomroute::router_internal

#endif  // BLOOMROUTE_ROUTER_INTERNAL_SERVER_DIRECTORY_H_
