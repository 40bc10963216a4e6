// Checked reading of YAML values with file:line:column errors (see yaml_reader.h). Stateless
// apart from the file name; throws UsageError only.
#include "config/yaml_reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <sstream>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"

namespace proofload::config::yaml_reader {
namespace {

// Shows user text in a message: quoted, cut short, control characters replaced.
std::string shown(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    char c = text[i];
    out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "'";
}

// The scalar text of `node`, failing with "WHAT: expected EXPECTED, got a map" otherwise.
const std::string& scalar_of(const Source& source, const YAML::Node& node, std::string_view what,
                             std::string_view expected) {
  if (!node.IsScalar()) {
    source.fail(node, std::string(what) + ": expected " + std::string(expected) + ", got " +
                          std::string(node_kind(node)));
  }
  return node.Scalar();
}

[[noreturn]] void rethrow_with(const Source& source, const YAML::Node& node, std::string_view what,
                               const UsageError& error) {
  source.fail(node, std::string(what) + ": " + error.what());
}

}  // namespace

std::string Source::location(const YAML::Mark& mark) const {
  int line = mark.is_null() ? 1 : mark.line + 1;
  int column = mark.is_null() ? 1 : mark.column + 1;
  return file_name_ + ":" + std::to_string(line) + ":" + std::to_string(column);
}

void Source::fail(const YAML::Mark& mark, const std::string& message) const {
  throw UsageError(location(mark) + ": " + message);
}

std::optional<std::string_view> nearest_key(std::string_view key,
                                            std::span<const std::string_view> allowed) {
  // Close enough to be a typo: one edit (one per four letters for long keys), and never a
  // replacement of the whole word ("ab" is not a typo of "cd").
  size_t limit = std::max<size_t>(1, key.size() / 4);
  std::optional<std::string_view> best;
  size_t best_distance = limit + 1;
  for (std::string_view candidate : allowed) {
    size_t distance = edit_distance(key, candidate);
    if (distance < best_distance && distance < std::max(key.size(), candidate.size())) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string_view node_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "a single value";
    default:
      return "nothing";
  }
}

std::string read_string(const Source& source, const YAML::Node& node, std::string_view what) {
  return scalar_of(source, node, what, "a string");
}

int64_t read_integer(const Source& source, const YAML::Node& node, std::string_view what,
                     int64_t min, int64_t max) {
  std::string expected = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  const std::string& text = scalar_of(source, node, what, expected);
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    source.fail(node, std::string(what) + ": expected " + expected + ", got " + shown(text));
  }
  return value;
}

bool read_bool(const Source& source, const YAML::Node& node, std::string_view what) {
  const std::string& text = scalar_of(source, node, what, "true or false");
  const std::string folded = ascii_lowercase(text);
  if (folded == "true") return true;
  if (folded == "false") return false;
  source.fail(node, std::string(what) + ": expected true or false, got " + shown(text));
}

int64_t read_duration_ns(const Source& source, const YAML::Node& node, std::string_view what) {
  const std::string& text = scalar_of(source, node, what, "a duration like 5ms");
  try {
    return parse_duration_ns(text);
  } catch (const UsageError& error) {
    rethrow_with(source, node, what, error);
  }
}

double read_rate_per_s(const Source& source, const YAML::Node& node, std::string_view what) {
  const std::string& text = scalar_of(source, node, what, "a rate like 100/s");
  double rate_per_s = 0;
  try {
    rate_per_s = parse_rate_per_s(text);
  } catch (const UsageError& error) {
    rethrow_with(source, node, what, error);
  }
  if (!(rate_per_s > 0)) {
    source.fail(node, std::string(what) + ": a rate must be above 0, got " + shown(text));
  }
  return rate_per_s;
}

double read_probability(const Source& source, const YAML::Node& node, std::string_view what) {
  const std::string& text = scalar_of(source, node, what, "a probability like 0.01 or 1%");
  std::string_view number = text;
  bool percent = !number.empty() && number.back() == '%';
  if (percent) number.remove_suffix(1);
  double value = -1;
  auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  bool parsed = error == std::errc() && end == number.data() + number.size() &&
                std::isfinite(value) && !number.empty();
  if (parsed && percent) value /= 100;
  if (!parsed || value < 0 || value > 1) {
    source.fail(node, std::string(what) + ": a probability must be from 0 to 1 (or 0% to " +
                          "100%), got " + shown(text));
  }
  return value;
}

