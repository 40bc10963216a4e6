// See scenario_parts.h.
#include "plan/scenario_parts.h"

#include <algorithm>

#include "common/usage_error.h"
#include "config/yaml_reader.h"
#include "plan/redaction.h"
#include "workload/response_view.h"

namespace proofload::plan {
namespace {

std::string_view data_kind_name(workload::DataSpec::Kind kind) {
  using Kind = workload::DataSpec::Kind;
  switch (kind) {
    case Kind::kList:
      return "values";
    case Kind::kFileLines:
      return "file";
    case Kind::kCsvColumn:
      return "csv";
    case Kind::kWord:
      return "word";
    case Kind::kIntRange:
      return "int";
    case Kind::kSequence:
      return "sequence";
    case Kind::kUuid:
      return "uuid";
    case Kind::kPool:
      return "pool";
  }
  return "";
}

}  // namespace

std::string unknown_scope(const std::string& scope, const workload::Scenario* scenario) {
  if (scope.empty()) return "";
  if (!scenario) return "'" + scope + "' is no request or flow (names come from a scenario file)";
  std::vector<std::string_view> names;
  for (const workload::RequestSpec& r : scenario->requests) names.push_back(r.name);
  for (const workload::FlowSpec& f : scenario->flows) names.push_back(f.name);
  if (std::find(names.begin(), names.end(), scope) != names.end()) return "";
  std::string message = "'" + scope + "' is no request or flow of " + scenario->file;
  if (auto near = config::yaml_reader::nearest_key(scope, names)) {
    message += "; did you mean '" + std::string(*near) + "'?";
  }
  return message;
}

nlohmann::json headers_json(const std::vector<std::pair<std::string, std::string>>& headers) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [name, value] : headers) {
    out.push_back({{"name", name}, {"value", is_sensitive_header(name) ? "[redacted]" : value}});
  }
  return out;
}

workload::Scenario with_flag_headers(
    workload::Scenario scenario, const std::vector<std::pair<std::string, std::string>>& headers) {
  for (const auto& header : headers) {
    auto& defaults = scenario.default_headers;
    defaults.erase(std::remove_if(defaults.begin(), defaults.end(),
                                  [&](const auto& h) {
                                    return workload::header_text::ascii_iequals(h.first,
                                                                                header.first);
                                  }),
                   defaults.end());
    defaults.push_back(header);
  }
  return scenario;
}

std::vector<measure::Threshold> collect_thresholds(const workload::Scenario* scenario,
                                                   const std::vector<std::string>& flags) {
  std::vector<measure::Threshold> out;
  if (scenario) {
    for (const workload::ThresholdSpec& t : scenario->thresholds) {
      try {
        out.push_back(measure::parse_threshold(t.expression));
      } catch (const UsageError& e) {
        throw UsageError(t.where.text() + ": " + e.what());
      }
    }
  }
  for (const std::string& text : flags) {
    measure::Threshold threshold;
    try {
      threshold = measure::parse_threshold(text);
    } catch (const UsageError& e) {
      throw UsageError(std::string("--threshold: ") + e.what());
    }
    // A name that is no request or flow would only show as "no data" after the whole run.
    if (const std::string unknown = unknown_scope(threshold.metric.scope, scenario);
        !unknown.empty()) {
      throw UsageError("--threshold '" + text + "': " + unknown);
    }
    out.push_back(std::move(threshold));
  }
  return out;
}

nlohmann::json scenario_spec_json(const workload::Scenario& scenario,
                                  const workload::Workload& workload) {
  nlohmann::json requests = nlohmann::json::array();
  for (const workload::RequestSpec& r : scenario.requests) {
    nlohmann::json checks = nlohmann::json::array();
    for (const workload::CheckSpec& c : r.checks) checks.push_back(c.description);
    nlohmann::json extracts = nlohmann::json::array();
    for (const workload::ExtractSpec& x : r.extracts) extracts.push_back(x.variable);
    requests.push_back({{"name", r.name},
                        {"method", r.method},
                        {"path", r.path_template},
                        {"headers", headers_json(r.header_templates)},
                        {"body_template_bytes", r.body_template ? r.body_template->size() : 0},
                        {"checks", checks},
                        {"extracts", extracts}});
  }
  nlohmann::json flows = nlohmann::json::array();
  for (const workload::FlowSpec& f : scenario.flows) {
    nlohmann::json steps = nlohmann::json::array();
    for (const workload::StepSpec& s : f.steps) {
      steps.push_back({{"request", s.request}, {"think_s", static_cast<double>(s.think_ns) / 1e9}});
    }
    flows.push_back({{"name", f.name}, {"steps", steps}});
  }
  nlohmann::json mix = nlohmann::json::array();
  for (size_t i = 0; i < workload.entries().size(); ++i) {
    const workload::MixEntryPlan& entry = workload.entries()[i];
    mix.push_back({{"name", entry.name},
                   {"kind", entry.flow >= 0 ? "flow" : "request"},
                   {"share", workload.entry_share(static_cast<int>(i))}});
  }
  nlohmann::json data = nlohmann::json::array();
  for (const workload::DataSpec& d : scenario.data) {
    data.push_back({{"name", d.name}, {"kind", data_kind_name(d.kind)}});
  }
  nlohmann::json thresholds = nlohmann::json::array();
  for (const workload::ThresholdSpec& t : scenario.thresholds) thresholds.push_back(t.expression);
  return {{"file", scenario.file},
          {"default_headers", headers_json(scenario.default_headers)},
          {"requests", requests},
          {"flows", flows},
          {"mix", mix},
          {"data", data},
          {"thresholds", thresholds},
          {"seed", workload.seed()}};
}

}  // namespace proofload::plan
