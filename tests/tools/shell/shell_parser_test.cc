#include "tools/shell/shell_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace bloomroute::shell {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Statement Parse(std::string_view text) {
  StatusOr<Statement> s = ParseStatement(text);
  EXPECT_TRUE(s.ok()) << text << ": " << s.status().ToString();
  return s.ok() ? *s : Statement{};
}

std::string ParseError(std::string_view text) {
  StatusOr<Statement> s = ParseStatement(text);
  EXPECT_FALSE(s.ok()) << text;
  EXPECT_TRUE(s.status().IsInvalidArgument());
  return s.status().message();
}

TEST(ShellParserTest, HBaseStatements) {
  Statement s = Parse("put 't', 'r1', 'd:cc', 'NO', 17");
  EXPECT_EQ(s.command, "put");
  ASSERT_EQ(s.args.size(), 5u);
  EXPECT_EQ(s.args[3].text, "NO");
  EXPECT_EQ(s.args[4].kind, Value::Kind::kInteger);
  EXPECT_EQ(s.args[4].integer, 17);

  s = Parse(
      "scan 't', {FILTER => \"ValueFilter(=, 'binary:NO')\", "
      "LIMIT => 10, COLUMNS => ['d:a', 'd:b'],}");
  ASSERT_EQ(s.args.size(), 2u);
  const Value& h = s.args[1];
  ASSERT_EQ(h.kind, Value::Kind::kHash);
  ASSERT_EQ(h.pairs.size(), 3u);
  EXPECT_EQ(h.pairs[0].first.text, "FILTER");
  EXPECT_EQ(h.pairs[0].first.kind, Value::Kind::kWord);
  EXPECT_EQ(h.pairs[0].second.text, "ValueFilter(=, 'binary:NO')");
  EXPECT_EQ(h.pairs[2].second.items.size(), 2u);
  EXPECT_EQ(h.Describe(),
            "{FILTER => 'ValueFilter(=, \\'binary:NO\\')', LIMIT => 10, "
            "COLUMNS => ['d:a', 'd:b']}");
}

// Ruby gathers trailing K => V pairs into one hash argument.
TEST(ShellParserTest, TrailingPairsAreOneHash) {
  Statement s = Parse(
      "lookup 't', 'd:cc' => 'NO', 'd:fc' => ['A', 'B'], "
      "LIMIT => 5");
  ASSERT_EQ(s.args.size(), 2u);
  ASSERT_EQ(s.args[1].kind, Value::Kind::kHash);
  EXPECT_EQ(s.args[1].pairs.size(), 3u);
  s = Parse("create 't', 'd', SPLITS => ['m'], {NAME => 'e'}");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_EQ(s.args[2].kind, Value::Kind::kHash);
  EXPECT_EQ(s.args[3].kind, Value::Kind::kHash);
}

TEST(ShellParserTest, WordsMayGoWithoutAComma) {
  Statement s = Parse("index add 't', 'd:x'");
  ASSERT_EQ(s.args.size(), 3u);
  EXPECT_EQ(s.args[0].kind, Value::Kind::kWord);
  EXPECT_EQ(s.args[0].text, "add");
  EXPECT_EQ(s.rest, "add 't', 'd:x'");
  EXPECT_THAT(ParseError("put 't' 'r'"), HasSubstr("expected ',' after 't'"));
}

TEST(ShellParserTest, StringsQuoteAsRubyDoes) {
  Statement s = Parse(R"(put 'a\'b\\c\n', "x\ty\x41\x4Z\0\"\e", '', "")");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_EQ(s.args[0].text, "a'b\\c\\n");  // single quotes: only \' and \\ .
  EXPECT_EQ(s.args[1].text, std::string("x\tyA\x04Z\0\"\x1b", 9));
  EXPECT_EQ(s.args[2].text, "");
  EXPECT_EQ(s.args[1].Describe(), "'x\\x09yA\\x04Z\\x00\"\\x1b'");
}

TEST(ShellParserTest, RubyEscapes) {
  Statement s =
      Parse(R"(put "\001\1x\18", "\s\b\v\f", "\u00e9\u{1F600}\u{41}", "\q")");
  ASSERT_EQ(s.args.size(), 4u);
  EXPECT_EQ(s.args[0].text, std::string("\x01\x01x\x01") + "8");
  EXPECT_EQ(s.args[1].text, " \b\v\f");
  EXPECT_EQ(s.args[2].text,
            "\xc3\xa9\xf0\x9f\x98\x80"
            "A");
  EXPECT_EQ(s.args[3].text, "q");
  EXPECT_THAT(ParseError(R"(put "\u12")"), HasSubstr("bad \\u escape"));
  EXPECT_THAT(ParseError(R"(put "\u{110000}")"), HasSubstr("bad \\u escape"));
  EXPECT_THAT(ParseError(R"(put "\ud800")"), HasSubstr("bad \\u escape"));
  EXPECT_THAT(ParseError(R"(put "\xg")"), HasSubstr("without a hex digit"));
}

TEST(ShellParserTest, SyntaxErrorsNameTheColumn) {
  EXPECT_EQ(ParseError("get 'abc"),
            "syntax error at column 5: unterminated string");
  EXPECT_THAT(ParseError("'t'"), HasSubstr("starts with a command name"));
  EXPECT_THAT(ParseError("get 't',"), HasSubstr("expected an argument"));
  EXPECT_THAT(ParseError("get 99999999999999999999"),
              HasSubstr("out of range"));
  EXPECT_THAT(ParseError("get 12ab"), HasSubstr("in a number"));
  EXPECT_THAT(ParseError("get {A 1}"), HasSubstr("expected '=>'"));
  EXPECT_THAT(ParseError("get [1 2]"), HasSubstr("expected ',' or ']'"));
  EXPECT_THAT(ParseError("get $x"), HasSubstr("unexpected '$'"));
  // Nesting is bounded: the parser recurses.
  EXPECT_THAT(ParseError("get " + std::string(100, '[')),
              HasSubstr("nest deeper than 32"));
  const std::string deep = "get " + std::string(32, '[') + std::string(32, ']');
  EXPECT_TRUE(ParseStatement(deep).ok());
  EXPECT_THAT(ParseError("get " + std::string(33, '[') + std::string(33, ']')),
              HasSubstr("nest deeper than 32"));
}