int64_t read_bytes(const Source& source, const YAML::Node& node, std::string_view what,
                   int64_t max) {
  const std::string& text = scalar_of(source, node, what, "a size like 512 or 4KiB");
  const std::optional<int64_t> bytes = parse_bytes(text, max);
  if (!bytes) {
    source.fail(node, std::string(what) + ": expected a size from 0 to " + std::to_string(max) +
                          " bytes (units B, kB, KiB, MB, MiB), got " + shown(text));
  }
  return *bytes;
}

FieldMap::FieldMap(const Source& source, const YAML::Node& map, std::string where,
                   std::span<const std::string_view> allowed)
    : source_(source), node_(map), where_(std::move(where)) {
  if (!map.IsMap()) {
    source.fail(map, where_ + ": expected a map of keys (" + join_names(allowed) + "), got " +
                         std::string(node_kind(map)));
  }
  for (const auto& pair : map) {
    YAML::Node key_node = pair.first;
    if (!key_node.IsScalar()) source.fail(key_node, where_ + ": a key must be a plain name");
    const std::string& key = key_node.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
      std::string message = "unknown key " + shown(key) + " in " + where_;
      if (auto near = nearest_key(key, allowed)) {
        message += "; did you mean '" + std::string(*near) + "'?";
      }
      source.fail(key_node, message + (message.back() == '?' ? " " : "; ") +
                                "allowed: " + join_names(allowed));
    }
    if (const Entry* first = find(key)) {
      source.fail(key_node, "key '" + key + "' given twice in " + where_ + " (first at line " +
                                std::to_string(first->key_node.Mark().line + 1) + ")");
    }
    entries_.push_back({key, key_node, pair.second});
  }
}

const FieldMap::Entry* FieldMap::find(std::string_view key) const {
  for (const Entry& entry : entries_) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

YAML::Mark FieldMap::key_mark(std::string_view key) const {
  const Entry* entry = find(key);
  return entry != nullptr ? entry->key_node.Mark() : node_.Mark();
}

std::string FieldMap::what(std::string_view key) const {
  return "'" + std::string(key) + "' in " + where_;
}

void FieldMap::fail_at_value(std::string_view key, const std::string& message) const {
  const Entry* entry = find(key);
  source_.fail(entry != nullptr ? entry->value.Mark() : node_.Mark(), what(key) + ": " + message);
}

void FieldMap::fail_at_key(std::string_view key, const std::string& message) const {
  source_.fail(key_mark(key), what(key) + ": " + message);
}

void FieldMap::fail_missing(std::string_view key) const {
  source_.fail(node_, where_ + " needs '" + std::string(key) + "'");
}

// "key:" with nothing after it fails at the key: an empty value's own mark is the next line.
const YAML::Node* FieldMap::present(std::string_view key) const {
  const Entry* entry = find(key);
  if (entry == nullptr) return nullptr;
  if (entry->value.IsNull()) source_.fail(entry->key_node, what(key) + ": needs a value");
  return &entry->value;
}

std::optional<std::string> FieldMap::get_string(std::string_view key) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_string(source_, *node, what(key));
}

std::optional<int64_t> FieldMap::get_integer(std::string_view key, int64_t min, int64_t max) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_integer(source_, *node, what(key), min, max);
}

std::optional<bool> FieldMap::get_bool(std::string_view key) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_bool(source_, *node, what(key));
}

std::optional<int64_t> FieldMap::get_duration_ns(std::string_view key) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_duration_ns(source_, *node, what(key));
}

std::optional<double> FieldMap::get_rate_per_s(std::string_view key) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_rate_per_s(source_, *node, what(key));
}

std::optional<double> FieldMap::get_probability(std::string_view key) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_probability(source_, *node, what(key));
}

std::optional<int64_t> FieldMap::get_bytes(std::string_view key, int64_t max) const {
  const YAML::Node* node = present(key);
  if (node == nullptr) return std::nullopt;
  return read_bytes(source_, *node, what(key), max);
}

