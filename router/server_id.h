// ServerId: a region server as the router names it -- a small dense integer
// assigned by the catalog, never reused for another server. Its network
// address is kept beside it in the catalog.
#ifndef BLOOMROUTE_ROUTER_SERVER_ID_H_
#define BLOOMROUTE_ROUTER_SERVER_ID_H_

#include <cstdint>

namespace bloomroute::router {

using ServerId = uint32_t;

}  // namespace bloomroute::router

#endif  // BLOOMROUTE_ROUTER_SERVER_ID_H_
