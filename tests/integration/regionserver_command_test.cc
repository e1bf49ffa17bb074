// `bloomroute regionserver` as a real process: argument checks, a clean stop
// on SIGTERM, its log file reopened on SIGHUP, and no acknowledged write
// lost to SIGKILL under --sync.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/http_get.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"
#include "tests/thrift/region_client_util.h"

namespace bloomroute {
namespace {

using ::bloomroute::testing::Cells;
using ::bloomroute::testing::Delete;
using ::bloomroute::testing::Get;
using ::bloomroute::testing::Put;
using ::bloomroute::testing::RegionClient;
using ::bloomroute::testing::ServerProcess;
using ::bloomroute::testing::TempDir;
using ::bloomroute::testing::WhereEquals;
using ::bloomroute::testing::WirePlacesRegion;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

using RowState = std::map<std::string, std::string>;  // empty = no row

// A socket to the region server on `port`: as a router of the cluster (its
// node certificate) in the secure run.
std::shared_ptr<apache::thrift::transport::TSocket> NodeSocket(int port) {
  return testing::TestSocket(
      "127.0.0.1", port,
      testing::SecureMode() ? testing::TestCerts().node : TlsOptions());
}

class RegionServerCommandTest : public ::testing::Test {
 protected:
  std::unique_ptr<ServerProcess> StartServer(std::string* line = nullptr) {
    auto server = std::make_unique<ServerProcess>(
        BLOOMROUTE_BINARY,
        std::vector<std::string>{"regionserver", "--data", dir_.path(),
                                 "--listen", "127.0.0.1:0", "--sync"});
    port_ = server->ReadPort(line);
    return server;
  }
  // A server that logs to `log_file` (stderr captured), port_ set.
  std::unique_ptr<ServerProcess> StartLogging(const std::string& log_file,
                                              const std::string& level) {
    auto server = std::make_unique<ServerProcess>(
        BLOOMROUTE_BINARY,
        std::vector<std::string>{"regionserver", "--data", dir_.path(),
                                 "--listen", "127.0.0.1:0", "--log-file",
                                 log_file, "--log-level", level},
        /*capture_stderr=*/true);
    port_ = server->ReadPort();
    return server;
  }
  static std::vector<std::string> Lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
  static int ExitCodeOf(const std::vector<std::string>& args) {
    ServerProcess process(BLOOMROUTE_BINARY, args);
    std::optional<int> status = process.Wait();
    if (!status || !WIFEXITED(*status)) return -1;
    return WEXITSTATUS(*status);
  }

