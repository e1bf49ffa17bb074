#include "tools/members_command.h"

#include <iostream>
#include <memory>

#include "tools/admin_format.h"

namespace bloomroute {

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
