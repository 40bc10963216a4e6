// The Prometheus text format 0.0.4 parser (see prom_text.h). It follows the reference parser
// (prometheus/common expfmt) in what it rejects, so that an endpoint Prometheus itself would
// refuse is reported here too, line by line. One pass; the only state kept across lines is each
// family's TYPE and whether it has had samples. Stateless between calls; thread-safe.
#include "observe/prom_text.h"

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "common/text.h"

namespace proofload::observe {
namespace {

enum class FamilyType { kUntyped, kCounter, kGauge, kHistogram, kSummary };

// Not a malformed line: a series over max_key_bytes, skipped and counted apart.
constexpr const char* kKeyTooLong = "a series key over the length limit";

// What the lines seen so far said about a family.
struct Family {
  bool typed = false;    // a TYPE line was seen
  bool helped = false;   // a HELP line was seen
  bool sampled = false;  // a sample of it was seen (a TYPE line must come before)
  FamilyType type = FamilyType::kUntyped;
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_label_start(char c) { return is_alpha(c) || c == '_'; }
bool is_label_char(char c) { return is_label_start(c) || is_digit(c); }

// Go's strconv.ParseFloat as the reference parser uses it: decimal and exponent forms, an
// optional sign, NaN and Inf in any case. Out of range is an error there too.
bool parse_double(std::string_view text, double& out) {
  size_t start = 0;
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    start = 1;
  }
  if (start >= text.size() || text[start] == '+' || text[start] == '-') return false;
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data() + start, end, out, std::chars_format::general);
  if (result.ec != std::errc{} || result.ptr != end) return false;
  if (negative) out = -out;
  return true;
}

bool parse_int64(std::string_view text, int64_t& out) {
  if (!text.empty() && text[0] == '+') text.remove_prefix(1);
  if (text.empty() || text[0] == '+') return false;
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, out);
  return result.ec == std::errc{} && result.ptr == end;
}

// Label values end up in result.json and windows.csv, whose writers need valid UTF-8; the
// reference parser rejects invalid UTF-8 as well.
bool is_valid_utf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80;
    unsigned char high = 0xbf;  // allowed range of the second byte (no overlongs, surrogates)
    if (byte >= 0xc2 && byte <= 0xdf) {
      length = 2;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      length = 3;
      if (byte == 0xe0) low = 0xa0;
      if (byte == 0xed) high = 0x9f;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      length = 4;
      if (byte == 0xf0) low = 0x90;
      if (byte == 0xf4) high = 0x8f;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return false;
    for (size_t k = 2; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if (next < 0x80 || next > 0xbf) return false;
    }
    i += length;
  }
  return true;
}

