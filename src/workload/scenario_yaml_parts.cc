// The `data:` and `requests:` sections of a scenario file (see scenario_yaml_parts.h and
// docs/scenario.md): their keys, types and ranges; data files are read here; checks and
// extractions are compiled once to reject what the engine could not run. Throws UsageError only.
#include "workload/scenario_yaml_parts.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <limits>
#include <memory>
#include <map>
#include <nlohmann/json.hpp>

#include "common/file_text.h"
#include "common/text.h"
#include "common/usage_error.h"
#include "workload/check.h"
#include "workload/data_source.h"
#include "workload/default_words.h"
#include "workload/extract.h"
#include "workload/stream_tracker.h"
#include "workload/template.h"

namespace proofload::workload::scenario_yaml {
namespace {

constexpr std::array<std::string_view, 11> kRequestKeys = {
    "method", "path",    "headers", "body",   "json",      "checks",
    "extract", "stream", "content", "tokens", "terminator"};
// Keys that say how a stream is read: they need `stream:`.
constexpr std::array<std::string_view, 3> kStreamKeys = {"content", "tokens", "terminator"};
constexpr std::array<std::string_view, 4> kCheckKinds = {"status", "body_contains", "body_matches",
                                                         "json"};
// `equals` goes with the short JSON form, `{json: /id, equals: 42}`.
constexpr std::array<std::string_view, 5> kCheckKeys = {"status", "body_contains", "body_matches",
                                                        "json", "equals"};
constexpr std::array<std::string_view, 2> kJsonCheckKeys = {"path", "equals"};
constexpr std::array<std::string_view, 4> kExtractKeys = {"json", "header", "regex", "group"};
// Headers proofload writes itself from the body.
constexpr std::array<std::string_view, 2> kComputedHeaders = {"Content-Length",
                                                              "Transfer-Encoding"};

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

bool iequals(std::string_view a, std::string_view b) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [&](char x, char y) { return lower(x) == lower(y); });
}

// ---- YAML to JSON (`json:` bodies and `equals:` values) ----

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Consumes a run of digits from `text` at `at`; how many.
size_t digits_at(std::string_view text, size_t& at) {
  const size_t start = at;
  while (at < text.size() && is_digit(text[at])) ++at;
  return at - start;
}

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?, read by hand: the scalar is the user's, and a
// backtracking regex would recurse once per character of it.
bool is_json_number(std::string_view text) {
  size_t at = 0;
  if (at < text.size() && text[at] == '-') ++at;
  if (at < text.size() && text[at] == '0') {
    ++at;
  } else if (at >= text.size() || !is_digit(text[at]) || digits_at(text, at) == 0) {
    return false;
  }
  if (at < text.size() && text[at] == '.') {
    ++at;
    if (digits_at(text, at) == 0) return false;
  }
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && (text[at] == '+' || text[at] == '-')) ++at;
    if (digits_at(text, at) == 0) return false;
  }
  return at == text.size();
}

// A plain (unquoted) scalar as YAML's core schema reads it; quoted scalars are always strings.
nlohmann::ordered_json scalar_to_json(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "?") {
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    if (text == "null" || text == "Null" || text == "NULL" || text == "~") return nullptr;
    if (is_json_number(text)) return nlohmann::ordered_json::parse(text);
  }
  return text;
}

nlohmann::ordered_json to_json(const Context& context, const YAML::Node& node,
                               std::string_view what) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar_to_json(node);
    case YAML::NodeType::Sequence: {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const auto& item : node) array.push_back(to_json(context, item, what));
      return array;
    }
    case YAML::NodeType::Map: {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& pair : node) {
        if (!pair.first.IsScalar()) {
          context.source.fail(pair.first, std::string(what) + ": a JSON key must be a plain name");
        }
        if (object.contains(pair.first.Scalar())) {
          context.source.fail(
              pair.first, std::string(what) + ": key '" + pair.first.Scalar() + "' given twice");
        }
        object[pair.first.Scalar()] = to_json(context, pair.second, what);
      }
      return object;
    }
  }
  return nullptr;
}