TEST(ShellParserTest, ArgumentsAreLeftForWordCommands) {
  StatusOr<Statement> s = ParseStatement("admin regions --table 'x y", false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->command, "admin");
  EXPECT_TRUE(s->args.empty());
  EXPECT_EQ(s->rest, "regions --table 'x y");
}

TEST(ShellParserTest, SplitStatements) {
  Split split = SplitStatements(
      "list; get 't', 'a;b' # a comment; not a statement\n\n"
      "scan 't', {LIMIT =>\n 5}\ncount 't',\n {INTERVAL => 1}\n");
  EXPECT_FALSE(split.incomplete);
  EXPECT_THAT(split.statements,
              ElementsAre("list", "get 't', 'a;b'", "scan 't', {LIMIT =>  5}",
                          "count 't',  {INTERVAL => 1}"));
  EXPECT_TRUE(SplitStatements("put 't', 'multi\nline").incomplete);
  EXPECT_TRUE(SplitStatements("scan 't', {").incomplete);
  EXPECT_TRUE(SplitStatements("get 't',\n").incomplete);
  EXPECT_TRUE(SplitStatements("lookup 't', 'a' =>").incomplete);
  EXPECT_TRUE(SplitStatements("get 't', 'it\\'s").incomplete);
  // A quoted '#' or newline is part of the string.
  split = SplitStatements("put 't', 'r#1', \"a\nb\"\n");
  EXPECT_THAT(split.statements, ElementsAre("put 't', 'r#1', \"a\nb\""));
  // A stray closing bracket does not swallow what follows, and the depth
  // starts again at each statement.
  split = SplitStatements("get ]\nlist\n");
  EXPECT_THAT(split.statements, ElementsAre("get ]", "list"));
  split = SplitStatements("get ]; scan 't', {\n LIMIT=>1}\nlist");
  EXPECT_THAT(split.statements,
              ElementsAre("get ]", "scan 't', {  LIMIT=>1}", "list"));
  // Blank and comment lines inside a statement add a blank each.
  split = SplitStatements("count 't',\n\n# a comment\n\n  {INTERVAL => 1}\n");
  EXPECT_THAT(split.statements, ElementsAre("count 't',      {INTERVAL => 1}"));
}

TEST(ShellParserTest, TheSplitterTakesInputInAnyPieces) {
  const std::string text =
      "put 't', 'a;b', \"c\\\"d\"; get 't',\n 'x' # c'mment\nlist\n";
  for (size_t piece = 1; piece <= text.size(); ++piece) {
    StatementSplitter splitter;
    for (size_t at = 0; at < text.size(); at += piece) {
      ASSERT_TRUE(splitter.Feed(text.substr(at, piece)).ok());
    }
    ASSERT_TRUE(splitter.Finish().ok());
    EXPECT_THAT(splitter.Take(), ElementsAre("put 't', 'a;b', \"c\\\"d\"",
                                             "get 't',  'x'", "list"))
        << "pieces of " << piece;
  }
  StatementSplitter splitter;
  ASSERT_TRUE(splitter.Feed("list\nscan 't', {").ok());
  EXPECT_THAT(splitter.Take(), ElementsAre("list"));
  EXPECT_TRUE(splitter.incomplete());
  EXPECT_FALSE(splitter.Finish().ok());
  // After a failed Finish the splitter starts afresh.
  EXPECT_FALSE(splitter.incomplete());
  ASSERT_TRUE(splitter.Feed("exists 't'").ok());
  ASSERT_TRUE(splitter.Finish().ok());
  EXPECT_THAT(splitter.Take(), ElementsAre("exists 't'"));
}

// An unterminated quote cannot make the splitter hold the whole input: the
// statement is dropped past kMaxStatementBytes, and what follows it is
// read afresh.
TEST(ShellParserTest, AStatementIsBounded) {
  StatementSplitter splitter;
  ASSERT_TRUE(splitter.Feed("put 't', 'r', 'd:c', 'don't'\n").ok());
  ASSERT_TRUE(splitter.incomplete());
  const std::string line(1000, 'x');
  Status s;
  size_t fed = 0;
  while (s.ok() && fed < 2 * kMaxStatementBytes) {
    s = splitter.Feed(line + "\n");
    fed += line.size() + 1;
  }
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("a statement longer than 16777216 bytes"));
  EXPECT_LE(fed, kMaxStatementBytes + line.size() + 1);
  ASSERT_TRUE(splitter.Feed("list\n").ok());
  EXPECT_THAT(splitter.Take(), ElementsAre("list"));
}

TEST(ShellParserTest, SplitWords) {
  StatusOr<std::vector<std::string>> words =
      SplitWords(R"(regions --table 'a b' "c\"d" e\ f)");
  ASSERT_TRUE(words.ok());
  EXPECT_THAT(*words, ElementsAre("regions", "--table", "a b", "c\"d", "e f"));
  EXPECT_THAT(*SplitWords("  "), ElementsAre());
  EXPECT_THAT(*SplitWords("''"), ElementsAre(""));
  EXPECT_FALSE(SplitWords("'open").ok());
}

}  // namespace
}  // namespace bloomroute::shell
