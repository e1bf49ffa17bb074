#include "tests/coord/zookeeper_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

namespace bloomroute::coord::zktest {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kPackageHint =
    "install the Debian package zookeeper (scripts/install-deps.sh)";

// A port the kernel picks free on 127.0.0.1 (bound, then released).
StatusOr<int> PickFreePort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::IOError("socket: " + std::string(strerror(errno)));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  int rc = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address));
  if (rc == 0) {
    rc = getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  }
  close(fd);
  if (rc != 0) return Status::IOError("bind: " + std::string(strerror(errno)));
  return static_cast<int>(ntohs(address.sin_port));
}

// The first executable `java` on PATH (or under JAVA_HOME).
StatusOr<std::string> FindJava() {
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("JAVA_HOME")) {
    dirs.push_back(std::string(home) + "/bin");
  }
  std::stringstream path(std::getenv("PATH") ? std::getenv("PATH") : "");
  for (std::string dir; std::getline(path, dir, ':');) dirs.push_back(dir);
  for (const std::string& dir : dirs) {
    std::string java = dir + "/java";
    if (!dir.empty() && access(java.c_str(), X_OK) == 0) return java;
  }
  return Status::IOError(std::string("no java on PATH: ") + kPackageHint +
                         " (it depends on a Java runtime)");
}

// The server's class path: Debian's zookeeper.jar names its dependencies in
// its manifest; a tarball layout has every jar in one folder. slf4j-simple,
// when present, makes the server's log lines appear in its log file.
StatusOr<std::string> FindClasspath() {
  std::string classpath;
  const fs::path java_dir = "/usr/share/java";
  if (fs::exists(java_dir / "zookeeper.jar")) {
    classpath = (java_dir / "zookeeper.jar").string();
  } else {
    std::error_code error;
    for (const char* dir :
         {"/usr/share/zookeeper", "/usr/share/zookeeper/lib"}) {
      for (const auto& entry : fs::directory_iterator(dir, error)) {
        if (entry.path().extension() != ".jar") continue;
        classpath += (classpath.empty() ? "" : ":") + entry.path().string();
      }
    }
    if (classpath.find("zookeeper") == std::string::npos) {
      return Status::IOError(std::string("ZooKeeper's jars not found: ") +
                             kPackageHint);
    }
  }
  if (fs::exists(java_dir / "slf4j-simple.jar")) {
    classpath += ":" + (java_dir / "slf4j-simple.jar").string();
  }
  return classpath;
}

// Sends a four-letter word and returns the reply (empty on any failure).
std::string FourLetterWord(int port, const char* word) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  timeval timeout{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  std::string reply;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) ==
          0 &&
      send(fd, word, std::strlen(word), MSG_NOSIGNAL) > 0) {
    char buffer[4096];
    ssize_t n;
    // Bounded: srvr's reply is a few hundred bytes.
    while (reply.size() < 64 * 1024 &&
           (n = recv(fd, buffer, sizeof(buffer), 0)) > 0) {
      reply.append(buffer, static_cast<size_t>(n));
    }
  }
  close(fd);
  return reply;
}

std::string Tail(const std::string& path, size_t lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (last.size() > lines) last.pop_front();
  }
  std::string out;
  for (const std::string& line : last) out += line + "\n";
  return out;
}

}  // namespace

StatusOr<std::unique_ptr<ZooKeeperTestEnsemble>> ZooKeeperTestEnsemble::Start(
    int nodes) {
  ZooKeeperTestOptions options;
  options.nodes = nodes;
  return Start(options);
}

StatusOr<std::unique_ptr<ZooKeeperTestEnsemble>> ZooKeeperTestEnsemble::Start(
    ZooKeeperTestOptions options) {
  if (options.nodes < 1 || options.tick_ms < 1) {
    return Status::InvalidArgument("ZooKeeperTestEnsemble: bad options");
  }
  std::unique_ptr<ZooKeeperTestEnsemble> ensemble(
      new ZooKeeperTestEnsemble(options));
  BLOOMROUTE_RETURN_IF_ERROR(ensemble->Prepare());
  for (int i = 0; i < options.nodes; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(ensemble->Spawn(i));
  }
  BLOOMROUTE_RETURN_IF_ERROR(ensemble->WaitServing(options.start_timeout));
  return ensemble;
}

