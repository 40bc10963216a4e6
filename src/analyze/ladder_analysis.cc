// The analysis of a ladder over recorded rows (see ladder_analysis.h for the rules). Stateless;
// analyze_ladder throws UsageError only, for bad input.
#include "analyze/ladder_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>

#include "analyze/ladder_steps.h"
#include "analyze/median.h"
#include "analyze/route_analysis.h"
#include "common/text.h"
#include "common/usage_error.h"
#include "measure/percentile_trust.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {

// ---- Aggregation over repeats ----

struct LevelGroup {
  double level = 0;
  std::vector<const LevelRow*> rows;  // in the order recorded
};

using OptionalField = std::optional<double> LevelRow::*;

// The mean over the repeats that recorded the field; none when no repeat did.
std::optional<double> mean_of(const LevelGroup& group, OptionalField field) {
  double sum = 0;
  int count = 0;
  for (const LevelRow* row : group.rows) {
    if (auto value = finite_or_none(row->*field)) {
      sum += *value;
      ++count;
    }
  }
  if (count == 0) return std::nullopt;
  return sum / count;
}

std::optional<double> max_of(const LevelGroup& group, OptionalField field) {
  std::optional<double> highest;
  for (const LevelRow* row : group.rows) {
    if (auto value = finite_or_none(row->*field); value && (!highest || *value > *highest)) {
      highest = value;
    }
  }
  return highest;
}

// Sample standard deviation over the mean: run-to-run variation. Needs two values and a non-zero
// mean.
std::optional<double> cv_of(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  double mean = 0;
  for (double v : values) mean += v;
  mean /= static_cast<double>(values.size());
  if (mean == 0) return std::nullopt;
  double squares = 0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return std::sqrt(squares / static_cast<double>(values.size() - 1)) / mean;
}

// Of one bound's results over the repeats, the one to show: no data first (it never passes), else
// the value furthest on the failing side of the bound.
measure::ThresholdResult worst_of(const std::vector<measure::ThresholdResult>& per_repeat,
                                  measure::Comparison comparison) {
  size_t worst = 0;
  for (size_t i = 0; i < per_repeat.size(); ++i) {
    const measure::ThresholdResult& r = per_repeat[i];
    const measure::ThresholdResult& w = per_repeat[worst];
    if (!r.observed) return r;
    bool worse = false;
    switch (comparison) {
      case measure::Comparison::kLess:
      case measure::Comparison::kLessEqual:
        worse = *r.observed > *w.observed;
        break;
      case measure::Comparison::kGreater:
      case measure::Comparison::kGreaterEqual:
        worse = *r.observed < *w.observed;
        break;
      case measure::Comparison::kEqual:
        worse = !r.passed && w.passed;
        break;
    }
    if (worse) worst = i;
  }
  return per_repeat[worst];
}

// The samples behind a row's percentiles: its responses when recorded, else its requests (a
// table from another tool).
std::optional<int64_t> latency_samples(const LevelRow& row) {
  return row.responses ? row.responses : row.requests;
}

// measure/percentile_trust.h decides; the smallest repeat counts, since each repeat's percentile
// stands on its own samples.
void mark_untrusted(const LevelGroup& group, const Slo& slo, LevelAnalysis& level) {
  std::optional<int64_t> fewest;
  for (const LevelRow* row : group.rows) {
    const std::optional<int64_t> samples = latency_samples(*row);
    if (samples && (!fewest || *samples < *fewest)) fewest = samples;
  }
  if (!fewest) return;
  std::vector<std::pair<double, std::string>> percentiles;
  if (level.p50_ms) percentiles.emplace_back(50, "p50");
  if (level.p95_ms) percentiles.emplace_back(95, "p95");
  if (level.p99_ms) percentiles.emplace_back(99, "p99");
  // Other whole-run percentiles the SLO judges (p99.9) count on the same samples.
  for (const measure::Threshold& t : slo.bounds) {
    const measure::MetricRef& m = t.metric;
    if (m.kind != measure::MetricRef::Kind::kPercentile || !m.scope.empty()) continue;
    const std::string name = m.text();
    if (std::none_of(percentiles.begin(), percentiles.end(),
                     [&](const auto& p) { return p.second == name; })) {
      percentiles.emplace_back(m.percentile, name);
    }
  }
  for (const auto& [percentile, name] : percentiles) {
    if (!measure::percentile_trusted(*fewest, percentile)) level.untrusted.push_back(name);
  }
}

