// RouterServiceHandler's HBase grant and revoke (router/grant.h has the
// rules; the router's AccessControl checks who may call them, and applies
// the grants, before a call is decoded).
#include <string>
#include <utility>

#include "router/grant.h"
#include "thrift/internal/serve_call.h"
#include "thrift/router_service_handler.h"

namespace bloomroute {

namespace client = rpc::client;
using thrift_internal::ServeHBaseCall;

namespace {

// The grant `info` names, checked (router::MakeGrant).
StatusOr<router::Grant> GrantFromThrift(
    const client::TAccessControlEntity& info) {
  if (info.scope == client::TPermissionScope::NAMESPACE) {
    if (!info.__isset.nsName) {
      return Status::InvalidArgument("a NAMESPACE grant needs nsName");
    }
    return router::MakeGrant(info.username, info.nsName, "", info.actions);
  }
  if (info.scope != client::TPermissionScope::TABLE) {
    return Status::InvalidArgument("scope " + std::to_string(info.scope) +
                                   " is neither TABLE nor NAMESPACE");
  }
  if (!info.__isset.tableName || info.tableName.empty()) {
    return Status::InvalidArgument("a TABLE grant needs tableName");
  }
  return router::MakeGrant(info.username, "", info.tableName, info.actions);
}

}  // namespace

bool RouterServiceHandler::grant(const client::TAccessControlEntity& info) {
  ServeHBaseCall("grant", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const router::Grant g, GrantFromThrift(info));
    if (g.actions.empty()) {
      return Status::InvalidArgument("grant names no action (R, W, X, C, A)");
    }
    return router_->ChangeGrant(g, router::GrantChange::kGrant);
  });
  return true;
}

bool RouterServiceHandler::revoke(const client::TAccessControlEntity& info) {
  ServeHBaseCall("revoke", [&]() -> Status {
    BLOOMROUTE_ASSIGN_OR_RETURN(const router::Grant g, GrantFromThrift(info));
    return router_->ChangeGrant(g, router::GrantChange::kRevoke);
  });
  return true;
}

}  // namespace bloomroute
