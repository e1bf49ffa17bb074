#include "tools/option_table.h"

#include <algorithm>
#include <charconv>
#include <sstream>
#include <stdexcept>

namespace bloomroute {
namespace po = boost::program_options;
namespace {

// "0.05" for --help, rather than "0.050000000000000003".
std::string ShortNumber(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// The shortest text that reads back as the same double (config files).
std::string ExactNumber(double v) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof(text), v);
  if (ec != std::errc()) return std::to_string(v);
  return std::string(text, end);
}

// "a", "a or b", "a, b or c".
std::string OneOf(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " or " : ", ";
    out += words[i];
  }
  return out;
}

const char* UnitName(OptionUnit unit) {
  switch (unit) {
    case OptionUnit::kBytes:
      return "BYTES";
    case OptionUnit::kSeconds:
      return "SECONDS";
    case OptionUnit::kMilliseconds:
      return "MS";
    case OptionUnit::kCount:
      break;
  }
  return "N";
}

}  // namespace

std::string Option::HelpText() const {
  const std::string bounds = BoundsText();
  const std::string default_text = DefaultText();
  if (bounds.empty() && default_text.empty()) return help_;
  std::string suffix = bounds;
  if (!default_text.empty()) {
    suffix += (suffix.empty() ? "default " : ", default ") + default_text;
  }
  return help_ + " (" + suffix + ")";
}

Status Option::OutOfBounds(const std::string& bounds,
                           const std::string& value) const {
  return Status::InvalidArgument("--" + name_ + " must be " + bounds +
                                 ", not " + value);
}

// IntegerOption

IntegerOption::IntegerOption(std::string name, std::string help,
                             int64_t default_value, int64_t target_max,
                             std::function<void(int64_t)> store)
    : Option(std::move(name), std::move(help), UnitName(OptionUnit::kCount)),
      default_(default_value),
      target_max_(target_max),
      store_(std::move(store)) {}

IntegerOption& IntegerOption::Range(int64_t min, int64_t max) {
  min_ = min;
  max_ = max;
  return *this;
}

IntegerOption& IntegerOption::OrZero() {
  or_zero_ = true;
  return *this;
}

IntegerOption& IntegerOption::AtLeastOption(std::string other, int64_t plus) {
  min_option_ = std::move(other);
  min_option_plus_ = plus;
  return *this;
}

IntegerOption& IntegerOption::Unit(OptionUnit unit) {
  value_name_ = UnitName(unit);
  return *this;
}

IntegerOption& IntegerOption::Scale(int64_t scale) {
  scale_ = scale;
  return *this;
}

IntegerOption& IntegerOption::Required() {
  required_ = true;
  return *this;
}

void IntegerOption::AddTo(po::options_description* o) {
  if (max_ != kNoUpperBound && max_ > target_max_ / scale_) {
    throw std::logic_error("option --" + name_ +
                           ": its bounds do not fit its field");
  }
  auto* value = po::value<int64_t>(&value_)->value_name(value_name_);
  value->notifier([this](int64_t) { has_value_ = true; });
  if (required_) {
    value->required();
  } else {
    value->default_value(default_, "");
  }
  o->add_options()(name_.c_str(), value, HelpText().c_str());
}

std::string IntegerOption::Bounds(const std::string& low) const {
  if (min_ == std::numeric_limits<int64_t>::min() && min_option_.empty()) {
    return "";
  }
  const std::string zero = or_zero_ ? "0 or " : "";
  if (max_ == kNoUpperBound) return zero + "at least " + low;
  return zero + "in [" + low + ", " + std::to_string(max_) + "]";
}

std::string IntegerOption::BoundsText() const {
  if (min_option_.empty()) return Bounds(std::to_string(min_));
  std::string low = "--" + min_option_;
  if (min_option_plus_ != 0) low += " + " + std::to_string(min_option_plus_);
  return Bounds(low);
}

std::string IntegerOption::DefaultText() const {
  return required_ ? "" : std::to_string(default_);
}