bool is_error_bound(const measure::Threshold& t) {
  const measure::MetricRef::Kind kind = t.metric.kind;
  return kind == measure::MetricRef::Kind::kErrorRate ||
         kind == measure::MetricRef::Kind::kOutcomeRate ||
         kind == measure::MetricRef::Kind::kNeverStarted;
}

// One level's figures over its repeats.
LevelAnalysis aggregate(const LevelGroup& group, const Slo& slo) {
  LevelAnalysis level;
  level.level = group.level;
  level.repeats = static_cast<int>(group.rows.size());
  std::vector<double> goodputs;
  std::vector<double> p95s;
  bool all_requests_known = true;
  int64_t requests = 0;
  for (const LevelRow* row : group.rows) {
    goodputs.push_back(row->goodput());
    level.achieved_rps += row->achieved_rps;
    level.achieved_in_target_unit += row->achieved_in_target_unit();
    if (auto p95 = finite_or_none(row->p95_ms)) p95s.push_back(*p95);
    if (row->requests) {
      requests += *row->requests;
    } else {
      all_requests_known = false;  // a partial sum would undercount the level
    }
    level.generator_busy = level.generator_busy || row->generator_busy;
  }
  const auto repeats = static_cast<double>(group.rows.size());
  level.achieved_rps /= repeats;
  level.achieved_in_target_unit /= repeats;
  for (double g : goodputs) level.goodput_rps += g;
  level.goodput_rps /= repeats;
  if (all_requests_known) level.requests = requests;
  level.target_rps = mean_of(group, &LevelRow::target_rps);
  level.arrivals_rps = mean_of(group, &LevelRow::arrivals_rps);
  level.flows_per_s = mean_of(group, &LevelRow::flows_per_s);
  level.flow_success_rate = mean_of(group, &LevelRow::flow_success_rate);
  level.server_quota_cores = mean_of(group, &LevelRow::server_quota_cores);
  level.server_cpu_limit_cores = mean_of(group, &LevelRow::server_cpu_limit_cores);
  level.server_cpu_source = group.rows.front()->server_cpu_source;
  level.server_throttle_source = group.rows.front()->server_throttle_source;
  level.server_cpu_limit_basis = group.rows.front()->server_cpu_limit_basis;
  level.p50_ms = mean_of(group, &LevelRow::p50_ms);
  level.p95_ms = mean_of(group, &LevelRow::p95_ms);
  level.p99_ms = mean_of(group, &LevelRow::p99_ms);
  level.error_rate = mean_of(group, &LevelRow::error_rate);
  level.rate_429 = mean_of(group, &LevelRow::rate_429);
  level.never_started = mean_of(group, &LevelRow::never_started);
  level.server_cores = mean_of(group, &LevelRow::server_cores);
  level.server_throttled_share = mean_of(group, &LevelRow::server_throttled_share);
  level.generator_cores = mean_of(group, &LevelRow::generator_cores);
  level.host_load1 = max_of(group, &LevelRow::host_load1);
  level.host_cpu_busy = max_of(group, &LevelRow::host_cpu_busy);
  level.achieved_cv = cv_of(goodputs);
  level.p95_cv = cv_of(p95s);
  if (level.server_cores && *level.server_cores > 0) {
    level.rps_per_server_core = level.goodput_rps / *level.server_cores;
  }
  level.server_cpu_bound = level.server_cores && level.server_cpu_limit_cores &&
                           *level.server_cpu_limit_cores > 0 &&
                           *level.server_cores >= 0.9 * *level.server_cpu_limit_cores;
  if (level.server_cores && level.achieved_rps > 0) {
    level.server_cpu_ms_per_request = *level.server_cores * 1000 / level.achieved_rps;
  }

  // Every repeat is judged on its own: a level passes only when each one did.
  std::vector<std::vector<measure::ThresholdResult>> per_bound(slo.bounds.size());
  for (const LevelRow* row : group.rows) {
    const std::vector<measure::ThresholdResult> results =
        measure::evaluate_thresholds(slo.bounds, [&](const measure::MetricRef& metric) {
          return row_metric(*row, metric, slo.count_429_as_error);
        });
    if (!measure::all_passed(results)) ++level.failed_repeats;
    for (size_t b = 0; b < results.size(); ++b) per_bound[b].push_back(results[b]);
  }
  for (size_t b = 0; b < per_bound.size(); ++b) {
    level.slo.push_back(worst_of(per_bound[b], slo.bounds[b].comparison));
    if (is_error_bound(slo.bounds[b]) && !level.slo.back().passed) level.errors_meet_slo = false;
  }
  level.meets_slo = level.failed_repeats == 0;
  mark_untrusted(group, slo, level);
  return level;
}

