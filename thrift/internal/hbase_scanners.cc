#include "thrift/internal/hbase_scanners.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <string>
#include <utility>

#include "model/cell_order.h"

namespace bloomroute::thrift_internal {
namespace {

// Where a kept scanner is: what its limit still allows, the rows read and
// not yet returned, and the last number sent to the router.
struct Position {
  uint64_t rows_left = std::numeric_limits<uint64_t>::max();
  std::deque<Row> kept;
  size_t returned_cells = 0;  // of kept.front(), in earlier results
  uint64_t router_seq = 0;
};

// Takes up to `n` results from `p->kept`: whole rows, or parts of at most
// `batch_cells` cells (0: whole rows).
std::vector<ScannerResult> Take(Position* p, uint32_t n, uint32_t batch_cells) {
  std::vector<ScannerResult> out;
  while (out.size() < n && !p->kept.empty()) {
    Row& front = p->kept.front();
    const size_t from = p->returned_cells;
    const size_t left = front.cells.size() - from;
    if (batch_cells == 0 || left <= batch_cells) {
      ScannerResult last;
      last.row.key = std::move(front.key);
      last.row.cells.assign(std::make_move_iterator(front.cells.begin() + from),
                            std::make_move_iterator(front.cells.end()));
      out.push_back(std::move(last));
      p->kept.pop_front();
      p->returned_cells = 0;
      continue;
    }
    ScannerResult part;
    part.row.key = front.key;
    part.row.cells.assign(front.cells.begin() + from,
                          front.cells.begin() + from + batch_cells);
    part.partial = true;
    out.push_back(std::move(part));
    p->returned_cells += batch_cells;
  }
  return out;
}

std::vector<ScannerResult> WholeRows(std::vector<Row> rows) {
  std::vector<ScannerResult> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) out[i].row = std::move(rows[i]);
  return out;
}

}  // namespace

struct HBaseScanners::State {
  explicit State(Options o) : options(o) {
    if (o.limit > 0) now.rows_left = o.limit;
  }

  // Starts call `call_seq` (0: unsequenced) with mu held, by the router's
  // rule (router.h, ScannerNext): a repeat of the previous call goes back
  // to where it began; a new one remembers where it begins.
  Status BeginCall(uint64_t call_seq) {
    if (call_seq == 0) return Status::OK();
    const bool repeat = call_seq + 1 == next_seq;
    if (!repeat && call_seq != next_seq) {
      return Status::InvalidArgument(
          "scanner call sequence " + std::to_string(call_seq) +
          " is out of order: the next call is " + std::to_string(next_seq) +
          " (or " + std::to_string(next_seq - 1) + " to repeat the last)");
    }
    if (repeat) {
      now = before;
    } else {
      before = now;
      ++next_seq;
    }
    return Status::OK();
  }

  const Options options;
  std::mutex mu;
  Position now;     // guarded by mu
  Position before;  // guarded by mu: where the previous sequenced call began
  uint64_t next_seq = 1;  // guarded by mu
};

void HBaseScanners::Add(int32_t scanner, Options options) {
  if (options.limit == 0 && options.batch_cells == 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  scanners_[scanner] = std::make_shared<State>(options);
}

void HBaseScanners::Remove(int32_t scanner) {
  std::lock_guard<std::mutex> lock(mu_);
  scanners_.erase(scanner);
}

bool HBaseScanners::MayRead(int32_t scanner, uint64_t client,
                            std::string_view principal) {
  std::shared_ptr<State> state = Find(scanner);
  if (state == nullptr || state->options.client == client) return true;
  return !state->options.principal.empty() &&
         state->options.principal == principal;
}

void HBaseScanners::RemoveIf(const std::function<bool(int32_t)>& gone) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = scanners_.begin(); it != scanners_.end();) {
    it = gone(it->first) ? scanners_.erase(it) : std::next(it);
  }
}

std::shared_ptr<HBaseScanners::State> HBaseScanners::Find(int32_t scanner) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = scanners_.find(scanner);
  return it == scanners_.end() ? nullptr : it->second;
}

StatusOr<std::vector<ScannerResult>> HBaseScanners::Next(int32_t scanner,
                                                         uint32_t num_rows,
                                                         uint64_t call_seq,
                                                         const Fetch& fetch) {
  std::shared_ptr<State> state = Find(scanner);
  if (state == nullptr) {
    BLOOMROUTE_ASSIGN_OR_RETURN(std::vector<Row> rows,
                                fetch(num_rows, call_seq));
    return WholeRows(std::move(rows));
  }
  std::lock_guard<std::mutex> lock(state->mu);
  BLOOMROUTE_RETURN_IF_ERROR(state->BeginCall(call_seq));
  Position& p = state->now;
  // What was kept goes first; the router is asked only once it is gone,
  // for no more rows than the results asked for (each row is at least
  // one) and the limit allows. numRows 0 asks it too: it checks the id.
  if (p.kept.empty() && (num_rows == 0 || p.rows_left > 0)) {
    const auto ask =
        static_cast<uint32_t>(std::min<uint64_t>(num_rows, p.rows_left));
    const uint64_t seq = call_seq == 0 ? 0 : ++p.router_seq;
    StatusOr<std::vector<Row>> rows = fetch(ask, seq);
    if (!rows.ok()) {
      if (rows.status().IsNotFound()) Remove(scanner);  // expired
      return rows.status();
    }
    p.rows_left -= std::min<uint64_t>(p.rows_left, rows->size());
    // Batches split a row in the order the client sees its cells.
    for (Row& row : *rows) ToHBaseOrder(&row.cells);
    p.kept.assign(std::make_move_iterator(rows->begin()),
                  std::make_move_iterator(rows->end()));
    p.returned_cells = 0;
  }
  return Take(&p, num_rows, state->options.batch_cells);
}

}  // namespace bloomroute::thrift_internal
