#include "coord/znode_store.h"

#include <utility>

namespace bloomroute::coord {
namespace {

constexpr std::string_view kNodeExists = "node exists: ";
constexpr std::string_view kBadVersion = "bad version: ";
constexpr std::string_view kNotEmpty = "not empty: ";
constexpr std::string_view kSessionExpired = "session expired";

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// A Multi's message starts "op <i> (<type> <path>): " before the op's own.
bool MessageHas(const Status& status, std::string_view what) {
  std::string_view message = status.message();
  if (StartsWith(message, "op ")) {
    size_t colon = message.find("): ");
    if (colon != std::string_view::npos) message.remove_prefix(colon + 3);
  }
  return StartsWith(message, what);
}

}  // namespace

const char* SessionStateName(SessionState state) {
  switch (state) {
    case SessionState::kConnected:
      return "connected";
    case SessionState::kDisconnected:
      return "disconnected";
    case SessionState::kExpired:
      return "expired";
  }
  return "unknown";
}

ZnodeOp ZnodeOp::Create(std::string path, std::string data,
                        CreateOptions options) {
  ZnodeOp op;
  op.type = Type::kCreate;
  op.path = std::move(path);
  op.data = std::move(data);
  op.create_options = options;
  return op;
}

ZnodeOp ZnodeOp::Set(std::string path, std::string data, int32_t version) {
  ZnodeOp op;
  op.type = Type::kSet;
  op.path = std::move(path);
  op.data = std::move(data);
  op.version = version;
  return op;
}

ZnodeOp ZnodeOp::Delete(std::string path, int32_t version) {
  ZnodeOp op;
  op.type = Type::kDelete;
  op.path = std::move(path);
  op.version = version;
  return op;
}

ZnodeOp ZnodeOp::Check(std::string path, int32_t version) {
  ZnodeOp op;
  op.type = Type::kCheck;
  op.path = std::move(path);
  op.version = version;
  return op;
}

bool IsNodeExists(const Status& status) {
  return status.IsAborted() && MessageHas(status, kNodeExists);
}

bool IsBadVersion(const Status& status) {
  return status.IsAborted() && MessageHas(status, kBadVersion);
}

bool IsSessionExpired(const Status& status) {
  return status.IsUnavailable() && MessageHas(status, kSessionExpired);
}

Status NodeExistsError(std::string_view path) {
  return Status::Aborted(std::string(kNodeExists) + std::string(path));
}

Status BadVersionError(std::string_view path) {
  return Status::Aborted(std::string(kBadVersion) + std::string(path));
}

Status NotEmptyError(std::string_view path) {
  return Status::Aborted(std::string(kNotEmpty) + std::string(path));
}

Status SessionExpiredError() { return Status::Unavailable(kSessionExpired); }

Status ValidatePath(std::string_view path) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("bad znode path \"" +
                                   std::string(path.substr(0, 200)) +
                                   "\": " + std::string(why));
  };
  if (path.empty() || path[0] != '/') return bad("not absolute");
  if (path.size() > kMaxPathBytes) return bad("longer than 4096 bytes");
  if (path == "/") return Status::OK();
  if (path.back() == '/') return bad("trailing '/'");
  size_t start = 1;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    if (part.empty()) return bad("empty component");
    if (part == "." || part == "..") return bad("'.' or '..' component");
    if (part.find('\0') != std::string_view::npos) return bad("NUL byte");
    start = end + 1;
  }
  return Status::OK();
}

Status ValidateData(size_t bytes) {
  if (bytes <= kMaxNodeBytes) return Status::OK();
  return Status::InvalidArgument(std::to_string(bytes) +
                                 " bytes of data, over the bound of " +
                                 std::to_string(kMaxNodeBytes));
}

std::string ParentPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return "/";
  return std::string(path.substr(0, slash));
}

Status MakePath(ZnodeStore* store, const std::string& path) {
  for (size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
    StatusOr<std::string> made =
        store->Create(path.substr(0, slash), "", CreateOptions());
    if (!made.ok() && !IsNodeExists(made.status())) return made.status();
    if (slash == std::string::npos) return Status::OK();
  }
}

const char* ZnodeOpTypeName(ZnodeOp::Type type) {
  switch (type) {
    case ZnodeOp::Type::kCreate:
      return "create";
    case ZnodeOp::Type::kSet:
      return "set";
    case ZnodeOp::Type::kDelete:
      return "delete";
    case ZnodeOp::Type::kCheck:
      return "check";
  }
  return "unknown";
}

Status ValidateMulti(const std::vector<ZnodeOp>& ops, size_t* failed_op) {
  if (failed_op != nullptr) *failed_op = ops.size();
  if (ops.empty()) return Status::InvalidArgument("empty multi");
  size_t total = 0;
  for (size_t i = 0; i < ops.size(); ++i) {
    Status s = ValidatePath(ops[i].path);
    total += ops[i].data.size() + ops[i].path.size();
    if (s.ok()) s = ValidateData(ops[i].data.size());
    if (!s.ok()) {
      if (failed_op != nullptr) *failed_op = i;
      return s.WithContext("op " + std::to_string(i));
    }
  }
  if (total > kMaxNodeBytes) {
    return Status::InvalidArgument("multi of " + std::to_string(total) +
                                   " bytes, over the bound of " +
                                   std::to_string(kMaxNodeBytes));
  }
  return Status::OK();
}

}  // namespace bloomroute::coord
