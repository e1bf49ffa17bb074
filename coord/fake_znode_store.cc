#include "coord/fake_znode_store.h"

#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "coord/internal/store_events.h"

namespace bloomroute::coord {
namespace internal {

struct FakeNode {
  std::string data;
  int32_t version = 0;
  int32_t cversion = 0;  // children created: the next sequence number
  int64_t ephemeral_owner = 0;
};

enum WatchKind { kDataWatch = 0, kExistWatch = 1, kChildWatch = 2 };

struct FakeWatch {
  int64_t session = 0;
  std::string store_path;  // as the store named it (under its chroot)
  Watcher watcher;
};

// A change's effect on watches, resolved only once the change stands.
struct Trigger {
  WatchKind kind;
  std::string path;
  WatchEventType type;
};

struct FakeSession {
  StoreEvents* events = nullptr;  // owned by the session's store
  std::chrono::milliseconds timeout{0};
  bool expired = false;
  bool cut = false;                                    // DisconnectSession
  std::vector<std::pair<Watcher, WatchEvent>> missed;  // while disconnected
};

// Every node's previous state, to undo a failed Multi.
using UndoLog = std::vector<std::pair<std::string, std::optional<FakeNode>>>;

class FakeTree {
 public:
  FakeTree() {
    nodes_["/"] = FakeNode();
    nodes_["/zookeeper"] = FakeNode();
  }

  std::mutex mutex_;
  // Everything below is guarded by mutex_.
  std::map<std::string, FakeNode> nodes_;  // by absolute path
  std::map<int64_t, FakeSession> sessions_;
  std::multimap<std::string, FakeWatch> watches_[3];  // by WatchKind
  int64_t next_session_ = 0x1000000000001;
  bool stopped_ = false;
  uint64_t posts_ = 0;  // for DrainEvents: tasks posted so far

  Status Access(int64_t session) const;
  bool Connected(const FakeSession& s) const { return !stopped_ && !s.cut; }

  StatusOr<std::string> Create(const std::string& path, std::string_view data,
                               CreateOptions options, int64_t session,
                               UndoLog* undo, std::vector<Trigger>* fired);
  StatusOr<int32_t> Set(const std::string& path, std::string_view data,
                        int32_t version, UndoLog* undo,
                        std::vector<Trigger>* fired);
  Status Delete(const std::string& path, int32_t version, UndoLog* undo,
                std::vector<Trigger>* fired);
  Status Check(const std::string& path, int32_t version) const;
  StatusOr<std::string> Apply(const ZnodeOp& op, const std::string& path,
                              int64_t session, UndoLog* undo,
                              std::vector<Trigger>* fired);
  void Undo(UndoLog* undo);
  bool HasChildren(const std::string& path) const;
  std::vector<std::string> ChildNames(const std::string& path) const;

