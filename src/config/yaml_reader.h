// Checked reading of values out of a yaml-cpp tree, every error one line
// "FILE:LINE:COLUMN: message" (1-based, from yaml-cpp's marks). Used by the routes and scenario parsers.
// Stateless apart from the file name it reports; each object belongs to one parse (one thread).
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::config::yaml_reader {

// Where the text came from, for messages.
class Source {
 public:
  explicit Source(std::string_view file_name) : file_name_(file_name) {}
  // "FILE:LINE:COLUMN" (1:1 when yaml-cpp has no mark, e.g. for an empty document).
  std::string location(const YAML::Mark& mark) const;
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;
  [[noreturn]] void fail(const YAML::Node& at, const std::string& message) const {
    fail(at.Mark(), message);
  }

 private:
  std::string file_name_;
};

// The allowed key closest to `key` by edit distance (insertions, deletions, substitutions and
// swaps of neighbours, case ignored), if close enough to be a typo; ties go to the first.
std::optional<std::string_view> nearest_key(std::string_view key,
                                            std::span<const std::string_view> allowed);

// What a configuration file may expand to: YAML aliases share nodes, so a few lines can stand for
// billions of them ("billion laughs"), and every reader below walks them expanded.
constexpr int kMaxDepth = 64;                  // maps and lists inside each other
constexpr int64_t kMaxExpandedNodes = 100'000;  // nodes, each alias counted at every use
constexpr int64_t kMaxExpandedScalarBytes = int64_t{16} << 20;

// The one YAML document of a configuration file. Fails on a syntax error (with a hint for the
// usual causes: an unquoted { } inside a flow map, like `flow_example`; a bare * alias), an empty
// file ("the KIND is empty: it needs NEEDS"), several documents, nesting deeper than kMaxDepth,
// or aliases that expand past kMaxExpandedNodes or kMaxExpandedScalarBytes (each one line, at
// the node where the bound was passed).
YAML::Node load_single_document(const Source& source, std::string_view text, std::string_view kind,
                                std::string_view needs, std::string_view flow_example);

// "a, b, c": allowed names in messages.
std::string join_names(std::span<const std::string_view> names);
// "unknown KIND 'x'; did you mean 'y'? allowed: a, b" (the hint only for a likely typo).
std::string unknown_choice(std::string_view kind, const std::string& value,
                           std::span<const std::string_view> allowed);

// "a map", "a list", "nothing": for "expected X, got Y" messages.
std::string_view node_kind(const YAML::Node& node);

// Readers of one value. `what` names it in messages ("'cpu' in route 'lookup'"); each fails
// with "WHAT: ..." at the value's mark.
std::string read_string(const Source& source, const YAML::Node& node, std::string_view what);
int64_t read_integer(const Source& source, const YAML::Node& node, std::string_view what,
                     int64_t min, int64_t max);
bool read_bool(const Source& source, const YAML::Node& node, std::string_view what);
// parse_duration_ns's forms ("5ms", "1m30s", a bare number is seconds).
int64_t read_duration_ns(const Source& source, const YAML::Node& node, std::string_view what);
// parse_rate_per_s's forms ("100/s", "1k", 50); must be above 0.
double read_rate_per_s(const Source& source, const YAML::Node& node, std::string_view what);
// A number in [0, 1], or a percentage "0.5%".
double read_probability(const Source& source, const YAML::Node& node, std::string_view what);
// Bytes: an integer with an optional unit B, kB, KiB, MB, MiB; in [0, max].
int64_t read_bytes(const Source& source, const YAML::Node& node, std::string_view what,
                   int64_t max);

// A YAML map whose keys must come from an allowed list, each at most once (yaml-cpp itself
// keeps duplicate keys silently).
class FieldMap {
 public:
  // Fails for: not a map; a key that is not a plain scalar; an unknown key ("unknown key 'dely'
  // in route 'lookup'; did you mean 'delay'? allowed: ..."); a key given twice.
  // `where` names the map in messages: "route 'lookup'", "'limit' of route 'lookup'".
  FieldMap(const Source& source, const YAML::Node& map, std::string where,
           std::span<const std::string_view> allowed);

  const Source& source() const { return source_; }
  const YAML::Node& node() const { return node_; }
  const std::string& where() const { return where_; }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // The value of `key`, nullptr when absent; fails at the key when it has no value ("key:").
  const YAML::Node* present(std::string_view key) const;
  // The key node, for messages about the key itself.
  YAML::Mark key_mark(std::string_view key) const;
  // "'KEY' in WHERE".
  std::string what(std::string_view key) const;
  [[noreturn]] void fail_at_value(std::string_view key, const std::string& message) const;
  [[noreturn]] void fail_at_key(std::string_view key, const std::string& message) const;
  // "WHERE needs 'KEY'", at the map.
  [[noreturn]] void fail_missing(std::string_view key) const;

  // Typed readers: nullopt when the key is absent; "key:" without a value fails.
  std::optional<std::string> get_string(std::string_view key) const;
  std::optional<int64_t> get_integer(std::string_view key, int64_t min, int64_t max) const;
  std::optional<bool> get_bool(std::string_view key) const;
  std::optional<int64_t> get_duration_ns(std::string_view key) const;
  std::optional<double> get_rate_per_s(std::string_view key) const;
  std::optional<double> get_probability(std::string_view key) const;
  std::optional<int64_t> get_bytes(std::string_view key, int64_t max) const;

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Entry* find(std::string_view key) const;

  const Source& source_;
  YAML::Node node_;
  std::string where_;
  std::vector<Entry> entries_;
};

}  // namespace proofload::config::yaml_reader
