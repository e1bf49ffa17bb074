#include "coord/zk/zookeeper_store.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "common/log.h"
#include "coord/internal/store_events.h"

namespace bloomroute::coord {
namespace {

// The first read's buffer; larger data is read again at its stated size.
constexpr int kFirstReadBytes = 16 * 1024;
// Room for the ten-digit sequence suffix (and a sign) in a created path.
constexpr size_t kSuffixBytes = 16;

// Every ZooKeeper return code turned into a Status, in one place.
Status FromZooKeeper(int rc, const std::string& path) {
  switch (rc) {
    case ZOK:
      return Status::OK();
    case ZNONODE:
      return Status::NotFound("no node: " + path);
    case ZNODEEXISTS:
      return NodeExistsError(path);
    case ZBADVERSION:
      return BadVersionError(path);
    case ZNOTEMPTY:
      return NotEmptyError(path);
    case ZNOCHILDRENFOREPHEMERALS:
      return Status::InvalidArgument("no children for ephemeral nodes: " +
                                     path);
    case ZBADARGUMENTS:
      return Status::InvalidArgument("ZooKeeper refused the arguments: " +
                                     path);
    case ZSESSIONEXPIRED:
    case ZINVALIDSTATE:  // the handle is dead: its session expired
      return SessionExpiredError();
    case ZCONNECTIONLOSS:
    case ZOPERATIONTIMEOUT:
    case ZCLOSING:
    case ZSESSIONMOVED:
    case ZTHROTTLEDOP:
    case ZNOTREADONLY:
      return Status::Unavailable(std::string("ZooKeeper: ") + zerror(rc) +
                                 " (" + path + ")");
    case ZNOAUTH:
    case ZAUTHFAILED:
      return Status::PermissionDenied(std::string("ZooKeeper: ") + zerror(rc) +
                                      " (" + path + ")");
    default:
      return Status::IOError(std::string("ZooKeeper: ") + zerror(rc) + " (" +
                             path + ")");
  }
}

int CreateMode(CreateOptions options) {
  if (options.ephemeral) {
    return options.sequential ? ZOO_EPHEMERAL_SEQUENTIAL : ZOO_EPHEMERAL;
  }
  return options.sequential ? ZOO_PERSISTENT_SEQUENTIAL : ZOO_PERSISTENT;
}

// The C client logs with no context; errors only (zoo_set_debug_level),
// through the project's log, one line per call site per 10 s.
void LogZooKeeperMessage(const char* message) {
  static LogRateLimiter* limiter = new LogRateLimiter();
  std::string_view text(message);
  // "...:ERROR@function@line: text": the call site is the key.
  size_t at = text.find('@');
  std::string_view site = at == std::string_view::npos
                              ? text.substr(0, 40)
                              : text.substr(at, text.find(':', at) - at);
  if (auto admitted = limiter->Admit(site, "zookeeper")) {
    std::string line(text);
    if (admitted->suppressed > 0) {
      line += " (" + std::to_string(admitted->suppressed) + " more like it)";
    }
    Log(LogLevel::kError, "zookeeper", line);
  }
}

void QuietZooKeeperLog() {
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
}

void* WatchContext(uint64_t id) { return reinterpret_cast<void*>(id); }

class ZooKeeperStore : public ZnodeStore {
 public:
  explicit ZooKeeperStore(std::string hosts) : hosts_(std::move(hosts)) {}
  // A second store on `connect_string` with this store's session (for
  // ExpireZooKeeperSessionForTest).
  Status OpenSameSession(ZooKeeperStore* other,
                         const std::string& connect_string,
                         std::chrono::milliseconds timeout);
  ~ZooKeeperStore() override;

  // Starts the session and waits for it up to `timeout`.
  Status Open(const std::string& connect_string, int session_timeout_ms,
              std::chrono::milliseconds timeout);

