#include "tools/shell/shell_args.h"

#include "model/rows.h"

namespace bloomroute::shell {

const Value* Options::Find(std::string_view name) const {
  for (const auto& [key, value] : values_) {
    if (key == name) return value;
  }
  return nullptr;
}

StatusOr<std::optional<std::string>> Options::String(
    std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::optional<std::string>();
  if (v->kind != Value::Kind::kString) {
    return args_->Error(std::string(name) + " takes a string, not " +
                        v->Describe());
  }
  return std::optional<std::string>(v->text);
}

StatusOr<std::optional<int64_t>> Options::Integer(std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::optional<int64_t>();
  if (v->kind != Value::Kind::kInteger) {
    return args_->Error(std::string(name) + " takes an integer, not " +
                        v->Describe());
  }
  return std::optional<int64_t>(v->integer);
}

StatusOr<std::vector<std::string>> Options::Strings(
    std::string_view name) const {
  const Value* v = Find(name);
  if (v == nullptr) return std::vector<std::string>();
  return args_->Strings(*v, name);
}

StatusOr<std::vector<std::string>> Args::Strings(const Value& v,
                                                 std::string_view name) const {
  std::vector<std::string> out;
  if (v.kind == Value::Kind::kString) {
    out.push_back(v.text);
    return out;
  }
  if (v.kind == Value::Kind::kList) {
    for (const Value& item : v.items) {
      if (item.kind != Value::Kind::kString) break;
      out.push_back(item.text);
    }
    if (out.size() == v.items.size()) return out;
  }
  return Error(std::string(name) +
               " takes a string or a list of strings, not " + v.Describe());
}

Status Args::Count(size_t min, size_t max) const {
  if (size() >= min && size() <= max) return Status::OK();
  std::string want = min == max
                         ? std::to_string(min)
                         : std::to_string(min) + " to " + std::to_string(max);
  return Error("takes " + want + (max == 1 ? " argument" : " arguments") +
               ", not " + std::to_string(size()));
}

StatusOr<std::string> Args::String(size_t i, std::string_view what) const {
  if (i >= size()) return Error("missing the " + std::string(what));
  if (at(i).kind != Value::Kind::kString) {
    return Error("the " + std::string(what) + " is a quoted string, not " +
                 at(i).Describe());
  }
  return at(i).text;
}

StatusOr<int64_t> Args::Integer(size_t i, std::string_view what) const {
  if (i >= size()) return Error("missing the " + std::string(what));
  if (at(i).kind != Value::Kind::kInteger) {
    return Error("the " + std::string(what) + " is an integer, not " +
                 at(i).Describe());
  }
  return at(i).integer;
}

StatusOr<Options> Args::OptionsAt(
    size_t i, std::initializer_list<std::string_view> allowed) const {
  Options out;
  out.args_ = this;
  if (i >= size()) return out;
  if (at(i).kind != Value::Kind::kHash) {
    return Error("expected {OPTION => value}, not " + at(i).Describe());
  }
  std::string names;
  for (std::string_view a : allowed) {
    names += (names.empty() ? "" : ", ") + std::string(a);
  }
  for (const auto& [key, value] : at(i).pairs) {
    bool known = false;
    for (std::string_view a : allowed) {
      known = known || (key.kind == Value::Kind::kWord && key.text == a);
    }
    if (!known) {
      return Error(
          "unknown option " + key.Describe() +
          (names.empty() ? " (it takes none)" : " (it takes " + names + ")"));
    }
    if (out.Has(key.text)) return Error("option " + key.text + " given twice");
    out.values_.emplace_back(key.text, &value);
  }
  return out;
}

Status Args::Error(std::string_view what) const {
  return Status::InvalidArgument(command_ + ": " + std::string(what) +
                                 " (usage: " + usage_ + ")");
}

StatusOr<std::string> ShellColumn(std::string_view name) {
  std::string column(name);
  if (column.find(':') == std::string::npos) column += ':';
  BLOOMROUTE_RETURN_IF_ERROR(ValidateColumnName(column).WithContext(
      "column " + QuoteForMessage(name)));
  return column;
}

StatusOr<std::string> ShellReadColumn(std::string_view name) {
  if (name.find(':') != std::string_view::npos) return ShellColumn(name);
  // A family: valid when "family:" is a valid column.
  BLOOMROUTE_RETURN_IF_ERROR(ShellColumn(name).status());
  return std::string(name);
}

}  // namespace bloomroute::shell
