// AccessControl: who may call what on a TLS port (thrift/server/security.h),
// checked by the frame loop (internal/frame_loop.h) on every request frame
// before the processor decodes a byte of its arguments.
//
// Each request's method name is read from the frame's message header; the
// role it needs comes from the service's table, and a method missing from
// the table needs the service's highest role (kAdmin on the router, kNode on
// region servers), so a method added to an IDL and forgotten here is closed,
// not open. A call the connection's identity may not make is answered at
// once with TIOError "PermissionDenied: <method> needs role <role>; ..." (the
// exception every bloomroute and HBase method declares at field id 1, so
// every client decodes it as a declared error): its arguments are never
// decoded and its handler never runs, so nothing it asked for happens.
//
// Grants (router/grant.h): a client whose role is below what a call needs
// passes when its grants on the call's scope give that role. Only then, for
// a user holding grants, the service's GrantCheck reads the scope (the
// table or namespace the call names) from the frame in place, as the
// generated reader would take it; nothing else is decoded.
//
// RouterService.authenticate(token) is answered here too: the token's hash is
// looked up in the router's token file, and on success the connection takes
// the token's identity for its later calls; on failure it has none.
//
// Why a layer of the loop and not a check in each handler method: one table
// covers every method, including ones added later, and a refused request
// costs no decoding (an unauthenticated client cannot make the server
// allocate for its arguments).
//
// Thread-safety: immutable after creation; Intercept() from any thread.
#ifndef BLOOMROUTE_THRIFT_SERVER_ACCESS_CONTROL_H_
#define BLOOMROUTE_THRIFT_SERVER_ACCESS_CONTROL_H_

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TProtocol.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>

#include "common/statusor.h"
#include "thrift/server/security.h"

namespace bloomroute::thrift_internal {

// The largest request frame of a connection that may call nothing yet:
// room for authenticate (a token of a few dozen bytes) and for a refusal.
inline constexpr uint32_t kMaxUnauthenticatedFrameBytes = 64 << 10;

// What grants give: the router's (thrift/server/grant_check.h).
class GrantCheck {
 public:
  virtual ~GrantCheck() = default;
  // The highest role the grants of `identity`'s user give on the scope of
  // the call to `method` in `frame` (one whole request frame): kNone when
  // the user holds none or the call names no scope. Thread-safe.
  virtual Role GrantedRole(const Identity& identity, const std::string& method,
                           const uint8_t* frame, size_t size) const = 0;
};

class AccessControl {
 public:
  // What Intercept() did with a request.
  enum class Verdict {
    kPass,      // the processor runs it
    kAnswered,  // its reply is written to `out`; the processor must not run
    kClose,     // not a message, or a refused oneway call: close the
                //   connection
  };

  // Region servers: every RegionService call needs Role::kNode.
  static std::shared_ptr<const AccessControl> ForRegionService();
  // The router: RouterService's table (access_control.cc), the tokens of
  // `token_file` ("" for none; format in thrift/server/security.h) and the
  // grants `grants` gives (null: none).
  // InvalidArgument naming the file and line for a malformed file, one over
  // kMaxTokenFileBytes, a token for role "node", or a hash given twice.
  static StatusOr<std::shared_ptr<AccessControl>> ForRouterService(
      const std::string& token_file,
      std::shared_ptr<const GrantCheck> grants = nullptr);
  // The router's Thrift1 port (thrift/hbase1_service.thrift): each method
  // needs the role of its Thrift2 counterpart (access_control.cc); no
  // tokens, since the Thrift1 API has no call to present one with; the
  // grants `grants` gives (null: none), as on the Thrift2 port.
  static std::shared_ptr<const AccessControl> ForHbase1Service(
      std::shared_ptr<const GrantCheck> grants = nullptr);
  // Reads `token_file` again and, when it is valid (as ForRouterService
  // checks it), takes its tokens in place of the old ones: a new token
  // works at once, and a connection authenticated by a token no longer in
  // the file is refused (and closed) at its next call. A bad file changes
  // nothing and is InvalidArgument naming the file and line. Thread-safe
  // with Intercept.
  [[nodiscard]] Status ReloadTokens(const std::string& token_file);

  // Checks the request in `frame` (one whole request frame, without its
  // length) against `*identity`, answering it into `out` when it must not
  // reach the processor. An authenticate call sets `*identity`.
  Verdict Intercept(const uint8_t* frame, size_t size, Identity* identity,
                    apache::thrift::protocol::TProtocol* out) const;

