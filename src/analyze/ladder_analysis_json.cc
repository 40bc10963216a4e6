// The JSON form of a ladder's analysis (result.json's `analysis`, docs/result-schema.md
// "Ladder"), and the words for its enums. Pure; thread-safe.
#include <cmath>
#include <cstdint>

#include "analyze/ladder_analysis.h"

namespace proofload::analyze {
namespace {

// ---- JSON ----

template <typename T>
nlohmann::json optional_json(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// Levels are written as given: 100, not 100.0.
nlohmann::json level_json(double level) {
  if (level == std::floor(level) && std::abs(level) < 9e15) {
    return nlohmann::json(static_cast<int64_t>(level));
  }
  return nlohmann::json(level);
}

std::string_view source_text(NoiseFloor::Source source) {
  switch (source) {
    case NoiseFloor::Source::kStated:
      return "stated";
    case NoiseFloor::Source::kMeasured:
      return "measured";
    case NoiseFloor::Source::kDefault:
      return "default";
  }
  return "default";
}

nlohmann::json level_to_json(const LevelAnalysis& level) {
  nlohmann::json slo = nlohmann::json::array();
  for (const measure::ThresholdResult& r : level.slo) {
    slo.push_back({{"expression", r.expression},
                   {"observed", optional_json(r.observed)},
                   {"observed_text", r.observed_text},
                   {"passed", r.passed}});
  }
  return {
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
}

nlohmann::json level_ref_json(const LevelAnalysis& level) {
  return {{"level", level_json(level.level)},
          {"achieved_rps", level.achieved_rps},
          {"goodput_rps", level.goodput_rps}};
}

}  // namespace

std::string_view loop_text(Loop loop) { return loop == Loop::kOpen ? "open" : "closed"; }

std::string_view verdict_text(Verdict verdict) {
  switch (verdict) {
    case Verdict::kClean:
      return "clean";
    case Verdict::kHighestWithinSlo:
      return "highest within SLO";
    case Verdict::kKnee:
      return "knee";
    case Verdict::kKneeHighestWithinSlo:
      return "knee, highest within SLO";
    case Verdict::kSaturated:
      return "saturated";
  }
  return "clean";
}

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

  return {
      {"loop", loop_text(analysis.loop)},
      {"slo",
       {{"text", analysis.slo.text},
        {"description", describe_slo(analysis.slo)},
        {"bounds", bounds},
        {"count_429_as_error", analysis.slo.count_429_as_error},
        {"is_default", analysis.slo.is_default}}},
      {"noise_floor",
       {{"value", analysis.noise_floor.value},
        {"source", source_text(analysis.noise_floor.source)},
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
}

}  // namespace proofload::analyze
