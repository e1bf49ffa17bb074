#include "tools/config_file.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// The shortest text that reads back as the same double.
std::string DoubleText(double v) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), v);
  if (ec != std::errc()) return std::to_string(v);
  return std::string(text, end);
}

// The value's lines' texts, or false for a type this does not know.
template <typename T>
bool Scalar(const boost::any& v, std::vector<std::string>* out) {
  const T* p = boost::any_cast<T>(&v);
  if (p == nullptr) return false;
  if constexpr (std::is_same_v<T, std::string>) {
    out->push_back(*p);
  } else if constexpr (std::is_same_v<T, bool>) {
    out->push_back(*p ? "true" : "false");
  } else if constexpr (std::is_same_v<T, double>) {
    out->push_back(DoubleText(*p));
  } else {
    out->push_back(std::to_string(*p));
  }
  return true;
}

bool ValueTexts(const boost::any& v, std::vector<std::string>* out) {
  if (const auto* list = boost::any_cast<std::vector<std::string>>(&v)) {
    *out = *list;
    return true;
  }
  return Scalar<std::string>(v, out) || Scalar<bool>(v, out) ||
         Scalar<double>(v, out) || Scalar<int>(v, out) ||
         Scalar<unsigned>(v, out) || Scalar<long>(v, out) ||
         Scalar<unsigned long>(v, out) || Scalar<long long>(v, out) ||
         Scalar<unsigned long long>(v, out);
}

}  // namespace

bool IsCommandLineOnlyOption(const std::string& name) {
  return name == "help" || name == "config" || name == "print-config";
}

Status StoreConfigFile(const std::string& path,
                       const po::options_description& options,
                       po::variables_map* vm) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::InvalidArgument("--config " + path + ": cannot read it");
  std::string text(kMaxConfigFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxConfigFileBytes) {
    return Status::InvalidArgument("--config " + path + ": larger than " +
                                   std::to_string(kMaxConfigFileBytes) +
                                   " bytes");
  }
  std::istringstream stream(text);
  try {
    po::parsed_options parsed = po::parse_config_file(stream, options, false);
    for (const po::option& o : parsed.options) {
      if (IsCommandLineOnlyOption(o.string_key)) {
        return Status::InvalidArgument("--config " + path + ": " +
                                       o.string_key +
                                       " is given on the command line only");
      }
    }
    po::store(parsed, *vm);
  } catch (const std::exception& e) {
    return Status::InvalidArgument("--config " + path + ": " + e.what());
  }
  return Status::OK();
}

Status PrintConfig(const std::string& command,
                   const po::options_description& options,
                   const po::variables_map& vm, std::ostream& out) {
  out << "# bloomroute " << command
      << ": the effective configuration (flags, then --config, then "
         "defaults)\n";
  for (const auto& option : options.options()) {
    const std::string& name = option->long_name();
    if (name.empty() || IsCommandLineOnlyOption(name)) continue;
    const auto found = vm.find(name);
    if (found == vm.end() || found->second.empty()) {
      out << "# " << name << " =\n";
      continue;
    }
    std::vector<std::string> texts;
    if (!ValueTexts(found->second.value(), &texts)) {
      return Status::InvalidArgument("--print-config: option " + name +
                                     " has a value type it cannot write");
    }
    for (const std::string& text : texts) {
      // The format has no quoting: '#' starts a comment, a line ends a value.
      if (text.find_first_of("#\n\r") != std::string::npos ||
          (!text.empty() && (text.front() == ' ' || text.back() == ' '))) {
        return Status::InvalidArgument(
            "--print-config: the value of " + name +
            " cannot be written in a config file ('#', a line break or "
            "blanks at its ends)");
      }
      out << name << " = " << text << "\n";
    }
  }
  return Status::OK();
}

}  // namespace bloomroute
