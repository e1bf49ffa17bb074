// Server settings from a file: `--config FILE` and `--print-config` for the
// commands that run servers (router, regionserver, local).
//
// The file is Boost.Program_options' config-file format: one `name = value`
// per line, names as the long flags without "--", '#' comments, a repeated
// name for an option that takes several values (regionserver = ...). Its
// keys are the rows of the command's OptionTable (tools/option_table.h), and
// its values are checked as the flags are (OptionTable::Check). Flags
// given on the command line override the file, option by option (an option
// that takes several values takes them all from one place); the file
// overrides the defaults. --print-config prints the effective configuration
// in the same format, so that it can be saved as a file and read back.
//
//   PrintConfig("router", table, std::cout);
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_CONFIG_FILE_H_
#define BLOOMROUTE_TOOLS_CONFIG_FILE_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <ostream>
#include <string>

#include "common/status.h"
#include "tools/option_table.h"

namespace bloomroute {

// A config file is read whole: at most this many bytes.
inline constexpr uint64_t kMaxConfigFileBytes = 1 << 20;

// Parses `path` against `options` (the command's whole description, the
// rows of `table` among them) and stores what it sets into `vm` (values
// already stored from the command line win). InvalidArgument naming the
// file for one that cannot be read, is larger than kMaxConfigFileBytes, names
// an unknown option or one that is not a row of `table` (--help, --config,
// --print-config: given on the command line only), or holds a value that
// does not parse (the line's option in the message).
Status StoreConfigFile(
    const std::string& path,
    const boost::program_options::options_description& options,
    const OptionTable& table, boost::program_options::variables_map* vm);

// Writes every row of `table` (after parsing) that has a value (given or
// defaulted), in table order, as `name = value` lines (one per value of a
// list); rows without a value are written as comments ("# name =").
// InvalidArgument naming a row whose value the format cannot hold ('#', a
// line break, blanks at its ends).
Status PrintConfig(const std::string& command, const OptionTable& table,
                   std::ostream& out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CONFIG_FILE_H_
