// The scenario file's top level (target, defaults, executor, flows, mix, thresholds) and the
// checks across sections: names that must name something, and variables that must be set
// where they are used (see scenario_yaml.h and docs/scenario.md). Throws UsageError only.
#include "workload/scenario_yaml.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

#include "common/file_text.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "http/url.h"
#include "measure/threshold.h"
#include "workload/data_source.h"
#include "workload/scenario_yaml_parts.h"

namespace proofload::workload {
namespace {

using namespace scenario_yaml;

constexpr std::array<std::string_view, 10> kTopKeys = {
    "target",   "protocol", "defaults", "executor",   "data",
    "requests", "flows",    "mix",      "thresholds", "canaries"};
constexpr std::array<std::string_view, 2> kProtocols = {"http/1.1", "h2"};
constexpr std::array<std::string_view, 2> kDefaultsKeys = {"headers", "timeout"};
constexpr std::array<std::string_view, 1> kFlowKeys = {"steps"};
constexpr std::array<std::string_view, 2> kStepKeys = {"request", "think"};

// What a name of the mix, a flow step or a threshold refers to: a request or a flow.
struct Item {
  const ParsedRequest* request = nullptr;  // null for a flow
  const FlowSpec* flow = nullptr;
};

std::string line_of(const SourceLocation& where) { return "line " + std::to_string(where.line); }

void parse_defaults(const Context& context, const FieldMap& top, Scenario& scenario,
                    std::vector<VariableUse>& uses) {
  FieldMap defaults(context.source, *top.present("defaults"), "'defaults'", kDefaultsKeys);
  if (defaults.has("headers")) scenario.default_headers = parse_headers(context, defaults, uses);
  if (defaults.has("timeout")) {
    if (*defaults.get_duration_ns("timeout") <= 0)
      defaults.fail_at_value("timeout", "must be above 0");
    scenario.settings.emplace_back("timeout", *defaults.get_string("timeout"));
  }
}

StepSpec parse_step(const Context& context, const YAML::Node& node, const std::string& where,
                    const std::map<std::string, Item>& items,
                    const std::set<std::string>& flow_names,
                    const std::vector<std::string>& request_names) {
  StepSpec step;
  step.where = context.location(node.Mark());
  // (Never assign one YAML::Node to another: yaml-cpp then rewrites the tree.)
  const YAML::Node* name_node = &node;
  std::optional<FieldMap> map;
  if (!node.IsScalar()) {
    // The long form {request: NAME, think: 100ms}; a bare name is the short form.
    map.emplace(context.source, node, where, kStepKeys);
    if (!map->has("request")) map->fail_missing("request");
    name_node = map->present("request");
    if (map->has("think")) step.think_ns = *map->get_duration_ns("think");
  }
  step.request = yaml_reader::read_string(context.source, *name_node, where);
  if (flow_names.contains(step.request)) {
    context.source.fail(*name_node, where + ": '" + step.request +
                                        "' is a flow; a step names a request (flows do not nest)");
  }
  if (!items.contains(step.request)) {
    context.source.fail(*name_node, where + ": no request named '" + step.request + "'" +
                                        nearest_hint(step.request, request_names) +
                                        " (requests: " + join(request_names) + ")");
  }
  return step;
}

// `flows:` may only be read once every request is known (`items` holds them).
std::vector<FlowSpec> parse_flows(const Context& context, const FieldMap& top,
                                  const std::map<std::string, Item>& items,
                                  const std::vector<std::string>& request_names) {
  const YAML::Node& node = *top.present("flows");
  if (!node.IsMap()) {
    top.fail_at_value("flows",
                      "expected a map of named flows (\"lifecycle: {steps: [create, "
                      "assign]}\"), got " +
                          std::string(yaml_reader::node_kind(node)));
  }
  std::set<std::string> flow_names;
  for (const auto& pair : node) {
    if (pair.first.IsScalar()) flow_names.insert(pair.first.Scalar());
  }
  std::vector<FlowSpec> flows;
  std::map<std::string, int> first_line;
  for (const auto& pair : node) {
    const YAML::Node& key = pair.first;
    std::string name = yaml_reader::read_string(context.source, key, "a flow name");
    std::string where = "flow '" + name + "'";
    if (!is_item_name(name)) {
      context.source.fail(key, where +
                                   ": a name is 1 to 100 letters, digits, '_', '.' or '-' "
                                   "(it labels metrics and thresholds)");
    }
    if (auto at = first_line.find(name); at != first_line.end()) {
      context.source.fail(key, "flow '" + name + "' given twice in 'flows' (first at line " +
                                   std::to_string(at->second) + ")");
    }
    if (auto other = items.find(name); other != items.end()) {
      context.source.fail(key, "'" + name + "' names both a request (" +
                                   line_of(other->second.request->spec.where) +
                                   ") and a flow: the mix and thresholds need one meaning");
    }
    first_line.emplace(name, key.Mark().line + 1);
    FlowSpec flow;
    flow.name = name;
    flow.where = context.location(key.Mark());
    const YAML::Node* steps_node = &pair.second;
    std::optional<FieldMap> map;
    if (!pair.second.IsSequence()) {
      // The long form {steps: [...]}; a bare list is the short form.
      map.emplace(context.source, pair.second, where, kFlowKeys);
      if (!map->has("steps")) map->fail_missing("steps");
      steps_node = map->present("steps");
      if (!steps_node->IsSequence()) {
        map->fail_at_value("steps", "expected a list of steps (\"- create\"), got " +
                                        std::string(yaml_reader::node_kind(*steps_node)));
      }
    }
    const YAML::Node& steps = *steps_node;
    if (steps.size() == 0) context.source.fail(steps, where + " needs at least one step");
    for (size_t i = 0; i < steps.size(); ++i) {
      std::string step_where = "step " + std::to_string(i + 1) + " of " + where;
      // A think on the last step is the pause at the end of each iteration.
      flow.steps.push_back(
          parse_step(context, steps[i], step_where, items, flow_names, request_names));
    }
    flows.push_back(std::move(flow));
  }
  return flows;
}

double read_weight(const Context& context, const YAML::Node& node, const std::string& what) {
  std::string text = yaml_reader::read_string(context.source, node, what);
  double weight = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), weight);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(weight)) {
    context.source.fail(node, what + ": expected a weight (a number above 0), got '" + text + "'");
  }
  if (weight <= 0) {
    context.source.fail(node, what + ": a weight must be above 0, got '" + text +
                                  "' (to leave an entry out, remove it)");
  }
  return weight;
}

