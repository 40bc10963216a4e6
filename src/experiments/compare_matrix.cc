// See compare_matrix.h.
#include "experiments/compare_matrix.h"

#include <algorithm>
#include <array>

#include "common/file_text.h"
#include "common/usage_error.h"
// The checks are a scenario file's requests under another key: the scenario parser reads them
// (its internal parts), so a check is written, and fails, exactly as a scenario's request does.
#include "workload/scenario_yaml_parts.h"

namespace proofload::experiments {
namespace {

namespace yaml_reader = config::yaml_reader;
using workload::scenario_yaml::Context;
using yaml_reader::FieldMap;

constexpr std::array<std::string_view, 11> kTopKeys = {
    "target", "protocol", "defaults", "data",   "checks",    "conditions",
    "settings", "metric", "run",      "repeat", "min_effect"};
constexpr std::array<std::string_view, 5> kRunKeys = {"connections", "rate", "duration", "warmup",
                                                      "cold_requests"};
constexpr std::array<std::string_view, 2> kSettingKeys = {"apply", "restore"};
constexpr std::array<std::string_view, 2> kConditions = {kCold, kWarm};
constexpr std::array<std::string_view, 5> kMetrics = {"p50", "p95", "p99", "throughput",
                                                      "cpu_per_request"};
constexpr int64_t kMaxRepeat = 1000;
constexpr size_t kMaxSettings = 100;

std::vector<std::string> parse_conditions(const FieldMap& top) {
  const YAML::Node& list = *top.present("conditions");
  if (!list.IsSequence() || list.size() == 0) {
    top.fail_at_value("conditions", "expected a list of cold and warm, e.g. [cold, warm]");
  }
  std::vector<std::string> conditions;
  for (const YAML::Node& item : list) {
    const std::string c = yaml_reader::read_string(top.source(), item, "a condition");
    if (std::find(kConditions.begin(), kConditions.end(), c) == kConditions.end()) {
      top.source().fail(item, yaml_reader::unknown_choice("condition", c, kConditions));
    }
    if (std::find(conditions.begin(), conditions.end(), c) != conditions.end()) {
      top.source().fail(item, "condition '" + c + "' given twice");
    }
    conditions.push_back(c);
  }
  return conditions;
}

std::vector<CompareSetting> parse_settings(const FieldMap& top) {
  const YAML::Node& map = *top.present("settings");
  if (!map.IsMap() || map.size() == 0) {
    top.fail_at_value("settings", "expected a map of named hook pairs, e.g. "
                                  "'0.5 CPU': {apply: ./limit.sh 0.5, restore: ./unlimit.sh}");
  }
  if (map.size() > kMaxSettings) {
    top.fail_at_value("settings", "more than " + std::to_string(kMaxSettings) + " settings");
  }
  std::vector<CompareSetting> settings;
  for (const auto& entry : map) {
    CompareSetting s;
    s.name = yaml_reader::read_string(top.source(), entry.first, "a setting's name");
    if (s.name.empty()) top.source().fail(entry.first, "a setting needs a name");
    for (const CompareSetting& before : settings) {
      if (before.name == s.name) top.source().fail(entry.first, "setting '" + s.name + "' given twice");
    }
    const FieldMap fields(top.source(), entry.second, "setting '" + s.name + "'", kSettingKeys);
    if (!fields.has("apply")) fields.fail_missing("apply");
    s.apply = *fields.get_string("apply");
    s.restore = fields.get_string("restore");
    settings.push_back(std::move(s));
  }
  return settings;
}

void parse_run(const FieldMap& top, CompareMatrix& m) {
  const FieldMap run(top.source(), *top.present("run"), "'run'", kRunKeys);
  if (run.has("connections") && run.has("rate")) {
    run.fail_at_key("rate", "give connections (closed loop) or rate (open loop), not both");
  }
  if (auto c = run.get_integer("connections", 1, 100'000)) m.connections = static_cast<int>(*c);
  m.rate_per_s = run.get_rate_per_s("rate");
  if (auto d = run.get_duration_ns("duration")) {
    if (*d <= 0) run.fail_at_value("duration", "must be longer than 0");
    m.duration_ns = *d;
  }
  if (auto w = run.get_duration_ns("warmup")) {
    if (*w < 0) run.fail_at_value("warmup", "must not be negative");
    m.warmup_ns = *w;
  }
  m.cold_requests = run.get_integer("cold_requests", 1, 1'000'000'000);
  if (m.cold_requests &&
      std::find(m.conditions.begin(), m.conditions.end(), kCold) == m.conditions.end()) {
    run.fail_at_key("cold_requests", "needs the cold condition (conditions: [cold, warm])");
  }
}

}  // namespace

CompareMatrix parse_compare_matrix(std::string_view text, std::string_view file_name,
                                   const std::filesystem::path& base_dir) {
  const yaml_reader::Source source(file_name);
  const Context context{source, text, std::string(file_name), base_dir};
  const YAML::Node document = yaml_reader::load_single_document(
      source, text, "compare matrix", "a 'checks:' map", "path: \"/items/${id}\"");
  const FieldMap top(source, document, "the compare matrix", kTopKeys);

  CompareMatrix m;
  m.file = std::string(file_name);
  m.checks = workload::scenario_yaml::parse_scenario_fields(context, top, "checks");
  if (top.has("conditions")) m.conditions = parse_conditions(top);
  if (top.has("settings")) m.settings = parse_settings(top);
  if (auto metric = top.get_string("metric")) {
    if (std::find(kMetrics.begin(), kMetrics.end(), *metric) == kMetrics.end()) {
      top.fail_at_value("metric", yaml_reader::unknown_choice("metric", *metric, kMetrics));
    }
    m.metric = analyze::parse_compare_metric(*metric);
  }
  if (top.has("run")) parse_run(top, m);
  if (auto r = top.get_integer("repeat", 1, kMaxRepeat)) m.repeat = static_cast<int>(*r);
  if (auto e = top.get_probability("min_effect")) m.min_effect = *e;
  return m;
}

CompareMatrix load_compare_matrix(const std::string& path) {
  const std::string text =
      read_bounded_file(path, "compare matrix", workload::kMaxScenarioFileBytes);
  return parse_compare_matrix(text, path, std::filesystem::path(path).parent_path());
}

}  // namespace proofload::experiments