  void Fire(const std::vector<Trigger>& fired);
  void Deliver(int64_t session, Watcher watcher, WatchEvent event);
  void PostState(FakeSession& session, SessionState state);
  void AddWatch(WatchKind kind, const std::string& path, int64_t session,
                const std::string& store_path, Watcher watcher);
  void EndWatches(FakeSession& s, int64_t session, bool expired);
  void EndSession(int64_t session, bool expired);
};

Status FakeTree::Access(int64_t session) const {
  auto it = sessions_.find(session);
  if (it == sessions_.end() || it->second.expired) {
    return SessionExpiredError();
  }
  if (stopped_) return Status::Unavailable("ZooKeeper unavailable: stopped");
  if (it->second.cut) return Status::Unavailable("ZooKeeper disconnected");
  return Status::OK();
}

StatusOr<std::string> FakeTree::Create(const std::string& path,
                                       std::string_view data,
                                       CreateOptions options, int64_t session,
                                       UndoLog* undo,
                                       std::vector<Trigger>* fired) {
  if (path == "/") return NodeExistsError(path);
  std::string parent = ParentPath(path);
  auto p = nodes_.find(parent);
  if (p == nodes_.end()) return Status::NotFound("no node: " + parent);
  if (p->second.ephemeral_owner != 0) {
    return Status::InvalidArgument("no children for ephemeral node " + parent);
  }
  std::string made = path;
  if (options.sequential) {
    char suffix[16];
    std::snprintf(suffix, sizeof(suffix), "%010d", p->second.cversion);
    made += suffix;
  }
  if (nodes_.count(made) != 0) return NodeExistsError(made);
  undo->emplace_back(parent, p->second);
  undo->emplace_back(made, std::nullopt);
  p->second.cversion++;
  FakeNode node;
  node.data = std::string(data);
  node.ephemeral_owner = options.ephemeral ? session : 0;
  nodes_[made] = std::move(node);
  fired->push_back({kExistWatch, made, WatchEventType::kCreated});
  fired->push_back({kChildWatch, parent, WatchEventType::kChildrenChanged});
  return made;
}

StatusOr<int32_t> FakeTree::Set(const std::string& path, std::string_view data,
                                int32_t version, UndoLog* undo,
                                std::vector<Trigger>* fired) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return Status::NotFound("no node: " + path);
  if (version != kAnyVersion && version != it->second.version) {
    return BadVersionError(path);
  }
  undo->emplace_back(path, it->second);
  it->second.data = std::string(data);
  it->second.version++;
  fired->push_back({kDataWatch, path, WatchEventType::kDataChanged});
  fired->push_back({kExistWatch, path, WatchEventType::kDataChanged});
  return it->second.version;
}

Status FakeTree::Delete(const std::string& path, int32_t version, UndoLog* undo,
                        std::vector<Trigger>* fired) {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return Status::NotFound("no node: " + path);
  if (path == "/") return Status::InvalidArgument("cannot delete /");
  if (version != kAnyVersion && version != it->second.version) {
    return BadVersionError(path);
  }
  if (HasChildren(path)) return NotEmptyError(path);
  // ZooKeeper bumps the parent's counter on a create only, not here.
  std::string parent = ParentPath(path);
  undo->emplace_back(path, it->second);
  nodes_.erase(it);
  fired->push_back({kDataWatch, path, WatchEventType::kDeleted});
  fired->push_back({kExistWatch, path, WatchEventType::kDeleted});
  fired->push_back({kChildWatch, path, WatchEventType::kDeleted});
  fired->push_back({kChildWatch, parent, WatchEventType::kChildrenChanged});
  return Status::OK();
}

Status FakeTree::Check(const std::string& path, int32_t version) const {
  auto it = nodes_.find(path);
  if (it == nodes_.end()) return Status::NotFound("no node: " + path);
  if (version != kAnyVersion && version != it->second.version) {
    return BadVersionError(path);
  }
  return Status::OK();
}

StatusOr<std::string> FakeTree::Apply(const ZnodeOp& op,
                                      const std::string& path, int64_t session,
                                      UndoLog* undo,
                                      std::vector<Trigger>* fired) {
  switch (op.type) {
    case ZnodeOp::Type::kCreate:
      return Create(path, op.data, op.create_options, session, undo, fired);
    case ZnodeOp::Type::kSet: {
      StatusOr<int32_t> v = Set(path, op.data, op.version, undo, fired);
      if (!v.ok()) return v.status();
      return std::string();
    }
    case ZnodeOp::Type::kDelete: {
      Status s = Delete(path, op.version, undo, fired);
      if (!s.ok()) return s;
      return std::string();
    }
    case ZnodeOp::Type::kCheck: {
      Status s = Check(path, op.version);
      if (!s.ok()) return s;
      return std::string();
    }
  }
  return Status::InvalidArgument("unknown op");
}

void FakeTree::Undo(UndoLog* undo) {
  for (auto it = undo->rbegin(); it != undo->rend(); ++it) {
    if (it->second.has_value()) {
      nodes_[it->first] = *it->second;
    } else {
      nodes_.erase(it->first);
    }
  }
  undo->clear();
}

bool FakeTree::HasChildren(const std::string& path) const {
  std::string prefix = path == "/" ? "/" : path + "/";
  auto it = nodes_.upper_bound(prefix);
  if (path == "/") {
    return it != nodes_.end();
  }
  return it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> FakeTree::ChildNames(const std::string& path) const {
  std::string prefix = path == "/" ? "/" : path + "/";
  std::vector<std::string> names;
  for (auto it = nodes_.upper_bound(prefix);
       it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    std::string rest = it->first.substr(prefix.size());
    if (rest.find('/') == std::string::npos) names.push_back(rest);
  }
  return names;  // sorted: the map's order
}

void FakeTree::Fire(const std::vector<Trigger>& fired) {
  for (const Trigger& t : fired) {
    auto range = watches_[t.kind].equal_range(t.path);
    std::vector<FakeWatch> hit;
    for (auto it = range.first; it != range.second; ++it) {
      hit.push_back(std::move(it->second));
    }
    watches_[t.kind].erase(range.first, range.second);
    for (FakeWatch& w : hit) {
      Deliver(w.session, std::move(w.watcher), {t.type, w.store_path});
    }
  }
}

void FakeTree::Deliver(int64_t session, Watcher watcher, WatchEvent event) {
  auto it = sessions_.find(session);
  if (it == sessions_.end()) return;
  if (!Connected(it->second)) {
    it->second.missed.emplace_back(std::move(watcher), std::move(event));
    return;
  }
  ++posts_;
  it->second.events->PostWatch(std::move(watcher), std::move(event));
}

void FakeTree::PostState(FakeSession& session, SessionState state) {
  ++posts_;
  session.events->PostSessionState(state);
}

void FakeTree::AddWatch(WatchKind kind, const std::string& path,
                        int64_t session, const std::string& store_path,
                        Watcher watcher) {
  if (!watcher) return;
  watches_[kind].emplace(path, FakeWatch{session, store_path, watcher});
}

// Drops the session's watches, telling each when the session expired
// (events missed while disconnected never arrive: the watch ends with the
// session, as on ZooKeeper).
void FakeTree::EndWatches(FakeSession& s, int64_t session, bool expired) {
  for (auto& by_path : watches_) {
    for (auto it = by_path.begin(); it != by_path.end();) {
      if (it->second.session != session) {
        ++it;
        continue;
      }
      if (expired) {
        s.missed.emplace_back(
            std::move(it->second.watcher),
            WatchEvent{WatchEventType::kDeleted, it->second.store_path});
      }
      it = by_path.erase(it);
    }
  }
  for (auto& [watcher, event] : s.missed) {
    if (!expired) break;
    ++posts_;
    s.events->PostWatch(std::move(watcher),
                        {WatchEventType::kSessionExpired, event.path});
  }
  s.missed.clear();
}

// Ends the session's watches and deletes its ephemeral nodes, firing the
// others' watches.
void FakeTree::EndSession(int64_t session, bool expired) {
  auto s = sessions_.find(session);
  if (s == sessions_.end() || s->second.expired) return;
  EndWatches(s->second, session, expired);
  s->second.expired = true;
  if (expired) PostState(s->second, SessionState::kExpired);
  // Deepest first, so that no parent is deleted before its children.
  std::vector<std::string> mine;
  for (const auto& [path, node] : nodes_) {
    if (node.ephemeral_owner == session) mine.push_back(path);
  }
  std::vector<Trigger> fired;
  UndoLog undo;
  for (auto it = mine.rbegin(); it != mine.rend(); ++it) {
    Status ignored = Delete(*it, kAnyVersion, &undo, &fired);
    (void)ignored;  // ephemerals have no children
  }
  Fire(fired);
}

}  // namespace internal

namespace {

using internal::FakeTree;
using internal::Trigger;
using internal::UndoLog;

class FakeZnodeStore : public ZnodeStore {
 public:
  FakeZnodeStore(std::shared_ptr<FakeTree> tree, int64_t session,
                 std::string chroot, std::chrono::milliseconds timeout)
      : tree_(std::move(tree)),
        session_(session),
        chroot_(std::move(chroot)),
        timeout_(timeout) {}

