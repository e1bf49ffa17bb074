// A test's own TMPDIR: a fresh directory that the process's TMPDIR names
// while it lives, so that a test can see what code under test puts there
// and that it is removed again.
#ifndef BLOOMROUTE_TESTS_TOOLS_IMPORT_SCOPED_TMPDIR_H_
#define BLOOMROUTE_TESTS_TOOLS_IMPORT_SCOPED_TMPDIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace bloomroute::testing {

// Makes a directory named `prefix`-XXXXXX in the system's temporary
// directory and points TMPDIR at it, or at its subdirectory `tmp_subdir`
// (made too) when that is not empty. On destruction TMPDIR is restored (unset
// if it was) and the directory removed with everything in it. ok() is false
// when the directory could not be made; TMPDIR is then left as it was.
class ScopedTmpdir {
 public:
  explicit ScopedTmpdir(const std::string& prefix,
                        const std::string& tmp_subdir = "") {
    std::string dir =
        (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX"))
            .string();
    if (mkdtemp(dir.data()) == nullptr) return;
    path_ = dir;
    tmpdir_ = tmp_subdir.empty() ? path_ : path_ + "/" + tmp_subdir;
    std::error_code error;
    std::filesystem::create_directory(tmpdir_, error);
    const char* old = getenv("TMPDIR");
    had_tmpdir_ = old != nullptr;
    old_tmpdir_ = old ? old : "";
    setenv("TMPDIR", tmpdir_.c_str(), 1);
  }
  ~ScopedTmpdir() {
    if (path_.empty()) return;
    if (had_tmpdir_) {
      setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScopedTmpdir(const ScopedTmpdir&) = delete;
  ScopedTmpdir& operator=(const ScopedTmpdir&) = delete;

  bool ok() const { return !path_.empty(); }
  // The directory made; empty when !ok().
  const std::string& path() const { return path_; }
  // What TMPDIR names: path() or its subdirectory.
  const std::string& tmpdir() const { return tmpdir_; }

 private:
  std::string path_;
  std::string tmpdir_;
  bool had_tmpdir_ = false;
  std::string old_tmpdir_;
};

}  // namespace bloomroute::testing

#endif  // BLOOMROUTE_TESTS_TOOLS_IMPORT_SCOPED_TMPDIR_H_