  TempDir dir_;
  int port_ = 0;
};

TEST_F(RegionServerCommandTest, RejectsBadArgumentsWithUsageExit) {
  const std::string data = dir_.path();
  EXPECT_EQ(ExitCodeOf({"regionserver"}), 2);  // --data is required
  EXPECT_EQ(ExitCodeOf({"regionserver", "--data", data, "--listen", "nohost"}),
            2);
  EXPECT_EQ(ExitCodeOf({"regionserver", "--data", data, "--listen",
                        "127.0.0.1:70000"}),
            2);
  EXPECT_EQ(
      ExitCodeOf({"regionserver", "--data", data, "--max-value-bytes", "0"}),
      2);
  EXPECT_EQ(
      ExitCodeOf({"regionserver", "--data", data, "--max-value-bytes", "-1"}),
      2);
  EXPECT_EQ(ExitCodeOf({"regionserver", "--data", data, "--threads", "0"}), 2);
  // The filter config is the router's: the server has no filter options.
  EXPECT_EQ(
      ExitCodeOf({"regionserver", "--data", data, "--filter-fpr", "0.01"}), 2);
  EXPECT_EQ(ExitCodeOf({"regionserver", "--data", data,
                        "--filter-initial-capacity", "1024"}),
            2);
  EXPECT_EQ(
      ExitCodeOf({"regionserver", "--data", data, "--request-timeout", "0"}),
      2);
  EXPECT_EQ(ExitCodeOf(
                {"regionserver", "--data", data, "--max-connections", "70000"}),
            2);
  // The request pool holds at least one frame; the error names the option.
  const auto [code, err] = ::bloomroute::testing::RunToExit(
      {"regionserver", "--data", data, "--max-frame-bytes", "33554432",
       "--max-buffered-request-bytes", "33554431"});
  EXPECT_EQ(code, 2);
  EXPECT_THAT(err, ::testing::HasSubstr(
                       "--max-buffered-request-bytes must be in [33554432, "));
  // The reply bound is at least a byte; the error names the option.
  for (const char* bad : {"0", "-1", "1099511627777"}) {
    const auto [reply_code, reply_err] = ::bloomroute::testing::RunToExit(
        {"regionserver", "--data", data, "--max-buffered-reply-bytes", bad});
    EXPECT_EQ(reply_code, 2) << bad;
    EXPECT_THAT(reply_err,
                ::testing::HasSubstr("--max-buffered-reply-bytes must be in "
                                     "[1, 1099511627776], not "))
        << bad;
  }
  // Pages of a bits-only filter snapshot: bounded, named, in --help.
  for (const char* bad : {"4095", "33554433"}) {
    const auto [page_code, page_err] = ::bloomroute::testing::RunToExit(
        {"regionserver", "--data", data, "--filter-image-page-bytes", bad});
    EXPECT_EQ(page_code, 2) << bad;
    EXPECT_THAT(page_err,
                ::testing::HasSubstr("--filter-image-page-bytes must be in "
                                     "[4096, 33554432], not "))
        << bad;
  }
  // The store's memory bounds: named, with their range, before anything
  // starts.
  const std::vector<std::pair<std::vector<std::string>, std::string>> memory = {
      {{"--block-cache-bytes", "1048575"},
       "--block-cache-bytes must be in [1048576, 1099511627776], not "},
      {{"--block-cache-bytes", "1099511627777"},
       "--block-cache-bytes must be in [1048576, 1099511627776], not "},
      {{"--memtable-bytes", "0"},
       "--memtable-bytes must be in [4194304, 1099511627776], not "},
      {{"--memtable-bytes", "4194303"},
       "--memtable-bytes must be in [4194304, 1099511627776], not "}};
  for (const auto& [flag, message] : memory) {
    const auto [memory_code, memory_err] = ::bloomroute::testing::RunToExit(
        {"regionserver", "--data", data, flag[0], flag[1]});
    EXPECT_EQ(memory_code, 2) << flag[0] << " " << flag[1];
    EXPECT_THAT(memory_err, ::testing::HasSubstr(message))
        << flag[0] << " " << flag[1];
  }
  EXPECT_EQ(ExitCodeOf({"regionserver", "--data", data, "--bogus"}), 2);
}

// The memory flags reach the store: its metrics report the bounds.
TEST_F(RegionServerCommandTest, MemoryFlagsBoundTheStore) {
  testing::StartedServer server = testing::StartRegionServer(
      dir_.path(), 0,
      {"--block-cache-bytes", "2097152", "--memtable-bytes", "8388608"});
  ASSERT_GT(server.port, 0) << server.line;
  const std::string base = testing::StatusUrlBase(server.line);
  ASSERT_FALSE(base.empty()) << server.line;
  // In the secure run the endpoint needs a client certificate.
  const testing::HttpAnswer metrics = testing::HttpGet(
      base, "/metrics",
      testing::SecureMode() ? &testing::TestCerts().client : nullptr);
  ASSERT_EQ(metrics.status, 200) << metrics.body;
  EXPECT_THAT(metrics.body,
              HasSubstr("\nbloomroute_rocksdb_block_cache_capacity_bytes "
                        "2097152\n"));
  EXPECT_THAT(metrics.body,
              HasSubstr("\nbloomroute_rocksdb_memtable_limit_bytes 8388608\n"));
  server.process->Signal(SIGTERM);
  EXPECT_EQ(server.process->ExitCode(), 0);
}

TEST_F(RegionServerCommandTest, HelpDocumentsTheMemoryBounds) {
  const testing::CommandOutput help =
      testing::RunCommand({"regionserver", "--help"});
  EXPECT_THAT(help.out, ::testing::HasSubstr("--block-cache-bytes"));
  EXPECT_THAT(help.out, ::testing::HasSubstr(std::to_string(
                            RegionStoreOptions().block_cache_bytes)));
  EXPECT_THAT(help.out, ::testing::HasSubstr("--memtable-bytes"));
  EXPECT_THAT(help.out, ::testing::HasSubstr(std::to_string(
                            RegionStoreOptions().memtable_bytes)));
}

TEST_F(RegionServerCommandTest, HelpDocumentsTheFilterImagePageSize) {
  const testing::CommandOutput help =
      testing::RunCommand({"regionserver", "--help"});
  EXPECT_THAT(help.out, ::testing::HasSubstr("--filter-image-page-bytes"));
  EXPECT_THAT(help.out, ::testing::HasSubstr("4194304"));
}

TEST_F(RegionServerCommandTest, SigtermStopsCleanlyAndDataSurvives) {
  std::string line;
  {
    auto server = StartServer(&line);
    ASSERT_GT(port_, 0) << line;
    EXPECT_THAT(line,
                HasSubstr("serving 0 regions of 0 tables from " + dir_.path()));
    EXPECT_THAT(line, HasSubstr("(sync on, max value 10485760 bytes)"));
    {
      RegionClient client(NodeSocket(port_));
      client->openRegion(WirePlacesRegion(1, "", ""), 0, false, 0);
      rpc::TWriteResult written;
      client->mutateRows(written, {Put(1, "oslo", {{"d:country", "NO"}})}, 0);
    }
    server->Signal(SIGTERM);
    std::optional<int> status = server->Wait();
    ASSERT_TRUE(status.has_value()) << "still running after SIGTERM";
    ASSERT_TRUE(WIFEXITED(*status));
    EXPECT_EQ(WEXITSTATUS(*status), 0);
  }
  auto server = StartServer(&line);
  ASSERT_GT(port_, 0) << line;
  // A restarted server serves its regions once its router opens them again.
  EXPECT_THAT(line, HasSubstr("serving 0 regions of 0 tables"));
  RegionClient client(NodeSocket(port_));
  client->openRegion(WirePlacesRegion(1, "", ""), 0, false, 0);
  std::vector<rpc::TResult> rows;
  client->getMultiple(rows, {Get(1, "oslo")}, 0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(Cells(rows[0]), (RowState{{"d:country", "NO"}}));
  server->Signal(SIGINT);
  std::optional<int> status = server->Wait();
  ASSERT_TRUE(status && WIFEXITED(*status));
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

// --log-file: lines with time and level in the file, none on stderr. After
// logrotate's rename, SIGHUP makes the server write a new file at the path,
// and the renamed file keeps the earlier lines.
TEST_F(RegionServerCommandTest, LogsToItsFileAndReopensItOnSighup) {
  TempDir logs;
  const std::string log = logs.path() + "/regionserver.log";
  auto server = StartLogging(log, "debug");
  ASSERT_GT(port_, 0);
  const std::string time = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}\\.[0-9]{3}Z ";
  std::vector<std::string> lines = Lines(log);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0], MatchesRegex(time +
                                     "INFO regionserver: serving 0 "
                                     "regions of 0 tables from .* on "
                                     "127\\.0\\.0\\.1:" +
                                     std::to_string(port_) + " .*"));

