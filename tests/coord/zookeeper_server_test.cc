#include "tests/coord/zookeeper_server.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace bloomroute::coord::zktest {
namespace {

TEST(ZooKeeperTestEnsembleTest, StandaloneStopsStartsPausesAndCleansUp) {
  auto started = ZooKeeperTestEnsemble::Start(1);
  ASSERT_TRUE(started.ok()) << started.status().ToString();
  std::unique_ptr<ZooKeeperTestEnsemble> zk = std::move(*started);
  EXPECT_EQ(zk->size(), 1);
  EXPECT_EQ(zk->ConnectString(), zk->NodeAddress(0));
  EXPECT_EQ(zk->NodeAddress(0).rfind("127.0.0.1:", 0), 0u);
  EXPECT_TRUE(zk->Serving(0));
  ASSERT_TRUE(zk->PauseNode(0).ok());
  EXPECT_FALSE(zk->Serving(0));
  ASSERT_TRUE(zk->ResumeNode(0).ok());
  EXPECT_TRUE(zk->Serving(0));
  ASSERT_TRUE(zk->StopNode(0).ok());
  EXPECT_FALSE(zk->Serving(0));
  EXPECT_TRUE(zk->PauseNode(0).IsInvalidArgument());
  ASSERT_TRUE(zk->StartNode(0).ok());
  ASSERT_TRUE(zk->WaitServing(std::chrono::milliseconds(20000)).ok());
  EXPECT_TRUE(zk->Serving(0));
  EXPECT_TRUE(zk->KillNode(1).IsInvalidArgument());
  EXPECT_NE(zk->LogTails().find("ZooKeeper node 0"), std::string::npos);
  std::string directory = zk->directory();
  ASSERT_TRUE(std::filesystem::exists(directory));
  zk.reset();
  EXPECT_FALSE(std::filesystem::exists(directory));
}

}  // namespace
}  // namespace bloomroute::coord::zktest
