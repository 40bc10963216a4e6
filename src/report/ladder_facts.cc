// The facts about a ladder's result that more than one part of its summary.md states (see
// ladder_facts.h).
#include "report/ladder_facts.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)

// Levels recorded with fewer runs than planned, and how many they had.
std::vector<std::pair<double, int>> short_levels(const LadderResult& v) {
  std::vector<std::pair<double, int>> out;
  if (v.kind != "ladder") return out;
  const int planned = std::max(1, static_cast<int>(v.settings.repeat.value_or(1)));
  std::vector<double> seen;
  for (double level : v.settings.levels) {
    if (std::find(seen.begin(), seen.end(), level) != seen.end()) continue;
    seen.push_back(level);
    const auto runs = std::count_if(v.rows.begin(), v.rows.end(), [&](const result::LadderRow& r) {
      return r.figures.level == level;
    });
    if (runs < planned) out.emplace_back(level, static_cast<int>(runs));
  }
  return out;
}

const std::vector<LevelAnalysis>& levels_of(const LadderResult& v) {
  static const std::vector<LevelAnalysis> kNone;
  return v.analysis ? v.analysis->levels : kNone;
}

namespace {
const LevelAnalysis* level_at(const LadderResult& v, const std::optional<size_t>& index) {
  return v.analysis && index && *index < v.analysis->levels.size() ? &v.analysis->levels[*index]
                                                                   : nullptr;
}
}  // namespace

const LevelAnalysis* knee_of(const LadderResult& v) {
  return level_at(v, v.analysis ? v.analysis->knee : std::nullopt);
}
const LevelAnalysis* best_of(const LadderResult& v) {
  return level_at(v, v.analysis ? v.analysis->best_sustained : std::nullopt);
}
const LevelAnalysis* peak_of(const LadderResult& v) {
  return level_at(v, v.analysis ? v.analysis->peak : std::nullopt);
}

std::string loop_of(const LadderResult& v) {
  if (!v.settings.loop.empty()) return v.settings.loop;
  if (v.analysis && v.recorded.loop) return std::string(analyze::loop_text(v.analysis->loop));
  return "";
}

std::optional<double> noise_floor_of(const LadderResult& v) {
  if (!v.analysis || !v.recorded.noise_floor) return std::nullopt;
  return v.analysis->noise_floor.value;
}

std::string noise_floor_source_of(const LadderResult& v) {
  if (!noise_floor_of(v)) return "";
  return std::string(analyze::noise_floor_source_text(v.analysis->noise_floor.source));
}

std::optional<bool> count_429_of(const LadderResult& v) {
  if (v.settings.count_429_as_error) return v.settings.count_429_as_error;
  if (v.analysis && v.recorded.count_429_as_error) return v.analysis->slo.count_429_as_error;
  return std::nullopt;
}

std::string verdict_of(const LadderResult& v, const LevelAnalysis& level) {
  const std::vector<LevelAnalysis>& levels = levels_of(v);
  const size_t i = static_cast<size_t>(&level - levels.data());
  if (i < v.recorded.verdicts.size() && !v.recorded.verdicts[i]) return "";
  return std::string(analyze::verdict_text(level.verdict));
}

bool server_measured(const LadderResult& v) {
  if (v.settings.server_observed.value_or(false)) return true;
  return std::any_of(levels_of(v).begin(), levels_of(v).end(),
                     [](const LevelAnalysis& l) { return l.server_cores.has_value(); });
}

int runs_per_level(const LadderResult& v) {
  int runs = std::max(1, static_cast<int>(v.settings.repeat.value_or(1)));
  for (const LevelAnalysis& l : levels_of(v)) runs = std::max(runs, l.repeats);
  return runs;
}

std::string source_word(const LadderResult& v) {
  if (v.kind == "analyze") return "table";
  if (v.kind == "search") return "search";
  return "ladder";
}