// The rows of each level, ascending by level, as the routes' analysis reads them.
std::vector<std::vector<const LevelRow*>> repeats_of(const std::vector<LevelGroup>& groups) {
  std::vector<std::vector<const LevelRow*>> out;
  for (const LevelGroup& group : groups) out.push_back(group.rows);
  return out;
}

std::vector<LevelGroup> group_by_level(const std::vector<LevelRow>& rows) {
  std::map<double, LevelGroup> by_level;
  for (const LevelRow& row : rows) {
    LevelGroup& group = by_level[row.level];
    group.level = row.level;
    group.rows.push_back(&row);
  }
  std::vector<LevelGroup> groups;
  for (auto& [level, group] : by_level) groups.push_back(std::move(group));
  return groups;
}

void validate(const std::vector<LevelRow>& rows, const AnalysisOptions& options) {
  if (rows.empty()) throw UsageError("no levels to analyse: the ladder recorded no rows");
  for (const LevelRow& row : rows) {
    if (!std::isfinite(row.level) || row.level < 0) {
      throw UsageError(
          fmt::format("level {} is not a level (a finite number, 0 or more)", row.level));
    }
    if (!std::isfinite(row.achieved_rps) || row.achieved_rps < 0) {
      throw UsageError(fmt::format(
          "achieved throughput {} at level {} is not a rate (a finite number, 0 or more)",
          row.achieved_rps, row.level));
    }
  }
  const double fraction = options.operating_fraction;
  if (!(fraction > 0 && fraction <= 1)) {
    throw UsageError(fmt::format(
        "operating fraction {} is outside (0, 1] (write 0.5 to operate at half the knee)",
        fraction));
  }
  if (options.noise_floor && !(*options.noise_floor > 0 && *options.noise_floor <= 1)) {
    throw UsageError(
        fmt::format("noise floor {} is outside (0, 1] (write 0.05 for 5%)", *options.noise_floor));
  }
}

// The trend of a level's goodput over its repeats, in recorded order: the least-squares slope per
// run, as a share of the level's mean. None for one repeat or a level that carried nothing.
std::optional<double> trend_per_run(const LevelGroup& group) {
  const size_t n = group.rows.size();
  if (n < 2) return std::nullopt;
  double mean = 0;
  for (const LevelRow* row : group.rows) mean += row->goodput();
  mean /= static_cast<double>(n);
  if (mean <= 0) return std::nullopt;
  const double centre = static_cast<double>(n - 1) / 2;
  double covariance = 0;
  double variance = 0;
  for (size_t i = 0; i < n; ++i) {
    const double x = static_cast<double>(i) - centre;
    covariance += x * (group.rows[i]->goodput() - mean);
    variance += x * x;
  }
  return covariance / variance / mean;
}