  ~FakeZnodeStore() override {
    {
      std::lock_guard<std::mutex> lock(tree_->mutex_);
      tree_->EndSession(session_, /*expired=*/false);
      tree_->sessions_.erase(session_);
    }
    events_.Stop();
  }

  internal::StoreEvents* events() { return &events_; }

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

  int64_t SessionId() const override { return session_; }
  SessionState State() const override;
  std::chrono::milliseconds SessionTimeout() const override { return timeout_; }
  uint64_t AddSessionListener(SessionListener listener) override {
    return events_.AddListener(std::move(listener));
  }
  void RemoveSessionListener(uint64_t id) override {
    events_.RemoveListener(id);
  }

 private:
  std::string Abs(const std::string& path) const {
    if (chroot_.empty()) return path;
    return path == "/" ? chroot_ : chroot_ + path;
  }
  std::string Rel(const std::string& abs) const {
    if (chroot_.empty()) return abs;
    return abs.size() == chroot_.size() ? "/" : abs.substr(chroot_.size());
  }
  // Validates the path and the session; the caller holds tree_->mutex_.
  Status Precheck(const std::string& path) const {
    BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(path));
    return tree_->Access(session_);
  }

  const std::shared_ptr<FakeTree> tree_;
  const int64_t session_;
  const std::string chroot_;  // "" for the whole tree
  const std::chrono::milliseconds timeout_;
  internal::StoreEvents events_;
};

SessionState FakeZnodeStore::State() const {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  auto it = tree_->sessions_.find(session_);
  if (it == tree_->sessions_.end() || it->second.expired) {
    return SessionState::kExpired;
  }
  return tree_->Connected(it->second) ? SessionState::kConnected
                                      : SessionState::kDisconnected;
}

StatusOr<std::string> FakeZnodeStore::Create(const std::string& path,
                                             std::string_view data,
                                             CreateOptions options) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(data.size()));
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  UndoLog undo;
  std::vector<Trigger> fired;
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::string made,
      tree_->Create(Abs(path), data, options, session_, &undo, &fired));
  tree_->Fire(fired);
  return Rel(made);
}

