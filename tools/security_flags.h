// The TLS and token options of the command line, shared by the server
// commands (ServerFlags, server_command_util.h) and the client commands
// (RouterConnectionFlags, client_command_util.h). What TLS, roles and tokens
// mean is thrift/server/security.h's; this file only turns flags into
// TlsOptions and a token, checking at start what can be checked without the
// network: that the flags go together and that the files they name can be read.
//
// Example:
//   TlsFlags tls(TlsFlags::Side::kClient);  // in AddOptions: tls.Add(o);
//   StatusOr<TlsOptions> options = tls.ToOptions();  // in Validate()
#ifndef BLOOMROUTE_TOOLS_SECURITY_FLAGS_H_
#define BLOOMROUTE_TOOLS_SECURITY_FLAGS_H_

#include <boost/program_options.hpp>
#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"
#include "common/statusor.h"
#include "thrift/server/security.h"
#include "tools/option_table.h"

namespace bloomroute {

// OK when `path` names a file (not a directory) this process may open for
// reading; nothing is read. Otherwise InvalidArgument
// "<option> <path>: cannot read it: <reason>".
Status CheckReadableFile(std::string_view option, const std::string& path);

// The most a client's token file (--token-file) may hold, in bytes. A token
// is one line of 2 * kTokenBytes hex digits; the bound is far above that and
// is not an option.
inline constexpr size_t kMaxClientTokenFileBytes = 4096;

// The token in a client's token file: its first line without trailing
// whitespace. Reads at most kMaxClientTokenFileBytes + 1 bytes.
// InvalidArgument "--token-file <path>: ..." when the file cannot be read,
// holds more than kMaxClientTokenFileBytes bytes, or its first line is
// empty.
StatusOr<std::string> ReadClientToken(const std::string& path);

// --tls-ca FILE, --tls-cert FILE, --tls-key FILE: a server's TLS files or a
// client's (a server needs all three; a client a CA, with a certificate and
// key or without).
class TlsFlags {
 public:
  enum class Side { kServer, kClient };
  explicit TlsFlags(Side side) : side_(side) {}

  // Declares the three options (a server's four, with --tls-crl), one help
  // line each: on a description (the client commands), or as rows of a
  // command's table (the server commands, whose config files name them).
  void Add(boost::program_options::options_description* o);
  void Add(OptionTable* table);
  // Whether any of the three was given.
  bool any() const;
  // The TlsOptions given (all empty when none): InvalidArgument naming the
  // missing option when they do not go together for this side
  // (TlsOptions::ValidateForServer / ValidateForClient), or as
  // CheckReadableFile for a file that cannot be read.
  StatusOr<TlsOptions> ToOptions() const;

 private:
  const Side side_;
  TlsOptions given_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_SECURITY_FLAGS_H_