std::vector<MixEntry> parse_mix(const Context& context, const FieldMap& top,
                                const std::map<std::string, Item>& items,
                                const std::vector<std::string>& names) {
  const YAML::Node& node = *top.present("mix");
  if (!node.IsMap() || node.size() == 0) {
    top.fail_at_value(
        "mix",
        "expected a map of request or flow names to weights (\"lookup: 4\"), "
        "got " +
            std::string(node.IsMap() ? "an empty map" : yaml_reader::node_kind(node)));
  }
  std::vector<MixEntry> mix;
  std::map<std::string, int> first_line;
  for (const auto& pair : node) {
    MixEntry entry;
    entry.name = yaml_reader::read_string(context.source, pair.first, "a mix entry");
    entry.where = context.location(pair.first.Mark());
    if (auto at = first_line.find(entry.name); at != first_line.end()) {
      context.source.fail(pair.first, "'" + entry.name + "' given twice in 'mix' (first at line " +
                                          std::to_string(at->second) + ")");
    }
    first_line.emplace(entry.name, entry.where.line);
    if (!items.contains(entry.name)) {
      context.source.fail(pair.first,
                          "'mix' names '" + entry.name + "', which is no request or flow" +
                              nearest_hint(entry.name, names) + " (known: " + join(names) + ")");
    }
    entry.weight = read_weight(context, pair.second, "weight of '" + entry.name + "' in 'mix'");
    mix.push_back(std::move(entry));
  }
  return mix;
}