  StatusOr<std::string> Create(const std::string& path, std::string_view data,
                               CreateOptions options) override;
  StatusOr<ZnodeData> Get(const std::string& path, Watcher watcher) override;
  StatusOr<int32_t> Set(const std::string& path, std::string_view data,
                        int32_t expected_version) override;
  Status Delete(const std::string& path, int32_t expected_version) override;
  StatusOr<std::vector<std::string>> Children(const std::string& path,
                                              Watcher watcher) override;
  StatusOr<bool> Exists(const std::string& path, Watcher watcher) override;
  StatusOr<std::vector<std::string>> Multi(const std::vector<ZnodeOp>& ops,
                                           size_t* failed_op) override;

  int64_t SessionId() const override;
  SessionState State() const override;
  std::chrono::milliseconds SessionTimeout() const override;
  uint64_t AddSessionListener(SessionListener listener) override {
    return events_.AddListener(std::move(listener));
  }
  void RemoveSessionListener(uint64_t id) override {
    events_.RemoveListener(id);
  }

  // Connects a second handle with this session's id and password, then
  // closes it: the server closes the session.
  Status ExpireFromAnotherConnection(std::chrono::milliseconds timeout);

  // The C client's callbacks (its completion thread).
  static void OnSessionEvent(zhandle_t* zh, int type, int state,
                             const char* path, void* context);
  static void OnNodeEvent(zhandle_t* zh, int type, int state, const char* path,
                          void* context);

 private:
  void SessionChanged(zhandle_t* zh, int state);
  void NodeChanged(uint64_t id, int type, const char* path);
  // OK when a call may go to the server: Unavailable while disconnected
  // (fails fast rather than queueing), "session expired" once expired.
  Status Usable(const std::string& path) const;
  uint64_t AddWatch(const std::string& path, Watcher watcher);
  void DropWatch(uint64_t id);
  StatusOr<ZnodeData> ReadLarger(const std::string& path, int size);
  Status MultiFailure(int rc, const std::vector<ZnodeOp>& ops,
                      const std::vector<zoo_op_result_t>& results,
                      size_t* failed_op) const;

  Status WaitConnected(std::chrono::milliseconds timeout);

