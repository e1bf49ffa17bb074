// The cost of TLS (issue 14): routed index lookups and imports through the
// router's client API, on a cluster with TLS on every port and on the same
// cluster in the clear, in one run.
//
// Setup: two clusters in this process, alike but for TLS: 4 region servers
// (RocksDB, Thrift on 127.0.0.1) and a router reaching them over Thrift,
// served by a RouterServer; clients are RouterClients (the tools' client).
// Figures measured with it are in docs/security.md (What TLS costs).
// The secure cluster uses certificates of tools/certs.h: node certificates
// between router and region servers, an admin client certificate for the
// client. Every connection is pooled, so the handshake is paid once per
// connection, not per call: what is measured is the record layer (AES-GCM
// or ChaCha20 on both hops) and its system calls.
//   lookup: one getByIndex of a random selective value (4 rows, on one
//           server): client -> router -> 1 region server and back.
//   lookup/*_new_connection: the same, each on a new client connection (a
//           TLS handshake each, with ECDSA P-256 certificates both ways), as
//           a one-shot command such as `bloomroute get` makes.
//   import: putMultiple of a batch of 500 rows of 5 cells (about 150 bytes a
//           row), as `bloomroute import` sends them; rows/s in items.
//
// Run: make bench   (or build/benchmarks/thrift/tls_benchmark)
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "benchmarks/bench_util.h"
#include "regionstore/region_store.h"
#include "router/router.h"
#include "thrift/region_server.h"
#include "thrift/router_client.h"
#include "thrift/router_server.h"
#include "thrift/thrift_region_client.h"
#include "tools/certs.h"

namespace bloomroute {
namespace {

constexpr int kServers = 4;
constexpr int kValuesPerServer = 500;
constexpr int kRowsPerValue = 4;
constexpr int kImportBatch = 500;

using bench::TempDir;
using bench::Value;

template <typename T>
T Must(StatusOr<T> value) {
  if (!value.ok()) {
    fprintf(stderr, "setup failed: %s\n", value.status().ToString().c_str());
    abort();
  }
  return std::move(value).value();
}

void Must(const Status& status) {
  if (!status.ok()) {
    fprintf(stderr, "setup failed: %s\n", status.ToString().c_str());
    abort();
  }
}

// One cluster with its router's client port and a client of it.
class Cluster {
 public:
  static Cluster& Get(bool secure) {
    static Cluster* plain = new Cluster(false);  // live until exit
    static Cluster* tls = new Cluster(true);
    return secure ? *tls : *plain;
  }
  RouterClient& client() { return *client_; }
  // A client that keeps no idle connection: every call connects (and, with
  // TLS, handshakes) anew, as a one-shot command does.
  RouterClient& unpooled_client() { return *unpooled_; }

 private:
  explicit Cluster(bool secure) : dir_(TempDir()) {
    TlsOptions node;
    TlsOptions admin;
    if (secure) {
      LocalCerts certs = Must(EnsureLocalCerts(dir_ + "/certs"));
      node = certs.node;
      admin = certs.client;
    }
    std::vector<std::string> addresses;
    for (int i = 0; i < kServers; ++i) {
      std::shared_ptr<RegionStore> store =
          Must(RegionStore::Open(dir_ + "/rs" + std::to_string(i), {}));
      RegionServerOptions o;
      o.port = 0;
      o.tls = node;
      servers_.push_back(Must(RegionServer::Start(store, o)));
      addresses.push_back("127.0.0.1:" +
                          std::to_string(servers_.back()->port()));
    }
    router::RouterOptions o;
    o.data_dir = dir_ + "/router";
    o.region_servers = addresses;
    ThriftClientOptions to_servers;
    to_servers.tls = node;
    std::shared_ptr<router::Router> router =
        Must(router::Router::Open(o, NewThriftRegionClientFactory(to_servers)));
    RouterServerOptions so;
    so.port = 0;
    so.tls = node;
    router_server_ = Must(RouterServer::Start(router, so));
    RouterClientOptions co;
    co.tls = admin;
    const std::string address =
        "127.0.0.1:" + std::to_string(router_server_->port());
    client_ = Must(ConnectRouter(address, co));
    co.max_idle_connections = 0;
    unpooled_ = Must(ConnectRouter(address, co));
    Load();
  }

