// ThriftRegionClient::StartLookup: a lookup sent on one connection of the
// pool and read later, so that one router thread has a lookup in flight on
// every server it asks (router/region_client.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/raw_wire.h"
#include "thrift/gen-cpp/RegionService.h"
#include "thrift/region_server.h"
#include "thrift/thrift_region_client.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::PlacesRegion;
using ::bloomroute::testing::PutPlace;
using ::bloomroute::testing::ScriptedThriftServer;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::Where;
using ::testing::StartsWith;

std::string Address(int port) { return "127.0.0.1:" + std::to_string(port); }

std::unique_ptr<router::RegionClient> Connect(int port) {
  ThriftClientOptions options;
  options.connect_timeout_ms = 5000;
  options.call_timeout_ms = 10000;
  auto client =
      NewThriftRegionClientFactory(options)->Connect(1, Address(port));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

std::vector<std::string> Keys(const IndexQueryResult& answer) {
  std::vector<std::string> keys;
  for (const Row& row : answer.rows) keys.push_back(row.key);
  return keys;
}

// Two region servers, one region each, with places in both.
class PipelinedLookupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      auto store = RegionStore::Open(dirs_[i].path(), {});
      ASSERT_TRUE(store.ok()) << store.status().ToString();
      RegionServerOptions options;
      options.port = 0;
      auto server = RegionServer::Start(std::move(store).value(), options);
      ASSERT_TRUE(server.ok()) << server.status().ToString();
      servers_.push_back(std::move(server).value());
      clients_.push_back(Connect(servers_.back()->port()));
      const uint64_t region = i + 1;
      ASSERT_TRUE(
          clients_[i]->OpenRegion(PlacesRegion(region, "", ""), 0).ok());
      ASSERT_TRUE(
          clients_[i]
              ->Apply({PutPlace(region, "a" + std::to_string(i), "NO", "PPL"),
                       PutPlace(region, "b" + std::to_string(i), "NO", "PPLA"),
                       PutPlace(region, "c" + std::to_string(i), "SE", "PPL")},
                      0)
              .ok());
    }
  }

  IndexQuery NorwayIn(uint64_t region) {
    IndexQuery query = Where({{"d:country", "NO"}});
    query.region_ids = {region};
    return query;
  }

  TempDir dirs_[2];
  std::vector<std::unique_ptr<RegionServer>> servers_;
  std::vector<std::unique_ptr<router::RegionClient>> clients_;
};

// Sent to both servers before either answer is read, and read in the other
// order: each answer is the one Lookup gives, and the connections go back
// to the pool (the next calls work).
TEST_F(PipelinedLookupTest, LookupsInFlightOnTwoServersAnswerAsLookupDoes) {
  for (int round = 0; round < 3; ++round) {
    auto first = clients_[0]->StartLookup(NorwayIn(1));
    auto second = clients_[1]->StartLookup(NorwayIn(2));
    ASSERT_NE(first, nullptr);
    ASSERT_NE(second, nullptr);
    StatusOr<IndexQueryResult> b = second->Finish();
    StatusOr<IndexQueryResult> a = first->Finish();
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_EQ(Keys(*a), (std::vector<std::string>{"a0", "b0"}));
    EXPECT_EQ(Keys(*b), (std::vector<std::string>{"a1", "b1"}));
    StatusOr<IndexQueryResult> blocking = clients_[0]->Lookup(NorwayIn(1));
    ASSERT_TRUE(blocking.ok());
    EXPECT_EQ(Keys(*blocking), Keys(*a));
  }
}

// Two lookups in flight on one client take two connections; one dropped
// unread closes its connection (it holds a reply), and the client goes on.
TEST_F(PipelinedLookupTest, AnUnreadLookupClosesItsConnection) {
  auto kept = clients_[0]->StartLookup(NorwayIn(1));
  auto dropped = clients_[0]->StartLookup(NorwayIn(1));
  dropped.reset();
  StatusOr<IndexQueryResult> answer = kept->Finish();
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(Keys(*answer), (std::vector<std::string>{"a0", "b0"}));
  for (int i = 0; i < 3; ++i) {
    StatusOr<IndexQueryResult> again =
        clients_[0]->StartLookup(NorwayIn(1))->Finish();
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ(Keys(*again), Keys(*answer));
  }
}