  const std::string hosts_;
  std::string connect_string_;  // hosts and chroot, set by Open
  internal::StoreEvents events_;
  mutable std::mutex mutex_;
  std::condition_variable state_changed_;
  // Guarded by mutex_.
  SessionState state_ = SessionState::kDisconnected;
  bool opened_ = false;  // a session was established once
  int64_t session_id_ = 0;
  uint64_t next_watch_ = 1;
  std::map<uint64_t, std::pair<std::string, Watcher>> watches_;  // path
  // Set once in Open, before any call; the C client is thread-safe.
  zhandle_t* zh_ = nullptr;
};

ZooKeeperStore::~ZooKeeperStore() {
  // Closing the session first (it tells the server, so ephemeral nodes go
  // at once) ends the C client's threads; then no callback can arrive.
  if (zh_ != nullptr) zookeeper_close(zh_);
  events_.Stop();
}

void ZooKeeperStore::OnSessionEvent(zhandle_t* zh, int type, int state,
                                    const char* /*path*/, void* context) {
  if (type != ZOO_SESSION_EVENT) return;
  static_cast<ZooKeeperStore*>(context)->SessionChanged(zh, state);
}

void ZooKeeperStore::OnNodeEvent(zhandle_t* zh, int type, int /*state*/,
                                 const char* path, void* context) {
  // Session events reach every watcher too; the session watcher handles
  // them (an expiry fires every watch there).
  if (type == ZOO_SESSION_EVENT) return;
  auto* store =
      static_cast<ZooKeeperStore*>(const_cast<void*>(zoo_get_context(zh)));
  store->NodeChanged(reinterpret_cast<uint64_t>(context), type, path);
}

void ZooKeeperStore::SessionChanged(zhandle_t* zh, int zk_state) {
  std::map<uint64_t, std::pair<std::string, Watcher>> expired_watches;
  std::lock_guard<std::mutex> lock(mutex_);
  SessionState before = state_;
  bool was_opened = opened_;  // the first connection is no change to tell
  if (state_ == SessionState::kExpired) return;
  if (zk_state == ZOO_CONNECTED_STATE) {
    state_ = SessionState::kConnected;
    if (!opened_) session_id_ = zoo_client_id(zh)->client_id;
    opened_ = true;
  } else if (zk_state == ZOO_EXPIRED_SESSION_STATE ||
             zk_state == ZOO_AUTH_FAILED_STATE) {
    state_ = SessionState::kExpired;
    expired_watches.swap(watches_);
  } else {
    state_ = SessionState::kDisconnected;
  }
  state_changed_.notify_all();
  if (!was_opened || state_ == before) return;
  events_.PostSessionState(state_);
  for (auto& [id, watch] : expired_watches) {
    events_.PostWatch(std::move(watch.second),
                      {WatchEventType::kSessionExpired, watch.first});
  }
}

void ZooKeeperStore::NodeChanged(uint64_t id, int type, const char* path) {
  WatchEvent event{WatchEventType::kDeleted, path == nullptr ? "" : path};
  if (type == ZOO_CREATED_EVENT) {
    event.type = WatchEventType::kCreated;
  } else if (type == ZOO_CHANGED_EVENT) {
    event.type = WatchEventType::kDataChanged;
  } else if (type == ZOO_CHILD_EVENT) {
    event.type = WatchEventType::kChildrenChanged;
  } else if (type != ZOO_DELETED_EVENT) {
    return;  // ZOO_NOTWATCHING_EVENT: the watch was removed; keep it
  }
  Watcher watcher;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = watches_.find(id);
    if (it == watches_.end()) return;
    watcher = std::move(it->second.second);
    watches_.erase(it);
  }
  events_.PostWatch(std::move(watcher), std::move(event));
}

Status ZooKeeperStore::Open(const std::string& connect_string,
                            int session_timeout_ms,
                            std::chrono::milliseconds timeout) {
  QuietZooKeeperLog();
  zh_ = zookeeper_init2(connect_string.c_str(), &OnSessionEvent,
                        session_timeout_ms, nullptr, this, ZOO_NO_LOG_CLIENTENV,
                        &LogZooKeeperMessage);
  if (zh_ == nullptr) {
    return Status::InvalidArgument("cannot start a ZooKeeper client for " +
                                   hosts_ + ": " + std::strerror(errno));
  }
  connect_string_ = connect_string;
  return WaitConnected(timeout);
}

Status ZooKeeperStore::OpenSameSession(ZooKeeperStore* other,
                                       const std::string& connect_string,
                                       std::chrono::milliseconds timeout) {
  clientid_t session = *zoo_client_id(other->zh_);
  zh_ = zookeeper_init2(connect_string.c_str(), &OnSessionEvent,
                        zoo_recv_timeout(other->zh_), &session, this,
                        ZOO_NO_LOG_CLIENTENV, &LogZooKeeperMessage);
  if (zh_ == nullptr) {
    return Status::InvalidArgument("cannot start a ZooKeeper client for " +
                                   hosts_ + ": " + std::strerror(errno));
  }
  return WaitConnected(timeout);
}

Status ZooKeeperStore::WaitConnected(std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  bool done = state_changed_.wait_for(
      lock, timeout, [&] { return state_ != SessionState::kDisconnected; });
  if (done && state_ == SessionState::kConnected) return Status::OK();
  if (state_ == SessionState::kExpired) return SessionExpiredError();
  return Status::Unavailable("cannot connect to ZooKeeper at " + hosts_ +
                             " within " + std::to_string(timeout.count()) +
                             " ms");
}

Status ZooKeeperStore::Usable(const std::string& path) const {
  BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(path));
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == SessionState::kExpired) return SessionExpiredError();
  if (state_ == SessionState::kDisconnected) {
    return Status::Unavailable("ZooKeeper at " + hosts_ + " disconnected (" +
                               path + ")");
  }
  return Status::OK();
}

