#include "tools/migrate_command.h"

#include <iostream>
#include <memory>

#include "coord/catalog/catalog_migration.h"
#include "router/catalog_store.h"

namespace bloomroute {

MigrateCommand::MigrateCommand()
    : Command("migrate",
              "move a router's catalog (--data) into ZooKeeper, for routers "
              "that share it") {}

void MigrateCommand::DeclareOptions(OptionTable* table) {
  table->Switch("to-zookeeper", &to_zookeeper_,
                "move the catalog into ZooKeeper (the one direction there is)");
  table
      ->String("data", &data_,
               "the stopped router's --data directory (only read)")
      .Required()
      .ValueName("DIR");
  cluster_flags_.Add(table, ClusterFlags::Use::kTool);
}

Status MigrateCommand::Validate() {
  if (!to_zookeeper_) {
    return Status::InvalidArgument("say where to: --to-zookeeper");
  }
  return cluster_flags_.ValidateZooKeeper();
}

Status MigrateCommand::Execute() {
  StatusOr<std::unique_ptr<router::CatalogStore>> from =
      router::OpenEmbeddedCatalog(data_);
  if (!from.ok()) {
    return from.status().WithContext(
        "cannot open the catalog in " + data_ +
        " (a router still running holds it: stop it first)");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<coord::ZnodeStore> to,
                              cluster_flags_.Connect());
  BLOOMROUTE_ASSIGN_OR_RETURN(const coord::MigrationReport report,
                              coord::MigrateCatalog(**from, to.get()));
  std::cout << "moved " << report.servers << " region servers, "
            << report.tables << " tables, " << report.quotas << " quotas, "
            << report.namespaces << " namespace records and " << report.grants
            << " grants (router starts: " << report.router_starts << ") from "
            << data_ << " into " << cluster_flags_.Describe()
            << "\nstart the routers with --zookeeper ... --cluster "
            << cluster_flags_.cluster() << " instead of --data" << std::endl;
  return Status::OK();
}

std::string MigrateCommand::HelpEpilog() const {
  return "Copies every region server (with its id), table, quota, the page\n"
         "token key, the id counters and the router starts. The cluster must\n"
         "have no catalog in ZooKeeper yet; a copy that stopped half-way is\n"
         "made again by the next run, and no router opens it meanwhile. DIR\n"
         "is only read: to go back, start the router with --data DIR again.\n";
}

}  // namespace bloomroute
