// The bulk sink: rows are grouped by region in memory, and each full buffer
// becomes sorted bulk files, one region at a time per worker, sent with
// RouterClient::BulkLoad. Loads run in file order per region, and a region
// server applies a load as puts, so a key imported twice ends with its last
// line's columns, as with the online sink.
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "regionstore/bulk_file.h"
#include "thrift/router_client.h"
#include "tools/import/interrupt.h"
#include "tools/import/row_sink.h"

namespace bloomroute {
namespace {

// Bytes a buffered row costs, about (its bytes and the map's overhead).
size_t RowBytes(const std::string& key, const std::vector<Cell>& cells) {
  size_t n = key.size() + 64;
  for (const Cell& c : cells) n += c.column.size() + c.value.size() + 64;
  return n;
}

// Adds or overwrites the given columns of a buffered row, as a put does.
void PutCells(std::vector<Cell> cells, std::vector<Cell>* row) {
  for (Cell& c : cells) {
    auto it = std::find_if(row->begin(), row->end(), [&](const Cell& have) {
      return have.column == c.column;
    });
    if (it != row->end()) {
      it->value = std::move(c.value);
    } else {
      row->push_back(std::move(c));
    }
  }
}

class BulkSink final : public RowSink {
 public:
  BulkSink(RouterClient* client, std::string table, router::TableInfo info,
           const BulkSinkOptions& options, std::string dir)
      : client_(client),
        table_(std::move(table)),
        info_(std::move(info)),
        options_(options),
        dir_(std::move(dir)),
        buffers_(info_.regions.size()),
        rows_in_(info_.regions.size(), 0) {}

  ~BulkSink() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  Status Write(std::vector<Mutation> batch) override {
    if (!failure_.ok()) return failure_;
    for (Mutation& m : batch) {
      const size_t region = RegionOf(m.row_key);
      const size_t bytes = RowBytes(m.row_key, m.cells);
      auto it = buffers_[region].try_emplace(std::move(m.row_key)).first;
      PutCells(std::move(m.cells), &it->second);
      ++rows_in_[region];
      buffered_bytes_ += bytes;
    }
    if (buffered_bytes_ >= options_.buffer_bytes) Flush();
    return failure_;
  }

  Status Finish() override {
    // After an interrupt the buffered rows are dropped, not sent.
    if (failure_.ok() && ImportInterrupted()) failure_ = InterruptedStatus();
    if (failure_.ok()) Flush();
    return failure_;
  }

  uint64_t rows_written() const override { return rows_written_; }

 private:
  // The region holding `key`: the last one starting at or before it.
  size_t RegionOf(const std::string& key) const {
    const auto& regions = info_.regions;
    auto it = std::upper_bound(
        regions.begin(), regions.end(), key,
        [](const std::string& k, const router::RegionLocation& r) {
          return k < r.region.start_key;
        });
    return it == regions.begin() ? 0 : (it - regions.begin()) - 1;
  }

  // Sends every buffered region, `in_flight` regions at a time, and empties
  // the buffer.
  void Flush() {
    std::atomic<size_t> next{0};
    std::mutex mu;
    Status first;  // guarded by mu
    auto work = [&] {
      for (size_t r = next++; r < buffers_.size(); r = next++) {
        Status s = ImportInterrupted() ? InterruptedStatus() : SendRegion(r);
        std::lock_guard<std::mutex> lock(mu);
        if (!s.ok() && first.ok()) first = s;
        if (!first.ok()) return;
      }
    };
    std::vector<std::thread> workers;
    for (uint32_t i = 1; i < options_.in_flight; ++i)
      workers.emplace_back(work);
    work();
    for (std::thread& t : workers) t.join();
    for (auto& b : buffers_) b.clear();
    std::fill(rows_in_.begin(), rows_in_.end(), 0);
    buffered_bytes_ = 0;
    if (!first.ok()) failure_ = first;
  }

  // One region's buffered rows as files of at most file_bytes (about) and
  // file_rows rows.
  Status SendRegion(size_t r) {
    const uint64_t region_id = info_.regions[r].region.region_id;
    auto row = buffers_[r].begin();
    for (int part = 0; row != buffers_[r].end(); ++part) {
      const std::string path = dir_ + "/region-" + std::to_string(region_id) +
                               "-" + std::to_string(part) + ".sst";
      if (ImportInterrupted()) return InterruptedStatus();
      BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<BulkFileWriter> writer,
                                  BulkFileWriter::Create(path));
      // A row that would take the file past file_bytes starts the next one
      // (a file holds at least one row), so a file stays within a region
      // server's limit even when its last row is large.
      for (; row != buffers_[r].end() &&
             (writer->rows() == 0 ||
              (writer->EstimatedBytes() + RowBytes(row->first, row->second) <=
                   options_.file_bytes &&
               writer->rows() < options_.file_rows));
           ++row) {
        Status s = writer->Add(row->first, row->second);
        if (!s.ok()) return s.WithContext("bulk file");
      }
      std::string bytes;
      BLOOMROUTE_RETURN_IF_ERROR(writer->FinishAndRead(&bytes));
      std::error_code ignored;
      std::filesystem::remove(path, ignored);
      BLOOMROUTE_RETURN_IF_ERROR(client_->BulkLoad(table_, region_id, bytes));
    }
    // Counted as the online sink counts: rows given, repeated keys too.
    rows_written_ += rows_in_[r];
    return Status::OK();
  }

  RouterClient* const client_;
  const std::string table_;
  const router::TableInfo info_;
  const BulkSinkOptions options_;
  const std::string dir_;  // removed with the sink
  // Per region (as info_.regions), the rows by key. Touched by Write and by
  // Flush's workers, never at once (Write and Finish run on one thread).
  std::vector<std::map<std::string, std::vector<Cell>>> buffers_;
  std::vector<uint64_t> rows_in_;  // rows given per region, as buffers_
  size_t buffered_bytes_ = 0;
  std::atomic<uint64_t> rows_written_{0};
  Status failure_;  // the first failure; only the driver's thread sets it
};

}  // namespace

StatusOr<std::unique_ptr<RowSink>> NewBulkSink(RouterClient* client,
                                               std::string table,
                                               const BulkSinkOptions& options) {
  if (options.in_flight < 1 || options.file_bytes < 1 ||
      options.file_rows < 1 || options.buffer_bytes < 1) {
    return Status::InvalidArgument("bulk sink options must be positive");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(router::TableInfo info,
                              client->DescribeTable(table));
  if (info.regions.empty()) {
    return Status::Corruption("table " + table + " has no regions");
  }
  std::error_code ec;
  const std::filesystem::path tmp = std::filesystem::temp_directory_path(ec);
  if (ec) return Status::IOError("no temporary directory: " + ec.message());
  std::string dir = (tmp / "bloomroute-bulk-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    return Status::IOError("cannot create a directory for bulk files");
  }
  return std::unique_ptr<RowSink>(std::make_unique<BulkSink>(
      client, std::move(table), std::move(info), options, std::move(dir)));
}

}  // namespace bloomroute
