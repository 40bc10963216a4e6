// The levels table of a ladder's summary.md: a row per level (per run's mean with repeats), its
// fixed columns, the SLO's own terms that no fixed column shows, and the notes under it.
// Internal to ladder_report.cc (declared in ladder_sections.h). Pure; thread-safe.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/ladder_sections.h"
#include "report/markdown_text.h"
#include "words/ladder_words.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
namespace {

const std::string kDash(kNotMeasured);

// The SLO's terms that no fixed column of the levels table shows, by index into its bounds.
std::vector<size_t> slo_terms_without_column(const LadderResult& v) {
  using Kind = measure::MetricRef::Kind;
  std::vector<size_t> out;
  const std::vector<measure::Threshold>& bounds = v.analysis->slo.bounds;
  for (size_t k = 0; k < bounds.size(); ++k) {
    const measure::MetricRef& m = bounds[k].metric;
    const bool shown =
        m.scope.empty() && ((m.kind == Kind::kPercentile &&
                             (m.percentile == 50 || m.percentile == 95 || m.percentile == 99)) ||
                            m.kind == Kind::kErrorRate || m.kind == Kind::kNeverStarted ||
                            (m.kind == Kind::kOutcomeRate && m.outcome == "status_429"));
    const bool twice = std::any_of(bounds.begin(), bounds.begin() + static_cast<long>(k),
                                   [&](const auto& b) { return b.metric.text() == m.text(); });
    if (!shown && !twice) out.push_back(k);
  }
  return out;
}

// A level's value of SLO term k as the SLO judged it ("183.2 ms", "0.42%"), from its observed
// text; "no data" when there was none.
std::string slo_cell(const LevelAnalysis& l, size_t k) {
  if (k >= l.slo.size()) return kDash;
  const measure::ThresholdResult& r = l.slo[k];
  if (!r.observed) return "no data";
  const size_t equals = r.observed_text.find(" = ");
  return table_cell(equals == std::string::npos ? r.observed_text
                                                : r.observed_text.substr(equals + 3));
}


// A figure the level's SLO also judged is printed with at least the decimals of the SLO's own
// observed text: that text was widened so that it never reads as the other side of its bound, and
// the table must not undo that by rounding. Only when the two are the same value (one run; with
// repeats the table shows the mean and the SLO the worst run).
int honest_decimals(const LevelAnalysis& level, std::string_view metric, double value,
                    int decimals) {
  const std::string prefix = std::string(metric) + " = ";
  for (const measure::ThresholdResult& check : level.slo) {
    if (!check.observed || !check.observed_text.starts_with(prefix)) continue;
    if (std::abs(*check.observed - value) > 1e-12 * std::max(1.0, std::abs(value))) continue;
    decimals = std::max(decimals,
                        decimals_in(std::string_view(check.observed_text).substr(prefix.size())));
  }
  return decimals;
}

bool untrusted(const LevelAnalysis& level, std::string_view percentile) {
  return std::find(level.untrusted.begin(), level.untrusted.end(), percentile) !=
         level.untrusted.end();
}

std::string ms_cell(const LevelAnalysis& level, std::string_view metric, std::optional<double> ms) {
  if (!ms) return kDash;
  const int decimals = honest_decimals(level, metric, *ms, ms_decimals(*ms));
  return fixed(*ms, decimals) + (untrusted(level, metric) ? "*" : "");
}

std::string share_cell(const LevelAnalysis& level, std::string_view metric,
                       std::optional<double> share) {
  if (!share) return kDash;
  return percent_text(*share, honest_decimals(level, metric, *share, 2));
}

std::string gain_cell(const LevelAnalysis& level, double floor) {
  return level.gain ? words::step_cell_text(*level.gain, floor) : std::string(kDash);
}

}  // namespace

