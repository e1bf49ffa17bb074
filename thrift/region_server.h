// RegionServer: a RegionStore served over Thrift (RegionService).
//
// Transport and limits. Framed transport and the binary protocol (strict,
// as the other Thrift libraries send it). A frame larger than
// max_frame_bytes is refused before anything is allocated for it, and the
// connection is closed; so is a frame that ends early or is not a valid
// message. A string is at most a frame; a list or map at most
// kMaxContainerElements entries, which bounds what a small frame can make
// the server allocate. Requests that decode but break a rule (missing field,
// negative id, empty row key, value over the limit, ...) are answered with
// TIllegalArgument and the connection stays open.
//
// Threads. A TThreadPoolServer: each connection is served by one worker of a
// pool of `threads`; at most `threads` connections are open at once and
// further ones wait in the listen backlog until a worker is free. A
// connection that sends nothing for idle_timeout_ms is closed, so idle or
// stalled clients cannot hold the workers forever. (Blocking workers keep the
// store's per-call latency simple to reason about; the router keeps a few
// long-lived connections per region server, not thousands.)
//
// Example:
//   RegionServerOptions options;
//   options.port = 0;  // any free port
//   auto server = RegionServer::Start(store, options);
//   if (!server.ok()) return server.status();
//   std::cout << "listening on port " << (*server)->port() << "\n";
//   ...
//   (*server)->Stop();
//
// Thread-safety: Stop() and the accessors may be called from any thread.
#ifndef BLOOMROUTE_THRIFT_REGION_SERVER_H_
#define BLOOMROUTE_THRIFT_REGION_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/statusor.h"
#include "regionstore/region_store.h"

namespace bloomroute {

struct RegionServerOptions {
  static constexpr uint32_t kMaxThreads = 1024;
  static constexpr uint32_t kMinFrameBytes = 1 << 16;
  static constexpr uint32_t kMaxFrameBytes = 1 << 30;
  static constexpr int32_t kMaxContainerElements = 100000;  // kMaxRowsPerCall

  std::string host = "127.0.0.1";  // loopback unless asked otherwise
  int port = 9091;                 // 0 = any free port; see port()
  uint32_t threads = 16;           // workers = connections served at once
  // The largest request frame. The default holds a batch of several
  // maximum-size rows (RegionStoreOptions::max_row_bytes is 16 MiB).
  uint32_t max_frame_bytes = 64 << 20;
  int idle_timeout_ms = 300000;  // close a connection silent this long

  // InvalidArgument naming the first field out of range.
  Status Validate() const;
};

// Parses "HOST:PORT" (an IPv4 address, a host name, or "[IPv6]") into `host`
// and `port`. InvalidArgument with the reason for anything else, including a
// port above 65535.
Status ParseListenAddress(std::string_view address, std::string* host,
                          int* port);

class RegionServer {
 public:
  // Binds host:port, then serves `store` (not null) on a background thread.
  // InvalidArgument for bad options, IOError when the address cannot be bound.
  static StatusOr<std::unique_ptr<RegionServer>> Start(
      std::shared_ptr<RegionStore> store, const RegionServerOptions& options);
  // Stops the server if it still runs.
  ~RegionServer();
  RegionServer(const RegionServer&) = delete;
  RegionServer& operator=(const RegionServer&) = delete;

  const std::string& host() const;
  // The bound port (the one chosen when options.port was 0).
  int port() const;

  // Stops accepting, interrupts the open connections, waits for the calls in
  // progress to finish and for the workers to exit, and releases the server's
  // share of the store. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit RegionServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_REGION_SERVER_H_
