// Test helper: the real `bloomroute regionserver` as a child process.
//
// Start() runs the binary with --listen 127.0.0.1:0 (the kernel picks a free
// port) and reads the port from the start-up line. The destructor SIGKILLs
// and reaps a child that still runs, so a failing test never leaks one.
#ifndef BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_
#define BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace bloomroute::testing {

class ServerProcess {
 public:
  // Runs `binary args...` with stdout on a pipe (stderr is inherited).
  ServerProcess(const std::string& binary,
                const std::vector<std::string>& args) {
    std::vector<std::string> all = {binary};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      execv(binary.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fds[0];
  }
  ~ServerProcess() {
    if (running()) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  bool running() const { return pid_ > 0 && !exit_status_; }

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

  // Reads the start-up line and returns the port it names, or 0.
  int ReadPort(std::string* line_out = nullptr) {
    std::optional<std::string> line = ReadLine();
    if (!line) return 0;
    if (line_out) *line_out = *line;
    const std::string marker = " on 127.0.0.1:";
    const size_t at = line->find(marker);
    if (at == std::string::npos) return 0;
    return std::atoi(line->c_str() + at + marker.size());
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

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::optional<int> exit_status_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_SERVER_PROCESS_H_
