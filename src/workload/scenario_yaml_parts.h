// Internal to the scenario parser (scenario_yaml.cc, scenario_yaml_parts.cc for requests,
// scenario_yaml_data.cc for data): the parse context, shared helpers, and the readers of the
// `data:` and `requests:` sections, which return what the cross-checks of names and variables
// need beside the specs (where each ${variable} is used). One parse, one thread.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/yaml_reader.h"
#include "workload/scenario.h"

namespace proofload::workload::scenario_yaml {

namespace yaml_reader = config::yaml_reader;
using yaml_reader::FieldMap;
using yaml_reader::Source;

// What every part of the parse shares.
struct Context {
  const Source& source;
  std::string_view text;  // the whole file: to place a reference inside a scalar exactly
  std::string file_name;
  std::filesystem::path base_dir;

  SourceLocation location(const YAML::Mark& mark) const;
  // The mark of byte `offset` of scalar `node`'s value: exact when the value is written on one
  // line without escapes (plain, '...' or "..."), else the scalar's own mark.
  YAML::Mark mark_in_scalar(const YAML::Node& node, size_t offset, bool* exact = nullptr) const;
};

// One ${variable} (not a secret) used by a template, and where.
struct VariableUse {
  std::string name;
  YAML::Mark mark;
};

struct ParsedRequest {
  RequestSpec spec;
  std::vector<VariableUse> uses;  // in the order written: path, headers, body
  YAML::Node path_node;
  // The path starts with this variable ("${url}"): its values must then be paths.
  std::string leading_variable;
};

// Names of requests and flows: they label metrics and thresholds ("p95(items.create)").
bool is_item_name(std::string_view name);

std::string join(std::span<const std::string> names);
using yaml_reader::join_names;
using yaml_reader::unknown_choice;

// Calls `on_entry(key, value)` for each entry of a map whose keys the user names (data,
// requests, extractions): each key a plain name, at most once ("KIND 'x' given twice in WHAT").
using NamedEntry = std::function<void(const YAML::Node& key, const YAML::Node& value)>;
void for_each_named(const Context& context, const YAML::Node& map, const std::string& what,
                    std::string_view kind, const NamedEntry& on_entry);
// "; did you mean 'x'?" when one of `names` is close to `name`, else "".
std::string nearest_hint(std::string_view name, std::span<const std::string> names);

// The variables of a template written in `node` (already read as `text`); fails at the exact
// column for a malformed reference.
std::vector<VariableUse> template_uses(const Context& context, const YAML::Node& node,
                                       const std::string& text, std::string_view what);

// `headers:` maps (defaults and requests): names are tokens, values templates; a name given
// twice (in any case) fails.
std::vector<std::pair<std::string, std::string>> parse_headers(const Context& context,
                                                               const FieldMap& parent,
                                                               std::vector<VariableUse>& uses);

// A scenario's fields out of `top`, a map whose allowed keys the caller chose: the keys of a
// scenario file it allows are read as a scenario file reads them, with the requests under
// `requests_key` ("requests"; a compare matrix's "checks"). Keys it does not allow are absent.
Scenario parse_scenario_fields(const Context& context, const FieldMap& top,
                               const std::string& requests_key);

std::vector<DataSpec> parse_data(const Context& context, const FieldMap& top);
// `executor:` (scenario_yaml_executor.cc): each key into scenario.settings, by its run setting's
// name, its value checked at its place in the file.
void parse_executor(const Context& context, const FieldMap& top, Scenario& scenario);
// `key`: "requests", or "canaries" (known-answer requests a soak sends on their own connection).
std::vector<ParsedRequest> parse_requests(const Context& context, const FieldMap& top,
                                          const std::string& key = "requests");

}  // namespace proofload::workload::scenario_yaml
