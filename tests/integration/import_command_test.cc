// `bloomroute import` as a real process against a router and region server
// processes on loopback: CSV quoting, TSV with literal quotes, every kind of
// bad line with --on-bad-line skip and fail, re-import, pre-split, refusing a
// table with other indexed columns, the summary line and bad usage.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/command_output.h"
#include "tests/integration/process_cluster.h"
#include "tests/integration/router_client.h"
#include "tests/integration/server_process.h"

namespace bloomroute {
namespace {

namespace client = rpc::client;
using ::bloomroute::testing::CellMap;
using ::bloomroute::testing::CellsOf;
using ::bloomroute::testing::MakeGet;
using ::bloomroute::testing::MakeQuery;
using ::bloomroute::testing::MakeScan;
using ::bloomroute::testing::ProcessCluster;
using ::bloomroute::testing::RouterClient;
using ::bloomroute::testing::RowKeys;
using ::bloomroute::testing::ServerProcess;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;

struct ImportRun {
  int code = -1;
  std::string out;
  std::string err;
};

class ImportCommandTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = new ProcessCluster(2); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(cluster_->ok()) << cluster_->error();
    client_ = std::make_unique<RouterClient>(cluster_->router_port());
  }

  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = cluster_->dir() + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // `bloomroute import --router <cluster> args...`.
  ImportRun Import(const std::vector<std::string>& args) {
    std::vector<std::string> all = {
        "import", "--router",
        "127.0.0.1:" + std::to_string(cluster_->router_port())};
    all.insert(all.end(), args.begin(), args.end());
    ServerProcess process(BLOOMROUTE_BINARY, all, /*capture_stderr=*/true);
    ImportRun run;
    while (std::optional<std::string> line = process.ReadLine(60000)) {
      run.out += *line + "\n";
    }
    run.code = process.ExitCode(60000);
    run.err = process.ReadStderr();
    return run;
  }

  // `cat file | bloomroute import --router <cluster> args...`: the input
  // comes through a pipe, which can be read only once.
  ImportRun ImportPiped(const std::string& file,
                        const std::vector<std::string>& args) {
    std::vector<std::string> all = {
        "-c",
        "cat \"$0\" | \"$@\"",
        file,
        BLOOMROUTE_BINARY,
        "import",
        "--router",
        "127.0.0.1:" + std::to_string(cluster_->router_port())};
    all.insert(all.end(), args.begin(), args.end());
    for (const std::string& flag : testing::ClientSecurityFlags()) {
      all.push_back(flag);
    }
    const testing::CommandOutput r = testing::RunProgram("/bin/sh", all);
    return ImportRun{r.code, r.out, r.err};
  }

  // The row's cells; empty when it does not exist.
  CellMap Get(const std::string& table, const std::string& row) {
    client::TResult result;
    (*client_)->get(result, table, MakeGet(row));
    return CellsOf(result);
  }
  // How many of `rows` exist.
  size_t Existing(const std::string& table,
                  const std::vector<std::string>& rows) {
    std::vector<client::TGet> gets;
    for (const std::string& r : rows) gets.push_back(MakeGet(r));
    std::vector<client::TResult> results;
    (*client_)->getMultiple(results, table, gets);
    return RowKeys(results).size();
  }
  std::vector<std::string> Lookup(const std::string& table,
                                  const std::string& column,
                                  const std::string& value) {
    client::TIndexResult found;
    (*client_)->getByIndex(found, table, MakeQuery({{column, value}}));
    return RowKeys(found.rows);
  }

  static ProcessCluster* cluster_;
  std::unique_ptr<RouterClient> client_;
};

ProcessCluster* ImportCommandTest::cluster_ = nullptr;

std::string Summary(int rows, const std::string& table, int bad) {
  return "bloomroute import: " + std::to_string(rows) + " rows imported into " +
         table + ", " + std::to_string(bad) +
         " bad lines( \\(listed in [^)]+\\))?, [0-9]+\\.[0-9] s, [0-9]+ "
         "rows/s\n";
}

