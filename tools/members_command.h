// `bloomroute members --zookeeper HOSTS --cluster NAME`: the processes of a
// cluster that are alive now, as ZooKeeper knows them, read from ZooKeeper
// itself (`bloomroute admin routers` asks a router the same)
// (coord/cluster_members.h): its routers in election order (the first
// serves and coordinates, the others are standbys), with the router id
// each claimed, and the region servers started with --zookeeper. What is
// *placed* where is the router's (bloomroute admin servers, regions).
//
//   text   routers (2):
//            serving  127.0.0.1:9090  id 1  epoch 12
//            standby  127.0.0.1:9092  id -  epoch 13
//          live region servers (1):
//            127.0.0.1:9091  incarnation=5f3a... started=1764322800123
//   json   {"routers":[{"address":"127.0.0.1:9090","serving":true,
//           "router_id":1,"epoch":12}],"region_servers":[{"address":
//           "127.0.0.1:9091","registered":"incarnation=... started=..."}]}
//
// Exit 1 when ZooKeeper does not answer.
#ifndef BLOOMROUTE_TOOLS_MEMBERS_COMMAND_H_
#define BLOOMROUTE_TOOLS_MEMBERS_COMMAND_H_

#include <string>

#include "tools/cluster_flags.h"
#include "tools/command.h"

namespace bloomroute {

class MembersCommand : public Command {
 public:
  MembersCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  Status Validate() override;
  Status Execute() override;

 private:
  std::string format_ = "text";
  ClusterFlags cluster_flags_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_MEMBERS_COMMAND_H_
