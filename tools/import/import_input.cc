#include "tools/import/import_input.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "tools/import/interrupt.h"

namespace bloomroute {
namespace {

std::string Describe(const std::string& path) {
  return path == ImportInput::kStandardInput ? "standard input" : path;
}

std::string Errno() { return std::strerror(errno); }

// Closes a descriptor on every path out of a function.
class Fd {
 public:
  explicit Fd(int fd, bool owned = true) : fd_(fd), owned_(owned) {}
  ~Fd() {
    if (owned_ && fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  const int fd_;
  const bool owned_;
};

// Writes all of buf[0, n) to `fd`, retrying short writes.
bool WriteAll(int fd, const char* buf, size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, buf, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    buf += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

StatusOr<std::unique_ptr<ImportInput>> ImportInput::Open(
    const std::string& path, int passes, uint64_t max_spool_bytes) {
  if (passes < 1 || passes > 2) {
    return Status::InvalidArgument("an input is read once or twice");
  }
  std::unique_ptr<ImportInput> input(new ImportInput());
  input->path_ = path;
  input->readers_left_ = passes;
  struct stat st;
  const bool is_stdin = path == kStandardInput;
  const int rc = is_stdin ? fstat(STDIN_FILENO, &st) : stat(path.c_str(), &st);
  if (rc != 0) {
    return Status::IOError("cannot open " + Describe(path) + ": " + Errno());
  }
  if (S_ISREG(st.st_mode) && !is_stdin) {
    input->size_ = static_cast<uint64_t>(st.st_size);
    return input;
  }
  // Standard input, even when redirected from a file, is read through its
  // one descriptor: its position moves, so a second pass needs a copy.
  if (passes > 1) BLOOMROUTE_RETURN_IF_ERROR(input->Spool(max_spool_bytes));
  return input;
}

ImportInput::~ImportInput() {
  if (spool_path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove(spool_path_, ignored);
}

Status ImportInput::Spool(uint64_t max_spool_bytes) {
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return Status::IOError("no temporary directory: " + ec.message());
  std::string spool = (tmp / "bloomroute-import-XXXXXX").string();
  Fd out(mkstemp(spool.data()));
  if (out.get() < 0) {
    return Status::IOError("cannot create a temporary file to copy " +
                           Describe(path_) + " into: " + Errno());
  }
  spool_path_ = spool;  // from here the destructor removes it
  const bool is_stdin = path_ == kStandardInput;
  Fd in(is_stdin ? STDIN_FILENO : open(path_.c_str(), O_RDONLY | O_CLOEXEC),
        /*owned=*/!is_stdin);
  if (in.get() < 0) {
    return Status::IOError("cannot open " + Describe(path_) + ": " + Errno());
  }
  std::vector<char> buf(1 << 16);
  uint64_t copied = 0;
  while (true) {
    if (ImportInterrupted()) return InterruptedStatus();
    const ssize_t n = read(in.get(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Status::IOError("reading " + Describe(path_) + ": " + Errno());
    }
    if (n == 0) break;
    copied += static_cast<uint64_t>(n);
    if (copied > max_spool_bytes) {
      return Status::InvalidArgument(
          Describe(path_) + " is over --max-spool-bytes (" +
          std::to_string(max_spool_bytes) +
          " bytes), the most copied to a temporary file to sample the new "
          "table's split keys; raise it, import from a file, or create the "
          "table first (or give --regions 1)");
    }
    if (!WriteAll(out.get(), buf.data(), static_cast<size_t>(n))) {
      return Status::IOError("copying " + Describe(path_) +
                             " to a temporary file: " + Errno());
    }
  }
  size_ = copied;
  return Status::OK();
}

StatusOr<std::unique_ptr<RecordReader>> ImportInput::OpenReader(
    const RecordReaderOptions& options) {
  if (readers_left_-- <= 0) {
    return Status::IOError(Describe(path_) + " can be read only once");
  }
  if (!spool_path_.empty()) return RecordReader::OpenFile(spool_path_, options);
  if (path_ == kStandardInput) {
    return std::make_unique<RecordReader>(&std::cin, options);
  }
  return RecordReader::OpenFile(path_, options);
}

}  // namespace bloomroute
