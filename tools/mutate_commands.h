// `bloomroute put` and `bloomroute delete`: write or delete rows through the
// router, for scripts (the shell's put and deleteall, as plain commands).
//
//   bloomroute put --table T --row KEY [--timestamp MS] NAME=VALUE...
//   bloomroute delete --table T --row KEY [--row KEY...] [--columns A,B]
//       [--router HOST:PORT] [--family F]
//       [--tls-ca FILE [--tls-cert FILE --tls-key FILE]] [--token-file FILE]
//
// put writes the cells NAME=VALUE of one row in one call (split at the first
// '='; the value is taken as is and may be empty); NAME without ':' gets
// --family (default "d"), as the row commands' names. delete removes whole
// rows, or only --columns of them. Nothing is printed on success.
//
// Exit codes: 0 written; 1 the router refused or failed (the reason on
// stderr); 2 bad usage.
#ifndef BLOOMROUTE_TOOLS_MUTATE_COMMANDS_H_
#define BLOOMROUTE_TOOLS_MUTATE_COMMANDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "model/rows.h"
#include "tools/client_command_util.h"
#include "tools/command.h"

namespace bloomroute {

class PutCommand : public Command {
 public:
  PutCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  void AddPositional(
      boost::program_options::positional_options_description* p) override;
  Status Validate() override;
  Status Execute() override;

 private:
  ClientFlags client_;
  std::string row_;
  int64_t timestamp_ = kLatestTimestamp;
  std::vector<std::string> assignments_;
  std::vector<Cell> cells_;  // filled by Validate()
};

class DeleteCommand : public Command {
 public:
  DeleteCommand();

 protected:
  void AddOptions(boost::program_options::options_description* o) override;
  Status Validate() override;
  Status Execute() override;

 private:
  ClientFlags client_;
  std::vector<std::string> rows_;
  std::vector<std::string> column_args_;
  Projection columns_;  // filled by Validate()
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_MUTATE_COMMANDS_H_
