#include "tools/security_flags.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

namespace bloomroute {
namespace po = boost::program_options;

namespace {

Status CannotRead(std::string_view option, const std::string& path,
                  const std::string& reason) {
  return Status::InvalidArgument(std::string(option) + " " + path +
                                 ": cannot read it: " + reason);
}

// An open file descriptor, closed when it goes out of scope.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(const std::string& path)
      : fd_(open(path.c_str(), O_RDONLY | O_CLOEXEC)), errno_(errno) {}
  ~ReadOnlyFile() {
    if (fd_ >= 0) close(fd_);
  }
  ReadOnlyFile(const ReadOnlyFile&) = delete;
  ReadOnlyFile& operator=(const ReadOnlyFile&) = delete;

  // OK for an open regular file (or anything but a directory), else the
  // reason as CheckReadableFile words it.
  Status Check(std::string_view option, const std::string& path) const {
    if (fd_ < 0) return CannotRead(option, path, std::strerror(errno_));
    struct stat st {};
    if (fstat(fd_, &st) != 0) return CannotRead(option, path, "fstat failed");
    if (S_ISDIR(st.st_mode)) return CannotRead(option, path, "a directory");
    return Status::OK();
  }
  int fd() const { return fd_; }

 private:
  const int fd_;
  const int errno_;
};

}  // namespace

Status CheckReadableFile(std::string_view option, const std::string& path) {
  return ReadOnlyFile(path).Check(option, path);
}

StatusOr<std::string> ReadClientToken(const std::string& path) {
  constexpr std::string_view kOption = "--token-file";
  ReadOnlyFile file(path);
  BLOOMROUTE_RETURN_IF_ERROR(file.Check(kOption, path));
  // One byte past the bound tells a file at the bound from a larger one.
  std::string text(kMaxClientTokenFileBytes + 1, '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = read(file.fd(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return CannotRead(kOption, path, std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  if (got > kMaxClientTokenFileBytes) {
    return Status::InvalidArgument(
        "--token-file " + path + ": larger than " +
        std::to_string(kMaxClientTokenFileBytes) +
        " bytes, the most a client's token file may hold (its first line is "
        "the token)");
  }
  text.resize(got);
  std::string token = text.substr(0, text.find('\n'));
  token.erase(token.find_last_not_of(" \t\r\v\f") + 1);
  if (token.empty()) {
    return Status::InvalidArgument("--token-file " + path +
                                   ": its first line is empty (it should be "
                                   "the token)");
  }
  return token;
}

namespace {

// One TLS file option: its name, the TlsOptions field it sets and its help.
struct TlsFileRow {
  const char* name;
  std::string TlsOptions::*file;
  const char* help;
};

// The rows of a server's options (server) or a client's: --tls-ca,
// --tls-cert, --tls-key, and a server's --tls-crl.
std::vector<TlsFileRow> TlsFileRows(bool server) {
  std::vector<TlsFileRow> rows = {
      {"tls-ca", &TlsOptions::ca_file,
       server ? "the cluster's CA certificate (PEM); with --tls-cert and "
                "--tls-key, serve only TLS to peers it signed"
              : "the cluster's CA certificate (PEM): connect over TLS to a "
                "router it signed"},
      {"tls-cert", &TlsOptions::cert_file,
       server ? "this server's certificate (PEM), signed by --tls-ca"
              : "a client certificate (PEM) to present, signed by --tls-ca"},
      {"tls-key", &TlsOptions::key_file,
       "the private key of --tls-cert (PEM)"}};
  if (server) {
    rows.push_back({"tls-crl", &TlsOptions::crl_file,
                    "the CA's certificate revocation list (PEM, from "
                    "`bloomroute cert revoke`): peers whose certificate it "
                    "lists are refused; read again on SIGHUP"});
  }
  return rows;
}

}  // namespace

void TlsFlags::Add(po::options_description* o) {
  for (const TlsFileRow& row : TlsFileRows(side_ == Side::kServer)) {
    o->add_options()(
        row.name,
        po::value<std::string>(&(given_.*row.file))->value_name("FILE"),
        row.help);
  }
}

void TlsFlags::Add(OptionTable* table) {
  for (const TlsFileRow& row : TlsFileRows(side_ == Side::kServer)) {
    table->String(row.name, &(given_.*row.file), row.help).ValueName("FILE");
  }
}

bool TlsFlags::any() const {
  return !given_.ca_file.empty() || !given_.cert_file.empty() ||
         !given_.key_file.empty() || !given_.crl_file.empty();
}

StatusOr<TlsOptions> TlsFlags::ToOptions() const {
  BLOOMROUTE_RETURN_IF_ERROR(side_ == Side::kServer
                                 ? given_.ValidateForServer()
                                 : given_.ValidateForClient());
  const std::pair<const char*, const std::string*> files[] = {
      {"--tls-ca", &given_.ca_file},
      {"--tls-cert", &given_.cert_file},
      {"--tls-key", &given_.key_file},
      {"--tls-crl", &given_.crl_file}};
  for (const auto& [option, path] : files) {
    if (!path->empty()) {
      BLOOMROUTE_RETURN_IF_ERROR(CheckReadableFile(option, *path));
    }
  }
  return given_;
}

}  // namespace bloomroute
