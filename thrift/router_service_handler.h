// RouterServiceHandler: implements the generated rpc::client::RouterServiceIf
// by calling a router::Router.
//
// Each call converts its request (router_types_conversion.h), calls the
// router and converts the result. Every failure leaves through one function
// (thrift/internal/serve_call.h): a failed Status becomes TIllegalArgument
// (InvalidArgument, NotFound: a bad request, an unknown table or scanner) or
// TIOError (Unavailable naming the region server, IOError, Corruption), and
// any other exception (std::bad_alloc, a library error) becomes TIOError, so
// nothing but the two declared exceptions ever reaches the client and the
// connection stays usable.
//
// Scanners belong to a router::ScannerClient: the handler's. A server makes
// one handler per connection (RouterServiceHandlerFactory), so each
// connection's scanners are its own and are closed with it.
//
// Thread-safety: the handler holds no state but its client id; calls may
// run concurrently because the Router's may.
#ifndef BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_
#define BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_

#include <memory>
#include <string>
#include <vector>

#include "router/router.h"
#include "thrift/gen-cpp/RouterService.h"

namespace bloomroute {

class RouterServiceHandler : public rpc::client::RouterServiceIf {
 public:
  // `router` must not be null; the handler shares its ownership. Scanner
  // calls are made as `client`.
  explicit RouterServiceHandler(
      std::shared_ptr<router::Router> router,
      router::ScannerClient client = router::kLocalScannerClient);
  RouterServiceHandler(const RouterServiceHandler&) = delete;
  RouterServiceHandler& operator=(const RouterServiceHandler&) = delete;

  router::ScannerClient client() const { return client_; }

  // Reached only on a server without TLS (with TLS the connection layer
  // answers it, thrift/internal/access_control.h): PermissionDenied, since
  // a token must not cross the network in the clear, and without TLS every
  // caller may call everything anyway.
  void authenticate(const std::string& token) override;
  void createTable(rpc::client::TTableInfo& result,
                   const rpc::client::TTableSpec& spec) override;
  void deleteTable(const std::string& table) override;
  void listTables(std::vector<rpc::client::TTableDescriptor>& result) override;
  void describeTable(rpc::client::TTableInfo& result,
                     const std::string& table) override;

  void put(const std::string& table, const rpc::client::TPut& tput) override;
  void putMultiple(const std::string& table,
                   const std::vector<rpc::client::TPut>& puts) override;
  void get(rpc::client::TResult& result, const std::string& table,
           const rpc::client::TGet& tget) override;
  void getMultiple(std::vector<rpc::client::TResult>& result,
                   const std::string& table,
                   const std::vector<rpc::client::TGet>& gets) override;
  void deleteSingle(const std::string& table,
                    const rpc::client::TDelete& tdelete) override;
  void deleteMultiple(
      const std::string& table,
      const std::vector<rpc::client::TDelete>& deletes) override;

  int64_t openScanner(const std::string& table,
                      const rpc::client::TScan& tscan) override;
  void getScannerRows(std::vector<rpc::client::TResult>& result,
                      int64_t scanner_id, int32_t num_rows,
                      int64_t call_seq) override;
  void closeScanner(int64_t scanner_id) override;

  void getByIndex(rpc::client::TIndexResult& result, const std::string& table,
                  const rpc::client::TIndexQuery& tquery) override;
  void getByIndexMultiple(
      std::vector<rpc::client::TIndexResult>& result, const std::string& table,
      const std::vector<rpc::client::TIndexQuery>& queries) override;

  void getIndexStats(
      std::vector<rpc::client::TServerIndexStats>& result) override;
  void getClusterStatus(rpc::client::TClusterStatus& result) override;
  void bulkLoad(const std::string& table, int64_t region_id,
                const std::string& file) override;
  void verifyIndex(rpc::client::TVerifyReport& result,
                   const std::string& table) override;

 private:
  const std::shared_ptr<router::Router> router_;
  const router::ScannerClient client_;
};

// One handler per connection, each a new ScannerClient; releasing a handler
// (its connection closed) closes that client's scanners. Thread-safe.
class RouterServiceHandlerFactory : public rpc::client::RouterServiceIfFactory {
 public:
  // `router` must not be null.
  explicit RouterServiceHandlerFactory(std::shared_ptr<router::Router> router);

  rpc::client::RouterServiceIf* getHandler(
      const apache::thrift::TConnectionInfo& connection) override;
  void releaseHandler(rpc::client::RouterServiceIf* handler) override;

 private:
  const std::shared_ptr<router::Router> router_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_THRIFT_ROUTER_SERVICE_HANDLER_H_
