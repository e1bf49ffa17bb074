#include "coord/cluster_members.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>

#include "coord/election.h"

namespace bloomroute::coord {

namespace {

// The children of `path` (none when it does not exist yet), at most
// kMaxListedMembers.
StatusOr<std::vector<std::string>> ListChildren(ZnodeStore* store,
                                                const std::string& path) {
  StatusOr<std::vector<std::string>> children = store->Children(path);
  if (children.status().IsNotFound()) return std::vector<std::string>();
  if (!children.ok()) return children.status();
  if (children->size() > kMaxListedMembers) {
    return Status::Unavailable(path + " has " +
                               std::to_string(children->size()) +
                               " members, more than can be listed");
  }
  return children;
}

}  // namespace

StatusOr<ClusterMembers> ListClusterMembers(ZnodeStore* store) {
  ClusterMembers out;
  std::map<int64_t, uint32_t> id_of_session;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> ids,
                              ListChildren(store, kRouterIdsPath));
  for (const std::string& name : ids) {
    StatusOr<ZnodeData> node =
        store->Get(std::string(kRouterIdsPath) + "/" + name);
    if (node.status().IsNotFound()) continue;
    if (!node.ok()) return node.status();
    const int64_t id = std::atoll(name.c_str());
    if (id > 0 && node->ephemeral()) {
      id_of_session[node->ephemeral_owner] = static_cast<uint32_t>(id);
    }
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> candidates,
                              ListChildren(store, kRoutersPath));
  for (const std::string& name : candidates) {
    const int64_t epoch = SequenceOf(name);
    if (epoch < 0) continue;
    StatusOr<ZnodeData> node =
        store->Get(std::string(kRoutersPath) + "/" + name);
    if (node.status().IsNotFound()) continue;
    if (!node.ok()) return node.status();
    LiveRouter r;
    r.address = node->data;
    r.epoch = epoch;
    r.session = node->ephemeral_owner;
    auto id = id_of_session.find(r.session);
    if (id != id_of_session.end()) r.router_id = id->second;
    out.routers.push_back(std::move(r));
  }
  std::sort(out.routers.begin(), out.routers.end(),
            [](const LiveRouter& a, const LiveRouter& b) {
              return a.epoch < b.epoch;
            });
  if (!out.routers.empty()) out.routers.front().leading = true;
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> servers,
                              ListChildren(store, kLiveRegionServersPath));
  std::sort(servers.begin(), servers.end());
  for (const std::string& name : servers) {
    StatusOr<ZnodeData> node =
        store->Get(std::string(kLiveRegionServersPath) + "/" + name);
    if (node.status().IsNotFound()) continue;
    if (!node.ok()) return node.status();
    out.region_servers.push_back({name, node->data, node->ephemeral_owner});
  }
  return out;
}

StatusOr<std::unique_ptr<LivenessNode>> LivenessNode::Start(Options options) {
  if (!options.connect) {
    return Status::InvalidArgument("a liveness node needs a connection");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(options.path));
  if (options.path == "/") {
    return Status::InvalidArgument("a liveness node needs a parent");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(options.data.size()));
  std::unique_ptr<LivenessNode> node(new LivenessNode(std::move(options)));
  node->thread_ = std::thread([n = node.get()] { n->Run(); });
  return node;
}

LivenessNode::LivenessNode(Options options) : options_(std::move(options)) {}

LivenessNode::~LivenessNode() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  store_.reset();  // closes the session: the node goes at once
}

bool LivenessNode::registered() const {
  std::lock_guard<std::mutex> lock(mu_);
  return registered_;
}

bool LivenessNode::AwaitRegistered(std::chrono::milliseconds timeout) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, timeout, [this] { return registered_; });
}

void LivenessNode::Run() {
  // Told once per change: registered, or failing (the first failure).
  bool told_failure = false;
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    lock.unlock();
    const Status s = EnsureRegistered();
    lock.lock();
    const bool tell = s.ok() ? !registered_ : !told_failure;
    registered_ = s.ok();
    told_failure = !s.ok();
    cv_.notify_all();
    if (tell && options_.on_event) {
      lock.unlock();
      options_.on_event(s);
      lock.lock();
    }
    cv_.wait_for(lock, options_.retry, [this] { return stopping_; });
  }
}

Status LivenessNode::EnsureRegistered() {
  if (store_ != nullptr && store_->State() == SessionState::kExpired) {
    store_.reset();  // its node is gone with it
  }
  if (store_ == nullptr) {
    BLOOMROUTE_ASSIGN_OR_RETURN(store_, options_.connect());
  }
  StatusOr<ZnodeData> node = store_->Get(options_.path);
  if (node.ok() && node->ephemeral_owner == store_->SessionId()) {
    return Status::OK();
  }
  if (node.ok()) {
    // The same address's previous run, whose session has not ended yet.
    Status gone = store_->Delete(options_.path, node->version);
    if (!gone.ok() && !gone.IsNotFound()) return gone;
  } else if (!node.status().IsNotFound()) {
    return node.status();
  }
  BLOOMROUTE_RETURN_IF_ERROR(MakePath(store_.get(), ParentPath(options_.path)));
  CreateOptions ephemeral;
  ephemeral.ephemeral = true;
  return store_->Create(options_.path, options_.data, ephemeral).status();
}

}  // namespace bloomroute::coord
