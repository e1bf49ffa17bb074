// ImportInput: the input of `bloomroute import`, a file or standard input
// ("-"), made readable as many times as the import needs.
//
// Creating a table reads the input twice: a first pass samples row keys for
// the split points (split_keys.h), the second imports. A regular file is
// simply opened twice. Anything else (standard input, a pipe, a FIFO, a
// terminal) can be read only once, so when a second pass is asked for, the
// input is first copied ("spooled") to a temporary file, at most
// `max_spool_bytes` of it, and both passes read the copy. The copy is removed
// when the ImportInput is destroyed (also on every error path); an interrupt
// (interrupt.h) stops the copy.
//
// Example:
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<ImportInput> input,
//       ImportInput::Open("-", /*passes=*/2, 16ull << 30));
//   auto first = input->OpenReader(reader_options);   // sampling
//   auto second = input->OpenReader(reader_options);  // the import
//
// Thread-safety: none.
#ifndef BLOOMROUTE_TOOLS_IMPORT_IMPORT_INPUT_H_
#define BLOOMROUTE_TOOLS_IMPORT_IMPORT_INPUT_H_

#include <cstdint>
#include <memory>
#include <string>

#include "common/statusor.h"
#include "tools/import/record_reader.h"

namespace bloomroute {

class ImportInput {
 public:
  // The name that means standard input.
  static constexpr const char* kStandardInput = "-";

  // Opens `path` ("-" = standard input) for `passes` readings (1 or 2).
  // Errors: IOError naming the input when it cannot be opened, read or
  // copied; InvalidArgument naming --max-spool-bytes when a copy would be
  // larger than `max_spool_bytes`; Aborted when interrupted while copying.
  static StatusOr<std::unique_ptr<ImportInput>> Open(const std::string& path,
                                                     int passes,
                                                     uint64_t max_spool_bytes);
  ~ImportInput();
  ImportInput(const ImportInput&) = delete;
  ImportInput& operator=(const ImportInput&) = delete;

  // A reader from the input's start. At most `passes` readers (as Open was
  // told) may be opened; IOError when the input cannot be opened again.
  StatusOr<std::unique_ptr<RecordReader>> OpenReader(
      const RecordReaderOptions& options);

  // The input's size in bytes when known (a regular file or a copy), else 0.
  uint64_t size() const { return size_; }
  // True when the input was copied to a temporary file.
  bool spooled() const { return !spool_path_.empty(); }

 private:
  ImportInput() = default;
  Status Spool(uint64_t max_spool_bytes);

  std::string path_;        // what the user gave
  std::string spool_path_;  // the copy, removed with this object; "" = none
  uint64_t size_ = 0;
  int readers_left_ = 0;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_IMPORT_IMPORT_INPUT_H_
