// The exceptions every bloomroute service throws, shared by the region server's
// and the router's IDL. Modelled on HBase Thrift2 (hbase.thrift).
//
// TIllegalArgument: the request can never succeed as sent (bad or missing
// field, unknown region, value over a limit, ...). Nothing was written. Not
// worth retrying.
// TIOError: the server failed (storage error, corruption, internal failure).
//
// `message` is always set by bloomroute servers. It starts with the server's
// status code name, e.g. "InvalidArgument: row key is empty" or
// "NotFound: region 7 is not open", so a client can map it back exactly.

namespace cpp bloomroute.rpc
namespace py bloomroute.rpc.errors

// canRetry (as HBase's): set, and true, when the failure was a region server
// or the router not answering (Unavailable): the same call may succeed later.
exception TIOError {
  1: optional string message
  2: optional bool canRetry
}

exception TIllegalArgument {
  1: optional string message
}