// Every string (keys too) of a `json:` body is a template: collect their variables.
void json_template_uses(const Context& context, const YAML::Node& node, std::string_view what,
                        std::vector<VariableUse>& uses) {
  auto add = [&](const YAML::Node& scalar) {
    auto found = template_uses(context, scalar, scalar.Scalar(), what);
    uses.insert(uses.end(), found.begin(), found.end());
  };
  if (node.IsScalar()) add(node);
  if (node.IsSequence()) {
    for (const auto& item : node) json_template_uses(context, item, what, uses);
  }
  if (node.IsMap()) {
    for (const auto& pair : node) {
      add(pair.first);
      json_template_uses(context, pair.second, what, uses);
    }
  }
}

// ---- requests ----

std::optional<std::string> read_status_text(const Context& context, const YAML::Node& node,
                                            const std::string& what, CheckSpec& spec) {
  auto status_of = [&](const YAML::Node& item) {
    return static_cast<int>(yaml_reader::read_integer(context.source, item, what, 100, 599));
  };
  if (node.IsSequence()) {
    if (node.size() == 0) context.source.fail(node, what + ": needs at least one status");
    spec.kind = CheckSpec::Kind::kStatusIn;
    for (const auto& item : node) spec.statuses.push_back(status_of(item));
    return std::nullopt;
  }
  std::string text = yaml_reader::read_string(context.source, node, what);
  // "2xx", or "200-299" (spaces around the dash allowed): read by hand, see is_json_number.
  size_t dash = text.find('-');
  std::string_view low = std::string_view(text).substr(0, dash);
  std::string_view high =
      dash == std::string::npos ? std::string_view() : std::string_view(text).substr(dash + 1);
  while (!low.empty() && low.back() == ' ') low.remove_suffix(1);
  while (!high.empty() && high.front() == ' ') high.remove_prefix(1);
  auto all_digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
  };
  if (text.size() == 3 && text[0] >= '1' && text[0] <= '5' && text.substr(1) == "xx") {
    spec.kind = CheckSpec::Kind::kStatusRange;
    spec.status_min = (text[0] - '0') * 100;
    spec.status_max = spec.status_min + 99;
  } else if (dash != std::string::npos && all_digits(low) && all_digits(high)) {
    spec.kind = CheckSpec::Kind::kStatusRange;
    bool in_range = low.size() == 3 && high.size() == 3;
    spec.status_min = in_range ? std::stoi(std::string(low)) : 0;
    spec.status_max = in_range ? std::stoi(std::string(high)) : 0;
    if (spec.status_min < 100 || spec.status_max > 599) {
      context.source.fail(node, what + ": a status range goes from 100 to 599, got '" + text + "'");
    }
  } else {
    spec.kind = CheckSpec::Kind::kStatusIn;
    spec.statuses.push_back(status_of(node));
  }
  return text;
}