NoiseFloor noise_floor_of(const std::vector<LevelGroup>& groups, const AnalysisOptions& options) {
  NoiseFloor floor;
  if (options.noise_floor) {
    floor.value = *options.noise_floor;
    floor.source = NoiseFloor::Source::kStated;
    return floor;
  }
  std::vector<double> spreads;
  std::vector<double> trends;
  size_t most_repeats = 0;
  for (const LevelGroup& group : groups) {
    if (group.rows.size() < 2) continue;
    double low = group.rows[0]->goodput();
    double high = low;
    double sum = 0;
    for (const LevelRow* row : group.rows) {
      low = std::min(low, row->goodput());
      high = std::max(high, row->goodput());
      sum += row->goodput();
    }
    // A level that achieved nothing in every repeat says nothing about relative noise.
    if (sum <= 0) continue;
    spreads.push_back((high - low) / (sum / static_cast<double>(group.rows.size())));
    trends.push_back(*trend_per_run(group));
    most_repeats = std::max(most_repeats, group.rows.size());
  }
  if (spreads.empty()) return floor;
  floor.levels_measured = static_cast<int>(spreads.size());
  floor.interleaved = options.repeat_order == RepeatOrder::kInterleaved;
  floor.source = NoiseFloor::Source::kMeasured;
  floor.spread = *median_of(spreads);
  // Run in sequence, a step compares two levels whose runs lie K runs apart (centre to centre),
  // further than any two repeats of one level: the system's drift over that time is part of what
  // a step sees. The median trend keeps its sign, so a drift shared by the levels counts and
  // run-to-run noise (trends of either sign) cancels. Interleaved, every level's repeats span the
  // whole ladder, so their spread already holds the drift between passes.
  floor.drift = options.repeat_order == RepeatOrder::kInterleaved
                    ? 0
                    : std::abs(*median_of(trends)) * static_cast<double>(most_repeats);
  floor.value = std::max(*floor.spread + *floor.drift, kMinimumMeasuredNoiseFloor);
  return floor;
}

// ---- Per-step rules ----

// A step "gains less than the floor" when it is flat or falling. A level after one that achieved
// nothing has no gain and counts as growing.
bool stops_growing(const LevelAnalysis& level, double floor) {
  return level.gain && *level.gain < floor;
}

// Why level `i` is the knee; kNone when it is not. `latency_is_p50`: a saturation point judged
// on p50, for want of p95.
KneeCause knee_cause_of(const std::vector<LevelAnalysis>& levels, size_t i, Loop loop, double floor,
                        bool& latency_is_p50) {
  const LevelAnalysis& level = levels[i];
  if (!level.meets_slo) return KneeCause::kBreaksSlo;
  if (level.short_of_target) return KneeCause::kShortOfTarget;
  if (loop != Loop::kClosed || i + 1 >= levels.size()) return KneeCause::kNone;
  const LevelAnalysis& next = levels[i + 1];
  if (!stops_growing(next, floor)) return KneeCause::kNone;
  std::optional<double> here = level.p95_ms;
  std::optional<double> there = next.p95_ms;
  latency_is_p50 = !here || !there;
  if (latency_is_p50) {
    here = level.p50_ms;
    there = next.p50_ms;
  }
  if (!here || !there || !(*there > (1 + floor) * *here)) return KneeCause::kNone;
  return KneeCause::kSaturation;
}

}  // namespace

double round_significant(double value, int digits) {
  if (value == 0 || !std::isfinite(value)) return value;
  const double magnitude = std::floor(std::log10(std::abs(value)));
  const double scale = std::pow(10.0, magnitude - digits + 1);
  return std::round(value / scale) * scale;
}

