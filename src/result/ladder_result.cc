// See ladder_result.h.
#include "result/ladder_result.h"

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "result/json_reader.h"
#include "result/json_values.h"
#include "result/ladder_analysis_json.h"
#include "result/level_row_json.h"

namespace proofload::result {
namespace {

using nlohmann::json;

constexpr std::string_view kLadderDocument = "ladder result.json";

// ---- writing ----

json row_json(const LadderRow& row) {
  json out = row_to_json(row.figures);
  out["directory"] = text_or_null(row.directory);
  out["status"] = text_or_null(row.status);
  return out;
}

json search_json(const SearchRecord& s) {
  json steps = json::array();
  for (const SearchStep& step : s.steps) {
    steps.push_back({{"rate_rps", step.rate_rps},
                     {"phase", step.phase},
                     {"passed", step.passed},
                     {"row", optional_json(step.row)}});
  }
  return {{"start_rps", optional_json(s.start_rps)}, {"growth", optional_json(s.growth)},
          {"tolerance", optional_json(s.tolerance)}, {"step_hold_s", optional_json(s.step_hold_s)},
          {"max_rps", optional_json(s.max_rps)},     {"steps", steps},
          {"found_rps", optional_json(s.found_rps)}, {"confirmed", s.confirmed},
          {"end_reason", text_or_null(s.end_reason)}};
}

json settings_json(const LadderSettings& s, bool table) {
  json out = {
      {"slo", s.slo},
      {"slo_is_default", s.slo_is_default},
      {"count_429_as_error", optional_json(s.count_429_as_error)},
      {"noise_floor", optional_json(s.noise_floor)},
      {"operating_fraction", optional_json(s.operating_fraction)},
      {"loop", s.loop},
  };
  if (table) return out;  // a table records how it was judged, not how it was run
  out.update({
      {"levels", s.levels},
      {"hold_s", optional_json(s.hold_s)},
      {"warmup_s", optional_json(s.warmup_s)},
      {"repeat", optional_json(s.repeat)},
      {"repeat_order", s.repeat_order},
      {"stop_on_fail", s.stop_on_fail},
      {"fail_if_none", s.fail_if_none},
      {"fail_below_rps", optional_json(s.fail_below_rps)},
      {"max_concurrency", optional_json(s.max_concurrency)},
      {"max_rate", optional_json(s.max_rate)},
      {"precheck", optional_json(s.precheck)},
      {"abort_when", optional_json(s.abort_when)},
      {"drain_until", optional_json(s.drain_until)},
      {"drain_timeout_s", optional_json(s.drain_timeout_s)},
      {"hooks",
       {{"before_level", optional_json(s.hooks.before_level)},
        {"after_level", optional_json(s.hooks.after_level)},
        {"reset", optional_json(s.hooks.reset)},
        {"restore", optional_json(s.hooks.restore)}}},
      {"hook_timeout_s", optional_json(s.hook_timeout_s)},
      {"observe", s.observe},
      {"server_observed", optional_json(s.server_observed)},
  });
  return out;
}

// ---- reading ----

[[noreturn]] void fail_ladder(const std::string& message) {
  throw std::runtime_error(std::string(kLadderDocument) + ": " + message);
}

JsonReader top_of(const json& result) {
  if (!result.is_object()) fail_ladder("the result is not a JSON object");
  JsonReader top(&result, "", kLadderDocument);
  const std::string schema = top.required_text("schema");
  if (schema != kLadderSchema) {
    fail_ladder("schema is \"" + schema + "\", not \"" + std::string(kLadderSchema) + "\"");
  }
  return top;
}

LadderRow ladder_row_from_json(const JsonReader& r) {
  return {row_from_json(r), r.text("directory"), r.text("status")};
}

std::optional<SearchRecord> search_from_json(const JsonReader& top) {
  const JsonReader r = top.object("search");
  if (!r.present()) return std::nullopt;
  SearchRecord s;
  s.start_rps = r.number("start_rps");
  s.growth = r.number("growth");
  s.tolerance = r.number("tolerance");
  s.step_hold_s = r.number("step_hold_s");
  s.max_rps = r.number("max_rps");
  s.found_rps = r.number("found_rps");
  s.confirmed = r.boolean("confirmed").value_or(false);
  s.end_reason = r.text("end_reason");
  for (const JsonReader& step : r.objects("steps")) {
    SearchStep v;
    v.rate_rps = step.required_number("rate_rps");
    v.phase = step.text("phase");
    v.passed = step.boolean("passed").value_or(false);
    if (auto row = step.number("row"); row && *row >= 0) v.row = static_cast<size_t>(*row);
    s.steps.push_back(v);
  }
  return s;
}

LadderSettings ladder_settings_from_json(const JsonReader& r) {
  LadderSettings s;
  s.loop = r.text("loop");
  s.levels = r.numbers("levels").value_or(std::vector<double>{});
  s.hold_s = r.number("hold_s");
  s.warmup_s = r.number("warmup_s");
  if (const std::optional<int64_t> repeat = r.count("repeat")) s.repeat = static_cast<int>(*repeat);
  s.repeat_order = r.text("repeat_order");
  s.stop_on_fail = r.boolean("stop_on_fail").value_or(false);
  s.fail_if_none = r.boolean("fail_if_none").value_or(false);
  s.fail_below_rps = r.number("fail_below_rps");
  if (const std::optional<int64_t> n = r.count("max_concurrency")) {
    s.max_concurrency = static_cast<int>(*n);
  }
  s.max_rate = r.number("max_rate");
  s.precheck = r.optional_text("precheck");
  s.abort_when = r.optional_text("abort_when");
  s.drain_until = r.optional_text("drain_until");
  s.drain_timeout_s = r.number("drain_timeout_s");
  const JsonReader hooks = r.object("hooks");
  s.hooks = {hooks.optional_text("before_level"), hooks.optional_text("after_level"),
             hooks.optional_text("reset"), hooks.optional_text("restore")};
  s.hook_timeout_s = r.number("hook_timeout_s");
  s.observe = r.texts("observe");
  s.server_observed = r.boolean("server_observed");
  s.slo = r.text("slo");
  s.slo_is_default = r.boolean("slo_is_default").value_or(false);
  s.count_429_as_error = r.boolean("count_429_as_error");
  s.noise_floor = r.number("noise_floor");
  s.operating_fraction = r.number("operating_fraction");
  return s;
}

// The analysis, and which of its keys an older or hand-edited file left out.
void analysis_from_file(const JsonReader& top, LadderResult& out) {
  const json* analysis = top.find("analysis");
  if (analysis == nullptr) return;
  out.analysis = analysis_from_json(*analysis);
  const JsonReader a = top.object("analysis");
  out.recorded.loop = !a.text("loop").empty();
  out.recorded.noise_floor = a.object("noise_floor").number("value").has_value();
  out.recorded.daily_significant_digits =
      a.object("daily_capacity").number("significant_digits").has_value();
  out.recorded.count_429_as_error = out.settings.count_429_as_error.has_value() ||
                                    a.object("slo").boolean("count_429_as_error").has_value();
  // In the analysis's (ascending) order, which is how analysis_from_json sorts them.
  std::vector<std::pair<double, bool>> verdicts;
  for (const JsonReader& level : a.objects("levels")) {
    verdicts.emplace_back(level.required_number("level"), level.find("verdict") != nullptr);
  }
  std::stable_sort(verdicts.begin(), verdicts.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [level, written] : verdicts) out.recorded.verdicts.push_back(written);
}

}  // namespace

const analyze::LevelAnalysis* LadderResult::level(double level) const {
  if (!analysis) return nullptr;
  const auto& levels = analysis->levels;
  const auto it =
      std::lower_bound(levels.begin(), levels.end(), level,
                       [](const analyze::LevelAnalysis& l, double x) { return l.level < x; });
  return it != levels.end() && it->level == level ? &*it : nullptr;
}

std::vector<bool> LadderResult::confirming_rows() const {
  std::vector<bool> confirming(rows.size(), false);
  if (!search) return confirming;
  for (const SearchStep& step : search->steps) {
    if (step.phase == "confirm" && step.row && *step.row < rows.size())
      confirming[*step.row] = true;
  }
  return confirming;
}

json source_to_json(const LadderSource& source) {
  return {{"target", text_or_null(source.target)},
          {"scenario_file", text_or_null(source.scenario_file)},
          {"scenario_sha256", text_or_null(source.scenario_sha256)},
          {"table_file", text_or_null(source.table_file)},
          {"table_sha256", text_or_null(source.table_sha256)},
          {"tls_version", text_or_null(source.tls_version)},
          {"tls_alpn", text_or_null(source.tls_alpn)},
          {"protocol", text_or_null(source.protocol)},
          {"h2_streams", optional_json(source.h2_streams)}};
}

LadderSource source_from_json(const JsonReader& source) {
  return {source.text("target"),     source.text("scenario_file"), source.text("scenario_sha256"),
          source.text("table_file"), source.text("table_sha256"),  source.text("tls_version"),
          source.text("tls_alpn"),   source.text("protocol"),      source.count("h2_streams")};
}

json ladder_to_json(const LadderResult& r) {
  json rows = json::array();
  for (const LadderRow& row : r.rows) rows.push_back(row_json(row));
  json events = json::array();
  for (const Event& e : r.events) events.push_back(event_to_json(e));
  const bool table = r.kind == "analyze";
  json out = {
      {"schema", kLadderSchema},
      {"kind", r.kind},
      {"status", r.status},
      {"end_reason", text_or_null(r.end_reason)},
      {"proofload_version", r.proofload_version},
      {"command_line", r.command_line},
      {"started_at", text_or_null(r.started_at)},
      {"finished_at", text_or_null(r.finished_at)},
      {"source", source_to_json(r.source)},
      {"settings", settings_json(r.settings, table)},
      {"rows", rows},
      {"events", events},
      {"search", r.search ? search_json(*r.search) : json(nullptr)},
      {"analysis", r.analysis ? analysis_to_json(*r.analysis) : json(nullptr)},
  };
  if (r.segment) out["segment"] = segment_json(*r.segment);
  if (r.merged) out["merged"] = merge_json(*r.merged);
  if (r.ci_bar) {
    out["ci_bar"] = {{"fail_if_none", r.ci_bar->fail_if_none},
                     {"fail_below_rps", optional_json(r.ci_bar->fail_below_rps)},
                     {"passed", optional_json(r.ci_bar->passed)},
                     {"reason", text_or_null(r.ci_bar->reason)}};
  }
  return out;
}

LadderResult ladder_from_json(const json& result) {
  const JsonReader top = top_of(result);
  LadderResult r;
  r.kind = top.required_text("kind");
  if (r.kind != "ladder" && r.kind != "search" && r.kind != "analyze") {
    fail_ladder("kind \"" + r.kind + "\" is none of ladder, search, analyze");
  }
  r.status = top.required_text("status");
  r.end_reason = top.text("end_reason");
  r.proofload_version = top.text("proofload_version");
  r.command_line = top.text("command_line");
  r.started_at = top.text("started_at");
  r.finished_at = top.text("finished_at");

  r.source = source_from_json(top.object("source"));
  r.settings = ladder_settings_from_json(top.object("settings"));

  if (const JsonReader bar = top.object("ci_bar"); bar.present()) {
    r.ci_bar = CiBar{bar.boolean("fail_if_none").value_or(false), bar.number("fail_below_rps"),
                     bar.boolean("passed"), bar.text("reason")};
  }
  if (const JsonReader segment = top.object("segment"); segment.present()) {
    r.segment = segment_from_json(segment);
  }
  if (const JsonReader merged = top.object("merged"); merged.present()) {
    r.merged = merge_from_json(merged);
  }
  for (const JsonReader& row : top.objects("rows")) r.rows.push_back(ladder_row_from_json(row));
  for (const JsonReader& event : top.objects("events")) r.events.push_back(event_from_json(event));
  r.search = search_from_json(top);
  analysis_from_file(top, r);
  return r;
}

LadderResult ladder_rows_from_json(const json& result) {
  const JsonReader top = top_of(result);
  LadderResult r;
  top.required("rows");
  if (const JsonReader segment = top.object("segment"); segment.present()) {
    r.segment = segment_from_json(segment);
  }
  if (const JsonReader merged = top.object("merged"); merged.present()) {
    r.merged = merge_from_json(merged);
  }
  for (const JsonReader& row : top.objects("rows")) r.rows.push_back(ladder_row_from_json(row));
  r.search = search_from_json(top);
  analysis_from_file(top, r);
  return r;
}

}  // namespace proofload::result
