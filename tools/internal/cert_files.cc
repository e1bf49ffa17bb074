#include "tools/internal/cert_files.h"

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "tools/certs.h"

namespace bloomroute::cert_internal {
namespace {

std::string Errno(const std::string& what, const std::string& path) {
  return "cannot " + what + " " + path + ": " + std::strerror(errno);
}

Status WriteAll(int fd, const std::string& bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::IOError(Errno("write", path));
    done += static_cast<size_t>(n);
  }
  return Status::OK();
}

// A name beside `path` that no other call of this process or another uses.
std::string TempPathFor(const std::string& path) {
  static std::atomic<uint64_t> counter{0};
  const std::filesystem::path p(path);
  return (p.parent_path() /
          ("." + p.filename().string() + ".tmp." + std::to_string(getpid()) +
           "." + std::to_string(counter.fetch_add(1))))
      .string();
}

// Creates `temp` with exactly `mode` (O_EXCL: never an existing file, and the
// mode is set at creation, so there is no moment it is more open), writes
// and syncs it.
Status WriteNewFile(const std::string& temp, const FileToWrite& file) {
  const int fd =
      open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, file.mode);
  if (fd < 0) return Status::IOError(Errno("create", temp));
  // The umask may have taken bits away from a certificate's 0644.
  Status s = fchmod(fd, file.mode) == 0
                 ? WriteAll(fd, file.bytes, file.path)
                 : Status::IOError(Errno("set the mode of", temp));
  if (s.ok() && fsync(fd) != 0) s = Status::IOError(Errno("sync", temp));
  if (close(fd) != 0 && s.ok()) s = Status::IOError(Errno("close", temp));
  return s;
}

}  // namespace

std::string OpensslError() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown OpenSSL error";
  char text[256];
  ERR_error_string_n(code, text, sizeof(text));
  return text;
}

Status CheckAbsent(const std::vector<std::string>& paths, bool overwrite) {
  if (overwrite) return Status::OK();
  for (const std::string& path : paths) {
    struct stat st {};
    if (lstat(path.c_str(), &st) == 0) {
      return Status::IOError(path + " exists (--overwrite replaces it)");
    }
    if (errno != ENOENT) return Status::IOError(Errno("check", path));
  }
  return Status::OK();
}

Status WriteFileAtomically(const FileToWrite& file, bool overwrite) {
  const std::string temp = TempPathFor(file.path);
  Status s = WriteNewFile(temp, file);
  if (s.ok() && overwrite && rename(temp.c_str(), file.path.c_str()) != 0) {
    s = Status::IOError(Errno("replace", file.path));
  }
  // link() fails when the path exists: no check-then-write race.
  if (s.ok() && !overwrite && link(temp.c_str(), file.path.c_str()) != 0) {
    s = errno == EEXIST
            ? Status::IOError(file.path + " exists (--overwrite replaces it)")
            : Status::IOError(Errno("create", file.path));
  }
  if (!s.ok() || !overwrite) unlink(temp.c_str());
  return s;
}

StatusOr<std::string> ReadBoundedFile(const std::string& path, size_t max_bytes,
                                      std::string_view limit_name) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return Status::NotFound(path + " is missing");
  if (fd < 0) return Status::IOError(Errno("open", path));
  std::string bytes;
  char buf[8192];
  Status s;
  while (true) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) s = Status::IOError(Errno("read", path));
    if (n <= 0) break;
    if (bytes.size() + static_cast<size_t>(n) > max_bytes) {
      s = Status::IOError(path + " is larger than " +
                          std::to_string(max_bytes) + " bytes (" +
                          std::string(limit_name) + ")");
      break;
    }
    bytes.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  if (!s.ok()) return s;
  return bytes;
}

StatusOr<X509Ptr> ReadCertFile(const std::string& path) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::string pem,
      ReadBoundedFile(path, kMaxPemFileBytes, "kMaxPemFileBytes"));
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (cert == nullptr) {
    return Status::Corruption(path +
                              " is not a PEM certificate: " + OpensslError());
  }
  return cert;
}

StatusOr<KeyPtr> ReadKeyFile(const std::string& path) {
  BLOOMROUTE_ASSIGN_OR_RETURN(
      std::string pem,
      ReadBoundedFile(path, kMaxPemFileBytes, "kMaxPemFileBytes"));
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  // A callback that gives no passphrase: an encrypted key fails rather than
  // OpenSSL's default callback prompting on the terminal.
  KeyPtr key(PEM_read_bio_PrivateKey(
      bio.get(), nullptr, [](char*, int, int, void*) -> int { return -1; },
      nullptr));
  OPENSSL_cleanse(pem.data(), pem.size());
  if (key == nullptr) {
    return Status::Corruption(
        path + " is not an unencrypted PEM key: " + OpensslError());
  }
  return key;
}

StatusOr<Ca> LoadCa(const std::string& cert_path, const std::string& key_path) {
  Ca ca;
  BLOOMROUTE_ASSIGN_OR_RETURN(ca.cert, ReadCertFile(cert_path));
  BLOOMROUTE_ASSIGN_OR_RETURN(ca.key, ReadKeyFile(key_path));
  if (X509_check_private_key(ca.cert.get(), ca.key.get()) != 1) {
    OpensslError();  // clear the queue
    return Status::Corruption(key_path + " is not the key of " + cert_path +
                              " (--ca-key)");
  }
  return ca;
}

namespace {

StatusOr<std::string> BioBytes(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  if (n <= 0) return Status::IOError("PEM encoding failed: " + OpensslError());
  return std::string(data, static_cast<size_t>(n));
}

}  // namespace

StatusOr<std::string> CertPem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return Status::IOError("PEM encoding failed: " + OpensslError());
  }
  return BioBytes(bio.get());
}

StatusOr<std::string> KeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_secmem()));
  if (bio == nullptr ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr,
                               nullptr) != 1) {
    return Status::IOError("PEM encoding failed: " + OpensslError());
  }
  return BioBytes(bio.get());
}

Status EnsureDirectory(const std::string& dir) {
  if (dir.empty()) return Status::InvalidArgument("--certs-dir is empty");
  struct stat st {};
  if (stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return Status::OK();
    return Status::IOError(dir + " is not a directory");
  }
  // Parents as `mkdir -p` makes them; the directory itself private.
  std::error_code error;
  const std::filesystem::path parent = std::filesystem::path(dir).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, error);
  if (error) {
    return Status::IOError("cannot create the directory " + parent.string() +
                           ": " + error.message());
  }
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::IOError(Errno("create the directory", dir));
  }
  return Status::OK();
}

}  // namespace bloomroute::cert_internal
