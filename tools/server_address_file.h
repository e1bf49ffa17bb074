// The region servers' addresses of a `bloomroute local` directory.
//
// The router's catalog names region servers by address, so a local cluster
// must give its region servers the same addresses on every start. The ports
// are chosen by the kernel on the first start (port 0) and recorded here, one
// address per line, in server order:
//
//   bloomroute region server addresses v1
//   127.0.0.1:41233
//   127.0.0.1:38117
//   checksum 5f0e3a1b2c4d6e7f
//
// The last line is the XXH3-64 (seed 0) of every byte before it, in hex. The
// file is small text so that a person can read it; it carries a version and
// a checksum like everything bloomroute persists.
//
// Thread-safety: the functions are reentrant; callers serialize writers.
#ifndef BLOOMROUTE_TOOLS_SERVER_ADDRESS_FILE_H_
#define BLOOMROUTE_TOOLS_SERVER_ADDRESS_FILE_H_

#include <string>
#include <vector>

#include "common/status.h"
#include "common/statusor.h"

namespace bloomroute {

// The addresses in the file at `path`. NotFound when there is no file;
// Corruption naming the file for a wrong header or version, a checksum that
// does not match, or a line that is not HOST:PORT; IOError when it cannot be
// read.
StatusOr<std::vector<std::string>> ReadServerAddresses(const std::string& path);

// Replaces the file at `path` with `addresses` (each HOST:PORT) atomically: a
// reader sees the old file or the new one, also after a crash (written to a
// temporary file, synced, renamed over, and the directory synced).
// InvalidArgument for an address that is not HOST:PORT; IOError otherwise.
Status WriteServerAddresses(const std::string& path,
                            const std::vector<std::string>& addresses);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_SERVER_ADDRESS_FILE_H_
