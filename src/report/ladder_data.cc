// Reads a ladder's result.json into the structs of ladder_data.h (see there for what is required).
#include "report/ladder_data.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "result/json_reader.h"

namespace proofload::report::ladder {
namespace {

using nlohmann::json;

constexpr std::string_view kLadderSchema = "proofload.ladder/v1";

[[noreturn]] void fail(const std::string& message) {
  throw std::runtime_error("ladder result.json: " + message);
}

using Reader = result::JsonReader;
constexpr std::string_view kDocument = "ladder result.json";

Reader top_of(const json& result) {
  if (!result.is_object()) fail("the result is not a JSON object");
  Reader top(&result, "", kDocument);
  const std::string schema = top.required_text("schema");
  if (schema != kLadderSchema) {
    fail("schema is \"" + schema + "\", not \"" + std::string(kLadderSchema) + "\"");
  }
  return top;
}

RowView read_row(const Reader& r) {
  RowView row;
  row.level = r.required_number("level");
  row.repeat = r.number("repeat");
  row.target_rps = r.number("target_rps");
  row.achieved_rps = r.required_number("achieved_rps");
  row.goodput_rps = r.number("goodput_rps");
  row.arrivals_rps = r.number("arrivals_rps");
  row.flows_per_s = r.number("flows_per_s");
  row.flow_success_rate = r.number("flow_success_rate");
  row.p50_ms = r.number("p50_ms");
  row.p95_ms = r.number("p95_ms");
  row.p99_ms = r.number("p99_ms");
  row.requests = r.number("requests");
  row.responses = r.number("responses");
  row.error_rate = r.number("error_rate");
  row.rate_429 = r.number("rate_429");
  row.never_started = r.number("never_started");
  row.server_cores = r.number("server_cores");
  row.server_throttled_share = r.number("server_throttled_share");
  row.server_quota_cores = r.number("server_quota_cores");
  row.server_cpu_limit_cores = r.number("server_cpu_limit_cores");
  row.generator_cores = r.number("generator_cores");
  row.generator_busy = r.boolean("generator_busy");
  row.host_load1 = r.number("host_load1");
  row.duration_s = r.number("duration_s");
  row.directory = r.text("directory");
  row.status = r.text("status");
  return row;
}

LevelView read_level(const Reader& r) {
  LevelView level;
  level.level = r.required_number("level");
  level.repeats = static_cast<int>(r.number("repeats").value_or(1));
  level.target_rps = r.number("target_rps");
  level.achieved_rps = r.required_number("achieved_rps");
  level.goodput_rps = r.number("goodput_rps").value_or(level.achieved_rps);
  level.arrivals_rps = r.number("arrivals_rps");
  level.flows_per_s = r.number("flows_per_s");
  level.flow_success_rate = r.number("flow_success_rate");
  level.p50_ms = r.number("p50_ms");
  level.p95_ms = r.number("p95_ms");
  level.p99_ms = r.number("p99_ms");
  level.requests = r.number("requests");
  level.error_rate = r.number("error_rate");
  level.rate_429 = r.number("rate_429");
  level.never_started = r.number("never_started");
  level.server_cores = r.number("server_cores");
  level.server_throttled_share = r.number("server_throttled_share");
  level.server_quota_cores = r.number("server_quota_cores");
  level.server_cpu_limit_cores = r.number("server_cpu_limit_cores");
  level.server_cpu_source = r.text("server_cpu_source");
  level.server_cpu_limit_basis = r.text("server_cpu_limit_basis");
  level.server_throttle_source = r.text("server_throttle_source");
  level.server_cpu_bound = r.boolean("server_cpu_bound").value_or(false);
  level.generator_cores = r.number("generator_cores");
  level.host_load1 = r.number("host_load1");
  level.generator_busy = r.boolean("generator_busy").value_or(false);
  level.meets_slo = r.boolean("meets_slo").value_or(false);
  level.errors_meet_slo = r.boolean("errors_meet_slo").value_or(true);
  for (const Reader& check : r.objects("slo")) {
    level.slo.push_back({check.text("expression"), check.number("observed"),
                         check.text("observed_text"), check.boolean("passed").value_or(false)});
  }
  level.untrusted = r.texts("untrusted");
  level.gain = r.number("gain");
  level.gain_text = r.text("gain_text");
  level.short_of_target = r.boolean("short_of_target").value_or(false);
  level.rps_per_server_core = r.number("rps_per_server_core");
  level.server_cpu_ms_per_request = r.number("server_cpu_ms_per_request");
  level.achieved_cv = r.number("achieved_cv");
  level.p95_cv = r.number("p95_cv");
  level.verdict = r.text("verdict");
  return level;
}

std::optional<LevelRef> read_ref(const Reader& parent, std::string_view key) {
  const Reader r = parent.object(key);
  if (!r.present()) return std::nullopt;
  const double achieved = r.required_number("achieved_rps");
  return LevelRef{r.required_number("level"), achieved, r.number("goodput_rps").value_or(achieved)};
}

EventView read_event(const Reader& r) {
  EventView e;
  e.kind = r.text("kind");
  e.name = r.text("name");
  e.level = r.number("level");
  e.repeat = r.number("repeat");
  e.command = r.text("command");
  e.ok = r.boolean("ok");
  e.exit_code = r.number("exit_code");
  e.timed_out = r.boolean("timed_out").value_or(false);
  e.duration_s = r.number("duration_s");
  e.output_file = r.text("output_file");
  e.detail = r.text("detail");
  return e;
}

std::optional<SearchView> read_search(const Reader& top) {
  const Reader r = top.object("search");
  if (!r.present()) return std::nullopt;
  SearchView s;
  s.start_rps = r.number("start_rps");
  s.growth = r.number("growth");
  s.tolerance = r.number("tolerance");
  s.step_hold_s = r.number("step_hold_s");
  s.max_rps = r.number("max_rps");
  s.found_rps = r.number("found_rps");
  s.confirmed = r.boolean("confirmed").value_or(false);
  s.end_reason = r.text("end_reason");
  for (const Reader& step : r.objects("steps")) {
    SearchStepView v;
    v.rate_rps = step.required_number("rate_rps");
    v.phase = step.text("phase");
    v.passed = step.boolean("passed").value_or(false);
    if (auto row = step.number("row"); row && *row >= 0) v.row = static_cast<size_t>(*row);
    s.steps.push_back(v);
  }
  return s;
}

void read_analysis(const Reader& top, LadderView& v) {
  // null until a level has run (a pre-check or the first drain gate failed, or in progress).
  if (top.find("analysis") == nullptr) return;
  const Reader a = top.object("analysis");
  a.required("levels");
  for (const Reader& level : a.objects("levels")) v.levels.push_back(read_level(level));
  if (v.levels.empty()) fail("'analysis.levels' is empty");
  // Ascending, as the analysis writes them (a hand-edited file is put back in order).
  std::stable_sort(v.levels.begin(), v.levels.end(),
                   [](const LevelView& a, const LevelView& b) { return a.level < b.level; });
  if (v.loop.empty()) v.loop = a.text("loop");
  const Reader slo = a.object("slo");
  if (const std::string text = slo.text("text"); !text.empty()) v.slo_text = text;
  v.slo_description = slo.text("description");
  v.slo_is_default = slo.boolean("is_default").value_or(false);
  if (!v.count_429_as_error) v.count_429_as_error = slo.boolean("count_429_as_error");
  const Reader floor = a.object("noise_floor");
  v.noise_floor = floor.number("value");
  v.noise_floor_source = floor.text("source");
  v.noise_floor_text = floor.text("text");
  v.knee = read_ref(a, "knee");
  if (v.knee) v.knee_reason = a.object("knee").text("reason");
  v.best_sustained = read_ref(a, "best_sustained");
  v.best_sustained_text = a.text("best_sustained_text");
  v.peak = read_ref(a, "peak");
  v.plateau_from_level = a.object("plateau").number("from_level");
  v.operating_target_rps = a.number("operating_target_rps");
  const Reader operating = a.object("operating");
  v.operating_fraction = operating.number("fraction");
  v.operating_basis = operating.text("basis");
  const Reader daily = a.object("daily_capacity");
  v.daily_at_operating_target = daily.number("at_operating_target");
  v.daily_at_best_sustained = daily.number("at_best_sustained");
  v.daily_significant_digits = daily.number("significant_digits");
}

}  // namespace

LadderView read_ladder(const nlohmann::json& result) {
  const Reader top = top_of(result);
  LadderView v;
  v.kind = top.required_text("kind");
  if (v.kind != "ladder" && v.kind != "search" && v.kind != "analyze") {
    fail("kind \"" + v.kind + "\" is none of ladder, search, analyze");
  }
  v.status = top.required_text("status");
  v.end_reason = top.text("end_reason");
  v.proofload_version = top.text("proofload_version");
  v.command_line = top.text("command_line");
  v.started_at = top.text("started_at");
  v.finished_at = top.text("finished_at");

  const Reader source = top.object("source");
  v.target = source.text("target");
  v.scenario_file = source.text("scenario_file");
  v.scenario_sha256 = source.text("scenario_sha256");
  v.table_file = source.text("table_file");
  v.table_sha256 = source.text("table_sha256");

  const Reader settings = top.object("settings");
  v.loop = settings.text("loop");
  v.planned_levels = settings.numbers("levels").value_or(std::vector<double>{});
  v.hold_s = settings.number("hold_s");
  v.warmup_s = settings.number("warmup_s");
  v.repeat = settings.number("repeat");
  v.repeat_order = settings.text("repeat_order");
  v.stop_on_fail = settings.boolean("stop_on_fail").value_or(false);
  v.server_observed = settings.boolean("server_observed");
  v.observe = settings.texts("observe");
  // The settings' copy of the SLO flag is the one the run used; the analysis repeats it.
  v.count_429_as_error = settings.boolean("count_429_as_error");
  v.slo_text = settings.text("slo");

  const Reader bar = top.object("ci_bar");
  v.ci_bar_passed = bar.boolean("passed");
  v.ci_bar_reason = bar.text("reason");

  for (const Reader& row : top.objects("rows")) v.rows.push_back(read_row(row));
  for (const Reader& event : top.objects("events")) v.events.push_back(read_event(event));
  v.search = read_search(top);
  read_analysis(top, v);
  return v;
}

LadderView read_ladder_rows(const nlohmann::json& result) {
  const Reader top = top_of(result);
  LadderView v;
  top.required("rows");
  for (const Reader& row : top.objects("rows")) v.rows.push_back(read_row(row));
  if (top.find("analysis") != nullptr) {
    for (const Reader& level : top.object("analysis").objects("levels")) {
      v.levels.push_back(read_level(level));
    }
    std::stable_sort(v.levels.begin(), v.levels.end(),
                     [](const LevelView& a, const LevelView& b) { return a.level < b.level; });
  }
  v.search = read_search(top);
  return v;
}

const LevelView* find_level(const LadderView& view, double level) {
  // Levels are ascending (the analysis sorts them): a row of a table of 100,000 finds its level
  // in log time, not by a scan per row.
  const auto it = std::lower_bound(view.levels.begin(), view.levels.end(), level,
                                   [](const LevelView& l, double x) { return l.level < x; });
  return it != view.levels.end() && it->level == level ? &*it : nullptr;
}

}  // namespace proofload::report::ladder
