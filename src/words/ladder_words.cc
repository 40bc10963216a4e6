// See ladder_words.h.
#include "words/ladder_words.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

#include "common/text.h"
#include "words/numbers.h"

namespace proofload::words {
namespace {

using analyze::KneeCause;
using analyze::LadderAnalysis;
using analyze::LevelAnalysis;
using analyze::NoiseFloor;
using analyze::OperatingBasis;

// A level and its goodput: "2,066/s at level 6".
std::string rate_at_level(const LevelAnalysis& level) {
  return rate_text(level.goodput_rps) + " at level " + level_text(level.level);
}

std::string breaks_slo(const LadderAnalysis& a, const LevelAnalysis& level) {
  std::string reason = "breaks the SLO";
  if (level.repeats > 1) {
    reason += fmt::format(" in {} of {} repeats", level.failed_repeats, level.repeats);
  }
  std::string failures;
  for (size_t b = 0; b < level.slo.size() && b < a.slo.bounds.size(); ++b) {
    if (level.slo[b].passed) continue;
    if (!failures.empty()) failures += ", ";
    failures += level.slo[b].observed_text + " (bound " + a.slo.bounds[b].expression + ")";
  }
  return reason + ": " + failures;
}

std::string short_of_target(const LevelAnalysis& level, double floor) {
  const bool arrivals = level.arrivals_rps.has_value();
  const double target = level.target_rps.value_or(0);
  return std::string(arrivals ? "arrivals " : "achieved ") +
         rate_text(level.achieved_in_target_unit) + " falls short of the " + rate_text(target) +
         (arrivals ? " arrivals" : "") + " target by " +
         percent_text(target > 0 ? 1 - level.achieved_in_target_unit / target : 0, 1) +
         " (beyond the " + percent_text(floor, 1) + " noise floor)";
}

std::string saturation(const LadderAnalysis& a, size_t knee, double floor) {
  if (knee + 1 >= a.levels.size()) return "saturation point";
  const LevelAnalysis& level = a.levels[knee];
  const LevelAnalysis& next = a.levels[knee + 1];
  const double gain = next.gain.value_or(0);
  const std::string step = std::abs(gain) < floor
                               ? "gains " + signed_gain_text(gain, floor) + " (inside the "
                               : "falls by " + percent_text(-gain, 1) + " (beyond the ";
  const char* name = a.knee_latency_is_p50 ? "p50" : "p95";
  const std::optional<double> here = a.knee_latency_is_p50 ? level.p50_ms : level.p95_ms;
  const std::optional<double> there = a.knee_latency_is_p50 ? next.p50_ms : next.p95_ms;
  return "saturation point: the next level " + step + percent_text(floor, 1) +
         " noise floor) while " + name + " climbs from " + ms_text(here.value_or(0)) + " to " +
         ms_text(there.value_or(0));
}

}  // namespace

std::string signed_gain_text(double gain, double floor) {
  const bool flat = std::abs(gain) < floor;
  std::string digits;
  for (int decimals = 1; decimals <= 4; ++decimals) {
    digits = fmt::format("{:.{}f}", std::abs(gain) * 100, decimals);
    if ((std::strtod(digits.c_str(), nullptr) / 100 < floor) == flat) break;
  }
  return (gain < 0 ? "-" : "+") + group_thousands(digits) + "%";
}

std::string step_cell_text(double gain, double floor) {
  return signed_gain_text(gain, floor) + (std::abs(gain) < floor ? " flat" : "");
}

std::string gain_text(std::optional<double> gain, double floor) {
  if (!gain) return "grows from nothing (the level before had no goodput)";
  const std::string shown = signed_gain_text(*gain, floor);
  const std::string floor_text = percent_text(floor, 1);
  if (std::abs(*gain) < floor) return shown + ": flat, inside the " + floor_text + " noise floor";
  return shown + (*gain < 0 ? ": falls" : ": grows") + ", beyond the " + floor_text +
         " noise floor";
}

std::string noise_floor_text(const NoiseFloor& floor) {
  const std::string value = percent_text(floor.value, 1);
  switch (floor.source) {
    case NoiseFloor::Source::kStated:
      return value + " (stated with --noise-floor)";
    case NoiseFloor::Source::kDefault:
      return value + " (default: no repeats to measure it from; set --repeat or --noise-floor)";
    case NoiseFloor::Source::kMeasured:
      break;
  }
  const double spread = floor.spread.value_or(0);
  const double drift = floor.drift.value_or(0);
  std::string text =
      fmt::format("{} (measured from repeats of {} {}: a spread of {} between a level's repeats",
                  value, floor.levels_measured, floor.levels_measured == 1 ? "level" : "levels",
                  percent_text(spread, 1));
  if (floor.interleaved) {
    text += ", which holds the drift between passes (repeats interleaved)";
  } else {
    text += " plus " + percent_text(drift, 1) + " of drift over the time between levels";
  }
  if (spread + drift < analyze::kMinimumMeasuredNoiseFloor) {
    text += ", raised to the " + percent_text(analyze::kMinimumMeasuredNoiseFloor, 1) + " minimum";
  }
  return text + ")";
}

std::string knee_reason(const LadderAnalysis& a) {
  if (!a.knee || *a.knee >= a.levels.size()) return "";
  const LevelAnalysis& level = a.levels[*a.knee];
  const double floor = a.noise_floor.value;
  switch (a.knee_cause) {
    case KneeCause::kBreaksSlo:
      return breaks_slo(a, level);
    case KneeCause::kShortOfTarget:
      return short_of_target(level, floor);
    case KneeCause::kSaturation:
      return saturation(a, *a.knee, floor);
    case KneeCause::kNone:
      break;
  }
  return "";
}

std::string best_sustained_text(const LadderAnalysis& a) {
  if (!a.best_sustained || *a.best_sustained >= a.levels.size()) {
    return "none: the lowest level was already past it";
  }
  return rate_at_level(a.levels[*a.best_sustained]);
}

std::string operating_basis_text(const LadderAnalysis& a) {
  const std::string fraction = given_percent_text(a.operating_fraction);
  const std::string headroom = fmt::format("{:.1f}x headroom", 1 / a.operating_fraction);
  switch (a.operating_basis_kind) {
    case OperatingBasis::kNone:
      return "none: the lowest level already broke the SLO";
    case OperatingBasis::kKnee:
      if (!a.knee) break;
      return fraction + " of the knee (" + rate_at_level(a.levels[*a.knee]) + "): " + headroom;
    case OperatingBasis::kBestSustained:
      if (!a.knee || !a.best_sustained) break;
      return "best sustained (" + rate_at_level(a.levels[*a.best_sustained]) + "): " + fraction +
             " of the knee (" + rate_at_level(a.levels[*a.knee]) +
             ") would be above the most that met the SLO; " +
             (a.operating_headroom
                  ? fmt::format("{:.1f}x headroom to the knee", *a.operating_headroom)
                  : std::string("it carried nothing, so there is no headroom to state"));
    case OperatingBasis::kHighestTested:
      if (a.levels.empty()) break;
      return fraction + " of the highest level tested (" + rate_at_level(a.levels.back()) +
             "; no knee reached: the true headroom is larger)";
  }
  return "";
}

void describe_ladder(LadderAnalysis& a) {
  const double floor = a.noise_floor.value;
  a.noise_floor.text = noise_floor_text(a.noise_floor);
  for (size_t i = 1; i < a.levels.size(); ++i)
    a.levels[i].gain_text = gain_text(a.levels[i].gain, floor);
  for (analyze::RouteAnalysis& route : a.routes) {
    // A route's step is judged where it has goodput here and at its level before.
    for (size_t i = 1; i < route.levels.size(); ++i) {
      if (route.levels[i - 1].goodput_rps && route.levels[i].goodput_rps) {
        route.levels[i].gain_text = gain_text(route.levels[i].gain, floor);
      }
    }
  }
  a.knee_reason = knee_reason(a);
  a.best_sustained_text = best_sustained_text(a);
  a.operating_basis = operating_basis_text(a);
}

analyze::LadderAnalysis described_ladder(const std::vector<analyze::LevelRow>& rows,
                                         const analyze::Slo& slo,
                                         const analyze::AnalysisOptions& options) {
  LadderAnalysis a = analyze::analyze_ladder(rows, slo, options);
  describe_ladder(a);
  return a;
}

}  // namespace proofload::words
