#include "tools/config_file.h"

#include <fstream>
#include <sstream>

namespace bloomroute {
namespace po = boost::program_options;
Status StoreConfigFile(const std::string& path,
                       const po::options_description& options,
                       const OptionTable& table, po::variables_map* vm) {
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
      if (table.Find(o.string_key) == nullptr) {
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

Status PrintConfig(const std::string& command, const OptionTable& table,
                   std::ostream& out) {
  out << "# bloomroute " << command
      << ": the effective configuration (flags, then --config, then "
         "defaults)\n";
  for (const auto& option : table.options()) {
    const std::string& name = option->name();
    if (!option->has_value()) {
      out << "# " << name << " =\n";
      continue;
    }
    for (const std::string& text : option->ValueTexts()) {
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
