// OptionTable: a command's options stated once. Each row names an option,
// binds it to the field it sets (typed: integers with bounds and a unit,
// doubles with bounds, switches, strings, enumerations, lists), and gives its
// default and help. From the table come the Boost.Program_options
// description (the command line, --help and the keys of a --config file),
// the range checks and --print-config, so a bound cannot disagree with its
// help text or its error message.
//
// Words. Every bounded option's help ends with its bounds and default in the
// same words, e.g. "(in [1, 1024], default 16)", "(0 or at least 1048576,
// default 1073741824)", "(in (0, 1), default 0.8)", "(skip or fail, default
// skip)"; a value out of bounds is InvalidArgument in the same words:
// "--threads must be in [1, 1024], not 0". The value name shown in --help
// is the unit: N, BYTES, SECONDS, MS (integers), X (doubles), or what
// ValueName sets.
//
// Example:
//   OptionTable table;
//   table.Integer("threads", &options.threads, 16, "worker threads")
//       .Range(1, ServerOptions::kMaxThreads);
//   table.Integer("idle-timeout", &options.idle_timeout_ms, 300, "...")
//       .Unit(OptionUnit::kSeconds).Scale(1000).Range(1, 86400);
//   table.AddTo(&description);  // then parse the command line and notify
//   Status s = table.Check();   // bounds; then every target is set
//
// Command::Run (tools/command.h) does the parsing: a command declares its
// rows in DeclareOptions.
//
// Thread-safety: none (one command's options, used by one thread).
#ifndef BLOOMROUTE_TOOLS_OPTION_TABLE_H_
#define BLOOMROUTE_TOOLS_OPTION_TABLE_H_

#include <boost/program_options.hpp>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "common/status.h"

namespace bloomroute {

class OptionTable;

// One row. The kinds below add their bounds.
class Option {
 public:
  explicit Option(std::string name, std::string help, std::string value_name)
      : name_(std::move(name)),
        help_(std::move(help)),
        value_name_(std::move(value_name)) {}
  virtual ~Option() = default;
  Option(const Option&) = delete;
  Option& operator=(const Option&) = delete;

  const std::string& name() const { return name_; }
  // The help text as --help shows it: the row's help, then its bounds and
  // default.
  std::string HelpText() const;
  // Whether it was given or has a default (after parsing).
  bool has_value() const { return has_value_; }
  // Its value as config-file values (one per element of a list; none when
  // it has no value).
  virtual std::vector<std::string> ValueTexts() const = 0;

 protected:
  friend class OptionTable;
  // Declares it on `o`.
  virtual void AddTo(boost::program_options::options_description* o) = 0;
  // Checks the parsed value against its bounds and sets the target; OK and
  // nothing set when it has no value.
  virtual Status Store(const OptionTable& table) = 0;
  // "in [1, 1024]", "skip or fail", ...; empty for none.
  virtual std::string BoundsText() const { return ""; }
  // "16", "127.0.0.1:9090"; empty for none.
  virtual std::string DefaultText() const { return ""; }
  // InvalidArgument "--<name> must be <bounds>, not <value>".
  Status OutOfBounds(const std::string& bounds, const std::string& value) const;

  const std::string name_;
  const std::string help_;
  std::string value_name_;
  bool has_value_ = false;
};

// What an integer option counts: its value name in --help.
enum class OptionUnit { kCount, kBytes, kSeconds, kMilliseconds };

class IntegerOption : public Option {
 public:
  static constexpr int64_t kNoUpperBound = std::numeric_limits<int64_t>::max();

  // [min, max]; kNoUpperBound as max: at least min. The default: any int64.
  IntegerOption& Range(int64_t min, int64_t max);
  // 0 is accepted too (an "off" the help explains).
  IntegerOption& OrZero();
  // The lower bound is also the value of integer option `other` plus
  // `plus` (checked first), shown as "--other + plus".
  IntegerOption& AtLeastOption(std::string other, int64_t plus = 0);
  IntegerOption& Unit(OptionUnit unit);
  // The target gets the value times `scale` (seconds into ms: 1000).
  IntegerOption& Scale(int64_t scale);
  // Required on the command line (or in the config file); no default.
  IntegerOption& Required();

  int64_t value() const { return value_; }
  std::vector<std::string> ValueTexts() const override;

 private:
  friend class OptionTable;
  IntegerOption(std::string name, std::string help, int64_t default_value,
                int64_t target_max, std::function<void(int64_t)> store);
  void AddTo(boost::program_options::options_description* o) override;
  Status Store(const OptionTable& table) override;
  std::string BoundsText() const override;
  std::string DefaultText() const override;
  // The bounds in words with `low` as the lower one.
  std::string Bounds(const std::string& low) const;

