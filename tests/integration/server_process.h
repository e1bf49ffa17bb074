// Test helpers: the real `bloomroute` binary as a child process.
//
// ServerProcess runs the binary with stdout (and, when asked, stderr) on a
// pipe. ReadPort() reads the start-up line every server subcommand prints
// ("... on 127.0.0.1:PORT ...") and returns the port, so tests pass
// --listen 127.0.0.1:0 (or --port 0) and let the kernel pick a free one. The
// destructor SIGKILLs and reaps a child that still runs, so a failing test
// never leaks one.
//
// StartRegionServer / StartRouter / StartLocal start the three server
// subcommands that way and return the process with its port (0 when no
// start-up line came: read the process's stderr for why).
//
// Example:
//   TempDir dir;
//   StartedServer rs = StartRegionServer(dir.path() + "/rs0");
//   StartedServer router = StartRouter(dir.path() + "/router", {rs.address()});
//   ASSERT_GT(router.port, 0) << router.line;
//   RouterClient client(router.port);             // router_client.h
//   ...
//   router.process->Signal(SIGTERM);
//   EXPECT_EQ(router.process->ExitCode(), 0);
#ifndef BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/integration/secure_mode.h"

namespace bloomroute::testing {

class ServerProcess {
 public:
  // Runs `binary args...` with stdout on a pipe; stderr too when
  // `capture_stderr`, else it is inherited (and shows in the test's log).
  // The bloomroute binary gets the secure run's flags (secure_mode.h).
  ServerProcess(const std::string& binary, const std::vector<std::string>& args,
                bool capture_stderr = false) {
    std::vector<std::string> all = {binary};
    for (const std::string& a : ForBinary(binary, args)) all.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    int err[2] = {-1, -1};
    if (pipe2(out, O_CLOEXEC) != 0) return;
    if (capture_stderr && pipe2(err, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], STDOUT_FILENO);
      if (capture_stderr) dup2(err[1], STDERR_FILENO);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(out[1]);
    out_ = out[0];
    if (capture_stderr) {
      close(err[1]);
      err_ = err[0];
    }
  }
  ~ServerProcess() {
    if (running()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
    if (err_ >= 0) close(err_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool running() const { return pid_ > 0 && !exit_status_; }
  pid_t pid() const { return pid_; }

  // The next line of stdout, or nullopt on EOF or after `timeout_ms`.
  std::optional<std::string> ReadLine(int timeout_ms = 20000) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(timeout_ms);
    std::string line;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char c;
      if (read(out_, &c, 1) != 1) return std::nullopt;
      if (c == '\n') return line;
      line += c;
    }
    return std::nullopt;
  }

  // Reads the start-up line and returns the port it names after
  // " on 127.0.0.1:", or 0.
  int ReadPort(std::string* line_out = nullptr) {
    std::optional<std::string> line = ReadLine();
    if (!line) return 0;
    if (line_out) *line_out = *line;
    const std::string marker = " on 127.0.0.1:";
    const size_t at = line->find(marker);
    if (at == std::string::npos) return 0;
    return std::atoi(line->c_str() + at + marker.size());
  }

  // Everything the child wrote to stderr until it closed it (it exited);
  // empty unless stderr is captured. Call after Wait().
  std::string ReadStderr() {
    std::string text;
    char buf[4096];
    ssize_t n;
    while (err_ >= 0 && (n = read(err_, buf, sizeof(buf))) > 0) {
      text.append(buf, static_cast<size_t>(n));
    }
    return text;
  }

  void Signal(int signal_number) {
    if (running()) kill(pid_, signal_number);
  }

  // Waits up to `timeout_ms` for the child to exit; returns its wait status,
  // or nullopt if it still runs.
  std::optional<int> Wait(int timeout_ms = 20000) {
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(timeout_ms);
    while (!exit_status_ && std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_status_ = status;
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    return exit_status_;
  }

  // Waits (as Wait) and returns the exit code; -1 when the child still runs
  // or was killed by a signal.
  int ExitCode(int timeout_ms = 20000) {
    std::optional<int> status = Wait(timeout_ms);
    if (!status || !WIFEXITED(*status)) return -1;
    return WEXITSTATUS(*status);
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  int err_ = -1;
  std::optional<int> exit_status_;
};

#ifdef BLOOMROUTE_BINARY

// A server subcommand started by one of the functions below.
struct StartedServer {
  std::unique_ptr<ServerProcess> process;
  int port = 0;      // from the start-up line; 0 when none came
  std::string line;  // the start-up line

  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

// Runs `bloomroute <args>` and reads its start-up line.
inline StartedServer StartServer(const std::vector<std::string>& args) {
  StartedServer s;
  s.process = std::make_unique<ServerProcess>(BLOOMROUTE_BINARY, args);
  s.port = s.process->ReadPort(&s.line);
  return s;
}

// Appends --http-listen 127.0.0.1:0 unless `extra` has its own: a server
// restarted on its old port would otherwise take that port + 5 for HTTP,
// which another test's process may hold.
inline void AddHttpListen(const std::vector<std::string>& extra,
                          std::vector<std::string>* args) {
  for (const std::string& flag : extra) {
    if (flag.rfind("--http-listen", 0) == 0) return;
  }
  args->push_back("--http-listen");
  args->push_back("127.0.0.1:0");
}

// `bloomroute regionserver --data DIR --listen 127.0.0.1:PORT extra...`;
// port 0 picks a free port (pass the old port to restart a server where the
// router expects it).
inline StartedServer StartRegionServer(const std::string& data_dir,
                                       int port = 0,
                                       std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"regionserver", "--data", data_dir,
                                   "--listen",
                                   "127.0.0.1:" + std::to_string(port)};
  AddHttpListen(extra, &args);
  args.insert(args.end(), extra.begin(), extra.end());
  return StartServer(args);
}

// `bloomroute router --data DIR --listen 127.0.0.1:PORT --regionserver A ...
// extra...`.
inline StartedServer StartRouter(const std::string& data_dir,
                                 const std::vector<std::string>& region_servers,
                                 int port = 0,
                                 std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"router", "--data", data_dir, "--listen",
                                   "127.0.0.1:" + std::to_string(port)};
  for (const std::string& a : region_servers) {
    args.push_back("--regionserver");
    args.push_back(a);
  }
  AddHttpListen(extra, &args);
  args.insert(args.end(), extra.begin(), extra.end());
  return StartServer(args);
}

// `bloomroute local --data DIR --servers N --port PORT extra...`.
inline StartedServer StartLocal(const std::string& data_dir, int servers,
                                int port = 0,
                                std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"local",
                                   "--data",
                                   data_dir,
                                   "--servers",
                                   std::to_string(servers),
                                   "--port",
                                   std::to_string(port)};
  args.insert(args.end(), extra.begin(), extra.end());
  // A test that asks for --secure itself gets local's own certificates.
  if (std::find(extra.begin(), extra.end(), "--secure") == extra.end()) {
    for (std::string& flag : LocalSecurityFlags(data_dir)) {
      args.push_back(std::move(flag));
    }
  }
  return StartServer(args);
}

// The exit code of `bloomroute <args>` (-1 when it did not exit in time) and
// what it wrote to stderr.
inline std::pair<int, std::string> RunToExit(
    const std::vector<std::string>& args) {
  ServerProcess process(BLOOMROUTE_BINARY, args, /*capture_stderr=*/true);
  const int code = process.ExitCode();
  return {code, process.ReadStderr()};
}

#endif  // BLOOMROUTE_BINARY

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_
