// `bloomroute migrate --to-zookeeper`: moves a router's embedded catalog
// (--data DIR) into a cluster's catalog in ZooKeeper (--zookeeper HOSTS
// --cluster NAME), so that a cluster started with one router goes on with
// routers sharing ZooKeeper, without re-importing (coord/catalog/
// catalog_migration.h says what moves). The router must be stopped (its
// catalog's lock says so); DIR is only read, so going back is starting the
// router with --data DIR again, as long as nothing changed meanwhile.
#ifndef BLOOMROUTE_TOOLS_MIGRATE_COMMAND_H_
#define BLOOMROUTE_TOOLS_MIGRATE_COMMAND_H_

#include <string>

#include "tools/cluster_flags.h"
#include "tools/command.h"

namespace bloomroute {

class MigrateCommand : public Command {
 public:
  MigrateCommand();

 protected:
  void DeclareOptions(OptionTable* table) override;
  Status Validate() override;
  Status Execute() override;
  std::string HelpEpilog() const override;

 private:
  bool to_zookeeper_ = false;
  std::string data_;
  ClusterFlags cluster_flags_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_MIGRATE_COMMAND_H_