// Failures come from Finish with the Status Lookup gives: a stopped server
// is Unavailable naming it, a server's refusal keeps its code (and the
// connection), a query the wire cannot carry is InvalidArgument, unsent.
TEST_F(PipelinedLookupTest, FailuresAreThoseOfLookup) {
  IndexQuery unsendable = NorwayIn(1);
  unsendable.region_ids = {uint64_t{1} << 63};
  EXPECT_TRUE(clients_[0]
                  ->StartLookup(unsendable)
                  ->Finish()
                  .status()
                  .IsInvalidArgument());
  StatusOr<IndexQueryResult> closed =
      clients_[0]->StartLookup(NorwayIn(7))->Finish();
  EXPECT_EQ(closed.status().code(),
            clients_[0]->Lookup(NorwayIn(7)).status().code());
  EXPECT_FALSE(closed.ok());

  const std::string address = Address(servers_[1]->port());
  servers_[1]->Stop();
  const Status down = clients_[1]->StartLookup(NorwayIn(2))->Finish().status();
  EXPECT_TRUE(down.IsUnavailable()) << down.ToString();
  EXPECT_THAT(down.message(),
              StartsWith("region server " + address + ": lookup"));
}

// Lookups read one after another still wait for silent servers together:
// each answer's wait ends a call timeout after its query was sent, not
// after the answers before it were read. Before, three silent servers held
// the reading thread three call timeouts (3 s here), where the fan-out's
// threads had waited one.
TEST(PipelinedLookupScriptedTest, SilentServersCostOneCallTimeoutTogether) {
  constexpr int kTimeoutMs = 1000;
  ScriptedThriftServer silent[3];  // accept nothing, answer nothing
  std::vector<std::unique_ptr<router::RegionClient>> clients;
  std::vector<std::unique_ptr<router::RegionClient::PendingLookup>> sent;
  ThriftClientOptions options;
  options.connect_timeout_ms = 5000;
  options.call_timeout_ms = kTimeoutMs;
  const auto start = std::chrono::steady_clock::now();
  for (ScriptedThriftServer& server : silent) {
    auto client = NewThriftRegionClientFactory(options)->Connect(
        1, Address(server.port()));
    ASSERT_TRUE(client.ok()) << client.status().ToString();
    clients.push_back(std::move(client).value());
    sent.push_back(clients.back()->StartLookup(Where({{"d:country", "NO"}})));
  }
  for (auto& lookup : sent) {
    const Status s = lookup->Finish().status();
    EXPECT_TRUE(s.IsUnavailable()) << s.ToString();
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(kTimeoutMs - 100));
  EXPECT_LT(elapsed, std::chrono::milliseconds(2 * kTimeoutMs));
}

// A declared exception read from a sent lookup leaves the connection clean:
// it carries the next lookups.
TEST(PipelinedLookupScriptedTest, ADeclaredRefusalKeepsTheConnection) {
  rpc::RegionService_lookup_result result;
  rpc::TIllegalArgument error;
  error.__set_message("NotFound: region 3 is not open on this server");
  result.ia = error;
  result.__isset.ia = true;
  auto buffer = std::make_shared<apache::thrift::transport::TMemoryBuffer>();
  apache::thrift::protocol::TBinaryProtocol protocol(buffer);
  protocol.writeMessageBegin("lookup", apache::thrift::protocol::T_REPLY, 0);
  result.write(&protocol);
  protocol.writeMessageEnd();
  ScriptedThriftServer server(
      ScriptedThriftServer::Always(buffer->getBufferAsString()));
  auto client = Connect(server.port());
  for (int i = 0; i < 3; ++i) {
    const Status s =
        client->StartLookup(Where({{"d:country", "NO"}}))->Finish().status();
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_EQ(s.message(), "region 3 is not open on this server");
  }
  EXPECT_EQ(server.connections(), 1);
}

}  // namespace
}  // namespace bloomroute
