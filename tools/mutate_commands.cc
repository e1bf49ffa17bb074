#include "tools/mutate_commands.h"

#include <memory>
#include <set>

namespace bloomroute {
namespace po = boost::program_options;

PutCommand::PutCommand() : Command("put", "write cells of a row") {}

void PutCommand::AddOptions(po::options_description* o) {
  client_.Add(o);
  o->add_options()  //
      ("row", po::value<std::string>(&row_)->required()->value_name("KEY"),
       "the row key")  //
      ("timestamp", po::value<int64_t>(&timestamp_)->value_name("MS"),
       "the cells' timestamp in milliseconds since the epoch (default: the "
       "region server's clock)")  //
      ("cell",
       po::value<std::vector<std::string>>(&assignments_)
           ->required()
           ->value_name("NAME=VALUE"),
       "a cell to write; repeatable, also given as positional arguments");
}

void PutCommand::AddPositional(po::positional_options_description* p) {
  p->add("cell", -1);
}

Status PutCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(client_.Validate());
  if (timestamp_ != kLatestTimestamp && timestamp_ < 0) {
    return Status::InvalidArgument("--timestamp is not negative");
  }
  cells_.clear();
  std::set<std::string> seen;
  for (const std::string& arg : assignments_) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos) {
      return Status::InvalidArgument("cell " + QuoteForMessage(arg) +
                                     " is not NAME=VALUE");
    }
    StatusOr<std::string> column =
        QualifyColumn(std::string_view(arg).substr(0, eq), client_.family());
    if (!column.ok()) {
      return column.status().WithContext("cell " + QuoteForMessage(arg));
    }
    if (!seen.insert(*column).second) {
      return Status::InvalidArgument("column " + *column + " given twice");
    }
    cells_.push_back(Cell{std::move(*column), arg.substr(eq + 1), timestamp_});
  }
  return Status::OK();
}

Status PutCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              client_.Connect());
  return router->Mutate(client_.table(), {Mutation::Put(0, row_, cells_)});
}

DeleteCommand::DeleteCommand()
    : Command("delete", "delete rows, or columns of them") {}

void DeleteCommand::AddOptions(po::options_description* o) {
  client_.Add(o);
  o->add_options()  //
      ("row",
       po::value<std::vector<std::string>>(&rows_)->required()->value_name(
           "KEY"),
       "a row key; repeatable (at most 100000)")  //
      ("columns", po::value<std::vector<std::string>>(&column_args_),
       "delete only these columns, NAME or family:qualifier, "
       "comma-separated; repeatable (default: the whole row)");
}

Status DeleteCommand::Validate() {
  BLOOMROUTE_RETURN_IF_ERROR(client_.Validate());
  if (rows_.size() > kMaxRowsPerCall) {
    return Status::InvalidArgument(
        "at most " + std::to_string(kMaxRowsPerCall) + " --row per call");
  }
  BLOOMROUTE_ASSIGN_OR_RETURN(columns_,
                              ParseColumns(column_args_, client_.family()));
  return Status::OK();
}

Status DeleteCommand::Execute() {
  BLOOMROUTE_ASSIGN_OR_RETURN(std::unique_ptr<RouterClient> router,
                              client_.Connect());
  std::vector<Mutation> batch;
  batch.reserve(rows_.size());
  for (const std::string& row : rows_) {
    batch.push_back(Mutation::Delete(0, row, columns_));
  }
  return router->Mutate(client_.table(), batch);
}

}  // namespace bloomroute
