#include "tools/shell/shell_parser.h"

#include <cctype>
#include <charconv>

namespace bloomroute::shell {
namespace {

bool IsWordStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Recursive descent over one statement; pos_ is a byte offset into text_.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  StatusOr<Statement> Parse(bool parse_arguments) {
    Statement out;
    SkipBlanks();
    if (AtEnd() || !IsWordStart(Peek())) {
      return Error("a statement starts with a command name");
    }
    out.command = Word();
    out.rest = std::string(Trim(text_.substr(pos_)));
    if (!parse_arguments) return out;
    BLOOMROUTE_RETURN_IF_ERROR(Arguments(&out.args));
    return out;
  }

 private:
  Status Arguments(std::vector<Value>* args) {
    bool in_pairs = false;  // the last argument is a hash of K => V pairs
    SkipBlanks();
    while (!AtEnd()) {
      BLOOMROUTE_ASSIGN_OR_RETURN(Value value, ParseValue(0));
      SkipBlanks();
      const bool bare_word = value.kind == Value::Kind::kWord;
      if (Consume("=>")) {
        BLOOMROUTE_ASSIGN_OR_RETURN(Value v, ParseValue(0));
        if (!in_pairs) {
          args->push_back(Value{Value::Kind::kHash});
          in_pairs = true;
        }
        args->back().pairs.emplace_back(std::move(value), std::move(v));
      } else {
        args->push_back(std::move(value));
        in_pairs = false;
      }
      SkipBlanks();
      if (AtEnd()) break;
      if (Consume(",")) {
        SkipBlanks();
        if (AtEnd()) return Error("expected an argument after ','");
        continue;
      }
      if (bare_word && !in_pairs) continue;  // `index add 't'`
      return Error("expected ',' after " + args->back().Describe());
    }
    return Status::OK();
  }

  StatusOr<Value> ParseValue(int depth) {
    if (depth >= kMaxNesting) {
      return Error("lists and hashes nest deeper than " +
                   std::to_string(kMaxNesting));
    }
    SkipBlanks();
    if (AtEnd()) return Error("expected a value");
    const char c = Peek();
    if (c == '\'' || c == '"') return String(c);
    if (IsDigit(c) ||
        (c == '-' && pos_ + 1 < text_.size() && IsDigit(text_[pos_ + 1]))) {
      return Integer();
    }
    if (IsWordStart(c)) return Value{Value::Kind::kWord, Word()};
    if (c == '[') return List(depth);
    if (c == '{') return Hash(depth);
    return Error(std::string("unexpected '") + c + "'");
  }

  StatusOr<Value> String(char quote) {
    const size_t start = pos_++;
    Value out{Value::Kind::kString};
    while (!AtEnd()) {
      const char c = text_[pos_++];
      if (c == quote) return out;
      if (c != '\\' || AtEnd()) {
        out.text += c;
        continue;
      }
      const char e = text_[pos_++];
      if (quote == '\'') {
        if (e != '\'' && e != '\\') out.text += '\\';
        out.text += e;
      } else {
        BLOOMROUTE_RETURN_IF_ERROR(Escape(e, &out.text));
      }
    }
    pos_ = start;
    return Error("unterminated string");
  }

  // One escape of a double-quoted string, the backslash consumed, as Ruby
  // reads it: \n \t \r \e \a \b \s \v \f, octal \NNN, hex \xNN,
  // \uNNNN and \u{N...} (as UTF-8); any other \c is c.
  Status Escape(char e, std::string* out) {
    static constexpr std::pair<char, char> kSimple[] = {
        {'n', '\n'}, {'t', '\t'}, {'r', '\r'}, {'e', '\x1b'}, {'a', '\a'},
        {'b', '\b'}, {'s', ' '},  {'v', '\v'}, {'f', '\f'}};
    for (const auto& [name, byte] : kSimple) {
      if (e == name) {
        *out += byte;
        return Status::OK();
      }
    }
    if (e >= '0' && e <= '7') {
      int value = e - '0';
      for (int i = 0; i < 2 && !AtEnd() && Peek() >= '0' && Peek() <= '7';
           ++i) {
        value = value * 8 + (text_[pos_++] - '0');
      }
      *out += static_cast<char>(value & 0xff);
      return Status::OK();
    }
    if (e == 'x') {
      const int value = Hex(2, nullptr);
      if (value < 0) return Error("\\x without a hex digit");
      *out += static_cast<char>(value);
      return Status::OK();
    }
    if (e == 'u') return Unicode(out);
    *out += e;
    return Status::OK();
  }