std::vector<ThresholdSpec> parse_thresholds(const Context& context, const FieldMap& top,
                                            const std::map<std::string, Item>& items,
                                            const std::vector<std::string>& names) {
  const YAML::Node& node = *top.present("thresholds");
  if (!node.IsSequence()) {
    top.fail_at_value("thresholds", "expected a list (\"- p95 < 200ms\"), got " +
                                        std::string(yaml_reader::node_kind(node)));
  }
  std::vector<ThresholdSpec> thresholds;
  for (size_t i = 0; i < node.size(); ++i) {
    std::string what = "threshold " + std::to_string(i + 1);
    ThresholdSpec spec;
    spec.expression = yaml_reader::read_string(context.source, node[i], what);
    spec.where = context.location(node[i].Mark());
    measure::Threshold threshold;
    try {
      threshold = measure::parse_threshold(spec.expression);
    } catch (const UsageError& error) {
      context.source.fail(node[i], error.what());  // it quotes the expression
    }
    const std::string& scope = threshold.metric.scope;
    if (!scope.empty() && !items.contains(scope)) {
      context.source.fail(node[i], what + " '" + spec.expression + "': no request or flow named '" +
                                       scope + "'" + nearest_hint(scope, names) +
                                       " (known: " + join(names) + ")");
    }
    thresholds.push_back(std::move(spec));
  }
  return thresholds;
}

// ---- variables: each ${name} must be set where it is used ----

class VariableChecker {
 public:
  VariableChecker(const Context& context, const Scenario& scenario,
                  const std::vector<ParsedRequest>& requests)
      : context_(context) {
    for (const DataSpec& data : scenario.data) {
      data_.emplace(data.name, &data);
      known_.push_back(data.name);
    }
    for (const ParsedRequest& request : requests) {
      for (const ExtractSpec& extract : request.spec.extracts) {
        if (auto data = data_.find(extract.variable); data != data_.end()) {
          fail(extract.where, "variable '" + extract.variable + "' is defined both in 'data' (" +
                                  line_of(data->second->where) +
                                  ") and by an extraction of request '" + request.spec.name + "'");
        }
        auto& by = extracted_by_[extract.variable];
        if (by.empty()) known_.push_back(extract.variable);
        by.push_back(request.spec.name);
      }
    }
  }

  // A typo is reported wherever it is, even in a request the mix does not use.
  void check_defined(const std::vector<VariableUse>& uses) const {
    for (const VariableUse& use : uses) {
      if (data_.contains(use.name) || extracted_by_.contains(use.name)) continue;
      context_.source.fail(use.mark, "variable '" + use.name + "' is used but never defined" +
                                         nearest_hint(use.name, known_) + defined_list());
    }
  }

  // Requests the mix picks on their own see data variables only.
  void check_data_only(const std::vector<VariableUse>& uses, const std::string& who) const {
    for (const VariableUse& use : uses) {
      if (data_.contains(use.name)) continue;
      context_.source.fail(use.mark, "variable '" + use.name + "' is extracted by request '" +
                                         extracted_by_.at(use.name).front() + "', but " + who +
                                         ", where only 'data' variables are set; use it in a flow "
                                         "after that request");
    }
  }

  // Default headers go with every request, including the first step of every flow.
  void check_defaults(const std::vector<VariableUse>& uses) const {
    for (const VariableUse& use : uses) {
      if (data_.contains(use.name)) continue;
      context_.source.fail(use.mark, "variable '" + use.name + "' is extracted by request '" +
                                         extracted_by_.at(use.name).front() +
                                         "', but default headers are sent with every request, so "
                                         "they may use 'data' variables only; give the header to "
                                         "the requests that follow it in a flow");
    }
  }

  void check_flow(const FlowSpec& flow, const std::map<std::string, Item>& items) const {
    std::set<std::string> set_so_far;
    for (size_t k = 0; k < flow.steps.size(); ++k) {
      const StepSpec& step = flow.steps[k];
      const ParsedRequest& request = *items.at(step.request).request;
      std::string step_name =
          "step " + std::to_string(k + 1) + " ('" + step.request + "') of flow '" + flow.name + "'";
      for (const VariableUse& use : request.uses) {
        if (data_.contains(use.name) || set_so_far.contains(use.name)) continue;
        std::string message = step_name + ": variable '" + use.name + "' ";
        std::optional<size_t> later;
        for (size_t j = k; j < flow.steps.size() && !later; ++j) {
          const auto& extracts = items.at(flow.steps[j].request).request->spec.extracts;
          if (std::any_of(extracts.begin(), extracts.end(),
                          [&](const ExtractSpec& e) { return e.variable == use.name; })) {
            later = j;
          }
        }
        if (later) {
          message += "is extracted by step " + std::to_string(*later + 1) + " ('" +
                     flow.steps[*later].request + "') of flow '" + flow.name +
                     "', after this step uses it";
        } else {
          message += "is extracted only by request '" + extracted_by_.at(use.name).front() +
                     "', which is not a step of flow '" + flow.name + "' before this one";
        }
        fail(step.where, message);
      }
      for (const ExtractSpec& extract : request.spec.extracts) set_so_far.insert(extract.variable);
    }
  }