CheckSpec parse_check(const Context& context, const YAML::Node& node, const std::string& where) {
  FieldMap map(context.source, node, where, kCheckKeys);
  CheckSpec spec;
  spec.where = context.location(node.Mark());
  std::string_view kind;
  for (std::string_view key : kCheckKinds) {
    if (!map.has(key)) continue;
    if (!kind.empty()) {
      map.fail_at_key(key, "a check tests one thing, and '" + std::string(kind) +
                               "' is already given (write one list item per check)");
    }
    kind = key;
  }
  if (kind.empty()) {
    context.source.fail(node, where + " needs one of " + join_names(kCheckKinds));
  }
  const bool short_json = kind == "json" && map.present("json")->IsScalar();
  if (map.has("equals") && !short_json) {
    map.fail_at_key("equals", "goes with a JSON pointer: {json: /id, equals: 42}");
  }
  if (kind == "status") {
    auto text = read_status_text(context, *map.present("status"), map.what("status"), spec);
    if (text) {
      spec.description = "status " + *text;
    } else {
      spec.description = "status";
      for (size_t i = 0; i < spec.statuses.size(); ++i) {
        spec.description += (i == 0 ? " " : ", ") + std::to_string(spec.statuses[i]);
      }
    }
  } else if (kind == "body_contains" || kind == "body_matches") {
    spec.kind =
        kind == "body_contains" ? CheckSpec::Kind::kBodyContains : CheckSpec::Kind::kBodyMatches;
    spec.text = *map.get_string(kind);
    if (spec.text.empty()) map.fail_at_value(kind, "must not be empty (it would always pass)");
    spec.description =
        (kind == "body_contains" ? "body contains " : "body matches ") + in_quotes(spec.text);
  } else {
    spec.kind = CheckSpec::Kind::kJsonEquals;
    if (short_json) {
      // {json: /description, equals: "Computer consultancy"}
      if (!map.has("equals")) map.fail_missing("equals");
      spec.path = *map.get_string("json");
      spec.json_value = to_json(context, *map.present("equals"), map.what("equals")).dump();
    } else {
      FieldMap json(context.source, *map.present("json"), "'json' of " + where, kJsonCheckKeys);
      if (!json.has("path")) json.fail_missing("path");
      if (!json.has("equals")) json.fail_missing("equals");
      spec.path = *json.get_string("path");
      spec.json_value = to_json(context, json.node()["equals"], json.what("equals")).dump();
    }
    spec.description = "json " + spec.path + " == " + spec.json_value;
  }
  try {
    CompiledCheck::compile(spec);
  } catch (const UsageError& error) {
    map.fail_at_value(kind, error.what());
  }
  return spec;
}

// `stream: sse` (or chunked) and the keys that say how its events are read; compiled here once
// so that a bad pointer or pattern is reported at its place in the file.
StreamSpec parse_stream(const FieldMap& map, const std::string& where) {
  StreamSpec stream;
  stream.kind = *map.get_string("stream");
  if (stream.kind != "sse" && stream.kind != "chunked") {
    map.fail_at_value("stream", "a stream is 'sse' (server-sent events) or 'chunked'");
  }
  if (map.has("content")) stream.content = *map.get_string("content");
  if (map.has("tokens")) stream.tokens = *map.get_string("tokens");
  if (map.has("terminator")) stream.terminator = *map.get_string("terminator");
  try {
    compile_stream_rules(stream, where);
  } catch (const UsageError& error) {
    const std::string_view key = map.has("content")  ? "content"
                                 : map.has("tokens") ? "tokens"
                                                     : "stream";
    map.fail_at_value(key, error.what());
  }
  return stream;
}

// `- fixture: FILE`: the stream's bytes must be the file's, byte for byte (read here, bounded).
void read_fixture(const Context& context, const YAML::Node& node, const std::string& where,
                  std::optional<StreamSpec>& stream) {
  constexpr std::array<std::string_view, 1> kFixtureKeys = {"fixture"};
  FieldMap map(context.source, node, where, kFixtureKeys);
  if (!stream) map.fail_at_key("fixture", "checks a stream: add 'stream: sse' (or chunked)");
  if (stream->fixture) map.fail_at_key("fixture", "a stream has one fixture");
  stream->fixture_path = *map.get_string("fixture");
  std::filesystem::path path(stream->fixture_path);
  if (!path.is_absolute()) path = context.base_dir / path;
  try {
    stream->fixture = std::make_shared<const std::string>(
        read_bounded_file(path.string(), "fixture", kMaxFixtureBytes));
  } catch (const UsageError& error) {
    map.fail_at_value("fixture", error.what());
  }
}