Status IntegerOption::Store(const OptionTable& table) {
  if (!has_value_) return Status::OK();
  int64_t low = min_;
  if (!min_option_.empty()) {
    const auto* other =
        dynamic_cast<const IntegerOption*>(table.Find(min_option_));
    if (other != nullptr && other->has_value()) {
      low = std::max(low, other->value() + min_option_plus_);
    }
  }
  const bool zero = or_zero_ && value_ == 0;
  if (!zero && (value_ < low || value_ > max_)) {
    return OutOfBounds(Bounds(std::to_string(low)), std::to_string(value_));
  }
  store_(value_ * scale_);
  return Status::OK();
}

std::vector<std::string> IntegerOption::ValueTexts() const {
  if (!has_value_) return {};
  return {std::to_string(value_)};
}

// DoubleOption

DoubleOption::DoubleOption(std::string name, std::string help,
                           double default_value, double* target)
    : Option(std::move(name), std::move(help), "X"),
      default_(default_value),
      target_(target) {}

DoubleOption& DoubleOption::Range(double low, double high) {
  low_ = low;
  high_ = high;
  return *this;
}

DoubleOption& DoubleOption::OpenLow() {
  open_low_ = true;
  return *this;
}

DoubleOption& DoubleOption::OpenHigh() {
  open_high_ = true;
  return *this;
}

DoubleOption& DoubleOption::ValueName(std::string name) {
  value_name_ = std::move(name);
  return *this;
}

void DoubleOption::AddTo(po::options_description* o) {
  auto* value = po::value<double>(&value_)->value_name(value_name_);
  value->notifier([this](double) { has_value_ = true; });
  value->default_value(default_, "");
  o->add_options()(name_.c_str(), value, HelpText().c_str());
}

std::string DoubleOption::BoundsText() const {
  return std::string("in ") + (open_low_ ? "(" : "[") + ShortNumber(low_) +
         ", " + ShortNumber(high_) + (open_high_ ? ")" : "]");
}

std::string DoubleOption::DefaultText() const { return ShortNumber(default_); }

Status DoubleOption::Store(const OptionTable& /*table*/) {
  if (!has_value_) return Status::OK();
  // Written so that NaN is out of bounds.
  const bool above_low = open_low_ ? value_ > low_ : value_ >= low_;
  const bool below_high = open_high_ ? value_ < high_ : value_ <= high_;
  if (!(above_low && below_high)) {
    return OutOfBounds(BoundsText(), ShortNumber(value_));
  }
  *target_ = value_;
  return Status::OK();
}

std::vector<std::string> DoubleOption::ValueTexts() const {
  if (!has_value_) return {};
  return {ExactNumber(value_)};
}

// StringOption

StringOption::StringOption(std::string name, std::string help,
                           std::string* target)
    : Option(std::move(name), std::move(help), "TEXT"), target_(target) {}

StringOption& StringOption::Default(std::string value) {
  has_default_ = true;
  default_ = std::move(value);
  return *this;
}

StringOption& StringOption::Required() {
  required_ = true;
  return *this;
}

StringOption& StringOption::ValueName(std::string name) {
  value_name_ = std::move(name);
  return *this;
}

StringOption& StringOption::Choices(std::vector<std::string> choices) {
  choices_ = std::move(choices);
  value_name_ = choices_.empty() ? value_name_ : "WORD";
  return *this;
}

void StringOption::AddTo(po::options_description* o) {
  auto* value = po::value<std::string>(target_)->value_name(value_name_);
  value->notifier([this](const std::string&) { has_value_ = true; });
  if (required_) value->required();
  if (has_default_) value->default_value(default_, "");
  o->add_options()(name_.c_str(), value, HelpText().c_str());
}

std::string StringOption::BoundsText() const { return OneOf(choices_); }

std::string StringOption::DefaultText() const {
  return has_default_ ? default_ : "";
}

Status StringOption::Store(const OptionTable& /*table*/) {
  if (!has_value_ || choices_.empty()) return Status::OK();
  if (std::find(choices_.begin(), choices_.end(), *target_) == choices_.end()) {
    return OutOfBounds(BoundsText(), *target_);
  }
  return Status::OK();
}