StatusOr<ZnodeData> FakeZnodeStore::Get(const std::string& path,
                                        Watcher watcher) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  auto it = tree_->nodes_.find(Abs(path));
  if (it == tree_->nodes_.end()) return Status::NotFound("no node: " + path);
  tree_->AddWatch(internal::kDataWatch, it->first, session_, path,
                  std::move(watcher));
  return ZnodeData{it->second.data, it->second.version,
                   it->second.ephemeral_owner};
}

StatusOr<int32_t> FakeZnodeStore::Set(const std::string& path,
                                      std::string_view data,
                                      int32_t expected_version) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(data.size()));
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  UndoLog undo;
  std::vector<Trigger> fired;
  StatusOr<int32_t> version =
      tree_->Set(Abs(path), data, expected_version, &undo, &fired);
  if (!version.ok()) return version.status();
  tree_->Fire(fired);
  return version;
}

Status FakeZnodeStore::Delete(const std::string& path,
                              int32_t expected_version) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  UndoLog undo;
  std::vector<Trigger> fired;
  BLOOMROUTE_RETURN_IF_ERROR(
      tree_->Delete(Abs(path), expected_version, &undo, &fired));
  tree_->Fire(fired);
  return Status::OK();
}

StatusOr<std::vector<std::string>> FakeZnodeStore::Children(
    const std::string& path, Watcher watcher) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  std::string abs = Abs(path);
  if (tree_->nodes_.count(abs) == 0)
    return Status::NotFound("no node: " + path);
  std::vector<std::string> names = tree_->ChildNames(abs);
  size_t bytes = 0;
  for (const std::string& name : names) bytes += name.size();
  if (names.size() > kMaxChildren || bytes > kMaxChildrenBytes) {
    return Status::Corruption("children of " + path + " over the bound: " +
                              std::to_string(names.size()) + " names, " +
                              std::to_string(bytes) + " bytes");
  }
  tree_->AddWatch(internal::kChildWatch, abs, session_, path,
                  std::move(watcher));
  return names;
}

StatusOr<bool> FakeZnodeStore::Exists(const std::string& path,
                                      Watcher watcher) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(Precheck(path));
  std::string abs = Abs(path);
  bool found = tree_->nodes_.count(abs) != 0;
  // ZooKeeper keeps an exists watch on a present node as a data watch: a
  // change, a deletion, or (when absent) a creation fires it.
  tree_->AddWatch(internal::kExistWatch, abs, session_, path,
                  std::move(watcher));
  return found;
}

StatusOr<std::vector<std::string>> FakeZnodeStore::Multi(
    const std::vector<ZnodeOp>& ops, size_t* failed_op) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidateMulti(ops, failed_op));
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  BLOOMROUTE_RETURN_IF_ERROR(tree_->Access(session_));
  UndoLog undo;
  std::vector<Trigger> fired;
  std::vector<std::string> results;
  for (size_t i = 0; i < ops.size(); ++i) {
    StatusOr<std::string> r =
        tree_->Apply(ops[i], Abs(ops[i].path), session_, &undo, &fired);
    if (!r.ok()) {
      tree_->Undo(&undo);
      if (failed_op != nullptr) *failed_op = i;
      return r.status().WithContext("op " + std::to_string(i) + " (" +
                                    ZnodeOpTypeName(ops[i].type) + " " +
                                    ops[i].path + ")");
    }
    results.push_back(r->empty() ? std::string() : Rel(*r));
  }
  tree_->Fire(fired);
  return results;
}

}  // namespace