TEST_F(ImportCommandTest, CsvQuotingAndEmbeddedNewlines) {
  const std::string file =
      WriteFile("quoted.csv",
                "id,name,cc,note\r\n"
                "1,\"Oslo, city\",NO,\"says \"\"hei\"\"\"\r\n"
                "2,\"Troms\xc3\xb8\",NO,\"two\nlines\"\r\n"
                "3,Visby,SE,\r\n");
  const ImportRun run = Import({"--table", "quoted", "--file", file, "--header",
                                "--row-key", "id", "--index", "cc"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, MatchesRegex(Summary(3, "quoted", 0)));
  EXPECT_EQ(Get("quoted", "1"), (CellMap{{"d:cc", "NO"},
                                         {"d:name", "Oslo, city"},
                                         {"d:note", "says \"hei\""}}));
  EXPECT_EQ(Get("quoted", "2"), (CellMap{{"d:cc", "NO"},
                                         {"d:name", "Troms\xc3\xb8"},
                                         {"d:note", "two\nlines"}}));
  // An empty field writes no cell; the row key is no cell either.
  EXPECT_EQ(Get("quoted", "3"), (CellMap{{"d:cc", "SE"}, {"d:name", "Visby"}}));
  EXPECT_EQ(Lookup("quoted", "d:cc", "NO"),
            (std::vector<std::string>{"1", "2"}));
}

TEST_F(ImportCommandTest, TsvKeepsQuotesAndPreSplitsFromTheWholeFile) {
  // Sorted keys, as GeoNames: the split keys must spread over all of them.
  std::string text;
  for (int i = 1000; i < 3000; ++i) {
    text += std::to_string(i) + "\t\"Q\" " + std::to_string(i) + "\tc" +
            std::to_string(i % 3) + "\n";
  }
  const std::string file = WriteFile("sorted.txt", text);
  const ImportRun run =
      Import({"--table", "sorted", "--file", file, "--columns", "id,name,cls",
              "--row-key", "id", "--index", "cls", "--regions", "4",
              "--batch-rows", "64", "--in-flight", "3"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, MatchesRegex(Summary(2000, "sorted", 0)));
  EXPECT_EQ(Get("sorted", "1234"),
            (CellMap{{"d:cls", "c1"}, {"d:name", "\"Q\" 1234"}}));
  client::TTableInfo info;
  (*client_)->describeTable(info, "sorted");
  ASSERT_EQ(info.regions.size(), 4u);
  // Quartiles of 1000..2999 are near 1500, 2000, 2500 (the sample is 1024
  // keys of 2000: within 150 of each, about 6 sd).
  for (int i = 1; i < 4; ++i) {
    EXPECT_NEAR(std::stoi(info.regions[i].startKey), 1000 + 500 * i, 150);
  }
  EXPECT_EQ(Lookup("sorted", "d:cls", "c2").size(), 667u);
}

// A CSV file with every kind of bad line, its good rows and its bad ones.
struct BadFile {
  std::string text;
  std::vector<std::string> good;
  std::string listed;  // the bad-lines file's contents with skip
};

BadFile EveryKindOfBadLine() {
  BadFile f;
  f.text =
      "id,name,cc\n"
      "g1,a,NO\n"
      "b1,too,many,fields\n"
      "g2,b,SE\n"
      ",empty,key\n"
      "g3,c,DK\n"
      "b3,\"closed\"x,NO\n"
      "g4,d,FI\n"
      "b4,0123456789ABCDEF,NO\n"
      "g5,e,\"multi\nline\"\n"
      "b5,short\n"
      "b6,\"never closed,NO\n"
      "g6,f,IS\n";
  // A stray quote costs its line: g6 after it is imported.
  f.good = {"g1", "g2", "g3", "g4", "g5", "g6"};
  f.listed =
      "line 3: 4 fields, expected 3\n"
      "line 5: empty row key\n"
      "line 7: text after closing quote\n"
      "line 9: value of 'name' is 16 bytes, over 10\n"
      "line 12: 2 fields, expected 3\n"
      "line 13: unterminated quote (opened on line 13)\n";
  return f;
}

TEST_F(ImportCommandTest, SkipCountsAndListsEveryKindOfBadLine) {
  const BadFile f = EveryKindOfBadLine();
  const std::string file = WriteFile("bad.csv", f.text);
  const std::string listed = cluster_->dir() + "/bad-lines.txt";
  const ImportRun run = Import(
      {"--table", "skipped", "--file", file, "--header", "--row-key", "id",
       "--index", "cc", "--max-value-bytes", "10", "--bad-lines", listed});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, MatchesRegex(Summary(6, "skipped", 6)));
  EXPECT_THAT(run.out, HasSubstr("(listed in " + listed + ")"));
  EXPECT_EQ(ReadFile(listed), f.listed);
  EXPECT_EQ(Existing("skipped", f.good), 6u);
  // Nothing of a bad line: neither its key nor anything under another key.
  EXPECT_EQ(Existing("skipped", {"b1", "b3", "b4", "b5", "b6"}), 0u);
  EXPECT_EQ(Get("skipped", "g5"),
            (CellMap{{"d:cc", "multi\nline"}, {"d:name", "e"}}));

  // Without a bad-lines file they are shown on stderr.
  const ImportRun shown =
      Import({"--table", "skipped", "--file", file, "--header", "--row-key",
              "id", "--index", "cc", "--max-value-bytes", "10"});
  ASSERT_EQ(shown.code, 0) << shown.err;
  EXPECT_THAT(shown.err,
              HasSubstr("bloomroute import: bad line 3: 4 fields, expected 3"));
}

TEST_F(ImportCommandTest,
       FailStopsAtEachKindOfBadLineAfterWritingTheRowsBefore) {
  // 250 good rows (several batches in flight) before each kind of bad line.
  std::string before = "id,name,cc\n";
  std::vector<std::string> before_keys;
  for (int i = 0; i < 250; ++i) {
    before_keys.push_back("k" + std::to_string(i));
    before += before_keys.back() + ",n,NO\n";
  }
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"bad,too,many,fields\n", "4 fields, expected 3"},
      {",x,NO\n", "empty row key"},
      {"bad,\"open,NO\n", "unterminated quote"},
      {"bad,0123456789ABCDEF,NO\n", "value of 'name' is 16 bytes, over 10"},
      {"bad,\"a\"b,NO\n", "text after closing quote"},
  };
  for (size_t i = 0; i < kinds.size(); ++i) {
    SCOPED_TRACE(kinds[i].second);
    const std::string table = "failed" + std::to_string(i);
    const std::string file =
        WriteFile(table + ".csv", before + kinds[i].first + "after,y,SE\n");
    const ImportRun run =
        Import({"--table", table, "--file", file, "--header", "--row-key", "id",
                "--index", "cc", "--max-value-bytes", "10", "--on-bad-line",
                "fail", "--batch-rows", "16", "--in-flight", "4"});
    EXPECT_EQ(run.code, 1);
    EXPECT_THAT(run.err, HasSubstr("line 252: " + kinds[i].second));
    EXPECT_THAT(run.out, MatchesRegex(Summary(250, table, 1)));
    EXPECT_EQ(Existing(table, before_keys), 250u);
    EXPECT_EQ(Existing(table, {"bad", "after"}), 0u);
  }
}

