#include "tools/members_command.h"

#include <iostream>
#include <memory>

#include "tools/row_format.h"

namespace bloomroute {

std::string FormatMembersText(const coord::ClusterMembers& members) {
  std::string out =
      "routers (" + std::to_string(members.routers.size()) + "):\n";
  for (const coord::LiveRouter& r : members.routers) {
    out += std::string("  ") + (r.leading ? "serving" : "standby") + "  " +
           r.address + "  id " +
           (r.router_id == 0 ? "-" : std::to_string(r.router_id)) + "  epoch " +
           std::to_string(r.epoch) + "\n";
  }
  out += "live region servers (" +
         std::to_string(members.region_servers.size()) + "):\n";
  for (const coord::LiveRegionServer& s : members.region_servers) {
    out += "  " + s.address + "  " + s.data + "\n";
  }
  return out;
}

std::string FormatMembersJson(const coord::ClusterMembers& members) {
  std::string out = "{\"routers\":[";
  for (size_t i = 0; i < members.routers.size(); ++i) {
    const coord::LiveRouter& r = members.routers[i];
    if (i > 0) out += ",";
    out += "{\"address\":" + JsonString(r.address) +
           ",\"serving\":" + (r.leading ? "true" : "false") +
           ",\"router_id\":" + std::to_string(r.router_id) +
           ",\"epoch\":" + std::to_string(r.epoch) + "}";
  }
  out += "],\"region_servers\":[";
  for (size_t i = 0; i < members.region_servers.size(); ++i) {
    const coord::LiveRegionServer& s = members.region_servers[i];
    if (i > 0) out += ",";
    out += "{\"address\":" + JsonString(s.address) +
           ",\"registered\":" + JsonString(s.data) + "}";
  }
  return out + "]}\n";
}

MembersCommand::MembersCommand()
    : Command("members",
              "list a ZooKeeper cluster's live routers (which one serves) "
              "and region servers") {}

void MembersCommand::DeclareOptions(OptionTable* table) {
  cluster_flags_.Add(table, ClusterFlags::Use::kTool);
  table->String("format", &format_, "text or json")
      .Default("text")
      .ValueName("FORMAT");
}

Status MembersCommand::Validate() {
  if (format_ != "text" && format_ != "json") {
    return Status::InvalidArgument("--format " + format_ + ": text or json");
  }
  return cluster_flags_.ValidateZooKeeper();
}

Status MembersCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<coord::ZnodeStore> store,
                              cluster_flags_.Connect());
  BLOOMROUTE_ASSIGN_OR_RETURN(const coord::ClusterMembers members,
                              coord::ListClusterMembers(store.get()));
  std::cout << (format_ == "json" ? FormatMembersJson(members)
                                  : FormatMembersText(members))
            << std::flush;
  return Status::OK();
}

}  // namespace bloomroute
