// See compare_result.h.
#include "result/compare_result.h"

#include <algorithm>
#include <stdexcept>

#include "common/usage_error.h"
#include "result/json_reader.h"
#include "result/json_values.h"
#include "words/compare_words.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr const char* kCompareDocument = "compare result.json";

json settings_json(const CompareSettings& s) {
  return {{"matrix_file", text_or_null(s.matrix_file)},
          {"metric", s.metric},
          {"repeat", s.repeat},
          {"min_effect", s.min_effect},
          {"min_repeats", s.min_repeats},
          {"conditions", s.conditions},
          {"settings", s.settings},
          {"a", s.a},
          {"b", s.b},
          {"mode", s.mode},
          {"a_a", s.a_a},
          {"order", s.order},
          {"connections", optional_json(s.connections)},
          {"rate_per_s", optional_json(s.rate_per_s)},
          {"duration_s", s.duration_s},
          {"warmup_s", s.warmup_s},
          {"cold_requests", optional_json(s.cold_requests)}};
}

CompareSettings compare_settings_from_json(const JsonReader& r) {
  CompareSettings s;
  s.matrix_file = r.text("matrix_file");
  if (const std::string metric = r.text("metric"); !metric.empty()) s.metric = metric;
  s.repeat = r.count("repeat").value_or(3);
  s.min_effect = r.number("min_effect").value_or(0.05);
  s.min_repeats = r.count("min_repeats").value_or(3);
  s.conditions = r.texts("conditions");
  s.settings = r.texts("settings");
  s.a = r.text("a");
  s.b = r.text("b");
  if (const std::string mode = r.text("mode"); !mode.empty()) s.mode = mode;
  s.a_a = r.boolean("a_a").value_or(false);
  s.order = r.text("order");
  s.connections = r.count("connections");
  s.rate_per_s = r.number("rate_per_s");
  s.duration_s = r.number("duration_s").value_or(0);
  s.warmup_s = r.number("warmup_s").value_or(0);
  s.cold_requests = r.count("cold_requests");
  return s;
}

json run_json(const CompareRun& run) {
  return {{"side", run.side},
          {"check", run.check},
          {"condition", run.condition},
          {"repeat", run.repeat},
          {"directory", run.directory},
          {"status", text_or_null(run.status)},
          {"value", optional_json(run.value)},
          {"requests", run.requests},
          {"errors", run.errors}};
}

CompareRun run_from_json(const JsonReader& r) {
  CompareRun run;
  run.side = r.required_text("side");
  if (run.side != "a" && run.side != "b") r.fail("side is \"" + run.side + "\", not a or b");
  run.check = r.required_text("check");
  run.condition = r.text("condition");
  run.repeat = r.count("repeat").value_or(1);
  run.directory = r.text("directory");
  run.status = r.text("status");
  run.value = r.number("value");
  run.requests = r.count("requests").value_or(0);
  run.errors = r.count("errors").value_or(0);
  return run;
}

json counts_json(const analyze::CompareCounts& c) {
  return {{"faster", c.faster}, {"level", c.level},         {"slower", c.slower},
          {"not_judged", c.not_judged}, {"total", c.total}, {"text", c.text}};
}

json check_json(const analyze::CompareVerdict& v, const std::string& metric) {
  return {{"name", v.name},
          {"condition", v.condition},
          {"metric", metric},
          {"a", optional_json(v.a)},
          {"b", optional_json(v.b)},
          {"ratio", optional_json(v.ratio)},
          {"noise", v.noise},
          {"verdict", v.verdict},
          {"reason", v.reason},
          {"spread_a", optional_json(v.spread_a)},
          {"spread_b", optional_json(v.spread_b)},
          {"a_requests", v.a_requests},
          {"b_requests", v.b_requests},
          {"a_errors", v.a_errors},
          {"b_errors", v.b_errors},
          {"requests_per_run", v.requests_per_run},
          {"cold_diluted", v.cold_diluted}};
}

}  // namespace

std::vector<analyze::CompareCell> compare_cells(const std::vector<CompareRun>& runs) {
  std::vector<analyze::CompareCell> cells;
  for (const CompareRun& run : runs) {
    auto cell = std::find_if(cells.begin(), cells.end(), [&](const analyze::CompareCell& c) {
      return c.name == run.check && c.condition == run.condition;
    });
    if (cell == cells.end()) {
      analyze::CompareCell fresh;
      fresh.name = run.check;
      fresh.condition = run.condition;
      cells.push_back(std::move(fresh));
      cell = cells.end() - 1;
    }
    const bool a = run.side == "a";
    if (run.value) (a ? cell->a : cell->b).push_back(*run.value);
    (a ? cell->a_requests : cell->b_requests) += run.requests;
    (a ? cell->a_errors : cell->b_errors) += run.errors;
  }
  return cells;
}

void judge_compare(CompareResult& result) {
  analyze::CompareOptions options;
  try {
    options.metric = analyze::parse_compare_metric(result.settings.metric);
  } catch (const UsageError&) {
    throw std::runtime_error(std::string(kCompareDocument) + ": settings.metric \"" +
                             result.settings.metric + "\" is not a metric proofload knows");
  }
  options.min_effect = result.settings.min_effect;
  options.min_repeats = static_cast<int>(std::clamp<int64_t>(result.settings.min_repeats, 1, 1000));
  result.analysis = words::described_compare(compare_cells(result.runs), options);
}

json compare_to_json(const CompareResult& r) {
  json out = experiment_record_to_json(r, kCompareSchema, "compare");
  out["settings"] = settings_json(r.settings);
  json checks = json::array();
  for (const analyze::CompareVerdict& v : r.analysis.checks) {
    checks.push_back(check_json(v, r.analysis.metric));
  }
  json by_condition = json::array();
  for (const auto& [condition, counts] : r.analysis.by_condition) {
    json c = counts_json(counts);
    c["condition"] = condition;
    by_condition.push_back(std::move(c));
  }
  json runs = json::array();
  for (const CompareRun& run : r.runs) runs.push_back(run_json(run));
  out["compare"] = {{"metric", r.analysis.metric},
                    {"statistic", r.analysis.statistic},
                    {"headline", counts_json(r.analysis.headline)},
                    {"by_condition", by_condition},
                    {"cold_warning", r.analysis.cold_warning.empty()
                                         ? json(nullptr)
                                         : json(r.analysis.cold_warning)},
                    {"checks", checks},
                    {"runs", runs}};
  return out;
}

CompareResult compare_from_json(const json& document) {
  CompareResult r;
  static_cast<ExperimentRecord&>(r) =
      experiment_record_from_json(document, kCompareSchema, "compare", kCompareDocument);
  const JsonReader top(&document, "", kCompareDocument);
  r.settings = compare_settings_from_json(top.object("settings"));
  const JsonReader compare = top.object("compare");
  for (const JsonReader& run : compare.objects("runs")) r.runs.push_back(run_from_json(run));
  judge_compare(r);
  return r;
}

}  // namespace proofload::result
