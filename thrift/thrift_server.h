// ThriftServer: the one piece of server code behind every bloomroute Thrift
// service (RegionServer, RouterServer): it serves a TProcessor on a bound
// address until stopped. A service's server derives from it and only makes
// the processor; ServerOptions configures them all.
//
// Transport and limits. Framed transport and the binary protocol (strict, as
// the other Thrift libraries send it). A frame larger than max_frame_bytes is
// refused before anything is allocated for it, and the connection is closed;
// so is a frame that ends early or is not a valid message. A string is at most
// a frame; a list or map at most kMaxContainerElements entries, which bounds
// what a small frame can make the server allocate. Requests that decode but
// break a rule (missing field, negative id, empty row key, ...) are answered
// with TIllegalArgument and the connection stays open.
//
// Threads. A TThreadPoolServer: each connection is served by one worker of a
// pool of `threads`; at most `threads` connections are open at once and
// further ones wait in the listen backlog until a worker is free. A connection
// that sends nothing for idle_timeout_ms is closed, so idle or stalled clients
// cannot hold the workers forever. (Blocking workers keep the per-call latency
// simple to reason about; a router keeps a few long-lived connections per
// region server, and clients of the router are expected to pool theirs.)
//
// Start-up binds before it returns, so a bind failure is its error and port 0
// is resolved to the real port; serving then runs on a background thread.
//
// This header names Thrift's TProcessor and TProcessorFactory only by forward
// declarations, so the servers' headers can be included outside thrift/.
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_THRIFT_SERVER_H_
#define BLOOMROUTE_THRIFT_THRIFT_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/status.h"

namespace apache::thrift {
class TProcessor;
class TProcessorFactory;
}  // namespace apache::thrift

namespace bloomroute {

struct ServerOptions {
  static constexpr uint32_t kMaxThreads = 1024;
  static constexpr uint32_t kMinFrameBytes = 1 << 16;
  static constexpr uint32_t kMaxFrameBytes = 1 << 30;
  static constexpr int32_t kMaxContainerElements = 100000;  // kMaxRowsPerCall

  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 0;                    // 0 = any free port; see the server's port()
  uint32_t threads = 16;           // workers = connections served at once
  // The largest request frame. The default holds a batch of several
  // maximum-size rows (RegionStoreOptions::max_row_bytes is 16 MiB).
  uint32_t max_frame_bytes = 64 << 20;
  int idle_timeout_ms = 300000;  // close a connection silent this long

  // InvalidArgument naming the first field out of range (the host must be an
  // IP address or a host name).
  Status Validate() const;
};

// Parses "HOST:PORT" (an IPv4 address, a host name, or "[IPv6]") into `host`
// and `port`. InvalidArgument with the reason for anything else, including a
// port above 65535.
Status ParseListenAddress(std::string_view address, std::string* host,
                          int* port);

// "host:port", with an IPv6 host in brackets ("[::1]:9090"): what
// ParseListenAddress accepts.
std::string FormatHostPort(const std::string& host, int port);

class ThriftServer {
 public:
  // Stops the server if it still runs.
  virtual ~ThriftServer();
  ThriftServer(const ThriftServer&) = delete;
  ThriftServer& operator=(const ThriftServer&) = delete;

  const std::string& host() const;
  // The bound port (the one chosen when options.port was 0).
  int port() const;

  // Stops accepting, interrupts the open connections, waits for the calls in
  // progress to finish and for the workers to exit, and releases the
  // processor (and with it the handler and what the handler holds).
  // Idempotent.
  void Stop();

 protected:
  ThriftServer();
  // Binds options.host:options.port and serves `processor` (not null) on a
  // background thread. `name` ("RegionServer") prefixes the rare message
  // logged when serving fails after start. Call once, from the derived
  // class's factory. InvalidArgument for bad options, IOError when the
  // address cannot be bound.
  Status Serve(std::shared_ptr<apache::thrift::TProcessor> processor,
               const ServerOptions& options, std::string name);
  // The same with a processor (and handler) per connection: the factory's
  // getProcessor when a connection opens, its release when it closes.
  Status Serve(std::shared_ptr<apache::thrift::TProcessorFactory> processors,
               const ServerOptions& options, std::string name);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_THRIFT_SERVER_H_