uint64_t ZooKeeperStore::AddWatch(const std::string& path, Watcher watcher) {
  if (!watcher) return 0;
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t id = next_watch_++;
  watches_[id] = {path, std::move(watcher)};
  return id;
}

void ZooKeeperStore::DropWatch(uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  watches_.erase(id);
}

StatusOr<std::string> ZooKeeperStore::Create(const std::string& path,
                                             std::string_view data,
                                             CreateOptions options) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(data.size()));
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  std::string made(path.size() + kSuffixBytes, '\0');
  int rc =
      zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                 &ZOO_OPEN_ACL_UNSAFE, CreateMode(options), made.data(),
                 static_cast<int>(made.size()));
  if (rc != ZOK) return FromZooKeeper(rc, path);
  made.resize(std::strlen(made.c_str()));
  return made;
}

StatusOr<ZnodeData> ZooKeeperStore::Get(const std::string& path,
                                        Watcher watcher) {
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  uint64_t id = AddWatch(path, std::move(watcher));
  std::string buffer(kFirstReadBytes, '\0');
  int length = kFirstReadBytes;
  struct Stat stat;
  int rc = id != 0
               ? zoo_wget(zh_, path.c_str(), &OnNodeEvent, WatchContext(id),
                          buffer.data(), &length, &stat)
               : zoo_get(zh_, path.c_str(), 0, buffer.data(), &length, &stat);
  if (rc != ZOK) {
    DropWatch(id);
    return FromZooKeeper(rc, path);
  }
  if (stat.dataLength > kFirstReadBytes) {
    return ReadLarger(path, stat.dataLength);
  }
  buffer.resize(length < 0 ? 0 : length);  // -1: the node holds null
  return ZnodeData{std::move(buffer), stat.version, stat.ephemeralOwner};
}

// The data did not fit the first buffer: read it again at its size (it may
// have changed meanwhile; a few tries), bounded by what ZooKeeper sends.
StatusOr<ZnodeData> ZooKeeperStore::ReadLarger(const std::string& path,
                                               int size) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (size < 0 || static_cast<size_t>(size) > kJuteMaxBuffer) {
      return Status::Corruption("ZooKeeper node " + path + " claims " +
                                std::to_string(size) + " bytes");
    }
    std::string buffer(size, '\0');
    int length = size;
    struct Stat stat;
    int rc = zoo_get(zh_, path.c_str(), 0, buffer.data(), &length, &stat);
    if (rc != ZOK) return FromZooKeeper(rc, path);
    if (stat.dataLength <= size) {
      buffer.resize(length < 0 ? 0 : length);
      return ZnodeData{std::move(buffer), stat.version, stat.ephemeralOwner};
    }
    size = stat.dataLength;
  }
  return Status::Unavailable("ZooKeeper node " + path +
                             " kept growing while read");
}

StatusOr<int32_t> ZooKeeperStore::Set(const std::string& path,
                                      std::string_view data,
                                      int32_t expected_version) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(data.size()));
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  struct Stat stat;
  int rc = zoo_set2(zh_, path.c_str(), data.data(),
                    static_cast<int>(data.size()), expected_version, &stat);
  if (rc != ZOK) return FromZooKeeper(rc, path);
  return stat.version;
}

Status ZooKeeperStore::Delete(const std::string& path,
                              int32_t expected_version) {
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  return FromZooKeeper(zoo_delete(zh_, path.c_str(), expected_version), path);
}