  void Load() {
    router::TableSpec spec;
    spec.name = "bench";
    spec.indexed_columns = {"d:sel"};
    for (int i = 1; i < kServers; ++i) {
      spec.split_keys.push_back("r" + std::to_string(i));
    }
    router::TableInfo t = Must(client_->CreateTable(spec));
    spec.name = "import";
    spec.indexed_columns = {"d:country", "d:feature"};
    Must(client_->CreateTable(spec).status());
    for (size_t region = 0; region < t.regions.size(); ++region) {
      std::vector<Mutation> rows;
      for (int v = 0; v < kValuesPerServer; ++v) {
        for (int k = 0; k < kRowsPerValue; ++k) {
          rows.push_back(
              Mutation::Put(0,
                            "r" + std::to_string(region) + "-" +
                                std::to_string(v) + "-" + std::to_string(k),
                            {{"d:name", std::string(40, 'n')},
                             {"d:sel", Value(static_cast<int>(region), v)}}));
        }
      }
      Must(client_->Mutate("bench", std::move(rows)));
    }
  }

  const std::string dir_;
  std::vector<std::unique_ptr<RegionServer>> servers_;
  std::unique_ptr<RouterServer> router_server_;
  std::unique_ptr<RouterClient> client_;
  std::unique_ptr<RouterClient> unpooled_;
};

void BM_Lookup(benchmark::State& state, bool secure, bool pooled) {
  Cluster& cluster = Cluster::Get(secure);
  RouterClient& client = pooled ? cluster.client() : cluster.unpooled_client();
  std::mt19937_64 rng(7);
  uint64_t rows = 0;
  for (auto _ : state) {
    router::LookupSpec q;
    q.equals = {{"d:sel", Value(static_cast<int>(rng() % kServers),
                                static_cast<int>(rng() % kValuesPerServer))}};
    StatusOr<router::LookupResult> r = client.Lookup("bench", q);
    if (!r.ok()) {
      state.SkipWithError(r.status().ToString().c_str());
      break;
    }
    rows += r->rows.size();
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["rows"] = benchmark::Counter(
      static_cast<double>(rows), benchmark::Counter::kAvgIterations);
}

void BM_Import(benchmark::State& state, bool secure) {
  RouterClient& client = Cluster::Get(secure).client();
  static std::atomic<uint64_t> next_row{0};
  std::mt19937_64 rng(11);
  for (auto _ : state) {
    std::vector<Mutation> batch;
    batch.reserve(kImportBatch);
    for (int i = 0; i < kImportBatch; ++i) {
      const uint64_t n = next_row.fetch_add(1);
      batch.push_back(Mutation::Put(
          0, "r" + std::to_string(n % kServers) + "-" + std::to_string(n),
          {{"d:name", "Place " + std::to_string(n)},
           {"d:country", "C" + std::to_string(rng() % 200)},
           {"d:feature", "F" + std::to_string(rng() % 600)},
           {"d:lat", std::to_string(rng() % 180000)},
           {"d:lon", std::to_string(rng() % 360000)}}));
    }
    Status s = client.Mutate("import", std::move(batch));
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kImportBatch);
}

BENCHMARK_CAPTURE(BM_Lookup, plain, false, true)->UseRealTime()->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Lookup, tls, true, true)->UseRealTime()->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Lookup, plain_new_connection, false, false)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Lookup, tls_new_connection, true, false)
    ->UseRealTime()
    ->MinTime(2.0);
BENCHMARK_CAPTURE(BM_Import, plain, false)->UseRealTime()->MinTime(3.0);
BENCHMARK_CAPTURE(BM_Import, tls, true)->UseRealTime()->MinTime(3.0);

}  // namespace
}  // namespace bloomroute

BENCHMARK_MAIN();