  // A path that starts with ${name}: its values must be paths, when they are known now.
  void check_leading_variable(const ParsedRequest& request) const {
    auto data = data_.find(request.leading_variable);
    if (data == data_.end()) return;  // extracted: known only at run time
    const DataSpec* spec = data->second;
    if (spec->kind == DataSpec::Kind::kPool) spec = &spec->pool_of.front();
    std::string what = "'path' in request '" + request.spec.name + "'";
    bool listed = spec->kind == DataSpec::Kind::kList || spec->kind == DataSpec::Kind::kFileLines ||
                  spec->kind == DataSpec::Kind::kCsvColumn;
    if (!listed) {
      context_.source.fail(request.path_node,
                           what + ": starts with ${" + request.leading_variable +
                               "}, whose values are not paths; a path must start with '/'");
    }
    for (const std::string& value : spec->values) {
      if (value.starts_with('/')) continue;
      context_.source.fail(request.path_node, what + ": starts with ${" + request.leading_variable +
                                                  "}, whose value '" + value.substr(0, 40) +
                                                  "' does not start with '/'");
    }
  }

 private:
  [[noreturn]] void fail(const SourceLocation& where, const std::string& message) const {
    throw UsageError(where.text() + ": " + message);
  }

  std::string defined_list() const {
    std::vector<std::string> data;
    std::vector<std::string> extracted;
    for (const auto& [name, spec] : data_) data.push_back(name);
    for (const auto& [name, by] : extracted_by_) extracted.push_back(name);
    if (data.empty() && extracted.empty()) return " (no variable is defined: add it to 'data')";
    return " (data: " + (data.empty() ? "none" : join(data)) +
           "; extracted: " + (extracted.empty() ? "none" : join(extracted)) + ")";
  }

  const Context& context_;
  std::map<std::string, const DataSpec*> data_;
  std::map<std::string, std::vector<std::string>> extracted_by_;  // variable -> requests
  std::vector<std::string> known_;
};

void check_variables(const Context& context, const Scenario& scenario,
                     const std::vector<ParsedRequest>& requests,
                     const std::vector<VariableUse>& default_uses,
                     const std::map<std::string, Item>& items, bool mix_written) {
  VariableChecker checker(context, scenario, requests);
  checker.check_defined(default_uses);
  for (const ParsedRequest& request : requests) checker.check_defined(request.uses);
  checker.check_defaults(default_uses);
  for (const MixEntry& entry : scenario.mix) {
    const Item& item = items.at(entry.name);
    if (item.request == nullptr) continue;
    std::string who = "request '" + entry.name + "' is picked by the mix on its own";
    who += mix_written ? " (" + line_of(entry.where) + ")"
                       : " (there is no 'mix', and no flow uses it)";
    checker.check_data_only(item.request->uses, who);
  }
  for (const FlowSpec& flow : scenario.flows) checker.check_flow(flow, items);
  for (const ParsedRequest& request : requests) {
    if (!request.leading_variable.empty()) checker.check_leading_variable(request);
  }
}

// Without `mix`: every flow, and every request no flow uses (one used in a flow usually needs
// what the steps before it extract).
std::vector<MixEntry> implied_mix(const Scenario& scenario) {
  std::set<std::string> in_flows;
  for (const FlowSpec& flow : scenario.flows) {
    for (const StepSpec& step : flow.steps) in_flows.insert(step.request);
  }
  std::vector<MixEntry> mix;
  for (const RequestSpec& request : scenario.requests) {
    if (!in_flows.contains(request.name)) mix.push_back({request.name, 1, request.where});
  }
  for (const FlowSpec& flow : scenario.flows) mix.push_back({flow.name, 1, flow.where});
  return mix;
}

}  // namespace

