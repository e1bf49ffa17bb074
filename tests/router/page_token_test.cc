// Page tokens: round trip, binding to the query, and hostile tokens (every
// single-byte change, every truncation, oversized and random bytes).
#include "router/page_token.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>

#include "model/index_predicate.h"

namespace bloomroute::router {
namespace {

constexpr char kForged[] = "page token is not valid (forged or corrupted)";
constexpr char kOtherQuery[] = "page token was issued for a different query";
constexpr char kStale[] = "page token is stale";

TableDescriptor Places(uint64_t table_id = 7) {
  TableDescriptor t;
  t.table_id = table_id;
  t.name = "places";
  t.indexed_columns = {{1, "d:country"}, {2, "d:feature"}};
  return t;
}

LookupSpec Query() {
  LookupSpec s;
  s.equals = {{"d:country", "NO"}, {"d:feature", "PPLA"}};
  s.columns = {"d:name", "d:population"};
  s.time_range = TimeRange{5, 500};
  return s;
}

class PageTokenCodecTest : public ::testing::Test {
 protected:
  PageTokenCodecTest()
      : codec_(
            std::move(PageTokenCodec::Create(std::string(32, 'k'))).value()) {}

  std::string Issue(const std::string& row, const LookupSpec& spec = Query(),
                    const TableDescriptor& table = Places()) const {
    StatusOr<std::string> t = codec_.Issue(table, spec, row);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : std::string();
  }
  // The error of opening `token` for the standard query.
  std::string OpenError(const std::string& token,
                        const LookupSpec& spec = Query(),
                        const TableDescriptor& table = Places()) const {
    StatusOr<std::string> row = codec_.Open(token, table, spec);
    if (row.ok()) return "opened: " + *row;
    EXPECT_TRUE(row.status().IsInvalidArgument()) << row.status().ToString();
    return row.status().message();
  }