  // The role `method` needs.
  Role Needed(const std::string& method) const;
  // Whether `identity` may make any call of the service (authenticate
  // aside). A connection whose identity may not is held to frames of
  // kMaxUnauthenticatedFrameBytes, to request_timeout_ms of idleness, and is
  // closed after its first refused call (internal/frame_loop.h): an anonymous
  // client cannot hold the request pool, a worker or a connection slot for
  // long.
  bool MayCallAnything(const Identity& identity) const;
  // Whether clients may authenticate by token (the router), so that a TLS
  // client without a certificate is let in to call authenticate.
  bool admits_tokens() const { return admits_tokens_; }
  // How many tokens the router's token file holds.
  size_t token_count() const;
  // The identity a token gives now (its role kNone when it is in no token
  // file): what the router's HTTP endpoint checks a bearer token with.
  Identity IdentityOfToken(const std::string& token) const {
    return TokenIdentity(TokenHash(token));
  }

 private:
  AccessControl(std::map<std::string, Role> needs, Role default_need,
                bool admits_tokens);
  // Whether `identity`'s grants let it make the call in `frame` that needs
  // `need`.
  bool GrantsAllow(const Identity& identity, const std::string& method,
                   Role need, const uint8_t* frame, size_t size) const;

  const std::map<std::string, Role> needs_;
  const Role default_need_;
  using Tokens = std::unordered_map<std::string, Identity>;  // by TokenHash
  static StatusOr<Tokens> ReadTokenFile(const std::string& token_file);
  // The identity `token_hash` gives now; a role-less one when it is gone.
  Identity TokenIdentity(const std::string& token_hash) const;

  const bool admits_tokens_;                  // the service has authenticate()
  std::shared_ptr<const GrantCheck> grants_;  // set once, at creation
  mutable std::shared_mutex tokens_mu_;
  Tokens tokens_;  // guarded by tokens_mu_
};

// A protocol over one request frame (observed in place), to read what a
// layer checks before the processor decodes the call: the request's own, as
// the processors' (compact when its first byte says so, else binary, strict
// or not: internal/wire_transport.h), with strings of at most
// `string_limit` bytes. Skipping an unknown field reads at least a byte per
// element, so the frame bounds what is read.
std::unique_ptr<apache::thrift::protocol::TProtocol> RequestFrameProtocol(
    const uint8_t* frame, size_t size, int32_t string_limit);

// Skips a value of `type` in `in` (a RequestFrameProtocol) in place: a
// string is consumed from the frame without a copy, a container element by
// element (each takes at least a byte, so the frame bounds the loop).
// Throws TException past the frame, for a negative size, a nesting deeper
// than 64 or an element type that takes no byte.
void SkipInPlace(apache::thrift::protocol::TProtocol* in,
                 apache::thrift::protocol::TType type, int depth = 0);

// The role a RouterService method needs (kAdmin for one not listed, as the
// router's AccessControl): what the audit log records is the kAdmin calls.
Role RouterCallRole(const std::string& method);
// The same for the router's Thrift1 port (AccessControl::ForHbase1Service).
Role Hbase1CallRole(const std::string& method);

// A request's message header.
struct CallHeader {
  std::string method;
  apache::thrift::protocol::TMessageType type =
      apache::thrift::protocol::T_CALL;
  int32_t seqid = 0;
};
// Reads it from `in`: false for bytes that are no message or a message
// that is no call (T_CALL or T_ONEWAY).
bool ReadCallHeader(apache::thrift::protocol::TProtocol* in, CallHeader* out);

// Writes the reply of `method` (call `seqid`) that throws TIOError with
// `message` (and canRetry true when `can_retry`): field 1 of every
// bloomroute and HBase method's result.
void WriteIOErrorReply(apache::thrift::protocol::TProtocol* out,
                       const std::string& method, int32_t seqid,
                       const std::string& message, bool can_retry);

// The identity of the call the current thread runs: the frame loop sets it
// (ScopedCaller) around the processor, so that a handler can bound what one
// principal holds (the router's scanners per user). nullptr outside a call
// and on a server without access control (no TLS).
const Identity* CurrentCaller();

class ScopedCaller {
 public:
  explicit ScopedCaller(const Identity* caller);
  ~ScopedCaller();
  ScopedCaller(const ScopedCaller&) = delete;
  ScopedCaller& operator=(const ScopedCaller&) = delete;

 private:
  const Identity* const previous_;
};

}  // namespace bloomroute::thrift_internal

#endif  // BLOOMROUTE_THRIFT_SERVER_ACCESS_CONTROL_H_
