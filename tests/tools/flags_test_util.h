// Test helpers for the command line's option classes (ServerFlags,
// TlsFlags, ClientFlags, ...): parse argv-style arguments into one, as
// Command::Run does, and write small files.
#ifndef BLOOMROUTE_TESTS_TOOLS_FLAGS_TEST_UTIL_H_
#define BLOOMROUTE_TESTS_TOOLS_FLAGS_TEST_UTIL_H_

#include <boost/program_options.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "common/status.h"
#include "tools/option_table.h"

namespace bloomroute::testing {

// Declares `flags`' options (flags.Add) and parses `args` into them; throws
// as Boost.Program_options does for an unknown option or a missing value.
template <typename Flags>
void ParseFlags(Flags& flags, const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  po::options_description options;
  flags.Add(&options);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
}

// Declares `flags`' rows in a table (flags.Add(&table)), parses `args` into
// them and runs the table's checks, as Command::Run does: the checks'
// Status (the targets are set when OK). Throws as ParseFlags does.
template <typename Flags>
Status ParseTableFlags(Flags& flags, const std::vector<std::string>& args) {
  namespace po = boost::program_options;
  OptionTable table;
  flags.Add(&table);
  po::options_description options;
  table.AddTo(&options);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(options).run(), vm);
  po::notify(vm);
  return table.Check();
}

// Writes `text` to `path` and returns the path.
inline std::string WriteFile(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_TOOLS_FLAGS_TEST_UTIL_H_
