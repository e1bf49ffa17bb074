// Shared helpers for Router tests over a StoreCluster.
#ifndef BLOOMROUTE_TESTS_ROUTER_ROUTER_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_ROUTER_ROUTER_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "router/router.h"
#include "tests/router/store_cluster.h"

namespace bloomroute::testing {

inline router::RouterOptions RouterOptionsFor(const StoreCluster& cluster) {
  router::RouterOptions o;
  o.data_dir = cluster.router_dir();
  o.region_servers = cluster.Addresses();
  o.fanout_threads = 4;
  o.maintenance_interval_ms = 50;
  // The stores' filters get the router's config: stages open early in
  // tests, as StoreCluster's own n0 of 64 meant before the router owned it.
  o.filter.initial_capacity = 64;
  return o;
}

inline std::unique_ptr<router::Router> OpenRouter(StoreCluster& cluster) {
  StatusOr<std::unique_ptr<router::Router>> r =
      router::Router::Open(RouterOptionsFor(cluster), cluster.Factory());
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

inline Mutation PutRow(std::string row, std::string country,
                       std::string feature, std::string name = "x") {
  return Mutation::Put(0, std::move(row),
                       {{"d:country", std::move(country)},
                        {"d:feature", std::move(feature)},
                        {"d:name", std::move(name)}});
}

inline router::LookupSpec WhereEq(std::vector<EqualityPredicate> equals,
                                  uint32_t limit = 0) {
  router::LookupSpec s;
  s.equals = std::move(equals);
  s.limit = limit;
  return s;
}

inline std::vector<std::string> Keys(const std::vector<Row>& rows) {
  std::vector<std::string> out;
  for (const Row& r : rows) out.push_back(r.key);
  return out;
}

inline std::vector<router::ServerId> Ids(
    const std::vector<router::ServerRef>& refs) {
  std::vector<router::ServerId> out;
  for (const auto& r : refs) out.push_back(r.id);
  return out;
}

// Waits (up to 20 s) until every replica is current.
inline bool WaitAllCurrent(const router::Router& router) {
  for (int i = 0; i < 2000; ++i) {
    bool all = true;
    for (const auto& s : router.IndexStats()) all = all && s.replica.current;
    if (all) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_ROUTER_ROUTER_TEST_UTIL_H_
