// Server settings from a file: `--config FILE` and `--print-config` for the
// commands that run servers (router, regionserver, local).
//
// The file is Boost.Program_options' config-file format: one `name = value`
// per line, names as the long flags without "--", '#' comments, a repeated
// name for an option that takes several values (regionserver = ...). Flags
// given on the command line override the file, option by option (an option
// that takes several values takes them all from one place); the file
// overrides the defaults. --print-config prints the effective configuration
// in the same format, so that it can be saved as a file and read back.
//
//   PrintConfig(options, vm, std::cout);
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_CONFIG_FILE_H_
#define BLOOMROUTE_TOOLS_CONFIG_FILE_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <ostream>
#include <string>

#include "common/status.h"

namespace bloomroute {

// A config file is read whole: at most this many bytes.
inline constexpr uint64_t kMaxConfigFileBytes = 1 << 20;

// Options the file may not set (they say what to do with it).
bool IsCommandLineOnlyOption(const std::string& name);

// Parses `path` against `options` and stores what it sets into `vm` (values
// already stored from the command line win). InvalidArgument naming the
// file for one that cannot be read, is larger than kMaxConfigFileBytes, names
// an unknown option or one of the command-line-only ones, or holds a bad
// value (the line's option in the message).
Status StoreConfigFile(
    const std::string& path,
    const boost::program_options::options_description& options,
    boost::program_options::variables_map* vm);

// Writes every option of `options` that has a value in `vm` (given or
// defaulted), in declaration order, as `name = value` lines (one per value
// of a list); options without a value are written as comments
// ("# name ="). InvalidArgument naming an option whose value type cannot be
// written (a programming error a test catches) or whose value the format
// cannot hold ('#', a line break, blanks at its ends).
Status PrintConfig(const std::string& command,
                   const boost::program_options::options_description& options,
                   const boost::program_options::variables_map& vm,
                   std::ostream& out);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_CONFIG_FILE_H_