namespace scenario_yaml {

Scenario parse_scenario_fields(const Context& context, const FieldMap& top,
                               const std::string& requests_key) {
  const Source& source = context.source;
  Scenario scenario;
  scenario.file = context.file_name;
  if (top.has("target")) {
    scenario.target = top.get_string("target");
    try {
      http::parse_url(*scenario.target);
    } catch (const UsageError& error) {
      top.fail_at_value("target", error.what());
    }
  }
  if (top.has("protocol")) {
    std::string protocol = *top.get_string("protocol");
    if (std::find(kProtocols.begin(), kProtocols.end(), protocol) == kProtocols.end()) {
      top.fail_at_value("protocol", unknown_choice("protocol", protocol, kProtocols));
    }
    scenario.protocol = protocol;
  }
  std::vector<VariableUse> default_uses;
  if (top.has("defaults")) parse_defaults(context, top, scenario, default_uses);
  if (top.has("executor")) parse_executor(context, top, scenario);
  if (top.has("data")) scenario.data = parse_data(context, top);
  if (!top.has(requests_key)) top.fail_missing(requests_key);
  // Each named request and flow keeps its own latency histograms in every worker: a stated
  // bound keeps that memory bounded (measured: about 50 KB a request at millisecond latencies).
  for (const auto& [key, limit] :
       {std::pair{requests_key, kMaxNamedRequests}, std::pair{std::string("flows"), kMaxFlows}}) {
    if (const YAML::Node* node = top.present(key);
        node != nullptr && node->IsMap() && node->size() > limit) {
      top.fail_at_value(key, "more than " + std::to_string(limit) + " named " + key + " (" +
                                 std::to_string(node->size()) +
                                 "): each keeps its own figures; merge those that need no "
                                 "figures of their own");
    }
  }
  std::vector<ParsedRequest> requests = parse_requests(context, top, requests_key);

  std::map<std::string, Item> items;
  std::vector<std::string> request_names;
  for (const ParsedRequest& request : requests) {
    items[request.spec.name] = Item{&request, nullptr};
    request_names.push_back(request.spec.name);
    scenario.requests.push_back(request.spec);
  }
  if (top.has("flows")) scenario.flows = parse_flows(context, top, items, request_names);
  std::vector<std::string> names = request_names;
  for (const FlowSpec& flow : scenario.flows) names.push_back(flow.name);
  // `items` points into scenario.flows, which is complete now and no longer moves.
  for (const FlowSpec& flow : scenario.flows) items[flow.name] = Item{nullptr, &flow};
  scenario.mix = top.has("mix") ? parse_mix(context, top, items, names) : implied_mix(scenario);
  if (top.has("thresholds")) scenario.thresholds = parse_thresholds(context, top, items, names);
  check_variables(context, scenario, requests, default_uses, items, top.has("mix"));
  if (top.has("canaries")) {
    // A canary is a known answer: the same request every time, so its data cannot vary (secrets
    // may: they are references, resolved once).
    for (ParsedRequest& canary : parse_requests(context, top, "canaries")) {
      if (!canary.uses.empty()) {
        source.fail(canary.uses.front().mark,
                    "canary '" + canary.spec.name + "' uses ${" + canary.uses.front().name +
                        "}: a canary is a known answer, the same request every time (secrets "
                        "like ${env:NAME} are allowed)");
      }
      if (!canary.spec.extracts.empty()) {
        source.fail(canary.path_node,
                    "canary '" + canary.spec.name + "' extracts a value; a canary only checks");
      }
      scenario.canaries.push_back(std::move(canary.spec));
    }
  }
  return scenario;
}

}  // namespace scenario_yaml

Scenario parse_scenario_yaml(std::string_view text, std::string_view file_name,
                             const std::filesystem::path& base_dir) {
  Source source(file_name);
  Context context{source, text, std::string(file_name), base_dir};
  // The usual syntax slip: a template in a flow map, "{title: ${word}}".
  YAML::Node document = yaml_reader::load_single_document(
      source, text, "scenario file", "a 'requests:' map", "title: \"${word}\"");
  FieldMap top(source, document, "the scenario file", kTopKeys);
  return parse_scenario_fields(context, top, "requests");
}

Scenario load_scenario_file(const std::string& path) {
  std::string text = read_bounded_file(path, "scenario file", kMaxScenarioFileBytes);
  // A file in the current directory has an empty parent: its data paths stay as written.
  return parse_scenario_yaml(text, path, std::filesystem::path(path).parent_path());
}

}  // namespace proofload::workload