  std::filesystem::rename(log, log + ".1");
  server->Signal(SIGHUP);
  // Printed after the log file was reopened.
  EXPECT_EQ(server->ReadLine(), "bloomroute regionserver: SIGHUP: reloaded");
  lines = Lines(log);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_THAT(lines[0],
              MatchesRegex(time + "INFO log: reopened the log file " + log));
  EXPECT_THAT(lines[1], MatchesRegex(time + "INFO regionserver: SIGHUP: "
                                            "reloaded"));
  EXPECT_EQ(Lines(log + ".1").size(), 1u);

  server->Signal(SIGTERM);
  EXPECT_EQ(server->ExitCode(), 0);
  lines = Lines(log);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_THAT(lines[2], MatchesRegex(time + "INFO regionserver: Terminated, "
                                            "stopping"));
  EXPECT_THAT(lines[3], MatchesRegex(time + "INFO regionserver: stopped"));
  EXPECT_THAT(server->ReadStderr(), Not(HasSubstr("regionserver:")));
}

// --log-level error: no INFO line. A reopen that fails (a directory now
// where the file was) is an ERROR line in the file still open, and the
// reload goes on.
TEST_F(RegionServerCommandTest,
       LogLevelErrorHidesInfoAndAFailedReopenIsLogged) {
  TempDir logs;
  const std::string log = logs.path() + "/regionserver.log";
  auto server = StartLogging(log, "error");
  ASSERT_GT(port_, 0);
  EXPECT_TRUE(std::filesystem::exists(log));
  EXPECT_TRUE(Lines(log).empty());

  std::filesystem::rename(log, log + ".1");
  std::filesystem::create_directory(log);
  server->Signal(SIGHUP);
  EXPECT_EQ(server->ReadLine(), "bloomroute regionserver: SIGHUP: reloaded");
  server->Signal(SIGTERM);
  EXPECT_EQ(server->ExitCode(), 0);
  const std::vector<std::string> lines = Lines(log + ".1");
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_THAT(lines[0],
              MatchesRegex("[0-9-]+T[0-9:.]+Z ERROR log: cannot open the log "
                           "file " +
                           log +
                           ": Is a directory; still writing to the file "
                           "opened before"));
  EXPECT_THAT(server->ReadStderr(), Not(HasSubstr("INFO")));
}

// One writer's rows and what it knows about them.
struct Writer {
  std::vector<std::string> rows;
  std::vector<RowState> acked;          // state after the last ack
  std::optional<size_t> in_flight_row;  // a write without an answer
  RowState in_flight_state;             // the row if it was applied
  std::atomic<int> acked_writes{0};     // read by the test thread too
  std::string unexpected;               // an error that is not the kill
};

RowState Apply(const rpc::TMutation& m, RowState state) {
  if (m.type == rpc::TMutationType::DELETE) return {};
  for (const auto& c : m.columnValues) state[c.column] = c.value;
  return state;
}

void RunWriter(int port, unsigned seed, const std::atomic<bool>& stop,
               Writer* w) {
  std::mt19937 rng(seed);
  try {
    RegionClient client(NodeSocket(port));
    while (!stop.load()) {
      const size_t i = rng() % w->rows.size();
      const std::string country = "c" + std::to_string(rng() % 8);
      rpc::TMutation m;
      switch (rng() % 3) {
        case 0:
          m = Put(1, w->rows[i],
                  {{"d:country", country},
                   {"d:name", "n" + std::to_string(w->acked_writes)}});
          break;
        case 1:
          m = Put(1, w->rows[i], {{"d:country", country}});
          break;
        default:
          m = Delete(1, w->rows[i]);
      }
      w->in_flight_row = i;
      w->in_flight_state = Apply(m, w->acked[i]);
      rpc::TWriteResult written;
      client->mutateRows(written, {m}, 0);
      w->acked[i] = w->in_flight_state;
      w->in_flight_row.reset();
      ++w->acked_writes;
    }
  } catch (const apache::thrift::transport::TTransportException&) {
    // The server was killed under this write: it stays in flight.
  } catch (const std::exception& e) {
    w->unexpected = e.what();
  }
}

TEST_F(RegionServerCommandTest, SigkillUnderSyncLosesNoAcknowledgedWrite) {
  constexpr int kWriters = 4;
  constexpr int kRowsPerWriter = 25;
  auto server = StartServer();
  ASSERT_GT(port_, 0);
  {
    RegionClient client(NodeSocket(port_));
    client->openRegion(WirePlacesRegion(1, "", ""), 0, false, 0);
  }
  std::vector<Writer> writers(kWriters);
  for (int t = 0; t < kWriters; ++t) {
    for (int r = 0; r < kRowsPerWriter; ++r) {
      writers[t].rows.push_back("w" + std::to_string(t) + "-r" +
                                std::to_string(r));
    }
    writers[t].acked.assign(kRowsPerWriter, RowState());
  }
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kWriters; ++t) {
    threads.emplace_back(RunWriter, port_, 1000 + t, std::cref(stop),
                         &writers[t]);
  }
  // Kill once enough writes were acknowledged (or after 5 s).
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(5);
  auto acked_total = [&] {
    int n = 0;
    for (const Writer& w : writers) n += w.acked_writes;
    return n;
  };
  while (acked_total() < 400 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  server->Signal(SIGKILL);
  stop = true;
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE(server->Wait().has_value());

  int acked = 0;
  int in_flight = 0;
  for (const Writer& w : writers) {
    EXPECT_EQ(w.unexpected, "");
    acked += w.acked_writes;
    in_flight += w.in_flight_row.has_value();
  }
  std::cout << "killed after " << acked << " acknowledged writes with "
            << in_flight << " in flight\n";
  ASSERT_GE(acked, 50) << "too few writes before the kill to test anything";

  server = StartServer();
  ASSERT_GT(port_, 0);
  RegionClient client(NodeSocket(port_));
  client->openRegion(WirePlacesRegion(1, "", ""), 0, false, 0);
  std::map<std::string, std::set<std::string>> rows_by_country;
  int64_t present = 0;
  for (const Writer& w : writers) {
    std::vector<rpc::TGet> gets;
    for (const std::string& row : w.rows) gets.push_back(Get(1, row));
    std::vector<rpc::TResult> results;
    client->getMultiple(results, gets, 0);
    ASSERT_EQ(results.size(), w.rows.size());
    for (size_t i = 0; i < w.rows.size(); ++i) {
      const RowState seen = Cells(results[i]);
      const bool in_flight = w.in_flight_row == i;
      EXPECT_TRUE(seen == w.acked[i] ||
                  (in_flight && seen == w.in_flight_state))
          << "row " << w.rows[i] << " lost its last acknowledged write";
      if (!seen.empty()) {
        ++present;
        rows_by_country[seen.at("d:country")].insert(w.rows[i]);
      }
    }
  }
  // The index answers exactly what the rows hold.
  for (int c = 0; c < 8; ++c) {
    const std::string country = "c" + std::to_string(c);
    rpc::TIndexQueryResult found;
    client->lookup(found, WhereEquals("d:country", country));
    std::set<std::string> rows;
    for (const rpc::TResult& r : found.rows) rows.insert(r.row);
    EXPECT_EQ(rows, rows_by_country[country]) << country;
  }
  rpc::TIndexReport report;
  client->verifyIndex(report, 0);
  EXPECT_TRUE(report.ok);
  EXPECT_TRUE(report.filterMatchesRebuild);
  EXPECT_EQ(report.valueCountsWrong, 0);
  EXPECT_EQ(report.indexEntriesMissing, 0);
  EXPECT_EQ(report.indexEntriesExtra, 0);
  EXPECT_EQ(report.rows, present);
}

}  // namespace
}  // namespace bloomroute