FakeEnsemble::FakeEnsemble() : tree_(std::make_shared<FakeTree>()) {}

FakeEnsemble::~FakeEnsemble() = default;

StatusOr<std::unique_ptr<ZnodeStore>> FakeEnsemble::Connect(
    const std::string& chroot, std::chrono::milliseconds session_timeout) {
  std::string root = chroot == "/" ? "" : chroot;
  if (!root.empty()) BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(root));
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  if (tree_->stopped_) {
    return Status::Unavailable("cannot connect to ZooKeeper (fake): stopped");
  }
  // The chroot and its parents, persistent, as ConnectZooKeeper makes them.
  for (size_t slash = 1; !root.empty() && slash != std::string::npos;) {
    slash = root.find('/', slash + 1);
    std::string prefix = root.substr(0, slash);
    if (tree_->nodes_.count(prefix) == 0) {
      tree_->nodes_[ParentPath(prefix)].cversion++;
      tree_->nodes_[prefix] = internal::FakeNode();
    }
  }
  int64_t id = tree_->next_session_++;
  auto store =
      std::make_unique<FakeZnodeStore>(tree_, id, root, session_timeout);
  internal::FakeSession& session = tree_->sessions_[id];
  session.events = store->events();
  session.timeout = session_timeout;
  return std::unique_ptr<ZnodeStore>(std::move(store));
}

void FakeEnsemble::ExpireSession(int64_t session_id) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  tree_->EndSession(session_id, /*expired=*/true);
}

void FakeEnsemble::DisconnectSession(int64_t session_id) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  auto it = tree_->sessions_.find(session_id);
  if (it == tree_->sessions_.end() || it->second.expired) return;
  bool was_connected = tree_->Connected(it->second);
  it->second.cut = true;
  if (was_connected) tree_->PostState(it->second, SessionState::kDisconnected);
}

void FakeEnsemble::ReconnectSession(int64_t session_id) {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  auto it = tree_->sessions_.find(session_id);
  if (it == tree_->sessions_.end() || it->second.expired || !it->second.cut) {
    return;
  }
  it->second.cut = false;
  if (!tree_->Connected(it->second)) return;
  tree_->PostState(it->second, SessionState::kConnected);
  std::vector<std::pair<Watcher, WatchEvent>> missed;
  missed.swap(it->second.missed);
  for (auto& [watcher, event] : missed) {
    tree_->Deliver(session_id, std::move(watcher), std::move(event));
  }
}

void FakeEnsemble::Stop() {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  if (tree_->stopped_) return;
  for (auto& [id, session] : tree_->sessions_) {
    if (!session.expired && tree_->Connected(session)) {
      tree_->PostState(session, SessionState::kDisconnected);
    }
  }
  tree_->stopped_ = true;
}

void FakeEnsemble::Start() {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  if (!tree_->stopped_) return;
  tree_->stopped_ = false;
  for (auto& [id, session] : tree_->sessions_) {
    if (session.expired || !tree_->Connected(session)) continue;
    tree_->PostState(session, SessionState::kConnected);
    std::vector<std::pair<Watcher, WatchEvent>> missed;
    missed.swap(session.missed);
    for (auto& [watcher, event] : missed) {
      tree_->Deliver(id, std::move(watcher), std::move(event));
    }
  }
}

void FakeEnsemble::DrainEvents() {
  // A callback may post to another store: drain until a whole pass posts
  // nothing new.
  while (true) {
    std::vector<internal::StoreEvents*> all;
    uint64_t posts_before;
    {
      std::lock_guard<std::mutex> lock(tree_->mutex_);
      posts_before = tree_->posts_;
      for (auto& [id, session] : tree_->sessions_) {
        all.push_back(session.events);
      }
    }
    for (internal::StoreEvents* events : all) events->Drain();
    std::lock_guard<std::mutex> lock(tree_->mutex_);
    if (tree_->posts_ == posts_before) return;
  }
}

size_t FakeEnsemble::NodeCount() const {
  std::lock_guard<std::mutex> lock(tree_->mutex_);
  return tree_->nodes_.size();
}

}  // namespace bloomroute::coord