Status ZooKeeperTestEnsemble::Prepare() {
  BLOOMROUTE_ASSIGN_OR_RETURN(java_, FindJava());
  BLOOMROUTE_ASSIGN_OR_RETURN(classpath_, FindClasspath());
  std::string pattern =
      (fs::temp_directory_path() / "bloomroute-zk-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("mkdtemp: " + std::string(strerror(errno)));
  }
  directory_ = pattern;
  std::set<int> ports;
  nodes_.resize(options_.nodes);
  for (Node& node : nodes_) {
    for (int* port :
         {&node.client_port, &node.peer_port, &node.election_port}) {
      do {
        BLOOMROUTE_ASSIGN_OR_RETURN(*port, PickFreePort());
      } while (!ports.insert(*port).second);
    }
  }
  for (int i = 0; i < options_.nodes; ++i) {
    BLOOMROUTE_RETURN_IF_ERROR(WriteConfig(i));
  }
  return Status::OK();
}

Status ZooKeeperTestEnsemble::WriteConfig(int i) {
  fs::path dir = fs::path(directory_) / ("node" + std::to_string(i + 1));
  std::error_code error;
  fs::create_directories(dir / "data", error);
  if (error) return Status::IOError("mkdir " + dir.string());
  std::ofstream config(dir / "zoo.cfg");
  config << "tickTime=" << options_.tick_ms << "\n"
         << "initLimit=10\nsyncLimit=5\n"
         << "dataDir=" << (dir / "data").string() << "\n"
         << "clientPortAddress=127.0.0.1\n"
         << "clientPort=" << nodes_[i].client_port << "\n"
         << "admin.enableServer=false\n"
         << "4lw.commands.whitelist=srvr,ruok\n"
         << "forceSync=no\n";  // tests need no durability against power loss
  if (nodes_.size() > 1) {
    for (size_t j = 0; j < nodes_.size(); ++j) {
      config << "server." << j + 1 << "=127.0.0.1:" << nodes_[j].peer_port
             << ":" << nodes_[j].election_port << "\n";
    }
    std::ofstream(dir / "data" / "myid") << i + 1 << "\n";
  }
  nodes_[i].config = (dir / "zoo.cfg").string();
  nodes_[i].log = (dir / "zookeeper.log").string();
  if (!config.good()) return Status::IOError("writing " + nodes_[i].config);
  return Status::OK();
}

Status ZooKeeperTestEnsemble::Spawn(int i) {
  Node& node = nodes_[i];
  // Everything the child needs is built before fork (the parent has threads).
  std::vector<std::string> args = {
      java_,
      "-Xmx256m",
      "-XX:+UseSerialGC",
      "-XX:TieredStopAtLevel=1",
      "-Djava.net.preferIPv4Stack=true",
      "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-cp",
      classpath_,
      "org.apache.zookeeper.server.quorum.QuorumPeerMain",
      node.config};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  int log =
      open(node.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return Status::IOError("open " + node.log);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(log);
    return Status::IOError("fork: " + std::string(strerror(errno)));
  }
  if (pid == 0) {
    // A test process that crashes or is killed takes its servers along
    // (the harness is driven from one thread, the one that forks).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(log);
  node.pid = pid;
  node.paused = false;
  return Status::OK();
}

ZooKeeperTestEnsemble::~ZooKeeperTestEnsemble() {
  for (int i = 0; i < size(); ++i) Reap(i, options_.stop_timeout);
  std::error_code error;
  if (!directory_.empty()) fs::remove_all(directory_, error);
}

// SIGTERM (and SIGCONT, for a paused node), then SIGKILL after `bound`.
void ZooKeeperTestEnsemble::Reap(int i, std::chrono::milliseconds bound) {
  Node& node = nodes_[i];
  if (node.pid <= 0) return;
  kill(node.pid, SIGTERM);
  kill(node.pid, SIGCONT);
  Clock::time_point deadline = Clock::now() + bound;
  while (waitpid(node.pid, nullptr, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      kill(node.pid, SIGKILL);
      waitpid(node.pid, nullptr, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  node.pid = -1;
  node.paused = false;
}

Status ZooKeeperTestEnsemble::CheckIndex(int i) const {
  if (i < 0 || i >= size()) {
    return Status::InvalidArgument("no ZooKeeper node " + std::to_string(i));
  }
  return Status::OK();
}

Status ZooKeeperTestEnsemble::KillNode(int i) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckIndex(i));
  Node& node = nodes_[i];
  if (node.pid > 0) {
    kill(node.pid, SIGKILL);
    waitpid(node.pid, nullptr, 0);
  }
  node.pid = -1;
  node.paused = false;
  return Status::OK();
}

Status ZooKeeperTestEnsemble::StopNode(int i) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckIndex(i));
  Reap(i, options_.stop_timeout);
  return Status::OK();
}

