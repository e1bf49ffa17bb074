// Reading a shell statement's arguments and option hashes, with errors that
// name the command and its usage:
//
//   Args args(statement, "get", "get 't', 'r1' [, 'd:cc' ...]");
//   BLOOMROUTE_RETURN_IF_ERROR(args.Count(2, 8));
//   BLOOMROUTE_ASSIGN_OR_RETURN(std::string table, args.String(0, "table"));
//   BLOOMROUTE_ASSIGN_OR_RETURN(Options o, args.Options(2, {"COLUMNS"}));
//
// Thread-safety: pure.
#ifndef BLOOMROUTE_TOOLS_SHELL_SHELL_ARGS_H_
#define BLOOMROUTE_TOOLS_SHELL_SHELL_ARGS_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/statusor.h"
#include "tools/shell/shell_parser.h"

namespace bloomroute::shell {

class Args;

// A hash whose keys are option words (LIMIT, COLUMNS), each once.
class Options {
 public:
  Options() = default;
  bool Has(std::string_view name) const { return Find(name) != nullptr; }
  const Value* Find(std::string_view name) const;
  // The option's value when given; InvalidArgument naming the option when it
  // is of another kind.
  StatusOr<std::optional<std::string>> String(std::string_view name) const;
  StatusOr<std::optional<int64_t>> Integer(std::string_view name) const;
  // A string or a list of strings; empty when not given.
  StatusOr<std::vector<std::string>> Strings(std::string_view name) const;

 private:
  friend class Args;
  const Args* args_ = nullptr;
  std::vector<std::pair<std::string, const Value*>> values_;
};

// Reads the arguments of one statement. The statement must outlive the
// Args, and the Args every Options made from it (an Options reports its
// errors through it).
class Args {
 public:
  Args(const Statement& statement, std::string command, std::string usage)
      : statement_(statement),
        command_(std::move(command)),
        usage_(std::move(usage)) {}

  size_t size() const { return statement_.args.size(); }
  const Value& at(size_t i) const { return statement_.args[i]; }
  bool IsHash(size_t i) const {
    return i < size() && at(i).kind == Value::Kind::kHash;
  }
  bool IsString(size_t i) const {
    return i < size() && at(i).kind == Value::Kind::kString;
  }

  // InvalidArgument unless min <= size() <= max.
  Status Count(size_t min, size_t max) const;
  // Argument i as a string (a quoted one); `what` names it in the error.
  StatusOr<std::string> String(size_t i, std::string_view what) const;
  StatusOr<int64_t> Integer(size_t i, std::string_view what) const;
  // Argument i as a hash of the `allowed` options (an unknown or repeated
  // key is an error listing the allowed ones).
  StatusOr<Options> OptionsAt(
      size_t i, std::initializer_list<std::string_view> allowed) const;

  // `value` (named `name` in the error) as a string or a list of strings.
  StatusOr<std::vector<std::string>> Strings(const Value& value,
                                             std::string_view name) const;

  // "<command>: <what> (usage: <usage>)", InvalidArgument.
  Status Error(std::string_view what) const;

 private:
  const Statement& statement_;
  const std::string command_;
  const std::string usage_;
};

// A column to write as HBase's shell takes it: "family:qualifier", or
// "family" for the family's empty qualifier ("family:"). InvalidArgument for
// a name the model refuses (model/rows.h ValidateColumnName).
StatusOr<std::string> ShellColumn(std::string_view name);
// A column to read: "family:qualifier" as ShellColumn, or "family" for the
// whole family (a Projection entry). InvalidArgument for an empty or too
// long name.
StatusOr<std::string> ShellReadColumn(std::string_view name);

}  // namespace bloomroute::shell

#endif  // BLOOMROUTE_TOOLS_SHELL_SHELL_ARGS_H_