StatusOr<std::vector<std::string>> ZooKeeperStore::Children(
    const std::string& path, Watcher watcher) {
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  uint64_t id = AddWatch(path, std::move(watcher));
  struct String_vector names;
  std::memset(&names, 0, sizeof(names));
  int rc = id != 0 ? zoo_wget_children(zh_, path.c_str(), &OnNodeEvent,
                                       WatchContext(id), &names)
                   : zoo_get_children(zh_, path.c_str(), 0, &names);
  if (rc != ZOK) {
    DropWatch(id);
    return FromZooKeeper(rc, path);
  }
  std::vector<std::string> result;
  size_t bytes = 0;
  for (int32_t i = 0; i < names.count; ++i) bytes += std::strlen(names.data[i]);
  if (names.count < 0 || static_cast<size_t>(names.count) > kMaxChildren ||
      bytes > kMaxChildrenBytes) {
    deallocate_String_vector(&names);
    return Status::Corruption("children of " + path + " over the bound: " +
                              std::to_string(names.count) + " names, " +
                              std::to_string(bytes) + " bytes");
  }
  result.reserve(names.count);
  for (int32_t i = 0; i < names.count; ++i) result.emplace_back(names.data[i]);
  deallocate_String_vector(&names);
  std::sort(result.begin(), result.end());
  return result;
}

StatusOr<bool> ZooKeeperStore::Exists(const std::string& path,
                                      Watcher watcher) {
  BLOOMROUTE_RETURN_IF_ERROR(Usable(path));
  uint64_t id = AddWatch(path, std::move(watcher));
  struct Stat stat;
  int rc = id != 0 ? zoo_wexists(zh_, path.c_str(), &OnNodeEvent,
                                 WatchContext(id), &stat)
                   : zoo_exists(zh_, path.c_str(), 0, &stat);
  if (rc == ZOK) return true;
  if (rc == ZNONODE) return false;  // the watch waits for a creation
  DropWatch(id);
  return FromZooKeeper(rc, path);
}

StatusOr<std::vector<std::string>> ZooKeeperStore::Multi(
    const std::vector<ZnodeOp>& ops, size_t* failed_op) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateMulti(ops, failed_op));
  BLOOMROUTE_RETURN_IF_ERROR(Usable(ops.front().path));
  std::vector<zoo_op_t> zops(ops.size());
  std::vector<zoo_op_result_t> results(ops.size());
  std::vector<std::string> made(ops.size());
  std::vector<struct Stat> stats(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const ZnodeOp& op = ops[i];
    const char* path = op.path.c_str();
    int length = static_cast<int>(op.data.size());
    switch (op.type) {
      case ZnodeOp::Type::kCreate:
        made[i].assign(op.path.size() + kSuffixBytes, '\0');
        zoo_create_op_init(&zops[i], path, op.data.data(), length,
                           &ZOO_OPEN_ACL_UNSAFE, CreateMode(op.create_options),
                           made[i].data(), static_cast<int>(made[i].size()));
        break;
      case ZnodeOp::Type::kSet:
        zoo_set_op_init(&zops[i], path, op.data.data(), length, op.version,
                        &stats[i]);
        break;
      case ZnodeOp::Type::kDelete:
        zoo_delete_op_init(&zops[i], path, op.version);
        break;
      case ZnodeOp::Type::kCheck:
        zoo_check_op_init(&zops[i], path, op.version);
        break;
    }
  }
  int rc =
      zoo_multi(zh_, static_cast<int>(ops.size()), zops.data(), results.data());
  if (rc != ZOK) return MultiFailure(rc, ops, results, failed_op);
  for (std::string& path : made) path.resize(std::strlen(path.c_str()));
  return made;
}

// ZooKeeper reports the failing op's code for the whole multi and in that
// op's result (the ones before it read ZOK, the ones after
// ZRUNTIMEINCONSISTENCY); a connection loss fills no result.
Status ZooKeeperStore::MultiFailure(int rc, const std::vector<ZnodeOp>& ops,
                                    const std::vector<zoo_op_result_t>& results,
                                    size_t* failed_op) const {
  size_t index = ops.size();
  bool per_op = rc == ZNONODE || rc == ZNODEEXISTS || rc == ZBADVERSION ||
                rc == ZNOTEMPTY || rc == ZNOCHILDRENFOREPHEMERALS ||
                rc == ZBADARGUMENTS || rc == ZNOAUTH;
  for (size_t i = 0; per_op && i < results.size(); ++i) {
    if (results[i].err == rc) {
      index = i;
      break;
    }
  }
  if (failed_op != nullptr) *failed_op = index;
  if (index == ops.size()) return FromZooKeeper(rc, ops.front().path);
  const ZnodeOp& op = ops[index];
  return FromZooKeeper(rc, op.path)
      .WithContext("op " + std::to_string(index) + " (" +
                   ZnodeOpTypeName(op.type) + " " + op.path + ")");
}