LadderAnalysis analyze_ladder(const std::vector<LevelRow>& rows, const Slo& slo,
                              const AnalysisOptions& options) {
  validate(rows, options);
  const std::vector<LevelGroup> groups = group_by_level(rows);
  LadderAnalysis a;
  a.loop = options.loop;
  a.slo = slo;
  a.operating_fraction = options.operating_fraction;
  a.noise_floor = noise_floor_of(groups, options);
  const double floor = a.noise_floor.value;

  for (const LevelGroup& group : groups) a.levels.push_back(aggregate(group, slo));
  for (size_t i = 0; i < a.levels.size(); ++i) {
    LevelAnalysis& level = a.levels[i];
    if (level.target_rps)
      level.short_of_target = level.achieved_in_target_unit < *level.target_rps * (1 - floor);
    if (i == 0) continue;
    level.gain = steps::gain(a.levels[i - 1].goodput_rps, level.goodput_rps);
  }

  for (size_t i = 0; i < a.levels.size() && !a.knee; ++i) {
    bool latency_is_p50 = false;
    const KneeCause cause = knee_cause_of(a.levels, i, a.loop, floor, latency_is_p50);
    if (cause != KneeCause::kNone) {
      a.knee = i;
      a.knee_cause = cause;
      a.knee_latency_is_p50 = cause == KneeCause::kSaturation && latency_is_p50;
    }
  }
  for (size_t i = 0; i < a.levels.size(); ++i) {
    const LevelAnalysis& level = a.levels[i];
    if (level.errors_meet_slo && (!a.peak || level.goodput_rps > a.levels[*a.peak].goodput_rps)) {
      a.peak = i;
    }
    if (level.meets_slo &&
        (!a.best_sustained || level.goodput_rps > a.levels[*a.best_sustained].goodput_rps)) {
      a.best_sustained = i;
    }
  }
  // The verdicts name the best sustained level wherever it lies, so that the table and the short
  // version always point at the same level.
  for (size_t i = 0; i < a.levels.size(); ++i) {
    const bool best = a.best_sustained && i == *a.best_sustained;
    Verdict& v = a.levels[i].verdict;
    if (a.knee && i == *a.knee) {
      v = best ? Verdict::kKneeHighestWithinSlo : Verdict::kKnee;
    } else if (best) {
      v = Verdict::kHighestWithinSlo;
    } else {
      v = a.knee && i > *a.knee ? Verdict::kSaturated : Verdict::kClean;
    }
  }
  if (a.best_sustained) {
    const LevelAnalysis& best = a.levels[*a.best_sustained];
    a.daily_requests_at_best_sustained =
        round_significant(best.goodput_rps * kSecondsPerDay, kDailySignificantDigits);
  }

  std::vector<std::optional<double>> gains;
  for (const LevelAnalysis& level : a.levels) gains.push_back(level.gain);
  a.plateau_from = steps::plateau_start(gains, floor);
  a.routes = analyze_routes(repeats_of(groups), floor);

  if (a.knee && *a.knee == 0 && !a.levels[0].meets_slo) {
    a.operating_basis_kind = OperatingBasis::kNone;
  } else if (a.knee) {
    const LevelAnalysis& knee = a.levels[*a.knee];
    a.operating_basis_kind = OperatingBasis::kKnee;
    a.operating_target_rps = a.operating_fraction * knee.goodput_rps;
    a.operating_headroom = 1 / a.operating_fraction;
    // A knee that broke the SLO can have more throughput than any level that met it: never
    // recommend running above what was shown to meet the SLO.
    if (a.best_sustained) {
      const LevelAnalysis& best = a.levels[*a.best_sustained];
      if (*a.operating_target_rps > best.goodput_rps) {
        a.operating_basis_kind = OperatingBasis::kBestSustained;
        a.operating_target_rps = best.goodput_rps;
        // A best level that carried nothing has no ratio to the knee (it would print "infx").
        a.operating_headroom.reset();
        if (best.goodput_rps > 0) a.operating_headroom = knee.goodput_rps / best.goodput_rps;
      }
    }
  } else {
    a.operating_basis_kind = OperatingBasis::kHighestTested;
    a.operating_target_rps = a.operating_fraction * a.levels.back().goodput_rps;
    a.operating_headroom = 1 / a.operating_fraction;
  }
  if (a.operating_target_rps) {
    a.daily_requests_at_operating_target =
        round_significant(*a.operating_target_rps * kSecondsPerDay, kDailySignificantDigits);
  }
  return a;
}

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

std::string_view noise_floor_source_text(NoiseFloor::Source source) {
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

}  // namespace proofload::analyze