Status ZooKeeperTestEnsemble::StartNode(int i) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckIndex(i));
  if (nodes_[i].pid > 0) return Status::OK();
  return Spawn(i);
}

Status ZooKeeperTestEnsemble::PauseNode(int i) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckIndex(i));
  if (nodes_[i].pid <= 0) return Status::InvalidArgument("node not running");
  kill(nodes_[i].pid, SIGSTOP);
  // kill() returns before every thread has stopped (a busy machine may let
  // the server answer one more request): wait until the child is reported
  // stopped.
  int status = 0;
  if (waitpid(nodes_[i].pid, &status, WUNTRACED) != nodes_[i].pid ||
      !WIFSTOPPED(status)) {
    return Status::IOError("ZooKeeper node " + std::to_string(i) +
                           " did not stop");
  }
  nodes_[i].paused = true;
  return Status::OK();
}

Status ZooKeeperTestEnsemble::ResumeNode(int i) {
  BLOOMROUTE_RETURN_IF_ERROR(CheckIndex(i));
  if (nodes_[i].pid <= 0) return Status::InvalidArgument("node not running");
  kill(nodes_[i].pid, SIGCONT);
  // As above: until the child is reported running again.
  int status = 0;
  if (waitpid(nodes_[i].pid, &status, WCONTINUED) != nodes_[i].pid ||
      !WIFCONTINUED(status)) {
    return Status::IOError("ZooKeeper node " + std::to_string(i) +
                           " did not continue");
  }
  nodes_[i].paused = false;
  return Status::OK();
}

Status ZooKeeperTestEnsemble::StopAll() {
  for (int i = 0; i < size(); ++i) Reap(i, options_.stop_timeout);
  return Status::OK();
}

Status ZooKeeperTestEnsemble::StartAll() {
  for (int i = 0; i < size(); ++i) BLOOMROUTE_RETURN_IF_ERROR(StartNode(i));
  return WaitServing(options_.start_timeout);
}

bool ZooKeeperTestEnsemble::Serving(int i) const {
  if (CheckIndex(i).ok() == false || nodes_[i].pid <= 0) return false;
  return FourLetterWord(nodes_[i].client_port, "srvr").find("Mode: ") !=
         std::string::npos;
}

Status ZooKeeperTestEnsemble::WaitServing(std::chrono::milliseconds timeout) {
  Clock::time_point deadline = Clock::now() + timeout;
  while (true) {
    bool all = true;
    for (int i = 0; i < size(); ++i) {
      if (nodes_[i].pid > 0 && !nodes_[i].paused && !Serving(i)) all = false;
    }
    if (all) return Status::OK();
    for (int i = 0; i < size(); ++i) {
      if (nodes_[i].pid > 0 && waitpid(nodes_[i].pid, nullptr, WNOHANG) != 0) {
        nodes_[i].pid = -1;
        return Status::Unavailable("ZooKeeper node " + std::to_string(i) +
                                   " exited:\n" + LogTails());
      }
    }
    if (Clock::now() > deadline) {
      return Status::Unavailable("ZooKeeper did not serve within " +
                                 std::to_string(timeout.count()) + " ms:\n" +
                                 LogTails());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string ZooKeeperTestEnsemble::ConnectString() const {
  std::string hosts;
  for (int i = 0; i < size(); ++i) {
    hosts += (i == 0 ? "" : ",") + NodeAddress(i);
  }
  return hosts;
}

std::string ZooKeeperTestEnsemble::NodeAddress(int i) const {
  return "127.0.0.1:" + std::to_string(nodes_.at(i).client_port);
}

std::string ZooKeeperTestEnsemble::LogTails(size_t lines) const {
  std::string out;
  for (int i = 0; i < size(); ++i) {
    out += "---- ZooKeeper node " + std::to_string(i) + " (" + NodeAddress(i) +
           ") log, last lines:\n" + Tail(nodes_[i].log, lines);
  }
  return out;
}

void ZooKeeperTestEnsemble::DumpLogsIfFailed() const {
  if (::testing::Test::HasFailure()) std::cerr << LogTails();
}

}  // namespace bloomroute::coord::zktest