int64_t ZooKeeperStore::SessionId() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return session_id_;
}

SessionState ZooKeeperStore::State() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

std::chrono::milliseconds ZooKeeperStore::SessionTimeout() const {
  return std::chrono::milliseconds(zoo_recv_timeout(zh_));
}

StatusOr<std::unique_ptr<ZooKeeperStore>> OpenStore(
    const ZooKeeperOptions& options, const std::string& chroot) {
  auto store = std::make_unique<ZooKeeperStore>(options.hosts);
  BLOOMROUTE_RETURN_IF_ERROR(store->Open(
      options.hosts + chroot, static_cast<int>(options.session_timeout.count()),
      options.connect_timeout));
  return store;
}

// The chroot's nodes, made from the root with a short-lived session: the
// C client cannot create its own chroot.
Status MakeChroot(const ZooKeeperOptions& options) {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ZooKeeperStore> root,
                              OpenStore(options, ""));
  const std::string& chroot = options.chroot;
  for (size_t slash = chroot.find('/', 1);;
       slash = chroot.find('/', slash + 1)) {
    std::string prefix = chroot.substr(0, slash);
    StatusOr<std::string> made = root->Create(prefix, "", CreateOptions());
    if (!made.ok() && !IsNodeExists(made.status())) {
      return made.status().WithContext("making the chroot " + chroot);
    }
    if (slash == std::string::npos) return Status::OK();
  }
}

}  // namespace

StatusOr<std::unique_ptr<ZnodeStore>> ConnectZooKeeper(
    const ZooKeeperOptions& options) {
  if (options.hosts.empty()) {
    return Status::InvalidArgument("no ZooKeeper hosts given");
  }
  if (options.session_timeout.count() < 1 ||
      options.connect_timeout.count() < 1) {
    return Status::InvalidArgument("ZooKeeper timeouts must be >= 1 ms");
  }
  if (!options.chroot.empty() && options.chroot != "/") {
    BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(options.chroot));
    BLOOMROUTE_RETURN_IF_ERROR(MakeChroot(options));
  }
  std::string chroot = options.chroot == "/" ? "" : options.chroot;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ZooKeeperStore> store,
                              OpenStore(options, chroot));
  return std::unique_ptr<ZnodeStore>(std::move(store));
}

// This store may win its session back before the twin's close arrives (the
// close then fails as "session moved"): try again until a twin finds the
// session gone. The server may leave this store's connection open after
// that; a request makes it answer "expired".
Status ZooKeeperStore::ExpireFromAnotherConnection(
    std::chrono::milliseconds timeout) {
  bool closed = false;
  for (int attempt = 0; attempt < 20 && !closed; ++attempt) {
    ZooKeeperStore twin(hosts_);
    Status opened = twin.OpenSameSession(this, connect_string_, timeout);
    if (!opened.ok() && !IsSessionExpired(opened)) return opened;
    closed = !opened.ok();
  }  // each twin's destructor closes the session
  if (!closed) return Status::Unavailable("the session outlived 20 closes");
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (State() != SessionState::kExpired) {
    if (std::chrono::steady_clock::now() > deadline) {
      return Status::Unavailable("the store did not see its session end");
    }
    struct Stat stat;
    (void)zoo_exists(zh_, "/", 0, &stat);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return Status::OK();
}

Status ExpireZooKeeperSessionForTest(ZnodeStore* store,
                                     std::chrono::milliseconds timeout) {
  auto* zk = dynamic_cast<ZooKeeperStore*>(store);
  if (zk == nullptr) {
    return Status::InvalidArgument("not a store made by ConnectZooKeeper");
  }
  return zk->ExpireFromAnotherConnection(timeout);
}

}  // namespace bloomroute::coord