TEST_F(ImportCommandTest, ReimportUpdatesRowsAndIndexesLastWriteWins) {
  const std::string first =
      WriteFile("v1.tsv", "id\tcc\tpop\nr1\tNO\t10\nr2\tNO\t20\nr3\tSE\t30\n");
  ASSERT_EQ(Import({"--table", "again", "--file", first, "--header",
                    "--row-key", "id", "--index", "cc,pop"})
                .code,
            0);
  EXPECT_EQ(Lookup("again", "d:cc", "NO"),
            (std::vector<std::string>{"r1", "r2"}));
  // r2 moves to SE; r3 appears twice in the file: its last line wins.
  const std::string second =
      WriteFile("v2.tsv", "id\tcc\tpop\nr2\tSE\t21\nr3\tDK\t31\nr3\tFI\t32\n");
  const ImportRun run =
      Import({"--table", "again", "--file", second, "--header", "--row-key",
              "id", "--index", "pop,cc"});
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, MatchesRegex(Summary(3, "again", 0)));
  EXPECT_EQ(Lookup("again", "d:cc", "NO"), (std::vector<std::string>{"r1"}));
  EXPECT_EQ(Lookup("again", "d:cc", "SE"), (std::vector<std::string>{"r2"}));
  EXPECT_EQ(Lookup("again", "d:cc", "FI"), (std::vector<std::string>{"r3"}));
  EXPECT_TRUE(Lookup("again", "d:cc", "DK").empty());
  EXPECT_TRUE(Lookup("again", "d:pop", "20").empty());
  EXPECT_EQ(Get("again", "r3"), (CellMap{{"d:cc", "FI"}, {"d:pop", "32"}}));
}