std::string size_text(size_t bytes) {
  constexpr size_t kMiB = size_t{1} << 20;
  if (bytes >= kMiB && bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

class Parser {
 public:
  Parser(const PromParseOptions& options, PromParseResult& result)
      : options_(options), result_(result) {}

  // Returns false once the series limit stops parsing.
  bool parse_line(std::string_view line) {
    line_ = line;
    pos_ = 0;
    skip_blanks();
    if (at_end()) return true;  // blank line
    if (line_[pos_] == '#') {
      ++pos_;
      comment();
      return true;
    }
    return sample();
  }

  void set_line_number(size_t number) { line_number_ = number; }

 private:
  bool at_end() const { return pos_ >= line_.size(); }
  void skip_blanks() {
    while (!at_end() && is_blank(line_[pos_])) ++pos_;
  }
  std::string_view token() {  // up to the next blank or the end of the line
    size_t start = pos_;
    while (!at_end() && !is_blank(line_[pos_])) ++pos_;
    return line_.substr(start, pos_ - start);
  }
  // A metric name that ends at a blank or the end of the line (HELP and TYPE lines).
  std::string_view family_name() {
    size_t start = pos_;
    if (at_end() || !is_metric_name_start(line_[pos_])) return {};
    while (!at_end() && is_metric_name_char(line_[pos_])) ++pos_;
    if (!at_end() && !is_blank(line_[pos_])) return {};
    return line_.substr(start, pos_ - start);
  }

  void bad(const char* why) {
    ++result_.bad_lines;
    if (result_.first_bad.empty()) {
      result_.first_bad = "line " + std::to_string(line_number_) + ": " + why;
    }
  }

  void comment() {
    skip_blanks();
    std::string_view keyword = token();
    const bool help = keyword == "HELP";
    if (!help && keyword != "TYPE") return;  // any other comment is ignored
    skip_blanks();
    std::string_view name = family_name();
    if (name.empty()) {
      return bad(help ? "HELP without a valid metric name" : "TYPE without a valid metric name");
    }
    skip_blanks();
    Family& family = families_[name];
    if (help) {
      // The docstring may escape a backslash and a line feed only.
      for (size_t i = pos_; i < line_.size(); ++i) {
        if (line_[i] != '\\') continue;
        if (i + 1 >= line_.size() || (line_[i + 1] != '\\' && line_[i + 1] != 'n')) {
          return bad("invalid escape in a HELP text (only \\\\ and \\n)");
        }
        ++i;
      }
      if (family.helped) return bad("a second HELP line for a family");
      family.helped = true;
      return;
    }
    std::string_view type_name = token();
    skip_blanks();
    FamilyType type;
    if (ascii_iequals(type_name, "counter")) {
      type = FamilyType::kCounter;
    } else if (ascii_iequals(type_name, "gauge")) {
      type = FamilyType::kGauge;
    } else if (ascii_iequals(type_name, "histogram")) {
      type = FamilyType::kHistogram;
    } else if (ascii_iequals(type_name, "summary")) {
      type = FamilyType::kSummary;
    } else if (ascii_iequals(type_name, "untyped")) {
      type = FamilyType::kUntyped;
    } else {
      return bad(type_name.empty()
                     ? "TYPE without a type"
                     : "unknown TYPE (counter, gauge, histogram, summary or untyped)");
    }
    if (!at_end()) return bad("text after the type in a TYPE line");
    if (family.typed) return bad("a second TYPE line for a family");
    if (family.sampled) return bad("a TYPE line after the family's samples");
    family.typed = true;
    family.type = type;
  }

  // Reads `"..."` at pos_ into the key as written (valid escapes kept as they are, so the key
  // reads as the exposition does). `value` receives the unescaped text when not null.
  const char* quoted_value(std::string& key, std::string* value) {
    if (at_end() || line_[pos_] != '"') return "label value must be in double quotes";
    size_t start = ++pos_;
    bool escapes = false;
    for (;;) {
      if (at_end()) return "unterminated label value";
      char c = line_[pos_];
      if (c == '"') break;
      if (c == '\\') {
        if (pos_ + 1 >= line_.size()) return "unterminated label value";
        char next = line_[pos_ + 1];
        if (next != '\\' && next != '"' && next != 'n') {
          return "invalid escape in a label value (only \\\\, \\\" and \\n)";
        }
        escapes = true;
        pos_ += 2;
        continue;
      }
      ++pos_;
    }
    std::string_view raw = line_.substr(start, pos_ - start);
    ++pos_;  // the closing quote
    if (key.size() + raw.size() + 2 > options_.max_key_bytes) return kKeyTooLong;
    if (!is_valid_utf8(raw)) return "label value is not valid UTF-8";
    key += raw;
    if (value) {
      value->clear();
      if (!escapes) {
        value->assign(raw);
      } else {
        for (size_t i = 0; i < raw.size(); ++i) {
          if (raw[i] == '\\') {
            ++i;
            *value += raw[i] == 'n' ? '\n' : raw[i];
          } else {
            *value += raw[i];
          }
        }
      }
    }
    return nullptr;
  }

  // Parses `{a="b",...}` at pos_, appending it to `key`; `special` names the label whose
  // unescaped value goes to `special_value` (le or quantile), `has_special` says it was there.
  const char* labels(std::string& key, std::string_view special, bool& has_special,
                     std::string& special_value) {
    ++pos_;  // '{'
    label_names_.clear();
    bool first = true;
    for (;;) {
      skip_blanks();
      if (at_end()) return "unterminated label set";
      if (line_[pos_] == '}') break;
      if (!is_label_start(line_[pos_])) return "invalid label name";
      size_t start = pos_;
      while (!at_end() && is_label_char(line_[pos_])) ++pos_;
      std::string_view label = line_.substr(start, pos_ - start);
      label_names_.push_back(label);
      skip_blanks();
      if (at_end() || line_[pos_] != '=') return "expected '=' after a label name";
      ++pos_;
      skip_blanks();
      key += first ? '{' : ',';
      first = false;
      key += label;
      key += "=\"";
      if (key.size() > options_.max_key_bytes) return kKeyTooLong;
      const bool is_special = !special.empty() && label == special;
      if (const char* why = quoted_value(key, is_special ? &special_value : nullptr)) return why;
      key += '"';
      if (is_special) has_special = true;
      skip_blanks();
      if (at_end()) return "unterminated label set";
      if (line_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (line_[pos_] != '}') return "expected ',' or '}' after a label";
    }
    ++pos_;  // '}'
    if (!first) key += '}';
    // Sorted once rather than each name compared with those before it: a line of thousands of
    // labels costs n log n, not n squared.
    std::sort(label_names_.begin(), label_names_.end());
    if (std::adjacent_find(label_names_.begin(), label_names_.end()) != label_names_.end()) {
      return "a label given twice";
    }
    return nullptr;
  }

  // Which family a sample belongs to and what it is, as the reference parser decides: a
  // _bucket, _sum or _count belongs to a histogram (or summary) family declared by that base.
  enum class Role { kPlain, kBucket, kSumOrCount };
  Role resolve(std::string_view name, std::string_view& family_name) {
    auto declared = [&](std::string_view suffix, bool summary_too) {
      if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) {
        return false;
      }
      auto found = families_.find(name.substr(0, name.size() - suffix.size()));
      if (found == families_.end() || !found->second.typed) return false;
      FamilyType type = found->second.type;
      return type == FamilyType::kHistogram || (summary_too && type == FamilyType::kSummary);
    };
    family_name = name;
    if (declared("_bucket", false)) {
      family_name = name.substr(0, name.size() - 7);
      return Role::kBucket;
    }
    if (declared("_sum", true)) {
      family_name = name.substr(0, name.size() - 4);
      return Role::kSumOrCount;
    }
    if (declared("_count", true)) {
      family_name = name.substr(0, name.size() - 6);
      return Role::kSumOrCount;
    }
    return Role::kPlain;
  }

  bool kept(std::string_view family_name) const {
    if (options_.family_prefixes.empty()) return true;
    for (const std::string& prefix : options_.family_prefixes) {
      if (family_name.substr(0, prefix.size()) == prefix) return true;
    }
    return false;
  }

  bool sample() {
    size_t start = pos_;
    if (!is_metric_name_start(line_[pos_])) {
      bad("invalid metric name");
      return true;
    }
    while (!at_end() && is_metric_name_char(line_[pos_])) ++pos_;
    std::string_view name = line_.substr(start, pos_ - start);
    if (!at_end() && !is_blank(line_[pos_]) && line_[pos_] != '{') {
      bad("invalid character in a metric name");
      return true;
    }
    std::string_view family_name;
    Role role = resolve(name, family_name);
    Family& family = families_[family_name];
    MetricKind kind = MetricKind::kGauge;
    std::string_view special;
    if (role == Role::kBucket) {
      special = "le";
      kind = MetricKind::kCounter;
    } else if (role == Role::kSumOrCount) {
      kind = MetricKind::kCounter;
    } else if (family.type == FamilyType::kSummary) {
      special = "quantile";
    } else if (family.type == FamilyType::kHistogram) {
      bad("a histogram's sample must be its _bucket, _sum or _count");
      return true;
    } else if (family.type == FamilyType::kCounter) {
      kind = MetricKind::kCounter;
    }

    bool has_special = false;
    const char* why = name.size() > options_.max_key_bytes ? kKeyTooLong : nullptr;
    if (why == nullptr) {
      key_.assign(name);
      skip_blanks();  // the reference parser allows blanks before the label set
      if (!at_end() && line_[pos_] == '{') why = labels(key_, special, has_special, special_value_);
    }
    if (why == kKeyTooLong) {
      if (kept(family_name)) ++result_.long_series;  // the rest of the line is not read
      return true;
    }
    if (why != nullptr) {
      bad(why);
      return true;
    }
    if (!special.empty()) {
      double bound = 0;
      if (!has_special) {
        bad(role == Role::kBucket ? "a histogram bucket without an le label"
                                  : "a summary sample without a quantile label");
        return true;
      }
      if (!parse_double(special_value_, bound)) {
        bad(role == Role::kBucket ? "an le label that is not a number"
                                  : "a quantile label that is not a number");
        return true;
      }
    }
    skip_blanks();
    std::string_view value_text = token();
    double value = 0;
    if (value_text.empty()) {
      bad("a sample without a value");
      return true;
    }
    if (!parse_double(value_text, value)) {
      bad("a value that is not a number");
      return true;
    }
    skip_blanks();
    std::optional<int64_t> timestamp_ms;
    if (!at_end()) {
      int64_t timestamp = 0;
      if (!parse_int64(token(), timestamp)) {
        bad("a timestamp that is not an integer (milliseconds)");
        return true;
      }
      timestamp_ms = timestamp;
      skip_blanks();
      if (!at_end()) {
        bad("text after the timestamp");
        return true;
      }
    }
    family.sampled = true;
    ++result_.valid_samples;
    if (!kept(family_name)) return true;
    if (keys_.contains(key_)) {
      bad("a series given twice");
      return true;
    }
    if (result_.series.size() >= options_.max_series) {
      if (!result_.truncated.empty()) result_.truncated += "; ";
      result_.truncated += "stopped at " + std::to_string(options_.max_series) + " series";
      return false;
    }
    if (options_.admit && !options_.admit(key_)) {
      ++result_.not_admitted;
      return true;
    }
    keys_.insert(key_);
    result_.series.push_back(PromSeries{std::string(family_name), key_, kind, value, timestamp_ms});
    return true;
  }

  const PromParseOptions& options_;
  PromParseResult& result_;
  std::string_view line_;
  size_t pos_ = 0;
  size_t line_number_ = 0;
  // Keys point into the input text, which outlives the parse.
  std::unordered_map<std::string_view, Family> families_;
  std::unordered_set<std::string> keys_;       // series kept so far, to refuse a duplicate
  std::vector<std::string_view> label_names_;  // of the sample being read
  std::string key_;                            // of the sample being read
  std::string special_value_;                  // its le or quantile, unescaped
};

}  // namespace

PromParseResult parse_prom_text(std::string_view text, const PromParseOptions& options) {
  PromParseResult result;
  if (text.size() > options.max_bytes) {
    std::string_view head = text.substr(0, options.max_bytes);
    size_t last_newline = head.rfind('\n');
    text = last_newline == std::string_view::npos ? std::string_view{}
                                                  : head.substr(0, last_newline + 1);
    result.truncated =
        "input over " + size_text(options.max_bytes) + ", read up to its last whole line";
  }
  Parser parser(options, result);
  size_t line_number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t newline = text.find('\n', start);
    size_t end = newline == std::string_view::npos ? text.size() : newline;
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    parser.set_line_number(++line_number);
    if (!parser.parse_line(line)) break;
    start = end + 1;
  }
  return result;
}

}  // namespace proofload::observe
