// The RPC RegionClient: router/region_client.h over Thrift RegionService.
//
// Connect() gives one client per region server; the router shares it between
// all its threads. Nothing is opened until the first call. Each call takes an
// idle connection from the client's pool, or opens a new one (framed
// transport and binary protocol, as RegionServer speaks: thrift_server.h),
// makes the call, and puts the connection back when the call completed: with
// a result or a declared server error (TIllegalArgument, TIOError). After any
// other failure the connection may hold half a message, so it is closed and
// never reused. An idle connection the server has closed meanwhile (its idle
// timeout, a restart) is noticed and discarded before a call would use it
// (one the server closes just as a call starts on it fails: Unavailable).
// At most max_idle_connections connections are kept idle; as many are open
// as calls are in progress. (RegionServer serves `threads` connections at
// once: more concurrent calls than that wait in its listen backlog, and fail
// with Unavailable when they wait longer than the call timeout.)
//
// Errors: the one place where Thrift exceptions become Status.
//   Unavailable      the server did not answer: connect refused or timed out,
//                    no reply within call_timeout_ms, the connection dropped,
//                    or a reply frame over max_frame_bytes. The message names
//                    the server and call, e.g. "region server 127.0.0.1:9092:
//                    scan: connect() failed: Connection refused". A call that
//                    timed out may or may not have taken effect.
//   server's Status  a TIllegalArgument / TIOError reply carries the server's
//                    Status (status_conversion.h), restored with its code and
//                    message: InvalidArgument, NotFound, Corruption, IOError,
//                    Unavailable (InvalidArgument / IOError respectively when
//                    the message names no code).
//   InvalidArgument  the request cannot be sent: a number that does not fit
//                    the wire type, or a request frame over max_frame_bytes
//                    (a server with a smaller limit drops the connection:
//                    Unavailable). Nothing was sent.
//   IOError          a reply that does not decode or would decode past
//                    max_decoded_bytes, or any other failure (e.g.
//                    TApplicationException); the connection is dropped.
//   Corruption       a reply that decodes but holds what no server can send
//                    (conversion/region_conversion.h).
//
// Timeouts. Connecting waits at most connect_timeout_ms; after that, each
// wait to send or to receive part of the reply waits at most
// call_timeout_ms (a server that answers in time but trickles a huge reply
// can take longer in total), or long_call_timeout_ms for the calls that
// read or delete a whole region or server: VerifyIndex and DropRegion.
//
// Thread-safety: the factory and every client method may be called
// concurrently; a client must outlive the calls made on it.
//
// Example:
//   ThriftClientOptions options;
//   options.call_timeout_ms = 5000;
//   std::shared_ptr<router::RegionClientFactory> factory =
//       NewThriftRegionClientFactory(options);
//   auto client = factory->Connect(server_id, "10.0.0.7:9091");
//   if (!client.ok()) return client.status();  // a malformed address
//   StatusOr<FilterSnapshot> snapshot = (*client)->Snapshot();
#ifndef BLOOMROUTE_THRIFT_THRIFT_REGION_CLIENT_H_
#define BLOOMROUTE_THRIFT_THRIFT_REGION_CLIENT_H_

#include <cstdint>
#include <memory>

#include "common/status.h"
#include "router/region_client.h"
#include "thrift/server/security.h"

namespace bloomroute {

struct ThriftClientOptions {
  static constexpr uint32_t kMaxIdleConnections = 1024;

  int connect_timeout_ms = 2000;  // per connection attempt
  int call_timeout_ms = 30000;    // per wait to send or receive
  // The same for VerifyIndex and DropRegion, which read or delete all a
  // server or region stores (verify: minutes for millions of rows).
  int long_call_timeout_ms = 600000;
  // The largest frame sent or accepted, in [ServerOptions::kMinFrameBytes,
  // kMaxFrameBytes] (thrift_server.h). The default holds a reply of the
  // server's whole result budget (RegionStoreOptions::max_result_bytes,
  // 32 MiB) with room for the encoding.
  uint32_t max_frame_bytes = 64 << 20;
  // Idle connections kept per server, in [0, kMaxIdleConnections]; 0 opens
  // a connection for every call.
  uint32_t max_idle_connections = 16;
  // The decoded-size budget of one reply, in bytes (as a server's for a
  // request, thrift_server.h): 0 for the default,
  // ServerOptions::kDecodedBytesPerFrameByte * max_frame_bytes; otherwise in
  // [max_frame_bytes, ServerOptions::kMaxDecodedBytes]. A reply is untrusted
  // too: a few bytes claiming 2^28 entries would otherwise be decoded into
  // tens of gigabytes. A reply over it fails the call with IOError naming
  // the budget and --max-decoded-bytes.
  uint64_t max_decoded_bytes = 0;
  // Bytes of one bits-only filter snapshot (SnapshotImage), at most: an
  // image over it is refused after its first page with IOError naming it
  // (router/region_client.h, AssembleFilterImage). The image is held in
  // memory while it is assembled.
  uint64_t max_filter_image_bytes = uint64_t{1} << 30;
  // TLS to the server (thrift/server/security.h): off when tls.enabled() is
  // false. With a certificate and key, the client presents them (a router to
  // its region servers presents its node certificate).
  TlsOptions tls;
  // A bearer token the router checks on each new connection
  // (RouterService.authenticate); empty for none. Only for the router's
  // client, and only with TLS.
  std::string token;

  // The budget in effect (resolves the default).
  uint64_t DecodedBudget() const;

  // InvalidArgument naming the first field out of range.
  Status Validate() const;
};

// Makes every Thrift client of this process (the router's region server
// clients, RouterClient) read its TLS files again -- the CA's revocation
// list (--tls-crl) among them -- before its next new connection, and close
// its idle ones: a server whose certificate was revoked since fails the
// next handshake. Files that no longer load keep the old ones. `bloomroute
// router` calls it on SIGHUP. Any thread.
void ReloadClientTlsFiles();

// A factory whose Connect(server, "HOST:PORT") returns a client for that
// address (HOST an IPv4 address, a host name, or "[IPv6]"; see
// ParseListenAddress in thrift_server.h) without connecting. Connect returns
// InvalidArgument for a malformed address or when `options` fail Validate().
// The options are copied.
std::shared_ptr<router::RegionClientFactory> NewThriftRegionClientFactory(
    const ThriftClientOptions& options);

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_THRIFT_REGION_CLIENT_H_