  PageTokenCodec codec_;
};

TEST_F(PageTokenCodecTest, RoundTripGivesTheResumeRow) {
  for (const std::string& row :
       {std::string("r"), std::string("\0\xff\x01", 3), std::string(1000, 'z'),
        std::string(kMaxRowKeyBytes, '\x80')}) {
    const std::string token = Issue(row);
    StatusOr<std::string> back = codec_.Open(token, Places(), Query());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, row);
  }
}

TEST_F(PageTokenCodecTest, SizeIsBoundedByTheLongestRowKey) {
  EXPECT_EQ(kMaxPageTokenBytes,
            kPageTokenHeaderBytes + kMaxRowKeyBytes + kPageTokenMacBytes);
  EXPECT_EQ(Issue(std::string(kMaxRowKeyBytes, 'a')).size(),
            kMaxPageTokenBytes);
  EXPECT_EQ(Issue("abc").size(),
            kPageTokenHeaderBytes + 3 + kPageTokenMacBytes);
  // A longer row is never issued; a longer token is refused before decoding.
  StatusOr<std::string> long_row =
      codec_.Issue(Places(), Query(), std::string(kMaxRowKeyBytes + 1, 'a'));
  EXPECT_TRUE(long_row.status().IsInvalidArgument());
  const std::string oversized(kMaxPageTokenBytes + 1, '\0');
  const std::string error = OpenError(oversized);
  EXPECT_NE(error.find(kForged), std::string::npos) << error;
  EXPECT_NE(error.find(std::to_string(kMaxPageTokenBytes)), std::string::npos)
      << error;
}

TEST_F(PageTokenCodecTest, EverySingleByteChangeIsRejectedAsForged) {
  const std::string token = Issue("house-42");
  for (size_t i = 0; i < token.size(); ++i) {
    for (const unsigned char x : {0x01, 0x80, 0xff}) {
      std::string changed = token;
      changed[i] = static_cast<char>(changed[i] ^ x);
      const std::string error = OpenError(changed);
      EXPECT_NE(error.find(kForged), std::string::npos)
          << "byte " << i << " ^ " << int{x} << ": " << error;
    }
  }
}

TEST_F(PageTokenCodecTest, EveryTruncationAndExtensionIsRejectedAsForged) {
  const std::string token = Issue("house-42");
  for (size_t n = 0; n < token.size(); ++n) {
    const std::string error = OpenError(token.substr(0, n));
    EXPECT_NE(error.find(kForged), std::string::npos) << n << ": " << error;
  }
  EXPECT_NE(OpenError(token + "x").find(kForged), std::string::npos);
}

TEST_F(PageTokenCodecTest, RandomBytesAreRejectedAsForged) {
  std::mt19937_64 rng(17);  // fixed seed
  for (int i = 0; i < 2000; ++i) {
    std::string junk(rng() % 200, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    EXPECT_NE(OpenError(junk).find(kForged), std::string::npos);
  }
}

TEST_F(PageTokenCodecTest, AnotherKeyMeansForged) {
  PageTokenCodec other =
      std::move(PageTokenCodec::Create(std::string(32, 'o'))).value();
  StatusOr<std::string> token = other.Issue(Places(), Query(), "house");
  ASSERT_TRUE(token.ok());
  EXPECT_NE(OpenError(*token).find(kForged), std::string::npos);
}

TEST_F(PageTokenCodecTest, KeyMustHave32Bytes) {
  EXPECT_TRUE(PageTokenCodec::Create(std::string(31, 'k'))
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(PageTokenCodec::Create(std::string(33, 'k'))
                  .status()
                  .IsInvalidArgument());
}

TEST_F(PageTokenCodecTest, NewKeysAreRandom) {
  StatusOr<std::string> a = NewPageTokenKey();
  StatusOr<std::string> b = NewPageTokenKey();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), kPageTokenKeyBytes);
  EXPECT_NE(*a, *b);
}

TEST_F(PageTokenCodecTest, AnotherQueryIsRefused) {
  const std::string token = Issue("house");
  LookupSpec value = Query();
  value.equals[0].value = "SE";
  LookupSpec fewer = Query();
  fewer.equals.pop_back();
  LookupSpec projection = Query();
  projection.columns.push_back("d:timezone");
  LookupSpec time = Query();
  time.time_range.max = 501;
  TableDescriptor other_table = Places();
  other_table.name = "towns";
  for (const LookupSpec& spec : {value, fewer, projection, time}) {
    EXPECT_NE(OpenError(token, spec).find(kOtherQuery), std::string::npos);
  }
  EXPECT_NE(OpenError(token, Query(), other_table).find(kOtherQuery),
            std::string::npos);
}

TEST_F(PageTokenCodecTest, OrderLimitAndBudgetAreNotPartOfTheQuery) {
  const std::string token = Issue("house");
  LookupSpec same = Query();
  std::swap(same.equals[0], same.equals[1]);
  std::swap(same.columns[0], same.columns[1]);
  same.limit = 3;
  same.max_bytes = 100;
  same.broadcast = true;
  same.allow_partial = true;
  StatusOr<std::string> row = codec_.Open(token, Places(), same);
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_EQ(*row, "house");
}

TEST_F(PageTokenCodecTest, RecreatedTableOrChangedColumnsMeanStale) {
  const std::string token = Issue("house");
  const std::string recreated = OpenError(token, Query(), Places(8));
  EXPECT_NE(recreated.find(kStale), std::string::npos) << recreated;
  EXPECT_NE(recreated.find("start again"), std::string::npos) << recreated;
  TableDescriptor reindexed = Places();
  reindexed.indexed_columns[1].column_id = 3;  // dropped and added again
  const std::string changed = OpenError(token, Query(), reindexed);
  EXPECT_NE(changed.find(kStale), std::string::npos) << changed;
  EXPECT_NE(changed.find("start again"), std::string::npos) << changed;
  // A column the query does not use may change.
  TableDescriptor more = Places();
  more.indexed_columns.push_back({3, "d:timezone"});
  EXPECT_TRUE(codec_.Open(token, more, Query()).ok());
}

// Predicates of every kind (LookupSpec::where) bind a token like equalities:
// another operator, value or column is another query; the order of an IN
// list's values is not.
TEST_F(PageTokenCodecTest, WherePredicatesAreBound) {
  LookupSpec in = Query();
  in.where = {{"d:feature", IndexOp::kIn, {"PPLA", "PPLC"}},
              {"d:country", IndexOp::kPrefix, {"N"}}};
  const std::string token = Issue("house", in);
  LookupSpec reordered = in;
  std::swap(reordered.where[0], reordered.where[1]);
  std::swap(reordered.where[1].values[0], reordered.where[1].values[1]);
  EXPECT_TRUE(codec_.Open(token, Places(), reordered).ok());
  LookupSpec value = in;
  value.where[0].values[1] = "PPLX";
  LookupSpec op = in;
  op.where[1].op = IndexOp::kGreaterOrEqual;
  LookupSpec column = in;
  column.where[1].column = "d:feature";
  LookupSpec dropped = in;
  dropped.where.pop_back();
  for (const LookupSpec& spec : {value, op, column, dropped, Query()}) {
    EXPECT_NE(OpenError(token, spec).find(kOtherQuery), std::string::npos);
  }
  TableDescriptor reindexed = Places();
  reindexed.indexed_columns[0].column_id = 9;  // d:country added again
  EXPECT_NE(OpenError(token, in, reindexed).find(kStale), std::string::npos);
}

}  // namespace
}  // namespace bloomroute::router