  const int64_t default_;
  const int64_t target_max_;  // the largest value the target holds
  const std::function<void(int64_t)> store_;
  int64_t min_ = std::numeric_limits<int64_t>::min();
  int64_t max_ = kNoUpperBound;
  bool or_zero_ = false;
  std::string min_option_;
  int64_t min_option_plus_ = 0;
  int64_t scale_ = 1;
  bool required_ = false;
  int64_t value_ = 0;  // as parsed
};

class DoubleOption : public Option {
 public:
  // [low, high]; OpenLow / OpenHigh exclude an end.
  DoubleOption& Range(double low, double high);
  DoubleOption& OpenLow();
  DoubleOption& OpenHigh();
  DoubleOption& ValueName(std::string name);

  std::vector<std::string> ValueTexts() const override;

 private:
  friend class OptionTable;
  DoubleOption(std::string name, std::string help, double default_value,
               double* target);
  void AddTo(boost::program_options::options_description* o) override;
  Status Store(const OptionTable& table) override;
  std::string BoundsText() const override;
  std::string DefaultText() const override;

  const double default_;
  double* const target_;
  double low_ = -std::numeric_limits<double>::infinity();
  double high_ = std::numeric_limits<double>::infinity();
  bool open_low_ = false;
  bool open_high_ = false;
  double value_ = 0;  // as parsed
};

// A string, or one of a list of words (Choices).
class StringOption : public Option {
 public:
  StringOption& Default(std::string value);
  StringOption& Required();
  StringOption& ValueName(std::string name);
  // The value must be one of these (when it has one).
  StringOption& Choices(std::vector<std::string> choices);

  std::vector<std::string> ValueTexts() const override;

 private:
  friend class OptionTable;
  StringOption(std::string name, std::string help, std::string* target);
  void AddTo(boost::program_options::options_description* o) override;
  Status Store(const OptionTable& table) override;
  std::string BoundsText() const override;
  std::string DefaultText() const override;

  std::string* const target_;
  bool has_default_ = false;
  std::string default_;
  bool required_ = false;
  std::vector<std::string> choices_;
};

// A value given any number of times (`--regionserver a --regionserver b`;
// in a config file one line each).
class StringListOption : public Option {
 public:
  StringListOption& ValueName(std::string name);
  std::vector<std::string> ValueTexts() const override;

 private:
  friend class OptionTable;
  StringListOption(std::string name, std::string help,
                   std::vector<std::string>* target);
  void AddTo(boost::program_options::options_description* o) override;
  Status Store(const OptionTable& table) override;

  std::vector<std::string>* const target_;
};

// A flag without a value: given, the target is true (default false).
class SwitchOption : public Option {
 public:
  std::vector<std::string> ValueTexts() const override;

 private:
  friend class OptionTable;
  SwitchOption(std::string name, std::string help, bool* target);
  void AddTo(boost::program_options::options_description* o) override;
  Status Store(const OptionTable& table) override;

  bool* const target_;
};

class OptionTable {
 public:
  OptionTable() = default;
  OptionTable(const OptionTable&) = delete;
  OptionTable& operator=(const OptionTable&) = delete;

  // An integer option setting *target (any integer type): parsed as int64_t,
  // so that a negative number is an error rather than a wrap; `default_value`
  // in the option's unit (before Scale).
  template <typename T>
  IntegerOption& Integer(std::string name, T* target, int64_t default_value,
                         std::string help) {
    static_assert(std::is_integral_v<T>, "an integer target");
    constexpr int64_t kTargetMax =
        std::numeric_limits<T>::max() > std::numeric_limits<int64_t>::max()
            ? std::numeric_limits<int64_t>::max()
            : static_cast<int64_t>(std::numeric_limits<T>::max());
    return Add(std::unique_ptr<IntegerOption>(new IntegerOption(
        std::move(name), std::move(help), default_value, kTargetMax,
        [target](int64_t v) { *target = static_cast<T>(v); })));
  }
  DoubleOption& Double(std::string name, double* target, double default_value,
                       std::string help);
  StringOption& String(std::string name, std::string* target, std::string help);
  StringListOption& StringList(std::string name,
                               std::vector<std::string>* target,
                               std::string help);
  SwitchOption& Switch(std::string name, bool* target, std::string help);

  // The row named `name`; null if there is none.
  const Option* Find(const std::string& name) const;
  // The integer row named `name`, for a command that changes the bounds of
  // a row it shares (ServerFlags'); null if there is none.
  IntegerOption* FindInteger(const std::string& name);

  // Declares every row on `o`, in table order. Throws std::logic_error for
  // a row whose bounds its target cannot hold (a programming error).
  void AddTo(boost::program_options::options_description* o);
  // After parsing: checks every row against its bounds in table order (a
  // row bounded by another after that one) and sets its target.
  // InvalidArgument naming the first option out of bounds; targets of the
  // rows after it are not set.
  Status Check();

  // The rows, in declaration order.
  const std::vector<std::unique_ptr<Option>>& options() const {
    return options_;
  }

 private:
  template <typename T>
  T& Add(std::unique_ptr<T> option) {
    T& added = *option;
    options_.push_back(std::move(option));
    return added;
  }
  Status CheckOne(Option* option, std::vector<const Option*>* checked);

  std::vector<std::unique_ptr<Option>> options_;
};

}  // namespace bloomroute

#endif  // BLOOMROUTE_TOOLS_OPTION_TABLE_H_
