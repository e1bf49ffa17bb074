// Printing what `bloomroute admin servers` and `admin regions` report, as a
// table for people or as JSON for scripts.
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
//
// Thread-safety: pure functions.
#ifndef BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_
#define BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_

#include <string>
#include <vector>

#include "router/router.h"

namespace bloomroute {

std::string FormatServersTable(const std::vector<router::ServerSummary>& s);
std::string FormatServersJson(const std::vector<router::ServerSummary>& s);
std::string FormatRegionsTable(const std::string& table,
                               const std::vector<router::RegionSummary>& r);
std::string FormatRegionsJson(const std::string& table,
                              const std::vector<router::RegionSummary>& r);

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_ADMIN_FORMAT_H_
