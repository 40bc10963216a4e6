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

std::vector<result::SpecHeader> headers_record(
    const std::vector<std::pair<std::string, std::string>>& headers) {
  std::vector<result::SpecHeader> out;
  for (const auto& [name, value] : headers) {
    result::SpecHeader header;
    header.name = name;
    header.value = is_sensitive_header(name) ? std::string("[redacted]") : value;
    out.push_back(std::move(header));
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

result::SpecScenario scenario_record(const workload::Scenario& scenario,
                                     const workload::Workload& workload) {
  std::vector<result::SpecRequest> requests;
  for (const workload::RequestSpec& r : scenario.requests) {
    result::SpecRequest request;
    request.name = r.name;
    request.method = r.method;
    request.path = r.path_template;
    request.headers = headers_record(r.header_templates);
    request.body_template_bytes =
        static_cast<int64_t>(r.body_template ? r.body_template->size() : 0);
    std::vector<std::string> checks;
    for (const workload::CheckSpec& c : r.checks) checks.push_back(c.description);
    request.checks = std::move(checks);
    std::vector<std::string> extracts;
    for (const workload::ExtractSpec& x : r.extracts) extracts.push_back(x.variable);
    request.extracts = std::move(extracts);
    requests.push_back(std::move(request));
  }
  std::vector<result::SpecFlow> flows;
  for (const workload::FlowSpec& f : scenario.flows) {
    std::vector<result::SpecStep> steps;
    for (const workload::StepSpec& s : f.steps) {
      result::SpecStep step;
      step.request = s.request;
      step.think_s = static_cast<double>(s.think_ns) / 1e9;
      steps.push_back(std::move(step));
    }
    result::SpecFlow flow;
    flow.name = f.name;
    flow.steps = std::move(steps);
    flows.push_back(std::move(flow));
  }
  std::vector<result::SpecMixEntry> mix;
  for (size_t i = 0; i < workload.entries().size(); ++i) {
    const workload::MixEntryPlan& plan = workload.entries()[i];
    result::SpecMixEntry entry;
    entry.name = plan.name;
    entry.kind = std::string(plan.flow >= 0 ? "flow" : "request");
    entry.share = workload.entry_share(static_cast<int>(i));
    mix.push_back(std::move(entry));
  }
  std::vector<result::SpecData> data;
  for (const workload::DataSpec& d : scenario.data) {
    result::SpecData variable;
    variable.name = d.name;
    variable.kind = std::string(data_kind_name(d.kind));
    data.push_back(std::move(variable));
  }
  std::vector<std::string> thresholds;
  for (const workload::ThresholdSpec& t : scenario.thresholds) thresholds.push_back(t.expression);
  result::SpecScenario out;
  out.file = scenario.file;
  out.default_headers = headers_record(scenario.default_headers);
  out.requests = std::move(requests);
  out.flows = std::move(flows);
  out.mix = std::move(mix);
  out.data = std::move(data);
  out.thresholds = std::move(thresholds);
  out.seed = workload.seed();
  return out;
}

}  // namespace proofload::plan
