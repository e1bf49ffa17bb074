#include "coord/election.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace bloomroute::coord {

struct Election::State {
  ZnodeStore* store = nullptr;
  std::string path;  // the candidates' parent
  std::string node;  // this candidate's node
  int64_t epoch = -1;
  std::function<void(bool, int64_t)> on_change;
  uint64_t listener = 0;

  // Held through an evaluation, so that Join's and the event thread's do
  // not interleave.
  std::mutex evaluation_mutex;
  mutable std::mutex mutex;
  // Guarded by mutex.
  bool leading = false;
  bool closed = false;  // resigned
  bool over = false;    // the session expired or the node was deleted
};

namespace {

using State = Election::State;

constexpr const char* kPrefix = "n_";
// A predecessor that keeps vanishing as it is watched: list again, a bound.
constexpr int kMaxRelists = 100;

struct Candidate {
  int64_t sequence;
  std::string name;
};

std::vector<Candidate> Candidates(const std::vector<std::string>& names) {
  std::vector<Candidate> candidates;
  for (const std::string& name : names) {
    int64_t sequence = SequenceOf(name);
    if (name.rfind(kPrefix, 0) == 0 && sequence >= 0) {
      candidates.push_back({sequence, name});
    }
  }
  std::sort(candidates.begin(), candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              return a.sequence < b.sequence;
            });
  return candidates;
}

// Changes this candidate's leadership and tells on_change (unlocked).
void SetLeading(State& s, bool leading) {
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (leading && (s.closed || s.over)) return;
    if (s.leading == leading) return;
    s.leading = leading;
  }
  if (s.on_change) s.on_change(leading, s.epoch);
}

void EndCandidacy(State& s) {
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.over = true;
  }
  SetLeading(s, false);
}

Status Evaluate(const std::shared_ptr<State>& s);

Watcher Reevaluate(const std::shared_ptr<State>& s) {
  std::weak_ptr<State> weak = s;
  return [weak](const WatchEvent&) {
    if (std::shared_ptr<State> state = weak.lock()) {
      Status ignored = Evaluate(state);  // a session event retries
      (void)ignored;
    }
  };
}

// Lists the candidates: leads when lowest, else watches the one just below.
Status Evaluate(const std::shared_ptr<State>& s) {
  std::lock_guard<std::mutex> evaluating(s->evaluation_mutex);
  for (int attempt = 0; attempt < kMaxRelists; ++attempt) {
    {
      std::lock_guard<std::mutex> lock(s->mutex);
      if (s->closed || s->over) return Status::OK();
    }
    StatusOr<std::vector<std::string>> names = s->store->Children(s->path);
    if (!names.ok()) return names.status();
    std::vector<Candidate> candidates = Candidates(*names);
    auto self = std::find_if(
        candidates.begin(), candidates.end(),
        [&](const Candidate& c) { return c.sequence == s->epoch; });
    if (self == candidates.end()) {  // deleted under us, or expired
      EndCandidacy(*s);
      return Status::OK();
    }
    if (self == candidates.begin()) {
      if (s->store->State() == SessionState::kConnected) SetLeading(*s, true);
      return Status::OK();
    }
    std::string below = s->path + "/" + (self - 1)->name;
    StatusOr<bool> exists = s->store->Exists(below, Reevaluate(s));
    if (!exists.ok()) return exists.status();
    if (*exists) {
      SetLeading(*s, false);
      return Status::OK();
    }
  }
  return Status::Unavailable("election under " + s->path +
                             ": candidates kept leaving while watched");
}

void OnSession(const std::weak_ptr<State>& weak, SessionState state) {
  std::shared_ptr<State> s = weak.lock();
  if (!s) return;
  if (state == SessionState::kConnected) {
    Status ignored = Evaluate(s);  // the next session event retries
    (void)ignored;
  } else if (state == SessionState::kDisconnected) {
    SetLeading(*s, false);  // cannot know; resumes on reconnection
  } else {
    EndCandidacy(*s);
  }
}

}  // namespace

int64_t SequenceOf(const std::string& name) {
  constexpr size_t kDigits = 10;
  if (name.size() < kDigits) return -1;
  int64_t sequence = 0;
  for (size_t i = name.size() - kDigits; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return -1;
    sequence = sequence * 10 + (name[i] - '0');
  }
  return sequence;
}

StatusOr<std::unique_ptr<Election>> Election::Join(ZnodeStore* store,
                                                   Options options) {
  BLOOMROUTE_RETURN_IF_ERROR(ValidatePath(options.path));
  if (options.path == "/") {
    return Status::InvalidArgument("an election needs its own parent node");
  }
  BLOOMROUTE_RETURN_IF_ERROR(ValidateData(options.data.size()));
  BLOOMROUTE_RETURN_IF_ERROR(MakePath(store, options.path));
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::string node,
      store->Create(options.path + "/" + kPrefix, options.data,
                    CreateOptions{/*ephemeral=*/true, /*sequential=*/true}));
  auto state = std::make_shared<State>();
  state->store = store;
  state->path = options.path;
  state->node = node;
  state->epoch = SequenceOf(node);
  state->on_change = std::move(options.on_change);
  std::weak_ptr<State> weak = state;
  state->listener = store->AddSessionListener(
      [weak](SessionState session) { OnSession(weak, session); });
  std::unique_ptr<Election> election(new Election(state));
  Status evaluated = Evaluate(state);
  if (!evaluated.ok()) return evaluated;  // the destructor resigns
  return election;
}

Election::~Election() {
  Status ignored = Resign();  // the session's end removes the node anyway
  (void)ignored;
}

bool Election::IsLeader() const {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (!state_->leading || state_->closed || state_->over) return false;
  }
  return state_->store->State() == SessionState::kConnected;
}

int64_t Election::epoch() const { return state_->epoch; }

const std::string& Election::node() const { return state_->node; }

StatusOr<LeaderInfo> Election::Leader() const {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<std::string> names,
                              state_->store->Children(state_->path));
  for (const Candidate& c : Candidates(names)) {
    std::string node = state_->path + "/" + c.name;
    StatusOr<ZnodeData> data = state_->store->Get(node);
    if (data.ok()) return LeaderInfo{std::move(data->data), c.sequence, node};
    if (!data.status().IsNotFound()) return data.status();
  }  // NotFound: that candidate left meanwhile; the next one leads
  return Status::NotFound("no candidate under " + state_->path);
}

Status Election::Resign() {
  bool was_leading;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    if (state_->closed) return Status::OK();
    state_->closed = true;
    was_leading = state_->leading;
    state_->leading = false;
  }
  if (was_leading && state_->on_change) state_->on_change(false, epoch());
  state_->store->RemoveSessionListener(state_->listener);
  Status deleted = state_->store->Delete(state_->node, kAnyVersion);
  if (deleted.IsNotFound() || IsSessionExpired(deleted)) return Status::OK();
  return deleted;
}

}  // namespace bloomroute::coord