// --bulk must be indistinguishable from an online import: the same rows,
// the same index answers, the same summary, also when a second import
// changes values and a key repeats within a file.
TEST_F(ImportCommandTest, BulkImportEqualsOnlineImport) {
  auto file = [&](const std::string& name, int rows, int shift) {
    std::string text = "id,cc,kind,name\n";
    for (int i = 0; i < rows; ++i) {
      const int k = (i * 7919) % rows;  // unsorted keys
      text += "k" + std::to_string(k) + ",C" +
              std::to_string((k + shift) % 23) + ",T" +
              std::to_string(k % (3 + shift)) + ",n" + std::to_string(i) + "\n";
    }
    text += "k5,RE,,again\n";  // a repeated key: its columns win
    return WriteFile(name, text);
  };
  const std::vector<std::string> imports = {file("b1.csv", 1500, 0),
                                            file("b2.csv", 900, 4)};
  for (const std::string& f : imports) {
    for (const char* table : {"online", "bulk"}) {
      std::vector<std::string> args = {
          "--table", table,     "--file",  f,           "--header", "--row-key",
          "id",      "--index", "cc,kind", "--regions", "3"};
      if (std::string(table) == "bulk") args.push_back("--bulk");
      const ImportRun run = Import(args);
      ASSERT_EQ(run.code, 0) << run.err;
      const int rows = f == imports[0] ? 1501 : 901;
      EXPECT_THAT(run.out, MatchesRegex(Summary(rows, table, 0)));
    }
    auto scan = [&](const std::string& table) {
      std::vector<std::pair<std::string, CellMap>> rows;
      const int64_t id = (*client_)->openScanner(table, MakeScan());
      while (true) {
        std::vector<client::TResult> part;
        (*client_)->getScannerRows(part, id, 1000, 0);
        if (part.empty()) break;
        for (const auto& r : part) rows.emplace_back(r.row, CellsOf(r));
      }
      (*client_)->closeScanner(id);
      return rows;
    };
    const auto online = scan("online");
    EXPECT_EQ(online.size(), 1500u);
    EXPECT_EQ(scan("bulk"), online);
    for (int v = 0; v < 23; ++v) {
      const std::string cc = "C" + std::to_string(v);
      EXPECT_EQ(Lookup("bulk", "d:cc", cc), Lookup("online", "d:cc", cc)) << cc;
    }
    for (int v = 0; v < 7; ++v) {
      const std::string kind = "T" + std::to_string(v);
      EXPECT_EQ(Lookup("bulk", "d:kind", kind),
                Lookup("online", "d:kind", kind))
          << kind;
    }
    EXPECT_EQ(Lookup("bulk", "d:cc", "RE"), (std::vector<std::string>{"k5"}));
  }
}

