// `bloomroute local`: a router and N region servers in one process on
// loopback, with all data under one directory -- the embedded default for
// newcomers and tests (tools/local_cluster.h says what runs and where).
//
//   bloomroute local --data DIR --servers N [--port 9090] [--thrift1-port N]
//       [--sync] [--secure] [--block-cache-bytes N] [--memtable-bytes N]
//       [--log-level LEVEL] [--log-file FILE]
//
// On start it prints one line saying where the router listens, e.g.
//   bloomroute local: router on 127.0.0.1:9090, 4 region servers, data in DIR
// (--port 0 picks a free port; the line shows the real one). With
// --thrift1-port N the router also serves HBase's Thrift1 API (happybase's,
// thrift/hbase1_server.h) on 127.0.0.1:N, and a line says where, e.g.
//   bloomroute local: HBase Thrift1 API on 127.0.0.1:9095
// (0 picks a free port). With --secure
// (TLS everywhere, certificates in DIR/certs) a second line says where the
// certificates are and what a client gives, e.g.
//   bloomroute local: TLS on every port, certificates made in DIR/certs;
//   clients: --tls-ca DIR/certs/ca.crt --tls-cert DIR/certs/client.root.crt
//   --tls-key DIR/certs/client.root.key
// (one line; "kept in" on a restart that reused them). Ctrl-C or
// SIGTERM stops the router, then the region servers, closes every store and
// exits 0. The router and the region servers run in this one process, so
// they share one log (stderr, or --log-file's FILE, reopened on SIGHUP);
// each line names its component. Restarting on the same DIR brings back every
// table and row. Bad usage exits 2 with a one-line reason; a start that fails
// (a recorded port now taken, fewer servers than host regions) exits 1 saying
// why.
#ifndef BLOOMROUTE_TOOLS_LOCAL_COMMAND_H_
#define BLOOMROUTE_TOOLS_LOCAL_COMMAND_H_

#include <cstdint>
#include <string>

#include "tools/command.h"
#include "tools/local_cluster.h"
#include "tools/server_command_util.h"

namespace bloomroute {

class LocalCommand : public Command {
 public:
  LocalCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  bool ReadsConfigFile() const override { return true; }
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  LogFlags log_flags_;
  // The table sets their flags' fields; Validate() checks the whole.
  LocalClusterOptions options_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_LOCAL_COMMAND_H_
