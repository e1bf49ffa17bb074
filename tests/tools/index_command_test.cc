#include "tools/index_command.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <sstream>

#include "tests/tools/import/unused_router_client.h"

namespace bloomroute {
namespace {

using router::IndexState;
using State = router::IndexState::State;
using ::testing::HasSubstr;

// Answers IndexStatus from a script, one entry per call (the last one
// repeats).
class ScriptedClient : public testing::UnusedRouterClient {
 public:
  std::deque<StatusOr<std::vector<IndexState>>> script;
  int calls = 0;
  StatusOr<std::vector<IndexState>> IndexStatus(
      std::string_view table) override {
    ++calls;
    EXPECT_EQ(table, "cities");
    auto next = script.front();
    if (script.size() > 1) script.pop_front();
    return next;
  }
};

IndexState Cc(State state, uint32_t done, uint64_t rows) {
  return IndexState{"d:cc", 3, state, done, 8, rows};
}

IndexWait NoSleep(IndexWait::Until until) {
  IndexWait wait;
  wait.until = until;
  wait.sleep = [](std::chrono::milliseconds) {};
  return wait;
}

TEST(IndexCommandTest, ProgressNamesStateRegionsAndRows) {
  EXPECT_EQ(FormatIndexProgress(Cc(State::kBuilding, 2, 12345)),
            "'d:cc' building: 2 of 8 regions, 12,345 entries added "
            "[#####---------------]");
  EXPECT_EQ(FormatIndexProgress(Cc(State::kReady, 8, 0)), "'d:cc' ready");
  EXPECT_THAT(FormatIndexProgress(Cc(State::kDropping, 8, 7)),
              HasSubstr("8 of 8 regions, 7 entries removed [####"));
}

TEST(IndexCommandTest, StatusAsTextAndJson) {
  const std::vector<IndexState> states = {{"d:name", 1, State::kReady, 8, 8, 0},
                                          Cc(State::kBuilding, 3, 99)};
  EXPECT_EQ(FormatIndexStatusText("cities", states),
            "table cities: 2 indexes\n"
            "column\tid\tstate\tregions done\tentries added/removed\n"
            "'d:name'\t1\tready\t8/8\t-\n"
            "'d:cc'\t3\tbuilding\t3/8\t99\n");
  EXPECT_EQ(FormatIndexStatusJson("cities", states),
            "{\"table\":\"cities\",\"indexes\":["
            "{\"column\":\"d:name\",\"column_id\":1,\"state\":\"ready\","
            "\"regions_done\":8,\"regions_total\":8,\"rows\":0},"
            "{\"column\":\"d:cc\",\"column_id\":3,\"state\":\"building\","
            "\"regions_done\":3,\"regions_total\":8,\"rows\":99}]}\n");
}

TEST(IndexCommandTest, WaitsUntilReadyShowingProgress) {
  ScriptedClient client;
  client.script = {std::vector<IndexState>{Cc(State::kBuilding, 0, 0)},
                   std::vector<IndexState>{Cc(State::kBuilding, 5, 70)},
                   std::vector<IndexState>{Cc(State::kReady, 8, 0)}};
  std::ostringstream progress;
  IndexWait wait = NoSleep(IndexWait::Until::kReady);
  wait.terminal = true;
  ASSERT_TRUE(WaitForIndex(client, "cities", "d:cc", wait, &progress).ok());
  EXPECT_EQ(client.calls, 3);
  EXPECT_EQ(progress.str(),
            "\r'd:cc' building: 0 of 8 regions, 0 entries added "
            "[--------------------]"
            "\r'd:cc' building: 5 of 8 regions, 70 entries added "
            "[############--------]"
            "\r'd:cc' ready\n");
}

TEST(IndexCommandTest, WaitingEndsOnAFailureOrAnIndexDroppedMeanwhile) {
  ScriptedClient client;
  client.script = {std::vector<IndexState>{Cc(State::kBuilding, 1, 1)},
                   std::vector<IndexState>{}};
  const Status gone = WaitForIndex(client, "cities", "d:cc",
                                   NoSleep(IndexWait::Until::kReady), nullptr);
  EXPECT_TRUE(gone.IsNotFound()) << gone.ToString();
  EXPECT_THAT(gone.message(), HasSubstr("dropped while it was building"));

  client.script = {Status::Unavailable("router down")};
  EXPECT_TRUE(WaitForIndex(client, "cities", "d:cc",
                           NoSleep(IndexWait::Until::kReady), nullptr)
                  .IsUnavailable());

  // A drop is done when the column is no longer listed.
  client.script = {std::vector<IndexState>{Cc(State::kDropping, 1, 5)},
                   std::vector<IndexState>{}};
  std::ostringstream progress;
  ASSERT_TRUE(WaitForIndex(client, "cities", "d:cc",
                           NoSleep(IndexWait::Until::kGone), &progress)
                  .ok());
  // Not a terminal: plain lines.
  EXPECT_EQ(progress.str(),
            "'d:cc' dropping: 1 of 8 regions, 5 entries removed "
            "[##------------------]\n'd:cc' dropped\n");
}

TEST(IndexCommandTest, BadUsageIsRefusedBeforeAnyCall) {
  IndexCommand command;
  EXPECT_EQ(command.Run({"rebuild", "--table", "t"}), Command::kExitUsage);
  EXPECT_EQ(IndexCommand().Run({"add", "--table", "t"}), Command::kExitUsage);
  EXPECT_EQ(IndexCommand().Run({"status", "--table", "t", "--format", "xml"}),
            Command::kExitUsage);
  EXPECT_EQ(IndexCommand().Run({"status", "--table", "t", "--column", "cc"}),
            Command::kExitUsage);
  EXPECT_EQ(IndexCommand().Run(
                {"add", "--table", "t", "--column", "cc", "--poll-ms", "1"}),
            Command::kExitUsage);
  EXPECT_EQ(IndexCommand().Run({"drop", "--column", "cc"}),
            Command::kExitUsage);  // no --table
}

}  // namespace
}  // namespace bloomroute