std::vector<std::string> StringOption::ValueTexts() const {
  if (!has_value_) return {};
  return {*target_};
}

// StringListOption

StringListOption::StringListOption(std::string name, std::string help,
                                   std::vector<std::string>* target)
    : Option(std::move(name), std::move(help), "TEXT"), target_(target) {}

StringListOption& StringListOption::ValueName(std::string name) {
  value_name_ = std::move(name);
  return *this;
}

void StringListOption::AddTo(po::options_description* o) {
  auto* value =
      po::value<std::vector<std::string>>(target_)->value_name(value_name_);
  value->notifier(
      [this](const std::vector<std::string>&) { has_value_ = true; });
  o->add_options()(name_.c_str(), value, HelpText().c_str());
}

Status StringListOption::Store(const OptionTable& /*table*/) {
  return Status::OK();
}

std::vector<std::string> StringListOption::ValueTexts() const {
  if (!has_value_) return {};
  return *target_;
}

// SwitchOption

SwitchOption::SwitchOption(std::string name, std::string help, bool* target)
    : Option(std::move(name), std::move(help), ""), target_(target) {}

void SwitchOption::AddTo(po::options_description* o) {
  auto* value = po::bool_switch(target_);
  value->notifier([this](bool) { has_value_ = true; });
  o->add_options()(name_.c_str(), value, HelpText().c_str());
}

Status SwitchOption::Store(const OptionTable& /*table*/) {
  return Status::OK();
}

std::vector<std::string> SwitchOption::ValueTexts() const {
  if (!has_value_) return {};
  return {*target_ ? "true" : "false"};
}

// OptionTable

DoubleOption& OptionTable::Double(std::string name, double* target,
                                  double default_value, std::string help) {
  return Add(std::unique_ptr<DoubleOption>(new DoubleOption(
      std::move(name), std::move(help), default_value, target)));
}

StringOption& OptionTable::String(std::string name, std::string* target,
                                  std::string help) {
  return Add(std::unique_ptr<StringOption>(
      new StringOption(std::move(name), std::move(help), target)));
}

StringListOption& OptionTable::StringList(std::string name,
                                          std::vector<std::string>* target,
                                          std::string help) {
  return Add(std::unique_ptr<StringListOption>(
      new StringListOption(std::move(name), std::move(help), target)));
}

SwitchOption& OptionTable::Switch(std::string name, bool* target,
                                  std::string help) {
  return Add(std::unique_ptr<SwitchOption>(
      new SwitchOption(std::move(name), std::move(help), target)));
}

const Option* OptionTable::Find(const std::string& name) const {
  for (const auto& option : options_) {
    if (option->name() == name) return option.get();
  }
  return nullptr;
}

IntegerOption* OptionTable::FindInteger(const std::string& name) {
  for (const auto& option : options_) {
    if (option->name() == name) {
      return dynamic_cast<IntegerOption*>(option.get());
    }
  }
  return nullptr;
}

void OptionTable::AddTo(po::options_description* o) {
  for (const auto& option : options_) option->AddTo(o);
}

Status OptionTable::CheckOne(Option* option,
                             std::vector<const Option*>* checked) {
  if (std::find(checked->begin(), checked->end(), option) != checked->end()) {
    return Status::OK();
  }
  checked->push_back(option);  // before: a cycle must not recurse forever
  if (auto* integer = dynamic_cast<IntegerOption*>(option);
      integer != nullptr && !integer->min_option_.empty()) {
    if (IntegerOption* other = FindInteger(integer->min_option_)) {
      BLOOMROUTE_RETURN_IF_ERROR(CheckOne(other, checked));
    }
  }
  return option->Store(*this);
}

Status OptionTable::Check() {
  std::vector<const Option*> checked;
  for (const auto& option : options_) {
    BLOOMROUTE_RETURN_IF_ERROR(CheckOne(option.get(), &checked));
  }
  return Status::OK();
}

}  // namespace bloomroute