TEST_F(ImportCommandTest, RefusesATableWithOtherIndexedColumns) {
  const std::string file = WriteFile("refuse.tsv", "id\tcc\ttz\nr1\tNO\tx\n");
  ASSERT_EQ(Import({"--table", "refuse", "--file", file, "--header",
                    "--row-key", "id", "--index", "cc"})
                .code,
            0);
  const ImportRun run = Import({"--table", "refuse", "--file", file, "--header",
                                "--row-key", "id", "--index", "cc,tz"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("table refuse exists with indexed columns "
                                 "d:cc, not d:cc,d:tz"));
  EXPECT_EQ(run.out, "");  // nothing imported, no summary
}

// A pipe can be read once: creating a table samples split keys from the
// whole input first, which must not eat rows of the import itself.
TEST_F(ImportCommandTest, PipedInputImportsEveryRow) {
  std::string text = "id,cc,name\n";
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    keys.push_back("p" + std::to_string(i));
    text += keys.back() + ",C" + std::to_string(i % 7) + ",name " +
            std::to_string(i) + " padded to make the file longer\n";
  }
  const std::string file = WriteFile("piped.csv", text);
  for (const char* input : {"/dev/stdin", "-"}) {
    SCOPED_TRACE(input);
    const std::string table = input[0] == '-' ? "piped_dash" : "piped_dev";
    const ImportRun run = ImportPiped(
        file, {"--table", table, "--file", input, "--format", "csv", "--header",
               "--row-key", "id", "--index", "cc", "--regions", "3"});
    EXPECT_EQ(run.code, 0) << run.err;
    EXPECT_THAT(run.out, MatchesRegex(Summary(2000, table, 0)));
    EXPECT_EQ(Existing(table, keys), 2000u);
    EXPECT_EQ(Lookup(table, "d:cc", "C3").size(), 286u);
  }
}

// A stray quote costs its own line: the lines after it are imported, the
// summary counts one bad line and the list names where the quote opened.
TEST_F(ImportCommandTest, StrayQuoteIsOneBadLineNotTheRestOfTheFile) {
  std::string text = "id,cc\n";
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "s" + std::to_string(i);
    if (i == 1) {
      text += key + ",\"C1\n";  // line 3: the quote is never closed
      continue;
    }
    keys.push_back(key);
    text += key + ",C" + std::to_string(i % 5) + "\n";
  }
  const std::string file = WriteFile("stray.csv", text);
  const std::string bad = cluster_->dir() + "/stray.bad";
  const ImportRun run =
      Import({"--table", "stray", "--file", file, "--header", "--row-key", "id",
              "--index", "cc", "--bad-lines", bad});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, MatchesRegex(Summary(1999, "stray", 1)));
  EXPECT_EQ(Existing("stray", keys), 1999u);
  EXPECT_EQ(ReadFile(bad),
            "line 3: quote opened on line 3 not closed within 100 lines "
            "(--max-quoted-lines)\n");
  // The caps are options of the command.
  const ImportRun capped =
      Import({"--table", "stray", "--file", file, "--header", "--row-key", "id",
              "--index", "cc", "--max-quoted-lines", "5000",
              "--max-field-bytes", "64"});
  EXPECT_EQ(capped.code, 0) << capped.err;
  EXPECT_THAT(capped.out, MatchesRegex(Summary(1999, "stray", 1)));
  EXPECT_THAT(capped.err,
              HasSubstr("bad line 3: quote opened on line 3 not closed within "
                        "64 bytes (--max-field-bytes)"));
}

// Entries of `dir` (names).
std::vector<std::string> Entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    names.push_back(e.path().filename().string());
  }
  return names;
}

