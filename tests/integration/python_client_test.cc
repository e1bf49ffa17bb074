// examples/python/geo_client.py against `bloomroute local` (two region
// servers): run with /usr/bin/python3 and the Python code generated from the
// IDL at build time, it must create its table, put its rows and find them by
// index, twice (the second run reuses the table).
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/server_process.h"
#include "tests/regionstore/region_store_test_util.h"

namespace bloomroute::testing {
namespace {

constexpr char kPython[] = "/usr/bin/python3";

testing::CommandOutput RunPython(const std::vector<std::string>& args) {
  return testing::RunProgram(kPython, args);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class PythonClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kPython, X_OK) != 0) {
      GTEST_SKIP() << kPython << " is missing (scripts/install-deps.sh "
                   << "installs it)";
    }
    // The child inherits the environment: the generated package, not an
    // installed one.
    setenv("PYTHONPATH", BLOOMROUTE_PYTHON_DIR, 1);
    if (RunPython({"-c", "import thrift"}).code != 0) {
      GTEST_SKIP() << "the Python thrift module is missing (python3-thrift; "
                   << "scripts/install-deps.sh installs it)";
    }
    local_ = StartLocal(dir_.path() + "/local", 2);
    ASSERT_GT(local_.port, 0) << local_.line;
  }
  void TearDown() override {
    if (local_.process == nullptr) return;
    local_.process->Signal(SIGTERM);
    EXPECT_EQ(local_.process->ExitCode(), 0);
  }
  testing::CommandOutput RunExample() {
    return RunPython({BLOOMROUTE_EXAMPLES_DIR "/python/geo_client.py",
                      "--router", local_.address()});
  }

  TempDir dir_;
  StartedServer local_;
};

TEST_F(PythonClientTest, CreatesPutsAndFindsRowsByIndex) {
  testing::CommandOutput o = RunExample();
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "created table geo_example")) << o.out;
  EXPECT_TRUE(Has(o.out, "put 6 rows")) << o.out;
  EXPECT_TRUE(Has(o.out, "getByIndex d:cc = NO: 3 rows\n  bergen: ")) << o.out;
  EXPECT_TRUE(Has(o.out, "'d:name': 'Tromsø'")) << o.out;
  EXPECT_TRUE(Has(o.out,
                  "getByIndex d:cc = SE AND d:feature = PPLC: 1 rows\n"
                  "  stockholm: "))
      << o.out;
  EXPECT_TRUE(Has(o.out, "of 2 servers asked")) << o.out;

  o = RunExample();
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  EXPECT_TRUE(Has(o.out, "table geo_example exists; reusing it")) << o.out;
  EXPECT_TRUE(Has(o.out, "d:cc = NO: 3 rows")) << o.out;
}

TEST_F(PythonClientTest, ErrorsAreOneLineWithoutATraceback) {
  testing::CommandOutput o =
      RunPython({BLOOMROUTE_EXAMPLES_DIR "/python/geo_client.py", "--router",
                 "127.0.0.1:1"});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_TRUE(Has(o.err, "cannot reach the router")) << o.err;
  EXPECT_FALSE(Has(o.err, "Traceback")) << o.err;
}

}  // namespace
}  // namespace bloomroute::testing