ExtractSpec parse_extract(const Context& context, const YAML::Node& key, const YAML::Node& value,
                          const std::string& where) {
  ExtractSpec spec;
  spec.variable = key.Scalar();
  spec.where = context.location(key.Mark());
  if (!is_variable_name(spec.variable)) {
    context.source.fail(key, where + ": '" + spec.variable +
                                 "' cannot be a variable name: use letters, digits and '_', not "
                                 "starting with a digit");
  }
  FieldMap map(context.source, value, where, kExtractKeys);
  std::string_view kind;
  for (std::string_view k : {"json", "header", "regex"}) {
    if (!map.has(k)) continue;
    if (!kind.empty())
      map.fail_at_key(
          k, "an extraction has one source, and '" + std::string(kind) + "' is already given");
    kind = k;
  }
  if (kind.empty()) context.source.fail(value, where + " needs one of json, header, regex");
  if (map.has("group") && kind != "regex") map.fail_at_key("group", "goes with 'regex' only");
  spec.kind = kind == "json"     ? ExtractSpec::Kind::kJsonPointer
              : kind == "header" ? ExtractSpec::Kind::kHeader
                                 : ExtractSpec::Kind::kRegex;
  spec.expression = *map.get_string(kind);
  if (map.has("group")) spec.group = static_cast<int>(*map.get_integer("group", 0, 99));
  try {
    CompiledExtract::compile(spec);
  } catch (const UsageError& error) {
    map.fail_at_value(
        map.has("group") && std::string_view(error.what()).find("group") != std::string::npos
            ? "group"
            : kind,
        error.what());
  }
  return spec;
}

std::string parse_method(const FieldMap& map) {
  if (!map.has("method")) return "GET";
  std::string method = *map.get_string("method");
  if (!is_http_token(method)) {
    map.fail_at_value("method",
                      "expected a method like GET or POST (letters, digits and "
                      "!#$%&'*+-.^_`|~, no spaces), got " +
                          in_quotes(method));
  }
  return method;
}

ParsedRequest parse_request(const Context& context, const YAML::Node& key,
                            const YAML::Node& value) {
  ParsedRequest parsed;
  RequestSpec& spec = parsed.spec;
  spec.name = key.Scalar();
  spec.where = context.location(key.Mark());
  std::string where = "request '" + spec.name + "'";
  if (!is_item_name(spec.name)) {
    context.source.fail(key, where +
                                 ": a name is 1 to 100 letters, digits, '_', '.' or '-' "
                                 "(it labels metrics and thresholds)");
  }
  FieldMap map(context.source, value, where, kRequestKeys);
  spec.method = parse_method(map);

  if (!map.has("path")) map.fail_missing("path");
  spec.path_template = *map.get_string("path");
  parsed.path_node = *map.present("path");
  auto path_uses = template_uses(context, parsed.path_node, spec.path_template, map.what("path"));
  if (!spec.path_template.starts_with('/')) {
    auto references = scan_template(spec.path_template);
    bool leading = !references.empty() && references.front().offset == 0 &&
                   references.front().kind == TemplateReference::Kind::kVariable;
    if (!leading) {
      map.fail_at_value("path",
                        "must start with '/' (a path on the target, like "
                        "/items?q=${word}), or with a ${variable} whose values are paths");
    }
    parsed.leading_variable = references.front().name;
  }
  auto bad_char = std::find_if(spec.path_template.begin(), spec.path_template.end(), [](char c) {
    return static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
  });
  if (bad_char != spec.path_template.end()) {
    map.fail_at_value("path",
                      "must not contain spaces or control characters (write a space as %20)");
  }
  parsed.uses = std::move(path_uses);

  if (map.has("headers")) spec.header_templates = parse_headers(context, map, parsed.uses);
  if (map.has("body") && map.has("json")) {
    map.fail_at_key("json", "cannot be combined with 'body' (both give the body)");
  }
  if (map.has("body")) {
    spec.body_template = *map.get_string("body");
    auto uses = template_uses(context, *map.present("body"), *spec.body_template, map.what("body"));
    parsed.uses.insert(parsed.uses.end(), uses.begin(), uses.end());
  }
  if (map.has("json")) {
    const YAML::Node& json = *map.present("json");
    json_template_uses(context, json, map.what("json"), parsed.uses);
    spec.body_template = to_json(context, json, map.what("json")).dump();
    spec.json_body = true;  // Content-Type: application/json, unless the request sets its own
  }

  if (map.has("stream")) spec.stream = parse_stream(map, where);
  for (std::string_view key : kStreamKeys) {
    if (map.has(key) && !spec.stream) map.fail_at_key(key, "goes with 'stream: sse' (or chunked)");
  }
  if (map.has("checks")) {
    const YAML::Node& checks = *map.present("checks");
    if (!checks.IsSequence()) {
      map.fail_at_value("checks", "expected a list (\"- status: 200\"), got " +
                                      std::string(yaml_reader::node_kind(checks)));
    }
    for (size_t i = 0; i < checks.size(); ++i) {
      const std::string check_where = "check " + std::to_string(i + 1) + " of " + where;
      if (checks[i].IsMap() && checks[i]["fixture"]) {
        read_fixture(context, checks[i], check_where, spec.stream);
        continue;
      }
      spec.checks.push_back(parse_check(context, checks[i], check_where));
    }
  }
  if (map.has("extract")) {
    const YAML::Node& extract = *map.present("extract");
    if (!extract.IsMap()) {
      map.fail_at_value("extract", "expected a map of variable names (\"id: {json: /id}\"), got " +
                                       std::string(yaml_reader::node_kind(extract)));
    }
    for_each_named(context, extract, "'extract' of " + where, "variable",
                   [&](const YAML::Node& k, const YAML::Node& v) {
                     spec.extracts.push_back(parse_extract(
                         context, k, v, "extraction '" + k.Scalar() + "' of " + where));
                   });
  }
  return parsed;
}

}  // namespace

