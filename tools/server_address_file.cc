#include "tools/server_address_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <xxhash.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "thrift/server/thrift_server.h"

namespace bloomroute {
namespace {

constexpr char kHeader[] = "bloomroute region server addresses v1";
constexpr char kChecksumPrefix[] = "checksum ";

std::string ChecksumLine(const std::string& body) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016" PRIx64,
                static_cast<uint64_t>(XXH3_64bits(body.data(), body.size())));
  return std::string(kChecksumPrefix) + hex + "\n";
}

Status CheckAddress(const std::string& address) {
  std::string host;
  int port = 0;
  return ParseListenAddress(address, &host, &port);
}

Status Errno(const std::string& what, const std::string& path) {
  return Status::IOError(what + " " + path + ": " + std::strerror(errno));
}

// Writes all of `bytes` to a new file at `path` and syncs it.
Status WriteSynced(const std::string& path, const std::string& bytes) {
  const int fd =
      open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const Status s = Errno("cannot write", path);
      close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  const bool synced = fsync(fd) == 0;
  const Status s = synced ? Status::OK() : Errno("cannot sync", path);
  if (close(fd) != 0 && s.ok()) return Errno("cannot close", path);
  return s;
}

Status SyncDirectoryOf(const std::string& path) {
  const size_t slash = path.rfind('/');
  const std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash);
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open directory", dir);
  const bool synced = fsync(fd) == 0;
  close(fd);
  return synced ? Status::OK() : Errno("cannot sync directory", dir);
}

}  // namespace

StatusOr<std::vector<std::string>> ReadServerAddresses(
    const std::string& path) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    if (error)
      return Status::IOError("cannot read " + path + ": " + error.message());
    return Status::NotFound(path + " does not exist");
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  if (!in) return Status::IOError("cannot read " + path);
  const std::string text = buffer.str();
  const auto bad = [&](const std::string& why) {
    return Status::Corruption(path + ": " + why);
  };
  const size_t last = text.rfind(kChecksumPrefix);
  if (last == std::string::npos || (last > 0 && text[last - 1] != '\n')) {
    return bad("no checksum line");
  }
  const std::string body = text.substr(0, last);
  if (text.substr(last) != ChecksumLine(body)) return bad("checksum mismatch");
  std::istringstream lines(body);
  std::string line;
  if (!std::getline(lines, line) || line != kHeader) {
    return bad("not a region server address file of version 1");
  }
  std::vector<std::string> addresses;
  while (std::getline(lines, line)) {
    if (!CheckAddress(line).ok()) return bad("'" + line + "' is not HOST:PORT");
    addresses.push_back(line);
  }
  return addresses;
}

Status WriteServerAddresses(const std::string& path,
                            const std::vector<std::string>& addresses) {
  std::string body = std::string(kHeader) + "\n";
  for (const std::string& a : addresses) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckAddress(a));
    body += a + "\n";
  }
  const std::string temp = path + ".tmp";
  BLOOMROUTE_RETURN_IF_ERROR(WriteSynced(temp, body + ChecksumLine(body)));
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    return Errno("cannot rename " + temp + " to", path);
  }
  return SyncDirectoryOf(path);
}

}  // namespace bloomroute