std::string join_names(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

std::string unknown_choice(std::string_view kind, const std::string& value,
                           std::span<const std::string_view> allowed) {
  std::string message = "unknown " + std::string(kind) + " '" + value + "'";
  if (auto near = nearest_key(value, allowed)) {
    message += "; did you mean '" + std::string(*near) + "'?";
  }
  return message + (message.back() == '?' ? " " : "; ") + "allowed: " + join_names(allowed);
}

namespace {

// Walks the tree as the readers will, aliases expanded, and stops at the first bound passed.
// Linear in the bounds, whatever the aliases multiply to.
struct ExpansionBudget {
  const Source& source;
  int64_t nodes = 0;
  int64_t scalar_bytes = 0;

  void walk(const YAML::Node& node, int depth) {
    if (++nodes > kMaxExpandedNodes) {
      source.fail(node, "the file expands to more than " + std::to_string(kMaxExpandedNodes) +
                            " values (YAML aliases repeat what they name at every use)");
    }
    if (node.IsScalar()) {
      scalar_bytes += static_cast<int64_t>(node.Scalar().size());
      if (scalar_bytes > kMaxExpandedScalarBytes) {
        source.fail(node, "the file's text expands to more than " +
                              std::to_string(kMaxExpandedScalarBytes >> 20) +
                              " MiB (YAML aliases repeat what they name at every use)");
      }
      return;
    }
    if (!node.IsMap() && !node.IsSequence()) return;
    if (depth >= kMaxDepth) {
      source.fail(node, "nested more than " + std::to_string(kMaxDepth) +
                            " levels deep (maps and lists inside each other)");
    }
    for (const auto& item : node) {
      if (node.IsMap()) {
        walk(item.first, depth + 1);
        walk(item.second, depth + 1);
      } else {
        walk(item, depth + 1);
      }
    }
  }
};

// Counts the documents of a stream, up to two, and where the second one's first node is: what
// load_single_document needs to refuse a second document. yaml-cpp 0.7's LoadAll loops for ever
// on a document that begins with ',' (jbeder/yaml-cpp#1040, fixed upstream by #1319 after the
// version Debian ships), so documents are counted here by a loop that stops at two.
class DocumentCounter : public YAML::EventHandler {
 public:
  int documents = 0;
  YAML::Mark second = YAML::Mark::null_mark();  // the second document's first node (or start)

  void OnDocumentStart(const YAML::Mark& mark) override {
    if (++documents == 2) second = mark;
    node_seen_ = false;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { node(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                const std::string&) override {
    node(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    node(mark);
  }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& mark) {
    if (documents == 2 && !node_seen_) second = mark;
    node_seen_ = true;
  }
  bool node_seen_ = false;
};

}  // namespace

YAML::Node load_single_document(const Source& source, std::string_view text, std::string_view kind,
                                std::string_view needs, std::string_view flow_example) {
  // YAML is Unicode text, and what is read from it ends up in JSON (bodies, checks, results):
  // bytes that are not UTF-8 are refused here, where they can be located.
  if (const size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
    YAML::Mark mark;
    mark.pos = static_cast<int>(bad);
    for (size_t i = 0; i < bad; ++i) {
      if (text[i] == '\n') {
        ++mark.line;
        mark.column = 0;
      } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
        ++mark.column;  // columns count characters, not bytes
      }
    }
    source.fail(mark, "invalid YAML: a byte that is not UTF-8 (YAML files are UTF-8 text)");
  }
  YAML::Node root;
  DocumentCounter counter;
  try {
    root = YAML::Load(std::string(text));
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    while (counter.documents < 2 && parser.HandleNextDocument(counter)) {
    }
  } catch (const YAML::DeepRecursion& error) {
    source.fail(error.mark, "invalid YAML: nested more than " + std::to_string(kMaxDepth) +
                                " levels deep (maps and lists inside each other)");
  } catch (const YAML::Exception& error) {
    std::string hint;
    if (error.msg.find("flow") != std::string::npos) {
      hint = " (inside { } or [ ], quote values that contain { } [ ] or commas, like " +
             std::string(flow_example) + ")";
    }
    if (error.msg.find("alias") != std::string::npos) {
      hint = " (a bare * starts a YAML alias: quote it, like method: \"*\")";
    }
    source.fail(error.mark, "invalid YAML: " + error.msg + hint);
  }
  if (!root || root.IsNull()) {
    source.fail(YAML::Mark::null_mark(),
                "the " + std::string(kind) + " is empty: it needs " + std::string(needs));
  }
  if (counter.documents > 1)
    source.fail(counter.second, "one YAML document per " + std::string(kind));
  ExpansionBudget{source}.walk(root, 0);
  return root;
}

}  // namespace proofload::config::yaml_reader