SourceLocation Context::location(const YAML::Mark& mark) const {
  if (mark.is_null()) return {file_name, 1, 1};
  return {file_name, mark.line + 1, mark.column + 1};
}

YAML::Mark Context::mark_in_scalar(const YAML::Node& node, size_t offset, bool* exact) const {
  YAML::Mark mark = node.Mark();
  if (exact != nullptr) *exact = false;
  if (mark.is_null() || mark.pos < 0 || static_cast<size_t>(mark.pos) >= text.size()) return mark;
  std::string_view raw = text.substr(static_cast<size_t>(mark.pos));
  size_t quote = raw.front() == '"' || raw.front() == '\'' ? 1 : 0;
  std::string_view value = node.Scalar();
  if (offset > value.size() || raw.size() < quote + offset) return mark;
  std::string_view before = value.substr(0, offset);
  if (raw.substr(quote, offset) != before || before.find('\n') != std::string_view::npos) {
    return mark;
  }
  // Columns count characters, as editors do: skip UTF-8 continuation bytes.
  int characters = static_cast<int>(
      std::count_if(before.begin(), before.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  mark.pos += static_cast<int>(quote + offset);
  mark.column += static_cast<int>(quote) + characters;
  if (exact != nullptr) *exact = true;
  return mark;
}

void for_each_named(const Context& context, const YAML::Node& map, const std::string& what,
                    std::string_view kind, const NamedEntry& on_entry) {
  std::map<std::string, int> first_line;
  for (const auto& pair : map) {
    const YAML::Node& key = pair.first;
    if (!key.IsScalar())
      context.source.fail(key, what + ": a " + std::string(kind) + " name must be a plain name");
    auto [at, inserted] = first_line.emplace(key.Scalar(), key.Mark().line + 1);
    if (!inserted) {
      context.source.fail(key, std::string(kind) + " '" + key.Scalar() + "' given twice in " +
                                   what + " (first at line " + std::to_string(at->second) + ")");
    }
    on_entry(key, pair.second);
  }
}

bool is_item_name(std::string_view name) {
  auto allowed = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  };
  return !name.empty() && name.size() <= 100 && std::all_of(name.begin(), name.end(), allowed);
}

std::string join(std::span<const std::string> names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

std::string nearest_hint(std::string_view name, std::span<const std::string> names) {
  std::vector<std::string_view> views(names.begin(), names.end());
  auto near = yaml_reader::nearest_key(name, views);
  return near ? "; did you mean '" + std::string(*near) + "'?" : "";
}

std::vector<VariableUse> template_uses(const Context& context, const YAML::Node& node,
                                       const std::string& text, std::string_view what) {
  std::vector<TemplateReference> references;
  try {
    references = scan_template(text);
  } catch (const TemplateError& error) {
    bool exact = false;
    YAML::Mark mark = context.mark_in_scalar(node, error.offset(), &exact);
    std::string message = error.what();
    // The column says where; the offset within the text would only repeat it.
    std::string offset_text = " at offset " + std::to_string(error.offset());
    if (size_t at = message.find(offset_text); exact && at != std::string::npos) {
      message.erase(at, offset_text.size());
    }
    context.source.fail(mark, std::string(what) + ": " + message);
  }
  std::vector<VariableUse> uses;
  for (const TemplateReference& reference : references) {
    if (reference.kind != TemplateReference::Kind::kVariable) continue;
    uses.push_back({reference.name, context.mark_in_scalar(node, reference.offset)});
  }
  return uses;
}

std::vector<std::pair<std::string, std::string>> parse_headers(const Context& context,
                                                               const FieldMap& parent,
                                                               std::vector<VariableUse>& uses) {
  const YAML::Node& node = *parent.present("headers");
  if (!node.IsMap()) {
    parent.fail_at_value("headers",
                         "expected a map of header names to values (\"Accept: "
                         "application/json\"), got " +
                             std::string(yaml_reader::node_kind(node)));
  }
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& pair : node) {
    const YAML::Node& key = pair.first;
    std::string what = "header in " + parent.where();
    if (!key.IsScalar() || !is_http_token(key.Scalar())) {
      context.source.fail(key, what +
                                   ": a header name is a token like Accept or X-Request-Id "
                                   "(letters, digits and !#$%&'*+-.^_`|~)");
    }
    const std::string& name = key.Scalar();
    what = "header '" + name + "' in " + parent.where();
    for (const auto& [seen, unused] : headers) {
      (void)unused;
      if (iequals(seen, name)) context.source.fail(key, what + ": given twice (names ignore case)");
    }
    for (std::string_view computed : kComputedHeaders) {
      if (iequals(name, computed))
        context.source.fail(key, what + ": proofload sets it from the body");
    }
    if (pair.second.IsNull()) context.source.fail(key, what + ": needs a value");
    std::string value = yaml_reader::read_string(context.source, pair.second, what);
    if (std::any_of(value.begin(), value.end(), [](char c) {
          return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
        })) {
      context.source.fail(pair.second,
                          what + ": a header value cannot hold line breaks or control characters");
    }
    auto found = template_uses(context, pair.second, value, what);
    uses.insert(uses.end(), found.begin(), found.end());
    headers.emplace_back(name, std::move(value));
  }
  return headers;
}

std::vector<ParsedRequest> parse_requests(const Context& context, const FieldMap& top,
                                          const std::string& key) {
  const YAML::Node& node = *top.present(key);
  if (!node.IsMap() || node.size() == 0) {
    top.fail_at_value(
        key, "expected a map of named requests (\"lookup: {path: /sic/1}\"), got " +
                 std::string(node.IsMap() ? "an empty map" : yaml_reader::node_kind(node)));
  }
  std::vector<ParsedRequest> requests;
  for_each_named(context, node, "'" + key + "'", key == "canaries" ? "canary" : "request",
                 [&](const YAML::Node& key, const YAML::Node& value) {
                   requests.push_back(parse_request(context, key, value));
                 });
  return requests;
}

}  // namespace proofload::workload::scenario_yaml