// Ctrl-C (SIGINT) or SIGTERM while an import holds temporary files: the
// import stops, removes them and exits non-zero. The input is a FIFO the
// test keeps open, so the import is stuck reading when the signal comes:
// with a table to split (a copy of standard input is being made) and with
// --bulk (the bulk files' directory exists).
TEST_F(ImportCommandTest, InterruptRemovesTemporaryFilesAndExitsNonZero) {
  struct Case {
    const char* name;
    int signal_number;
    std::vector<std::string> args;
    const char* temp_prefix;  // what appears in TMPDIR while it runs
  };
  const std::vector<Case> cases = {
      {"spool", SIGINT, {"--regions", "2"}, "bloomroute-import-"},
      {"bulk", SIGINT, {"--regions", "1", "--bulk"}, "bloomroute-bulk-"},
      {"bulk_term", SIGTERM, {"--regions", "1", "--bulk"}, "bloomroute-bulk-"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string tmp = cluster_->dir() + "/tmp-" + c.name;
    const std::string fifo = cluster_->dir() + "/fifo-" + c.name;
    ASSERT_TRUE(std::filesystem::create_directory(tmp));
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    std::vector<std::string> args = {
        "-c",
        "export TMPDIR=\"$1\"; f=\"$2\"; shift 2; exec \"$@\" < \"$f\"",
        "sh",
        tmp,
        fifo,
        BLOOMROUTE_BINARY,
        "import",
        "--router",
        "127.0.0.1:" + std::to_string(cluster_->router_port()),
        "--table",
        std::string("interrupted_") + c.name,
        "--file",
        "-",
        "--format",
        "csv",
        "--header",
        "--row-key",
        "id",
        "--index",
        "cc"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    for (const std::string& flag : testing::ClientSecurityFlags()) {
      args.push_back(flag);
    }
    ServerProcess process("/bin/sh", args, /*capture_stderr=*/true);
    // Opening blocks until the import opens its end; it stays open, so the
    // import waits for more input until the signal.
    const int in = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(in, 0);
    // More than a read buffer (64 KiB), so that the import is past its
    // header and has its temporary files when it waits.
    std::string rows = "id,cc\n";
    for (int i = 0; i < 20000; ++i) {
      rows += "r" + std::to_string(i) + ",C" + std::to_string(i % 3) + "\n";
    }
    ASSERT_EQ(write(in, rows.data(), rows.size()),
              static_cast<ssize_t>(rows.size()));
    bool started = false;
    for (int i = 0; i < 500 && !started; ++i) {
      for (const std::string& e : Entries(tmp)) {
        started = started || e.rfind(c.temp_prefix, 0) == 0;
      }
      if (!started) usleep(20000);
    }
    ASSERT_TRUE(started) << ::testing::PrintToString(Entries(tmp));
    usleep(100000);  // let it block in its read
    process.Signal(c.signal_number);
    const std::optional<int> status = process.Wait(20000);
    close(in);
    ASSERT_TRUE(status.has_value());
    EXPECT_TRUE(WIFEXITED(*status)) << "killed by the signal";
    if (WIFEXITED(*status)) {
      EXPECT_NE(WEXITSTATUS(*status), 0);
    }
    EXPECT_THAT(process.ReadStderr(), HasSubstr("interrupted"));
    EXPECT_THAT(Entries(tmp), ::testing::IsEmpty());
  }
}

TEST_F(ImportCommandTest, BadUsageExitsTwoWithAOneLineReason) {
  const std::string f = WriteFile("usage.tsv", "a\tb\n");
  const std::vector<std::vector<std::string>> bad = {
      {"--table", "t", "--file", f, "--header", "--index", "b"},  // no key
      {"--table", "t", "--file", f, "--row-key", "a", "--index", "b"},
      {"--table", "t", "--file", f, "--header", "--columns", "a,b", "--row-key",
       "a", "--index", "b"},
      {"--table", "t", "--file", f, "--columns", "a,,b", "--row-key", "a",
       "--index", "b"},
      {"--table", "t", "--file", f, "--header", "--row-key", "a", "--index",
       "b", "--format", "xml"},
      {"--table", "t", "--file", f, "--header", "--row-key", "a", "--index",
       "b", "--on-bad-line", "ignore"},
      {"--table", "t", "--file", f, "--header", "--row-key", "a", "--index",
       "b", "--batch-rows", "0"},
      {"--table", "t", "--file", f, "--header", "--row-key", "a", "--index",
       "b", "--in-flight", "-1"},
  };
  for (const auto& args : bad) {
    SCOPED_TRACE(::testing::PrintToString(args));
    const ImportRun run = Import(args);
    EXPECT_EQ(run.code, 2);
    EXPECT_THAT(run.err, MatchesRegex("bloomroute import: [^\n]+\n"));
  }
  // Columns that do not fit the file fail (exit 1) before anything is made.
  const ImportRun run = Import({"--table", "t", "--file", f, "--header",
                                "--row-key", "a", "--index", "zz"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, HasSubstr("indexed column 'zz' is not a column"));
}

}  // namespace
}  // namespace bloomroute