std::string levels_table(const LadderResult& v) {
  const bool repeated = runs_per_level(v) > 1;
  std::vector<std::string> header = {"level"};
  if (repeated) header.push_back("runs");
  // A table from another tool may give flows without arrivals: the flow columns show either way.
  const bool arrivals =
      std::any_of(levels_of(v).begin(), levels_of(v).end(),
                  [](const LevelAnalysis& l) { return l.arrivals_rps.has_value(); });
  const bool flows =
      arrivals || std::any_of(levels_of(v).begin(), levels_of(v).end(), [](const auto& l) {
        return l.flows_per_s.has_value() || l.flow_success_rate.has_value();
      });
  header.emplace_back("target/s");
  if (arrivals) header.emplace_back("arrivals/s");
  header.emplace_back("achieved/s");
  header.emplace_back("goodput/s");
  if (flows) {
    header.emplace_back("flows/s");
    header.emplace_back("flow success");
  }
  for (const char* name : {"p50 ms", "p95 ms", "p99 ms", "errors", "429", "never started",
                           "server cores", "throttled", "gen. cores"}) {
    header.emplace_back(name);
  }
  // The host's columns, only when `host` was observed.
  const bool host = std::any_of(levels_of(v).begin(), levels_of(v).end(), [](const auto& l) {
    return l.host_load1.has_value() || l.host_cpu_busy.has_value();
  });
  if (host) {
    header.emplace_back("host load");
    header.emplace_back("host busy");
  }
  header.emplace_back("gain");
  // Every SLO term the fixed columns do not show (a request's p99, TTFT, drops): its own column,
  // the level's value as the SLO judged it.
  const std::vector<size_t> slo_columns = slo_terms_without_column(v);
  for (size_t k : slo_columns) {
    header.push_back(table_cell(v.analysis->slo.bounds[k].metric.text()));
  }
  if (repeated) {
    header.emplace_back("achieved CV");
    header.emplace_back("p95 CV");
  }
  header.emplace_back("verdict");
  std::vector<std::string> align(header.size(), "---:");
  align.back() = "---";

  std::string out = "## Levels\n\n" + table_row(header) + table_row(align);
  bool any_untrusted = false;
  bool any_busy = false;
  bool any_saturated = false;
  for (const LevelAnalysis& l : levels_of(v)) {
    std::vector<std::string> cells = {level_text(l.level)};
    if (repeated) cells.push_back(std::to_string(l.repeats));
    cells.push_back(l.target_rps ? level_text(*l.target_rps) : kDash);
    if (arrivals) cells.push_back(l.arrivals_rps ? rate_number(*l.arrivals_rps) : kDash);
    const int achieved_decimals =
        honest_decimals(l, "rps", l.achieved_rps, std::abs(l.achieved_rps) >= 100 ? 0 : 1);
    cells.push_back(fixed(l.achieved_rps, achieved_decimals));
    cells.push_back(fixed(l.goodput_rps, honest_decimals(l, "goodput", l.goodput_rps,
                                                         std::abs(l.goodput_rps) >= 100 ? 0 : 1)));
    if (flows) {
      cells.push_back(l.flows_per_s ? rate_number(*l.flows_per_s) : kDash);
      cells.push_back(l.flow_success_rate ? percent_text(*l.flow_success_rate, 1) : kDash);
    }
    cells.push_back(ms_cell(l, "p50", l.p50_ms));
    cells.push_back(ms_cell(l, "p95", l.p95_ms));
    cells.push_back(ms_cell(l, "p99", l.p99_ms));
    cells.push_back(share_cell(l, "errors", l.error_rate));
    cells.push_back(share_cell(l, "rate(status_429)", l.rate_429));
    cells.push_back(share_cell(l, "never_started", l.never_started));
    cells.push_back(l.server_cores ? cores_text(*l.server_cores) : kDash);
    cells.push_back(l.server_throttled_share ? percent_text(*l.server_throttled_share) : kDash);
    cells.push_back((l.generator_cores ? cores_text(*l.generator_cores) : kDash) +
                    (l.generator_busy ? " (busy)" : ""));
    if (host) {
      cells.push_back(l.host_load1 ? fixed(*l.host_load1, 1) : kDash);
      cells.push_back((l.host_cpu_busy ? percent_text(*l.host_cpu_busy, 0) : kDash) +
                      (analyze::host_saturated(l.host_cpu_busy) ? " (saturated)" : ""));
      any_saturated = any_saturated || analyze::host_saturated(l.host_cpu_busy);
    }
    cells.push_back(gain_cell(l, v.analysis->noise_floor.value));
    for (size_t k : slo_columns) cells.push_back(slo_cell(l, k));
    if (repeated) {
      cells.push_back(l.achieved_cv ? percent_text(*l.achieved_cv, 1) : kDash);
      cells.push_back(l.p95_cv ? percent_text(*l.p95_cv, 1) : kDash);
    }
    const std::string verdict = verdict_of(v, l);
    cells.push_back(verdict.empty() ? kDash : table_cell(verdict));
    out += table_row(cells);
    any_untrusted = any_untrusted || (l.p50_ms && untrusted(l, "p50")) ||
                    (l.p95_ms && untrusted(l, "p95")) || (l.p99_ms && untrusted(l, "p99"));
    any_busy = any_busy || l.generator_busy;
  }
  out += "\n";
  if (any_untrusted) {
    out += "\\* fewer than 10 requests at or beyond this percentile: shown, not trusted.\n\n";
  }
  const std::string errors_note =
      !count_429_of(v)   ? "429 answers included (whether the SLO counted them is not recorded)"
      : *count_429_of(v) ? "429 answers included, as the SLO counts them"
                         : "429 answers included here, though the SLO does not count them";
  out +=
      "achieved/s: responses of any status per second of the level's measured span; "
      "goodput/s: successful requests per second of it, what the verdicts, best sustained and "
      "the peak are judged on. ";
  if (flows) {
    out += arrivals ? "target/s and arrivals/s count arrivals, one pick of the mix each (a flow "
                      "is one arrival of several requests); achieved/s and goodput/s count "
                      "requests. "
                    : "achieved/s and goodput/s count requests. ";
    out +=
        "flows/s: flows that ended per second; flow success: share of finished flows that "
        "succeeded. ";
  }
  out += "errors: share of the requests that ended (started and finished) that failed, " +
         errors_note +
         ". 429: share of them answered 429. never started: share of the arrivals offered (each a "
         "request or a whole flow) that never started. throttled: share of the server's CPU "
         "periods throttled. gain: goodput against the level before, \"flat\" inside the " +
         noise_floor_words(v) + " noise floor. " + kDash + ": not measured" +
         (loop_of(v) == "closed" ? " (target/s: a closed loop has no target rate)." : ".");
  if (any_busy) out += " (busy): the generator used 80% or more of its cores in this level.";
  if (!slo_columns.empty()) {
    std::vector<std::string> names;
    for (size_t k : slo_columns) names.push_back(v.analysis->slo.bounds[k].metric.text());
    out += " " + list_text(names) + ": the SLO's " + (names.size() == 1 ? "term" : "terms") +
           " as judged at each level (the worst of its runs).";
  }
  if (host) {
    out +=
        " host load: the host's highest 1-minute load average in the level; host busy: the "
        "share of all its cores busy, mean over the level";
    out += any_saturated ? fmt::format(
                               " (saturated: {} or more, so whatever shares the host "
                               "may have been held back).",
                               percent_text(analyze::kHostSaturatedShare, 0))
                         : ".";
  }
  out += "\n\n";
  if (const std::string sources = server_sources_text(v); !sources.empty()) {
    out += sources + "\n\n";
  }
  if (repeated) {
    out += fmt::format(
        "Each row is the mean over the level's runs (up to {}; requests: the sum). The SLO is "
        "judged on every run, so a level can fail with a mean inside a bound (Findings gives the "
        "worst run). CV: run-to-run variation, standard deviation over mean.\n\n",
        runs_per_level(v));
  }
  return out;
}

}  // namespace proofload::report::ladder
