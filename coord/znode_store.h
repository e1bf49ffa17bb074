// ZnodeStore: ZooKeeper's data model behind Status and StatusOr.
//
// A ZnodeStore is one client session over a tree of znodes: named by
// slash-separated paths ("/tables/t1"), each holding up to kMaxNodeBytes of
// data and a version that every Set bumps. Nodes are persistent, or
// ephemeral (deleted when the session that created them ends); a sequential
// create appends the parent's ten-digit counter to the name ("/routers/r_"
// -> "/routers/r_0000000007"). Multi applies several changes atomically.
// Watches are one-shot, as ZooKeeper's are. Two implementations: the real
// one (coord/zk/zookeeper_store.h) and an in-process fake for tests
// (coord/fake_znode_store.h); both pass tests/coord/znode_store_test.cc.
//
// Every path is absolute within the store's root (a chroot per cluster,
// "/bloomroute/<cluster>", for the real store): it starts with '/', has no
// empty, "." or ".." component and no trailing '/' (except "/" itself);
// otherwise InvalidArgument before anything is sent.
//
// Errors, for every call (the message names the path):
//   NotFound         the node (or, for Create, its parent) does not exist.
//   Aborted          a concurrent change refused the call, nothing done:
//                    "node exists: <path>" (Create of an existing node),
//                    "bad version: <path>" (expected version differs),
//                    "not empty: <path>" (Delete of a node with children).
//                    IsNodeExists / IsBadVersion tell them apart.
//   InvalidArgument  bad path, data over kMaxNodeBytes, a child under an
//                    ephemeral node, an empty Multi: never retried.
//   Unavailable      no server answers now (connection loss, no quorum,
//                    operation timeout): retried. A write that returns
//                    Unavailable may or may not have been applied; read back
//                    before retrying one that is not idempotent.
//                    Once the session has expired every call returns
//                    Unavailable "session expired" (IsSessionExpired) and
//                    the store stays dead: its owner makes a new one.
//   PermissionDenied an ACL or authentication refused the call.
//   Corruption       a reply over its bound (children lists, see below).
//   IOError          anything else the client library reports.
//
// Watches: a Watcher passed to Get, Exists or Children is called at most
// once: when the node's data changes or the node is deleted (Get), when it
// is created, changed or deleted (Exists), when a child is added or removed
// or the node is deleted (Children); or with kSessionExpired when the
// session ends before that (the watch is then gone). A watch survives a
// disconnection (ZooKeeper sets it again on reconnection and delivers what
// was missed). A Get or Children that fails sets no watch.
//
// Callbacks (watchers and session listeners) run on the store's one event
// thread, in the order the events happened, never on the caller's thread.
// They may call the store (including setting watches), must not block for
// long, and must not destroy the store. The destructor waits for a running
// callback and drops the ones not yet run.
//
// Thread-safety: every method may be called from any thread concurrently.
// Ownership: the caller owns the store; destroying it closes the session, so
// its ephemeral nodes vanish at once (the real store tells the server). No
// call may be in progress on another thread when it is destroyed.
//
// Example:
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ZnodeStore> store,
//       ConnectZooKeeper({"zk1:2181,zk2:2181,zk3:2181", "/bloomroute/prod"}));
//   BLOOMROUTE_ASSIGN_OR_RETURN(ZnodeData table, store->Get("/tables/t1"));
//   StatusOr<int32_t> v =
//       store->Set("/tables/t1", Updated(table.data), table.version);
//   if (!v.ok() && IsBadVersion(v.status())) { /* re-read and retry */ }
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> made, store->Multi({
//       ZnodeOp::Check("/tables/t1", table.version),
//       ZnodeOp::Create("/ops/op_", "move r7",
//                       CreateOptions{/*ephemeral=*/false,
//                       /*sequential=*/true})}));
#ifndef BLOOMROUTE_COORD_ZNODE_STORE_H_
#define BLOOMROUTE_COORD_ZNODE_STORE_H_

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute::coord {

// ZooKeeper refuses any request or reply over jute.maxbuffer, 0xfffff =
// 1,048,575 bytes by default. A node's data stays under it with room for the
// request's header, path and ACL: kMaxNodeBytes = 1,048,575 - 65,535 =
// 983,040 bytes (960 KiB). A Multi's data in total has the same bound.
inline constexpr size_t kJuteMaxBuffer = 0xfffff;
inline constexpr size_t kMaxNodeBytes = kJuteMaxBuffer - 0xffff;
// A path's bound in bytes, and a Children reply's: at most kMaxChildren
// names of at most kMaxChildrenBytes in total, or Corruption.
inline constexpr size_t kMaxPathBytes = 4096;
inline constexpr size_t kMaxChildren = 100000;
inline constexpr size_t kMaxChildrenBytes = kJuteMaxBuffer;

// Matches any version in Set, Delete and Check.
inline constexpr int32_t kAnyVersion = -1;

struct CreateOptions {
  bool ephemeral = false;   // deleted when the creating session ends
  bool sequential = false;  // the parent's counter appended, "%010d"
};

struct ZnodeData {
  std::string data;
  int32_t version = 0;          // 0 at creation, +1 per Set
  int64_t ephemeral_owner = 0;  // the owning session's id; 0 if persistent
  bool ephemeral() const { return ephemeral_owner != 0; }
};

enum class WatchEventType {
  kCreated,          // Exists watch: the node was created
  kDeleted,          // the node was deleted
  kDataChanged,      // the node's data was set
  kChildrenChanged,  // Children watch: a child was added or removed
  kSessionExpired,   // the session ended first; the watch is gone
};

struct WatchEvent {
  WatchEventType type;
  std::string path;  // the watched path, within the store's root
};

using Watcher = std::function<void(const WatchEvent&)>;

enum class SessionState {
  kConnected,     // a server answers for the session
  kDisconnected,  // no server now; the session lives until its timeout
  kExpired,       // the session is over: ephemerals gone, store dead
};
const char* SessionStateName(SessionState state);

using SessionListener = std::function<void(SessionState)>;

// One operation of a Multi. Build with the factories.
struct ZnodeOp {
  enum class Type { kCreate, kSet, kDelete, kCheck };
  Type type = Type::kCheck;
  std::string path;
  std::string data;               // kCreate, kSet
  CreateOptions create_options;   // kCreate
  int32_t version = kAnyVersion;  // kSet, kDelete, kCheck

  static ZnodeOp Create(std::string path, std::string data,
                        CreateOptions options = {});
  static ZnodeOp Set(std::string path, std::string data,
                     int32_t version = kAnyVersion);
  static ZnodeOp Delete(std::string path, int32_t version = kAnyVersion);
  // Fails the Multi (bad version) unless the node has `version`; NotFound
  // when it does not exist.
  static ZnodeOp Check(std::string path, int32_t version);
};

class ZnodeStore {
 public:
  ZnodeStore() = default;
  ZnodeStore(const ZnodeStore&) = delete;
  ZnodeStore& operator=(const ZnodeStore&) = delete;
  virtual ~ZnodeStore() = default;

  // Creates a node holding `data`; its parent must exist. Returns the
  // created path (with the sequence suffix when sequential).
  [[nodiscard]] virtual StatusOr<std::string> Create(
      const std::string& path, std::string_view data,
      CreateOptions options = {}) = 0;

  // The node's data, version and owner; NotFound when absent. With a
  // watcher, watches the node's data and deletion (only when found).
  [[nodiscard]] virtual StatusOr<ZnodeData> Get(const std::string& path,
                                                Watcher watcher = nullptr) = 0;

  // Replaces the data when the node's version is `expected_version` (or
  // always with kAnyVersion); returns the new version.
  [[nodiscard]] virtual StatusOr<int32_t> Set(
      const std::string& path, std::string_view data,
      int32_t expected_version = kAnyVersion) = 0;

  // Deletes a node without children, at `expected_version` (or any).
  [[nodiscard]] virtual Status Delete(
      const std::string& path, int32_t expected_version = kAnyVersion) = 0;

  // The names (not paths) of the node's children, sorted; NotFound when the
  // node is absent. With a watcher, watches the child list (only when
  // found).
  [[nodiscard]] virtual StatusOr<std::vector<std::string>> Children(
      const std::string& path, Watcher watcher = nullptr) = 0;

  // Whether the node exists. With a watcher, watches its creation, change
  // or deletion (set whether or not it exists).
  [[nodiscard]] virtual StatusOr<bool> Exists(const std::string& path,
                                              Watcher watcher = nullptr) = 0;

  // Applies every op or none. On success, one entry per op: the created
  // path for a kCreate, "" for the others. On failure, the failing op's
  // status ("op <i> (<type> <path>): ..." with its code as above) and, when
  // `failed_op` is not null, its index there (ops.size() when no single op
  // failed, e.g. Unavailable). Empty `ops` or data over kMaxNodeBytes in
  // total: InvalidArgument.
  [[nodiscard]] virtual StatusOr<std::vector<std::string>> Multi(
      const std::vector<ZnodeOp>& ops, size_t* failed_op = nullptr) = 0;

  // The session's id (as ZnodeData::ephemeral_owner shows it), its state
  // now, and the timeout the server granted.
  virtual int64_t SessionId() const = 0;
  virtual SessionState State() const = 0;
  virtual std::chrono::milliseconds SessionTimeout() const = 0;

  // Calls `listener` on the event thread with every later session state
  // change. Returns an id for RemoveSessionListener.
  virtual uint64_t AddSessionListener(SessionListener listener) = 0;
  // After it returns, the listener is not called again (unless this runs on
  // the event thread inside that listener, which then finishes).
  virtual void RemoveSessionListener(uint64_t id) = 0;
};

// Codes above, by meaning.
bool IsNodeExists(const Status& status);
bool IsBadVersion(const Status& status);
bool IsSessionExpired(const Status& status);

// The messages the stores use (for implementations).
Status NodeExistsError(std::string_view path);
Status BadVersionError(std::string_view path);
Status NotEmptyError(std::string_view path);
Status SessionExpiredError();

// OK when `path` is a valid absolute path within kMaxPathBytes, else
// InvalidArgument naming it.
[[nodiscard]] Status ValidatePath(std::string_view path);
// OK when `bytes` of data fit a node (kMaxNodeBytes), else InvalidArgument.
[[nodiscard]] Status ValidateData(size_t bytes);
// The parent of a valid path other than "/" ("/a/b" -> "/a", "/a" -> "/").
std::string ParentPath(std::string_view path);
// Makes `path` (valid, not "/") and its parents where missing, persistent
// and empty; OK when they exist.
[[nodiscard]] Status MakePath(ZnodeStore* store, const std::string& path);
// Checks a Multi's ops before anything is sent: paths, data sizes, not
// empty. On failure, the index of the bad op in `failed_op` (if not null).
[[nodiscard]] Status ValidateMulti(const std::vector<ZnodeOp>& ops,
                                   size_t* failed_op);
// "create", "set", "delete", "check".
const char* ZnodeOpTypeName(ZnodeOp::Type type);

}  // namespace bloomroute::coord

#endif  // BLOOMROUTE_COORD_ZNODE_STORE_H_
