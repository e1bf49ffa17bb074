// getByIndex's field 8 (TIndexPredicate: IN lists, ranges, prefixes) and
// countByIndex, over a fake router: what reaches the router, what comes
// back, and hostile input refused by name before the router is called.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/index_predicate.h"
#include "tests/integration/router_client.h"
#include "tests/thrift/fake_router.h"
#include "tests/thrift/handler_test_util.h"
#include "tests/thrift/wire_util.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::MakeQuery;
using ::testing::HasSubstr;

client::TIndexPredicate Predicate(std::string family, std::string qualifier,
                                  int32_t op, std::vector<std::string> values) {
  client::TIndexPredicate p;
  p.__set_family(std::move(family));
  p.__set_qualifier(std::move(qualifier));
  p.__set_op(op);
  p.__set_values(std::move(values));
  return p;
}

client::TIndexQuery Where(std::vector<client::TIndexPredicate> where) {
  client::TIndexQuery q;
  q.__set_where(std::move(where));
  return q;
}

class RouterPredicateHandlerTest : public ::testing::Test {
 protected:
  RouterPredicateHandlerTest()
      : router_(std::make_shared<FakeRouter>()), handler_(router_) {}
  void ExpectIllegal(const std::function<void()>& call,
                     const std::string& text) {
    const int before = router_->calls();
    testing::ExpectIllegal(call, text);
    EXPECT_EQ(router_->calls(), before) << text;
  }

  std::shared_ptr<FakeRouter> router_;
  RouterServiceHandler handler_;
};

TEST_F(RouterPredicateHandlerTest, EveryKindReachesTheRouter) {
  std::vector<client::TIndexPredicate> where;
  for (int32_t op = 0; op < kIndexOpCount; ++op) {
    std::vector<std::string> values = {"a"};
    if (op == static_cast<int32_t>(IndexOp::kIn)) values = {"a", "b", "c"};
    if (op == static_cast<int32_t>(IndexOp::kBetween)) values = {"a", "b"};
    where.push_back(Predicate("d", "q" + std::to_string(op), op, values));
  }
  client::TIndexQuery query = Where(where);
  query.__set_predicates({});  // field 1 may be empty with field 8 set
  router_->lookup_result.routing.broadcast_reason = "a range alone";
  client::TIndexResult found;
  handler_.getByIndex(found, "geo", ThroughWire(query));
  ASSERT_EQ(router_->lookups.size(), 1u);
  const router::LookupSpec& spec = router_->lookups[0];
  EXPECT_TRUE(spec.equals.empty());
  ASSERT_EQ(spec.where.size(), static_cast<size_t>(kIndexOpCount));
  for (int32_t op = 0; op < kIndexOpCount; ++op) {
    EXPECT_EQ(static_cast<int32_t>(spec.where[op].op), op);
    EXPECT_EQ(spec.where[op].column, "d:q" + std::to_string(op));
  }
  EXPECT_EQ(spec.where[1].values, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(found.routing.broadcastReason, "a range alone");

  // Field 1's equalities and field 8's predicates combine by AND.
  client::TIndexQuery both = MakeQuery({{"d:cc", "NO"}});
  both.__set_where({Predicate("d", "pop", 4, {"100"})});
  handler_.getByIndex(found, "geo", ThroughWire(both));
  ASSERT_EQ(router_->lookups.size(), 2u);
  EXPECT_EQ(router_->lookups[1].equals.size(), 1u);
  EXPECT_EQ(router_->lookups[1].where.size(), 1u);
}

TEST_F(RouterPredicateHandlerTest, CountByIndexAnswersTheCountAndRouting) {
  router_->count_result.count = 123456789012ll;
  router_->count_result.routing.servers_in_cluster = 3;
  router_->count_result.routing.asked = {{1, "127.0.0.1:2"}};
  router_->count_result.routing.broadcast_reason = "why";
  client::TIndexCount count;
  handler_.countByIndex(count, "geo",
                        ThroughWire(Where({Predicate("d", "cc", 6, {"N"})})));
  ASSERT_EQ(router_->lookups.size(), 1u);
  EXPECT_EQ(router_->lookups[0].where[0].op, IndexOp::kPrefix);
  EXPECT_EQ(count.count, 123456789012ll);
  EXPECT_EQ(count.routing.serversInCluster, 3);
  EXPECT_EQ(count.routing.serversAsked.size(), 1u);
  EXPECT_EQ(count.routing.broadcastReason, "why");
  EXPECT_FALSE(count.partial);
}

TEST_F(RouterPredicateHandlerTest, HostilePredicatesNeverReachTheRouter) {
  client::TIndexResult found;
  client::TIndexCount count;
  auto both = [&](const client::TIndexQuery& q, const std::string& text) {
    const client::TIndexQuery wire = ThroughWire(q);
    ExpectIllegal([&] { handler_.getByIndex(found, "t", wire); }, text);
    ExpectIllegal([&] { handler_.countByIndex(count, "t", wire); }, text);
  };
  both(Where({Predicate("d", "a", 99, {"x"})}),
       "tquery.where[0].op is 99, not a TIndexOperator");
  both(Where({Predicate("d", "a", -1, {"x"})}),
       "tquery.where[0].op is -1, not a TIndexOperator");
  both(Where({Predicate("d", "a", 2, {"x", "y"})}), "takes one value");
  both(Where({Predicate("d", "a", 7, {"x"})}), "takes 2 values");
  std::vector<std::string> many(kMaxIndexPredicateValues + 1, "v");
  both(Where({Predicate("d", "a", 1, many)}), "kMaxIndexPredicateValues");
  both(Where({Predicate("d", "a", 1,
                        {std::string(kMaxIndexPredicateBytes, 'x'), "y"})}),
       "kMaxIndexPredicateBytes");
  both(Where(std::vector<client::TIndexPredicate>(
           kMaxIndexPredicates + 1, Predicate("d", "a", 0, {"x"}))),
       "kMaxIndexPredicates");
  both(Where({Predicate("d", "a", 1, {})}), "is empty");
  both(Where({Predicate("d", "a", 1, {"x", "x"})}), "twice");
  both(Where({Predicate("d", "a", 6, {""})}), "empty prefix");
  client::TIndexQuery no_family = Where({Predicate("d", "a", 0, {"x"})});
  no_family = ThroughWire(no_family);
  no_family.where[0].__isset.family = false;
  ExpectIllegal([&] { handler_.getByIndex(found, "t", no_family); },
                "tquery.where[0].family is missing");
  ExpectIllegal(
      [&] { handler_.countByIndex(count, "t", client::TIndexQuery()); },
      "tquery.predicates is missing");
}

}  // namespace
}  // namespace bloomroute