std::string failed_bounds_text(const LevelAnalysis& level) {
  std::vector<std::string> parts;
  for (const measure::ThresholdResult& c : level.slo) {
    if (!c.passed)
      parts.push_back(c.observed_text.empty() ? c.expression + ": no data" : c.observed_text);
  }
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::string bounds_text(const LevelAnalysis& level) {
  std::string out;
  for (const measure::ThresholdResult& c : level.slo) {
    out += (out.empty() ? "" : ", ") +
           (c.observed_text.empty() ? c.expression + ": no data" : c.observed_text);
  }
  return out;
}

std::string slo_words(const LadderResult& v) {
  if (v.analysis && !v.analysis->slo.text.empty()) return analyze::describe_slo(v.analysis->slo);
  if (!v.settings.slo.empty()) return v.settings.slo;
  return "not recorded";
}

std::string noise_floor_words(const LadderResult& v) {
  const std::optional<double> floor = noise_floor_of(v);
  return floor ? percent_text(*floor, 1) : std::string("unrecorded");
}

std::string without_none(const std::string& text) {
  return text.starts_with("none: ") ? text.substr(6) : text;
}

std::string operating_warning(const LadderResult& v) {
  if (!v.analysis->operating_target_rps) return "";
  if (best_of(v) == nullptr) {
    return "No level met the SLO, so no rate is shown to meet it, this one included.";
  }
  if (*v.analysis->operating_target_rps <= best_of(v)->goodput_rps) return "";
  return "It is above the best sustained within the SLO (" + rate_text(best_of(v)->goodput_rps) +
         " at level " + level_text(best_of(v)->level) +
         "): no level shows this rate meeting the SLO.";
}

std::optional<double> confirming_run_s(const LadderResult& v) {
  if (v.search) {
    for (const result::SearchStep& step : v.search->steps) {
      if (step.phase == "confirm" && step.row && *step.row < v.rows.size() &&
          v.rows[*step.row].figures.duration_s) {
        return v.rows[*step.row].figures.duration_s;
      }
    }
  }
  return v.settings.hold_s;
}

std::vector<double> levels_not_run(const LadderResult& v) {
  std::vector<double> out;
  for (const auto& [level, runs] : short_levels(v)) {
    if (runs == 0) out.push_back(level);
  }
  return out;
}

std::string cpu_of_limit_text(const LevelAnalysis& level) {
  if (!level.server_cores) return "an unmeasured share of its CPU";
  std::string out = cores_text(*level.server_cores);
  if (!level.server_cpu_limit_cores) return out + " cores";
  const double limit = *level.server_cpu_limit_cores;
  out += " of the " + fixed(limit, limit == std::floor(limit) ? 0 : 2) +
         (limit == 1 ? " core" : " cores") + " it could use";
  if (!level.server_cpu_limit_basis.empty()) out += " (" + level.server_cpu_limit_basis + ")";
  return out;
}

namespace {

// How long the level behind a daily figure was measured: the longest of its runs.
std::optional<double> hold_of(const LadderResult& v, double level) {
  std::optional<double> longest;
  for (const result::LadderRow& r : v.rows) {
    const analyze::LevelRow& row = r.figures;
    if (row.level == level && row.duration_s && (!longest || *row.duration_s > *longest)) {
      longest = row.duration_s;
    }
  }
  return longest ? longest : v.settings.hold_s;
}

std::string from_hold(std::optional<double> hold_s) {
  return hold_s ? " (measured over " + seconds_text(*hold_s) + ")" : " (hold not recorded)";
}

}  // namespace

std::vector<std::string> daily_parts(const LadderResult& v) {
  std::vector<std::string> parts;
  if (v.analysis->daily_requests_at_operating_target) {
    const double basis = knee_of(v) != nullptr ? knee_of(v)->level : levels_of(v).back().level;
    parts.push_back(count_text(*v.analysis->daily_requests_at_operating_target) +
                    " requests/day at the operating target" + from_hold(hold_of(v, basis)));
  }
  if (v.analysis->daily_requests_at_best_sustained && best_of(v) != nullptr) {
    parts.push_back(count_text(*v.analysis->daily_requests_at_best_sustained) +
                    " at best sustained" + from_hold(hold_of(v, best_of(v)->level)));
    // A lifecycle's headline is its flows a day, beside the requests they take.
    if (const std::optional<double> flows = best_of(v)->flows_per_s; flows && *flows > 0) {
      const double per_day =
          analyze::round_significant(*flows * 86'400, analyze::kDailySignificantDigits);
      parts.push_back(count_text(per_day) + " flows/day at best sustained (" +
                      rate_number(*flows) + " flows/s)");
    }
  }
  return parts;
}

std::string daily_rule_text(const LadderResult& v) {
  std::string out = "rate × 86,400 s";
  if (v.recorded.daily_significant_digits) {
    out += fmt::format(", rounded to {} significant digits", analyze::kDailySignificantDigits);
  }
  return out;
}

std::string server_sources_text(const LadderResult& v) {
  std::string cpu;
  std::string throttle;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (cpu.empty()) cpu = l.server_cpu_source;
    if (throttle.empty()) throttle = l.server_throttle_source;
  }
  if (cpu.empty() && throttle.empty()) return "";
  std::vector<std::string> parts;
  const std::vector<std::string> instances = analyze::server_cpu_sources(cpu);
  if (instances.size() > 1) {
    std::vector<std::string> each;
    for (const std::string& source : instances) each.push_back(inline_code(source));
    parts.push_back("server cores from " + list_text(each) + " added (" +
                    std::to_string(instances.size()) + " instances)");
  } else if (!cpu.empty()) {
    parts.push_back("server cores from " + inline_code(cpu));
  }
  if (!throttle.empty()) parts.push_back("throttling and quota from " + inline_code(throttle));
  std::vector<std::string> unused;
  for (const std::string& spec : v.settings.observe) {
    if (spec == throttle || spec == "host" || spec == "self") continue;
    if (std::find(instances.begin(), instances.end(), spec) != instances.end()) continue;
    unused.push_back(inline_code(spec));
  }
  std::string out = "Server figures: " + list_text(parts) + ", whatever the order of --observe";
  if (!unused.empty()) {
    out += "; also observed, not used for these columns: " + list_text(unused) +
           " (their figures are in each level's result.json)";
  }
  return out + ".";
}

}  // namespace proofload::report::ladder
