// See ladder_analysis_json.h.
#include "result/ladder_analysis_json.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

#include "result/json_reader.h"
#include "result/json_values.h"

namespace proofload::result {

using analyze::describe_slo;
using analyze::kDailySignificantDigits;
using analyze::kDefaultNoiseFloor;
using analyze::kDefaultOperatingFraction;
using analyze::LadderAnalysis;
using analyze::LevelAnalysis;
using analyze::Loop;
using analyze::loop_text;
using analyze::NoiseFloor;
using analyze::parse_slo;
using analyze::Slo;
using analyze::Verdict;
using analyze::verdict_text;
namespace {

// ---- JSON ----

// Levels are written as given: 100, not 100.0.
nlohmann::json level_json(double level) {
  if (level == std::floor(level) && std::abs(level) < 9e15) {
    return nlohmann::json(static_cast<int64_t>(level));
  }
  return nlohmann::json(level);
}

nlohmann::json level_to_json(const LevelAnalysis& level) {
  nlohmann::json slo = nlohmann::json::array();
  for (const measure::ThresholdResult& r : level.slo) {
    slo.push_back({{"expression", r.expression},
                   {"observed", optional_json(r.observed)},
                   {"observed_text", r.observed_text},
                   {"passed", r.passed}});
  }
  nlohmann::json out = {
      {"level", level_json(level.level)},
      {"repeats", level.repeats},
      {"target_rps", optional_json(level.target_rps)},
      {"achieved_rps", level.achieved_rps},
      {"goodput_rps", level.goodput_rps},
      {"arrivals_rps", optional_json(level.arrivals_rps)},
      {"flows_per_s", optional_json(level.flows_per_s)},
      {"flow_success_rate", optional_json(level.flow_success_rate)},
      {"p50_ms", optional_json(level.p50_ms)},
      {"p95_ms", optional_json(level.p95_ms)},
      {"p99_ms", optional_json(level.p99_ms)},
      {"requests", optional_json(level.requests)},
      {"error_rate", optional_json(level.error_rate)},
      {"rate_429", optional_json(level.rate_429)},
      {"never_started", optional_json(level.never_started)},
      {"server_cores", optional_json(level.server_cores)},
      {"server_throttled_share", optional_json(level.server_throttled_share)},
      {"server_quota_cores", optional_json(level.server_quota_cores)},
      {"server_cpu_limit_cores", optional_json(level.server_cpu_limit_cores)},
      {"server_cpu_limit_basis", level.server_cpu_limit_basis.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(level.server_cpu_limit_basis)},
      {"server_cpu_source", level.server_cpu_source.empty()
                                ? nlohmann::json(nullptr)
                                : nlohmann::json(level.server_cpu_source)},
      {"server_throttle_source", level.server_throttle_source.empty()
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json(level.server_throttle_source)},
      {"server_cpu_bound", level.server_cpu_bound},
      {"generator_cores", optional_json(level.generator_cores)},
      {"host_load1", optional_json(level.host_load1)},
      {"generator_busy", level.generator_busy},
      {"meets_slo", level.meets_slo},
      {"errors_meet_slo", level.errors_meet_slo},
      {"slo", slo},
      {"untrusted", level.untrusted},
      {"gain", optional_json(level.gain)},
      {"gain_text", level.gain_text},
      {"short_of_target", level.short_of_target},
      {"rps_per_server_core", optional_json(level.rps_per_server_core)},
      {"server_cpu_ms_per_request", optional_json(level.server_cpu_ms_per_request)},
      {"achieved_cv", optional_json(level.achieved_cv)},
      {"p95_cv", optional_json(level.p95_cv)},
      {"verdict", verdict_text(level.verdict)},
  };
  // Only when observed (`host`), so the files of ladders without it stay as they were.
  if (level.host_cpu_busy) out["host_cpu_busy"] = *level.host_cpu_busy;
  return out;
}

nlohmann::json level_ref_json(const LevelAnalysis& level) {
  return {{"level", level_json(level.level)},
          {"achieved_rps", level.achieved_rps},
          {"goodput_rps", level.goodput_rps}};
}

// ---- reading back ----

constexpr std::string_view kLadderAnalysisDocument = "ladder result.json";

template <typename Enum, size_t N>
Enum enum_of(const JsonReader& r, std::string_view key, const std::array<Enum, N>& values,
             std::string_view (*text_of)(Enum), Enum missing) {
  const std::string text = r.text(key);
  if (text.empty()) return missing;
  for (Enum value : values) {
    if (text_of(value) == text) return value;
  }
  r.fail("'" + r.name(key) + "' is \"" + text + "\", not one this proofload knows");
}

LevelAnalysis level_from_json(const JsonReader& r) {
  LevelAnalysis level;
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
  if (const std::optional<uint64_t> n = r.unsigned_integer("requests")) {
    level.requests = static_cast<int64_t>(*n);
  }
  level.error_rate = r.number("error_rate");
  level.rate_429 = r.number("rate_429");
  level.never_started = r.number("never_started");
  level.server_cores = r.number("server_cores");
  level.server_throttled_share = r.number("server_throttled_share");
  level.server_quota_cores = r.number("server_quota_cores");
  level.server_cpu_limit_cores = r.number("server_cpu_limit_cores");
  level.server_cpu_limit_basis = r.text("server_cpu_limit_basis");
  level.server_cpu_source = r.text("server_cpu_source");
  level.server_throttle_source = r.text("server_throttle_source");
  level.server_cpu_bound = r.boolean("server_cpu_bound").value_or(false);
  level.generator_cores = r.number("generator_cores");
  level.host_load1 = r.number("host_load1");
  level.host_cpu_busy = r.number("host_cpu_busy");
  level.generator_busy = r.boolean("generator_busy").value_or(false);
  level.meets_slo = r.boolean("meets_slo").value_or(false);
  level.errors_meet_slo = r.boolean("errors_meet_slo").value_or(true);
  for (const JsonReader& check : r.objects("slo")) {
    measure::ThresholdResult bound;
    bound.expression = check.text("expression");
    bound.observed = check.number("observed");
    bound.observed_text = check.text("observed_text");
    bound.passed = check.boolean("passed").value_or(false);
    level.slo.push_back(std::move(bound));
  }
  level.untrusted = r.texts("untrusted");
  level.gain = r.number("gain");
  level.gain_text = r.text("gain_text");
  level.short_of_target = r.boolean("short_of_target").value_or(false);
  level.rps_per_server_core = r.number("rps_per_server_core");
  level.server_cpu_ms_per_request = r.number("server_cpu_ms_per_request");
  level.achieved_cv = r.number("achieved_cv");
  level.p95_cv = r.number("p95_cv");
  level.verdict = enum_of(r, "verdict",
                          std::array{Verdict::kClean, Verdict::kHighestWithinSlo, Verdict::kKnee,
                                     Verdict::kKneeHighestWithinSlo, Verdict::kSaturated},
                          verdict_text, Verdict::kClean);
  return level;
}

// The index of the level a reference ({level, ...}, or a bare level) names.
std::optional<size_t> level_index(const JsonReader& r, std::string_view key,
                                  const std::vector<LevelAnalysis>& levels,
                                  std::optional<double> level) {
  if (!level) return std::nullopt;
  for (size_t i = 0; i < levels.size(); ++i) {
    if (levels[i].level == *level) return i;
  }
  r.fail("'" + r.name(key) + "' names level " + level_json(*level).dump() +
         ", which is not among the levels");
}

// analysis.routes[]: each named request on its own, its plateau by level as the mix's.
nlohmann::json routes_to_json(const std::vector<analyze::RouteAnalysis>& routes) {
  nlohmann::json out = nlohmann::json::array();
  for (const analyze::RouteAnalysis& route : routes) {
    nlohmann::json levels = nlohmann::json::array();
    for (const analyze::RouteLevel& l : route.levels) {
      levels.push_back({{"level", level_json(l.level)},
                        {"goodput_rps", optional_json(l.goodput_rps)},
                        {"achieved_rps", optional_json(l.achieved_rps)},
                        {"p50_ms", optional_json(l.p50_ms)},
                        {"p95_ms", optional_json(l.p95_ms)},
                        {"p99_ms", optional_json(l.p99_ms)},
                        {"error_rate", optional_json(l.error_rate)},
                        {"requests", optional_json(l.requests)},
                        {"gain", optional_json(l.gain)},
                        {"gain_text", l.gain_text}});
    }
    nlohmann::json from = nullptr;
    if (route.plateau_from) from = level_json(route.levels[*route.plateau_from].level);
    out.push_back(
        {{"name", route.name}, {"levels", std::move(levels)}, {"plateau", {{"from_level", from}}}});
  }
  return out;
}

std::vector<analyze::RouteAnalysis> routes_from_json(const JsonReader& a) {
  std::vector<analyze::RouteAnalysis> out;
  for (const JsonReader& r : a.objects("routes")) {
    analyze::RouteAnalysis& route = out.emplace_back();
    route.name = r.required_text("name");
    for (const JsonReader& l : r.objects("levels")) {
      route.levels.push_back({l.required_number("level"), l.number("goodput_rps"),
                              l.number("achieved_rps"), l.number("p50_ms"), l.number("p95_ms"),
                              l.number("p99_ms"), l.number("error_rate"), l.count("requests"),
                              l.number("gain"), l.text("gain_text")});
    }
    const std::optional<double> from = r.object("plateau").number("from_level");
    for (size_t i = 0; from && i < route.levels.size(); ++i) {
      if (route.levels[i].level == *from) route.plateau_from = i;
    }
  }
  return out;
}

}  // namespace

nlohmann::json analysis_to_json(const LadderAnalysis& analysis) {
  const auto& levels = analysis.levels;
  nlohmann::json bounds = nlohmann::json::array();
  for (const measure::Threshold& t : analysis.slo.bounds) bounds.push_back(t.expression);
  nlohmann::json level_list = nlohmann::json::array();
  for (const LevelAnalysis& level : levels) level_list.push_back(level_to_json(level));

  nlohmann::json knee = nullptr;
  if (analysis.knee) {
    knee = level_ref_json(levels[*analysis.knee]);
    knee["reason"] = analysis.knee_reason;
  }
  nlohmann::json best = nullptr;
  if (analysis.best_sustained) best = level_ref_json(levels[*analysis.best_sustained]);
  nlohmann::json peak = nullptr;  // no level kept its errors within the SLO
  if (analysis.peak) peak = level_ref_json(levels[*analysis.peak]);
  nlohmann::json plateau_from = nullptr;
  if (analysis.plateau_from) plateau_from = level_json(levels[*analysis.plateau_from].level);

  // Whole requests per day: a fraction of one says nothing a reader can use.
  auto daily = [](const std::optional<double>& value) {
    return value ? nlohmann::json(std::llround(*value)) : nlohmann::json(nullptr);
  };
  nlohmann::json headroom = optional_json(analysis.operating_headroom);

  nlohmann::json out = {
      {"loop", loop_text(analysis.loop)},
      {"slo",
       {{"text", analysis.slo.text},
        {"description", describe_slo(analysis.slo)},
        {"bounds", bounds},
        {"count_429_as_error", analysis.slo.count_429_as_error},
        {"is_default", analysis.slo.is_default}}},
      {"noise_floor",
       {{"value", analysis.noise_floor.value},
        {"source", analyze::noise_floor_source_text(analysis.noise_floor.source)},
        {"text", analysis.noise_floor.text}}},
      {"levels", level_list},
      {"knee", knee},
      {"best_sustained", best},
      {"best_sustained_text", analysis.best_sustained_text},
      {"peak", peak},
      {"plateau", {{"from_level", plateau_from}}},
      {"operating_target_rps", optional_json(analysis.operating_target_rps)},
      {"operating",
       {{"fraction", analysis.operating_fraction},
        {"headroom", headroom},
        {"basis", analysis.operating_basis}}},
      {"daily_capacity",
       {{"at_operating_target", daily(analysis.daily_requests_at_operating_target)},
        {"at_best_sustained", daily(analysis.daily_requests_at_best_sustained)},
        {"significant_digits", kDailySignificantDigits}}},
  };
  // A measured floor's parts; absent otherwise (as in files from before they were recorded).
  nlohmann::json& floor = out["noise_floor"];
  if (analysis.noise_floor.spread) floor["spread"] = *analysis.noise_floor.spread;
  if (analysis.noise_floor.drift) floor["drift"] = *analysis.noise_floor.drift;
  if (!analysis.routes.empty()) out["routes"] = routes_to_json(analysis.routes);
  return out;
}

LadderAnalysis analysis_from_json(const nlohmann::json& analysis) {
  if (!analysis.is_object()) {
    throw std::runtime_error(std::string(kLadderAnalysisDocument) +
                             ": 'analysis' is not an object");
  }
  const JsonReader a(&analysis, "analysis", kLadderAnalysisDocument);
  LadderAnalysis out;
  out.loop = enum_of(a, "loop", std::array{Loop::kClosed, Loop::kOpen}, loop_text, Loop::kClosed);
  const JsonReader slo = a.object("slo");
  const bool count_429 = slo.boolean("count_429_as_error").value_or(true);
  const std::string slo_text = slo.text("text");
  try {
    out.slo = slo_text.empty() ? Slo{} : parse_slo(slo_text, count_429);
  } catch (const std::exception& e) {
    a.fail("'" + slo.name("text") + "' does not parse: " + e.what());
  }
  out.slo.count_429_as_error = count_429;
  out.slo.is_default = slo.boolean("is_default").value_or(false);
  const JsonReader floor = a.object("noise_floor");
  out.noise_floor.value = floor.number("value").value_or(kDefaultNoiseFloor);
  out.noise_floor.source =
      enum_of(floor, "source",
              std::array{NoiseFloor::Source::kStated, NoiseFloor::Source::kMeasured,
                         NoiseFloor::Source::kDefault},
              analyze::noise_floor_source_text, NoiseFloor::Source::kDefault);
  out.noise_floor.text = floor.text("text");
  out.noise_floor.spread = floor.number("spread");
  out.noise_floor.drift = floor.number("drift");

  a.required("levels");
  for (const JsonReader& level : a.objects("levels")) out.levels.push_back(level_from_json(level));
  if (out.levels.empty()) a.fail("'analysis.levels' is empty");
  // Ascending, as the analysis writes them (a hand-edited file is put back in order).
  std::stable_sort(
      out.levels.begin(), out.levels.end(),
      [](const LevelAnalysis& x, const LevelAnalysis& y) { return x.level < y.level; });

  const auto ref = [&](std::string_view key) {
    const JsonReader r = a.object(key);
    return level_index(a, key, out.levels,
                       r.present() ? std::optional(r.required_number("level")) : std::nullopt);
  };
  out.knee = ref("knee");
  out.knee_reason = a.object("knee").text("reason");
  out.best_sustained = ref("best_sustained");
  out.best_sustained_text = a.text("best_sustained_text");
  out.peak = ref("peak");
  out.plateau_from =
      level_index(a, "plateau", out.levels, a.object("plateau").number("from_level"));
  out.operating_target_rps = a.number("operating_target_rps");
  const JsonReader operating = a.object("operating");
  out.operating_fraction = operating.number("fraction").value_or(kDefaultOperatingFraction);
  out.operating_headroom = operating.number("headroom");
  out.operating_basis = operating.text("basis");
  const JsonReader daily = a.object("daily_capacity");
  out.daily_requests_at_operating_target = daily.number("at_operating_target");
  out.daily_requests_at_best_sustained = daily.number("at_best_sustained");
  out.routes = routes_from_json(a);
  return out;
}

}  // namespace proofload::result
