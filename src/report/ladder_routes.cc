// A scenario ladder's "Each request by level" table in summary.md, and each request's plateau in
// words: a mix's total can still grow while one of its requests is flat at a limit, so the
// figures an SLO names per request (p99(write)) and the goodput of each are shown level by level.
// Figures are the analysis's (analyze/route_analysis.h): the mean over a level's runs. Shown only
// when the scenario names two requests or more (with one, it is the levels table again).
#include <fmt/format.h>

#include "measure/percentile_trust.h"
#include "report/ladder_sections.h"
#include "report/markdown_text.h"
#include "words/ladder_words.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
namespace {

bool shown(const LadderResult& v) { return v.analysis && v.analysis->routes.size() >= 2; }

// Latency of one request at one level, marked * when too few of its requests lie behind it.
std::string ms_cell(const analyze::RouteLevel& l, std::optional<double> ms, double percentile) {
  if (!ms) return std::string(kNotMeasured);
  const bool few = l.requests && !measure::percentile_trusted(*l.requests, percentile);
  return fixed(*ms, ms_decimals(*ms)) + (few ? "*" : "");
}

std::string rate_cell(std::optional<double> rps) {
  return rps ? rate_number(*rps) : std::string(kNotMeasured);
}

// The step into this level: none without one (gain_text is empty there), "grows from nothing …"
// after a level with no goodput.
std::string step_cell(const analyze::RouteLevel& l, double floor) {
  if (l.gain_text.empty()) return std::string(kNotMeasured);
  return l.gain ? words::step_cell_text(*l.gain, floor) : words::gain_text(std::nullopt, floor);
}

}  // namespace

std::string routes_by_level(const LadderResult& v) {
  if (!shown(v)) return "";
  std::string out = "## Each request by level\n\n";
  out += table_row({"level", "request", "goodput/s", "achieved/s", "p50 ms", "p95 ms", "p99 ms",
                    "errors", "requests", "step"});
  out += table_row({"---:", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---"});
  for (const LevelAnalysis& level : v.analysis->levels) {
    for (const analyze::RouteAnalysis& route : v.analysis->routes) {
      for (const analyze::RouteLevel& l : route.levels) {
        if (l.level != level.level) continue;
        out += table_row(
            {level_text(l.level), inline_code(route.name), rate_cell(l.goodput_rps),
             rate_cell(l.achieved_rps), ms_cell(l, l.p50_ms, 50), ms_cell(l, l.p95_ms, 95),
             ms_cell(l, l.p99_ms, 99),
             l.error_rate ? percent_text(*l.error_rate) : std::string(kNotMeasured),
             l.requests ? count_text(static_cast<double>(*l.requests)) : std::string(kNotMeasured),
             step_cell(l, v.analysis->noise_floor.value)});
      }
    }
  }
  out +=
      "\nEach named request of the scenario on its own (a flow's steps included), the mean over "
      "a level's runs: goodput counts its successes per second of the measured span, achieved its "
      "responses of any status; latency is from its intended start; errors is the share of its "
      "requests that ended (started and finished) that failed; step is its goodput's change from "
      "the level before, flat when inside the ladder's noise floor. * marks a percentile with "
      "fewer than " +
      fmt::format("{}", measure::kTailSamplesForTrust) +
      " of the request's samples at or beyond it.\n\n";
  return out;
}

std::string route_plateaus_text(const LadderResult& v) {
  if (!shown(v)) return "";
  std::vector<std::string> parts;
  for (const analyze::RouteAnalysis& route : v.analysis->routes) {
    if (route.levels.size() < 2) continue;
    if (route.levels.back().gain_text.empty()) continue;  // no goodput to judge it on
    if (route.plateau_from) {
      parts.push_back(inline_code(route.name) + " is flat from level " +
                      level_text(route.levels[*route.plateau_from].level));
    } else {
      const analyze::RouteLevel& last = route.levels.back();
      const double floor = v.analysis->noise_floor.value;
      parts.push_back(inline_code(route.name) + " still gains " +
                      (last.gain ? words::signed_gain_text(*last.gain, floor)
                                 : words::gain_text(std::nullopt, floor)) +
                      " at level " + level_text(last.level));
    }
  }
  if (parts.empty()) return "";
  return "By request: " + list_text(parts) + ".";
}

}  // namespace proofload::report::ladder
