// Printing what `bloomroute admin servers` and `admin regions` report, and
// what the region operations, the balancer and a decommission did, as text
// for people or as JSON for scripts.
//
//   table  aligned columns with a header and a total line; row keys escaped
//          as the row commands' table format does (TableField), an empty
//          start or end key shown as "-" (the table's first or last row).
//          A server that did not answer is listed with its error below.
//   json   one object, e.g. (servers)
//            {"servers":[{"id":1,"address":"127.0.0.1:9091",
//              "reachable":true,"regions":2,"regions_not_served":0,
//              "rows":4000,"bytes":524288,"replica_current":true}],
//             "total":{"servers":1,"regions":2,"rows":4000,"bytes":524288}}
//          (regions)
//            {"table":"cities","regions":[{"id":5,"start":"","end":"m",
//              "server_id":1,"server":"127.0.0.1:9091","state":"open",
//              "rows":2000,"row_bytes":262144,"index_bytes":65536}],
//             "total":{"regions":1,"rows":2000,"bytes":327680}}
//          An unreachable server carries "error"; keys are JSON strings
//          (JsonString). Rows are exact; bytes are RocksDB's approximation.
//          In a ZooKeeper cluster each server also has "live" (the table a
//          LIVE column): whether it holds its liveness node.
//
// A region operation (move, split, merge; a balancer's or decommission's
// step) is one line of text,
//   split: region 5 -> 7 [-, g) and 8 [g, m) on server 1 127.0.0.1:9091;
//     300 rows (51000 bytes) copied, switched after 0.090 s, done in
//     0.120 s, writes waited 1.2 ms at the switch (2 catch-up rounds)
// (on one line) or one JSON object,
//   {"operation":"split","from":[5],"regions":[{"id":7,"start":"",
//    "end":"g","server_id":1,"server":"127.0.0.1:9091"},...],
//    "rows_copied":300,"bytes_copied":51000,"catch_up_rounds":2,
//    "switch_micros":1200,"switched_micros":90000,"total_micros":120000}
//
// Quotas (admin quota) are given and printed as HBase's shell writes its
// throttles: "1000req/sec", "50M/sec", "10K/min" (ParseQuotaRate);
//   table  USER TABLE REQUESTS BYTES, "-" for every table or no limit;
//   json   {"quotas":[{"user":"alice","table":"","requests":{"amount":1000,
//           "seconds":1},"bytes":null}]}
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_
#define BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coord/cluster_members.h"
#include "router/router.h"

namespace bloomroute {

std::string FormatServersTable(const std::vector<router::ServerSummary>& s);
std::string FormatServersJson(const std::vector<router::ServerSummary>& s);
std::string FormatRegionsTable(const std::string& table,
                               const std::vector<router::RegionSummary>& r);
std::string FormatRegionsJson(const std::string& table,
                              const std::vector<router::RegionSummary>& r);

// One operation: `kind` ("move", "split", "merge") of regions `from`.
std::string FormatRegionOpText(const std::string& kind,
                               const std::vector<uint64_t>& from,
                               const router::RegionOpResult& r);
std::string FormatRegionOpJson(const std::string& kind,
                               const std::vector<uint64_t>& from,
                               const router::RegionOpResult& r);
// A balancer's or decommission's steps, a line (or object) each.
std::string FormatStepText(const router::BalanceReport::Step& step);
std::string FormatStepJson(const router::BalanceReport::Step& step);
// A balancer run: its steps, then "balanced" or "stopped: ...";
//   {"balanced":true,"failed":false,"stopped":"","steps":[...]}
std::string FormatBalanceText(const router::BalanceReport& report);
std::string FormatBalanceJson(const router::BalanceReport& report);

// A quota's limit from "AMOUNT[UNIT]/PERIOD" or "none". Requests: a count,
// "req" optional ("1000/sec", "1000req/sec"); bytes (`bytes` true): B, K,
// M, G, T or P (powers of 1024, as HBase; "KB", "MB", ... too). The period
// is sec, min, hour or day (s, m, h, d). InvalidArgument saying what is
// accepted.
StatusOr<router::QuotaLimit> ParseQuotaRate(const std::string& text,
                                            bool bytes);
// A limit as ParseQuotaRate reads it ("1000req/sec", "50M/sec"), "-" for
// none.
std::string FormatQuotaRate(const router::QuotaLimit& limit, bool bytes);
std::string FormatQuotasTable(const std::vector<router::Quota>& quotas);
std::string FormatQuotasJson(const std::vector<router::Quota>& quotas);

// admin routers / bloomroute members: the cluster's live routers (election
// order, the serving one first) and region servers (tools/members_command.h
// shows both formats).
std::string FormatMembersText(const coord::ClusterMembers& members);
std::string FormatMembersJson(const coord::ClusterMembers& members);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_
