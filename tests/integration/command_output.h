// Test helper: runs a short-lived `bloomroute` subcommand (query, get, scan,
// accuracy, ...) to completion and returns its exit code, stdout and stderr.
// Both pipes are drained while the child runs, so a large output cannot
// block it.
//
//   CommandOutput r = RunCommand({"scan", "--router", addr, "--table", "t"});
//   EXPECT_EQ(r.code, 0) << r.err;
#ifndef BLOOMROUTE_TESTS_INTEGRATION_COMMAND_OUTPUT_H_
#define BLOOMROUTE_TESTS_INTEGRATION_COMMAND_OUTPUT_H_

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

#include "tests/integration/secure_mode.h"

namespace bloomroute::testing {

struct CommandOutput {
  int code = -1;  // the exit code; -1 when killed, timed out or not started
  std::string out;
  std::string err;
};

// Runs `binary args...` with `input` on its standard input (then end of
// file); kills it after `timeout_ms`. `input` fits a pipe's buffer (64 KiB).
inline CommandOutput RunProgram(const std::string& binary,
                                const std::vector<std::string>& args,
                                int timeout_ms = 60000,
                                const std::string& input = "") {
  CommandOutput result;
  std::vector<std::string> all = {binary};
  for (const std::string& a : ForBinary(binary, args)) all.push_back(a);
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0) return result;
  if (pipe2(out, O_CLOEXEC) != 0) return result;
  if (pipe2(err, O_CLOEXEC) != 0) return result;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    dup2(err[1], STDERR_FILENO);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  close(in[0]);
  if (!input.empty()) {
    signal(SIGPIPE, SIG_IGN);  // a child that exits early closes its end
    (void)!write(in[1], input.data(), input.size());
  }
  close(in[1]);
  close(out[1]);
  close(err[1]);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  while (open_fds > 0 && std::chrono::steady_clock::now() < deadline) {
    if (poll(fds, 2, 100) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      char buf[4096];
      const ssize_t n = read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        sinks[i]->append(buf, static_cast<size_t>(n));
      } else {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  if (open_fds > 0) kill(pid, SIGKILL);
  for (pollfd& p : fds) {
    if (p.fd >= 0) close(p.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (open_fds == 0 && WIFEXITED(status)) result.code = WEXITSTATUS(status);
  return result;
}

#ifdef BLOOMROUTE_BINARY
// `bloomroute args...`, with `input` on its standard input.
inline CommandOutput RunCommand(const std::vector<std::string>& args,
                                const std::string& input = "") {
  return RunProgram(BLOOMROUTE_BINARY, args, 60000, input);
}
#endif

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_INTEGRATION_COMMAND_OUTPUT_H_