  // Up to `most` hex digits as a number, -1 when there is none; `digits`
  // (when given) gets how many were read.
  int Hex(int most, int* digits) {
    int value = 0;
    int read = 0;
    while (read < most && !AtEnd() && HexDigit(Peek()) >= 0) {
      value = value * 16 + HexDigit(text_[pos_++]);
      ++read;
    }
    if (digits != nullptr) *digits = read;
    return read == 0 ? -1 : value;
  }

  // \uNNNN or \u{N...}, the "u" consumed: the code point in UTF-8.
  Status Unicode(std::string* out) {
    const bool braced = Consume("{");
    int digits = 0;
    const int code = Hex(braced ? 6 : 4, &digits);
    if ((braced && !Consume("}")) || (!braced && digits != 4) || code < 0 ||
        code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
      return Error("bad \\u escape (\\uNNNN or \\u{N...}, a code point)");
    }
    const auto u = static_cast<uint32_t>(code);
    if (u < 0x80) {
      *out += static_cast<char>(u);
    } else if (u < 0x800) {
      *out += static_cast<char>(0xc0 | (u >> 6));
      *out += static_cast<char>(0x80 | (u & 0x3f));
    } else if (u < 0x10000) {
      *out += static_cast<char>(0xe0 | (u >> 12));
      *out += static_cast<char>(0x80 | ((u >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (u & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (u >> 18));
      *out += static_cast<char>(0x80 | ((u >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((u >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (u & 0x3f));
    }
    return Status::OK();
  }

  StatusOr<Value> Integer() {
    const size_t start = pos_;
    if (Peek() == '-') ++pos_;
    while (!AtEnd() && IsDigit(Peek())) ++pos_;
    Value out{Value::Kind::kInteger};
    out.text = std::string(text_.substr(start, pos_ - start));
    const auto [end, ec] = std::from_chars(
        out.text.data(), out.text.data() + out.text.size(), out.integer);
    if (ec != std::errc() || end != out.text.data() + out.text.size()) {
      pos_ = start;
      return Error("integer " + out.text + " is out of range");
    }
    if (!AtEnd() && IsWordChar(Peek())) {
      return Error("unexpected '" + std::string(1, Peek()) + "' in a number");
    }
    return out;
  }

  StatusOr<Value> List(int depth) {
    ++pos_;  // '['
    Value out{Value::Kind::kList};
    while (true) {
      SkipBlanks();
      if (Consume("]")) return out;
      BLOOMROUTE_ASSIGN_OR_RETURN(Value item, ParseValue(depth + 1));
      out.items.push_back(std::move(item));
      SkipBlanks();
      if (Consume("]")) return out;
      if (!Consume(",")) return Error("expected ',' or ']' in a list");
    }
  }

  StatusOr<Value> Hash(int depth) {
    ++pos_;  // '{'
    Value out{Value::Kind::kHash};
    while (true) {
      SkipBlanks();
      if (Consume("}")) return out;
      BLOOMROUTE_ASSIGN_OR_RETURN(Value key, ParseValue(depth + 1));
      SkipBlanks();
      if (!Consume("=>")) {
        return Error("expected '=>' after " + key.Describe() + " in a hash");
      }
      BLOOMROUTE_ASSIGN_OR_RETURN(Value value, ParseValue(depth + 1));
      out.pairs.emplace_back(std::move(key), std::move(value));
      SkipBlanks();
      if (Consume("}")) return out;
      if (!Consume(",")) return Error("expected ',' or '}' in a hash");
    }
  }

  std::string Word() {
    const size_t start = pos_;
    while (!AtEnd() && IsWordChar(Peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }

  void SkipBlanks() {
    while (!AtEnd() && std::isspace(static_cast<unsigned char>(Peek()))) {
      ++pos_;
    }
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  bool Consume(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  Status Error(const std::string& what) const {
    return Status::InvalidArgument("syntax error at column " +
                                   std::to_string(pos_ + 1) + ": " + what);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

const char* Value::KindName() const {
  switch (kind) {
    case Kind::kString:
      return "a string";
    case Kind::kInteger:
      return "an integer";
    case Kind::kWord:
      return "a word";
    case Kind::kList:
      return "a list";
    case Kind::kHash:
      return "a hash";
  }
  return "a value";
}

std::string Value::Describe() const {
  switch (kind) {
    case Kind::kString: {
      std::string out = "'";
      for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '\'' || c == '\\') {
          out += '\\';
          out += c;
        } else if (u < 0x20 || u >= 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[u >> 4];
          out += kHex[u & 15];
        } else {
          out += c;
        }
      }
      return out + "'";
    }
    case Kind::kInteger:
      return text;
    case Kind::kWord:
      return text;
    case Kind::kList: {
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) {
        out += (i ? ", " : "") + items[i].Describe();
      }
      return out + "]";
    }
    case Kind::kHash: {
      std::string out = "{";
      for (size_t i = 0; i < pairs.size(); ++i) {
        out += (i ? ", " : "") + pairs[i].first.Describe() + " => " +
               pairs[i].second.Describe();
      }
      return out + "}";
    }
  }
  return "";
}

Status StatementSplitter::Feed(std::string_view text) {
  for (const char c : text) {
    if (comment_ && c != '\n') continue;
    comment_ = false;
    if (quote_ != 0) {
      current_ += c;
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == quote_) {
        quote_ = 0;
      }
    } else if (c == '#') {
      comment_ = true;
    } else if (c == ';' || (c == '\n' && !incomplete())) {
      Flush();
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      current_ += ' ';
    } else {
      if (c == '\'' || c == '"') quote_ = c;
      if (c == '[' || c == '{') ++depth_;
      if ((c == ']' || c == '}') && depth_ > 0) --depth_;
      current_ += c;
      before_last_ = last_;
      last_ = c;
    }
    if (current_.size() > kMaxStatementBytes) {
      Reset();
      return Status::InvalidArgument(
          "a statement longer than " + std::to_string(kMaxStatementBytes) +
          " bytes (an unterminated quote or bracket?)");
    }
  }
  return Status::OK();
}

bool StatementSplitter::incomplete() const {
  return quote_ != 0 || depth_ > 0 || last_ == ',' ||
         (before_last_ == '=' && last_ == '>');
}

std::vector<std::string> StatementSplitter::Take() {
  std::vector<std::string> out;
  out.swap(done_);
  return out;
}

Status StatementSplitter::Finish() {
  if (incomplete()) {
    Reset();
    return Status::InvalidArgument(
        "the input ends inside a statement (an unterminated quote or "
        "bracket, or a trailing ',' or '=>')");
  }
  Flush();
  return Status::OK();
}

void StatementSplitter::Flush() {
  const std::string_view s = Trim(current_);
  if (!s.empty()) done_.emplace_back(s);
  Reset();
}

void StatementSplitter::Reset() {
  current_.clear();
  depth_ = 0;
  quote_ = 0;
  escaped_ = false;
  comment_ = false;
  last_ = before_last_ = 0;
}

Split SplitStatements(std::string_view text) {
  StatementSplitter splitter;
  Split out;
  const Status fed = splitter.Feed(text);
  if (!fed.ok() || !splitter.Finish().ok()) {
    out.incomplete = true;
    return out;
  }
  out.statements = splitter.Take();
  return out;
}

StatusOr<Statement> ParseStatement(std::string_view text,
                                   bool parse_arguments) {
  return Parser(text).Parse(parse_arguments);
}

StatusOr<std::vector<std::string>> SplitWords(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else if (c == '\'' || c == '"') {
      const size_t close = [&] {
        for (size_t j = i + 1; j < text.size(); ++j) {
          if (text[j] == c) return j;
          if (c == '"' && text[j] == '\\') ++j;
        }
        return std::string_view::npos;
      }();
      if (close == std::string_view::npos) {
        return Status::InvalidArgument(std::string("unterminated ") + c +
                                       " quote");
      }
      for (size_t j = i + 1; j < close; ++j) {
        if (c == '"' && text[j] == '\\' && j + 1 < close &&
            (text[j + 1] == '"' || text[j + 1] == '\\')) {
          ++j;
        }
        word += text[j];
      }
      i = close;
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace bloomroute::shell
