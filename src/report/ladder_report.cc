// summary.md and levels.csv of a ladder, from its result.json (see ladder_report.h). The short
// version, the levels table and the closing sections are here; the title and scope are in
// ladder_header.cc, findings and limits in ladder_sections.cc. Every figure is read from the
// result; none is recomputed in a way that could disagree with the analysis.
#include "report/ladder_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/ladder_sections.h"
#include "report/ladder_text.h"

namespace proofload::report {
namespace {

using namespace ladder;

const std::string kDash(kNotMeasured);

// ---- The short version ----

std::string levels_span(const LadderResult& v, double from) {
  const double last = levels_of(v).back().level;
  if (last == from) return source_word(v) + ", level " + level_text(from);
  return source_word(v) + ", levels " + level_text(from) + "–" + level_text(last);
}

std::vector<std::string> buckle_row(const LadderResult& v) {
  const LevelAnalysis& last = levels_of(v).back();
  const LevelAnalysis* knee = knee_of(v);
  if (knee == nullptr) {
    std::string answer;
    if (levels_of(v).size() == 1) {
      answer = "Not reached: only one level was tested (" + rate_text(last.goodput_rps) +
               " at level " + level_text(last.level) + ")";
    } else if (last.gain && noise_floor_of(v) && *last.gain >= *noise_floor_of(v)) {
      answer = "Not reached: goodput still grew at the highest level tested (" +
               rate_text(last.goodput_rps) + " at level " + level_text(last.level) + ")";
    } else {
      answer = "Not reached within the levels tested: the highest, level " +
               level_text(last.level) + ", gave " + rate_text(last.goodput_rps) +
               (last.gain_text.empty() ? "" : " (" + last.gain_text + ")");
    }
    return {"Where does it buckle?", answer, source_word(v) + ", all levels"};
  }
  std::string answer =
      "About " + rate_text(knee->goodput_rps) + " at level " + level_text(knee->level) + " — " +
      (v.analysis->knee_reason.empty() ? "reason not recorded" : v.analysis->knee_reason);
  if (knee->server_cores && knee->server_cpu_bound) {
    answer += "; CPU-bound there: the server used " + cpu_of_limit_text(*knee);
  } else if (knee->server_cores) {
    answer += "; the server used " + cores_text(*knee->server_cores) + " cores there";
  } else {
    answer += "; server CPU not measured";
  }
  return {"Where does it buckle?", answer, levels_span(v, knee->level)};
}

std::vector<std::string> best_row(const LadderResult& v) {
  const std::string question = "Best sustained within the SLO (" + slo_words(v) + ")?";
  if (const LevelAnalysis* best = best_of(v)) {
    const std::string answer =
        v.analysis->best_sustained_text.empty()
            ? rate_text(best_of(v)->achieved_rps) + " at level " + level_text(best_of(v)->level)
            : v.analysis->best_sustained_text;
    std::string evidence = "level " + level_text(best_of(v)->level);
    if (!best->slo.empty()) evidence += ": " + bounds_text(*best);
    return {question, answer, evidence};
  }
  const LevelAnalysis& lowest = levels_of(v).front();
  const std::string answer = "None: " + (v.analysis->best_sustained_text.empty()
                                             ? std::string("no level met the SLO")
                                             : without_none(v.analysis->best_sustained_text));
  std::string evidence = "level " + level_text(lowest.level);
  if (const std::string failed = failed_bounds_text(lowest); !failed.empty()) {
    evidence += ": " + failed;
  }
  return {question, answer, evidence};
}

std::vector<std::string> search_row(const LadderResult& v) {
  const result::SearchRecord& s = *v.search;
  std::string answer;
  if (!s.found_rps) {
    answer = "None found";
  } else {
    const std::optional<double> confirm_s = confirming_run_s(v);
    const std::string run =
        confirm_s ? "the " + seconds_text(*confirm_s) + " confirming run" : "the confirming run";
    answer = rate_text(*s.found_rps) + ", " +
             (s.confirmed ? "confirmed: " + run + " at that rate held the SLO"
                          : "NOT confirmed: " + run + " at that rate broke the SLO");
  }
  std::string evidence = fmt::format("{} search steps", s.steps.size());
  if (!s.end_reason.empty()) evidence += "; " + s.end_reason;
  return {"Highest rate within the SLO (search)", answer, evidence};
}

std::vector<std::string> operating_row(const LadderResult& v) {
  if (!v.analysis->operating_target_rps) {
    return {"Recommended operating target",
            "None: " + (v.analysis->operating_basis.empty()
                            ? std::string("not recorded")
                            : without_none(v.analysis->operating_basis)),
            "level " + level_text(levels_of(v).front().level)};
  }
  std::string answer = "≤ " + rate_text(*v.analysis->operating_target_rps);
  if (!v.analysis->operating_basis.empty()) answer += " (" + v.analysis->operating_basis + ")";
  if (const std::string warning = operating_warning(v); !warning.empty()) answer += ". " + warning;
  const std::string evidence =
      knee_of(v) != nullptr ? "knee at level " + level_text(knee_of(v)->level)
                            : "highest level tested, " + level_text(levels_of(v).back().level);
  return {"Recommended operating target", answer, evidence};
}

std::vector<std::string> daily_row(const LadderResult& v) {
  const std::vector<std::string> parts = daily_parts(v);
  if (parts.empty()) {
    return {"Daily capacity", "Not computed: no operating target and no level within the SLO", "–"};
  }
  return {"Daily capacity", list_text(parts), daily_rule_text(v)};
}

// The mix's plateau, and each named request's when a scenario has several (a mix can gain while
// one of its requests is flat at a limit).
std::vector<std::string> plateau_row(const LadderResult& v) {
  const std::string floor = noise_floor_words(v);
  std::string by_request = route_plateaus_text(v);
  if (!by_request.empty()) by_request = ". " + by_request;
  if (v.analysis->plateau_from) {
    const double from = levels_of(v)[*v.analysis->plateau_from].level;
    return {"Is throughput flat anywhere?",
            "Yes: from level " + level_text(from) + ", every later step gains less than the " +
                floor + " noise floor" + by_request,
            "step gains, levels " + level_text(from) + "–" + level_text(levels_of(v).back().level)};
  }
  if (levels_of(v).size() < 2) {
    return {"Is throughput flat anywhere?", "No plateau: only one level was tested", "–"};
  }
  const LevelAnalysis& last = levels_of(v).back();
  return {"Is throughput flat anywhere?",
          "No plateau: the last step still gains " +
              (last.gain_text.empty() ? std::string("(not recorded)") : last.gain_text) +
              by_request,
          "level " + level_text(last.level)};
}

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

std::vector<std::string> generator_row(const LadderResult& v) {
  const std::string question = "Was the generator the limit?";
  const std::string evidence =
      v.kind == "analyze" ? "the table's generator CPU" : "the generator's own CPU (observer self)";
  std::vector<double> busy;
  const LevelAnalysis* peak = nullptr;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (l.generator_busy) busy.push_back(l.level);
    if (l.generator_cores && (peak == nullptr || *l.generator_cores > *peak->generator_cores)) {
      peak = &l;
    }
  }
  // The host's CPU, all cores: saturated, it held back whatever shares it, generator included.
  std::vector<double> saturated;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (analyze::host_saturated(l.host_cpu_busy)) saturated.push_back(l.level);
  }
  const std::string host =
      saturated.empty()
          ? ""
          : "; the host's CPU was saturated (" + percent_text(analyze::kHostSaturatedShare, 0) +
                " or more of all its cores busy) at " +
                (saturated.size() == 1 ? "level " : "levels ") + levels_text(saturated) +
                ": there the host, shared by the generator and any server on it, may have been "
                "the limit";
  const std::string host_evidence = saturated.empty() ? "" : "; the host's CPU (observer host)";
  if (!busy.empty()) {
    return {question,
            "Possibly: it used 80% or more of its cores at level " + levels_text(busy) +
                "; there it, not the server, may have been the limit" + host,
            evidence + host_evidence};
  }
  if (peak == nullptr) {
    if (!saturated.empty()) {
      return {question, "Possibly: no generator CPU in the data" + host, host_evidence.substr(2)};
    }
    return {question, "Not measured: no generator CPU in the data", "–"};
  }
  if (!saturated.empty()) {
    return {question,
            "Possibly: it used at most " + cores_text(*peak->generator_cores) +
                " cores and was never busy (80% of its cores), but" + host.substr(1),
            evidence + host_evidence};
  }
  return {question,
          "No: it used at most " + cores_text(*peak->generator_cores) + " cores (level " +
              level_text(peak->level) + ") and was never busy (80% of its cores)",
          evidence};
}

std::string short_version(const LadderResult& v) {
  std::string out = "## The short version\n\n";
  out += table_row({"Question", "Answer", "Evidence"});
  out += table_row({"---", "---", "---"});
  std::vector<std::vector<std::string>> rows = {buckle_row(v), best_row(v)};
  if (v.kind == "search" && v.search) rows.push_back(search_row(v));
  if (v.ci_bar && v.ci_bar->passed) {
    rows.push_back({"Did it pass the CI bar?",
                    *v.ci_bar->passed ? "Yes" : "No: " + v.ci_bar->reason + " (exit code 99)",
                    "--fail-if-none / --fail-below"});
  }
  rows.push_back(operating_row(v));
  rows.push_back(daily_row(v));
  rows.push_back(plateau_row(v));
  rows.push_back(generator_row(v));
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const std::string& cell : row) cells.push_back(table_cell(cell));
    out += table_row(cells);
  }
  return out + "\n";
}

// ---- The levels table ----

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

std::string gain_cell(const LevelAnalysis& level) {
  if (!level.gain) return kDash;
  // The gain's own text was printed so as not to contradict flat/grows; take its number.
  std::string number = level.gain_text.substr(0, level.gain_text.find(':'));
  if (number.empty()) number = (*level.gain < 0 ? "" : "+") + fixed(*level.gain * 100, 1) + "%";
  if (level.gain_text.find("flat") != std::string::npos) return number + " flat";
  return number;
}

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
    cells.push_back(gain_cell(l));
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

// ---- Between levels, search steps, reproduce ----

std::string event_level(const LadderResult& v, const result::Event& e) {
  if (!e.level) return e.kind == "precheck" ? "before the first level" : kDash;
  std::string out = level_text(*e.level);
  if (e.repeat && runs_per_level(v) > 1) out += " (run " + level_text(*e.repeat) + ")";
  return out;
}

std::string event_what(const result::Event& e) {
  if (e.kind == "drain") return "drain gate";
  if (e.kind == "precheck") return "pre-check";
  if (e.kind == "hook") return (e.name.empty() ? std::string("a") : e.name) + " hook";
  return e.name.empty() ? e.kind : e.name;
}

std::string event_result(const result::Event& e) {
  std::string status = !e.ok         ? "not recorded"
                       : e.timed_out ? "TIMED OUT"
                       : *e.ok       ? (e.kind == "drain" ? "ready" : "ok")
                                     : "FAILED";
  return e.detail.empty() ? status : status + ": " + e.detail;
}

std::string between_levels(const LadderResult& v) {
  if (v.events.empty()) return "";
  std::string out = "## Between levels\n\n";
  out += table_row({"level", "what", "command", "took", "result", "output file"});
  out += table_row({"---:", "---", "---", "---", "---", "---"});
  int drains = 0;
  double drain_total_s = 0;
  const result::Event* longest = nullptr;
  for (const result::Event& e : v.events) {
    std::string took = e.duration_s ? seconds_text(*e.duration_s) : kDash;
    if (e.kind == "drain" && e.duration_s) {
      took = "waited " + seconds_text(*e.duration_s) + " for the drain gate";
      ++drains;
      drain_total_s += *e.duration_s;
      if (longest == nullptr || *e.duration_s > *longest->duration_s) longest = &e;
    }
    out += table_row({event_level(v, e), event_what(e),
                      e.command.empty() ? kDash : table_cell(inline_code(e.command)), took,
                      table_cell(event_result(e)),
                      e.output_file.empty() ? kDash : table_cell(inline_code(e.output_file))});
  }
  out += "\n";
  if (drains > 0) {
    out += fmt::format(
        "The drain gate was waited on {} {}, {} in all; the longest wait was {} before "
        "level {}.\n\n",
        drains, drains == 1 ? "time" : "times", seconds_text(drain_total_s),
        seconds_text(*longest->duration_s), event_level(v, *longest));
  }
  return out;
}

std::string search_steps(const LadderResult& v) {
  if (v.kind != "search" || !v.search) return "";
  const result::SearchRecord& s = *v.search;
  std::string out = "## Search steps\n\n";
  out += table_row({"step", "phase", "rate/s", "passed", "achieved/s", "goodput/s", "p95 ms"});
  out += table_row({"---:", "---", "---:", "---", "---:", "---:", "---:"});
  for (size_t i = 0; i < s.steps.size(); ++i) {
    const result::SearchStep& step = s.steps[i];
    const analyze::LevelRow* row =
        step.row && *step.row < v.rows.size() ? &v.rows[*step.row].figures : nullptr;
    out += table_row(
        {std::to_string(i + 1), step.phase.empty() ? kDash : step.phase, level_text(step.rate_rps),
         step.passed ? "yes" : "no", row != nullptr ? rate_number(row->achieved_rps) : kDash,
         row != nullptr && row->goodput_rps ? rate_number(*row->goodput_rps) : kDash,
         row != nullptr && row->p95_ms ? fixed(*row->p95_ms, ms_decimals(*row->p95_ms)) : kDash});
  }
  out +=
      "\nThe search ended: " + (s.end_reason.empty() ? "reason not recorded" : s.end_reason) + ".";
  if (s.found_rps) {
    out += " Found " + rate_text(*s.found_rps) + "; the confirming run " +
           (s.confirmed ? "held the SLO." : "broke the SLO, so that rate is not confirmed.");
  } else {
    out += " No rate held the SLO.";
  }
  return out + "\n\n";
}

// "level 200, run 2"; in a search, "step 8 (confirm, 325/s)".
std::string row_label(const LadderResult& v, size_t row) {
  if (v.search) {
    const std::vector<result::SearchStep>& steps = v.search->steps;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (steps[i].row == row) {
        return fmt::format("step {} ({}, {}/s)", i + 1, steps[i].phase,
                           level_text(steps[i].rate_rps));
      }
    }
  }
  const analyze::LevelRow& figures = v.rows[row].figures;
  std::string label = "level " + level_text(figures.level);
  if (runs_per_level(v) > 1) label += ", run " + std::to_string(figures.repeat);
  return label;
}

std::string reproduce(const LadderResult& v) {
  std::string out = "## Reproduce\n\n" + command_block(v.command_line);
  if (!v.source.scenario_file.empty() || !v.source.scenario_sha256.empty()) {
    out += "Scenario " +
           (v.source.scenario_file.empty() ? "file" : inline_code(v.source.scenario_file)) +
           ": sha256 " +
           (v.source.scenario_sha256.empty() ? "not recorded"
                                             : inline_code(v.source.scenario_sha256)) +
           ".\n\n";
  }
  if (!v.source.table_file.empty() || !v.source.table_sha256.empty()) {
    out += "Table " + (v.source.table_file.empty() ? "file" : inline_code(v.source.table_file)) +
           ": sha256 " +
           (v.source.table_sha256.empty() ? "not recorded" : inline_code(v.source.table_sha256)) +
           ".\n\n";
  }
  out += "Re-render this report from the recorded data: `proofload report DIR`.\n\n";
  std::string directories;
  for (size_t i = 0; i < v.rows.size(); ++i) {
    const result::LadderRow& row = v.rows[i];
    if (row.directory.empty()) continue;
    directories += "- " + row_label(v, i) + ": " + inline_code(row.directory) + "\n";
  }
  if (!directories.empty()) {
    out +=
        "Each level's own run (summary.md, result.json, windows.csv, latency.hlog), under "
        "DIR:\n\n" +
        directories;
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace

std::string render_ladder_summary(const result::LadderResult& v) {
  if (!v.analysis) {
    // Nothing to judge yet: say why, and what ran before it ended.
    const std::string why = v.end_reason.empty() ? "the ladder is still running" : v.end_reason;
    return header_section(v) + "## The short version\n\nNo level was measured: " + why +
           ". Nothing here says anything about the service's capacity.\n\n" + between_levels(v) +
           reproduce(v);
  }
  return header_section(v) + short_version(v) + levels_table(v) + streams_by_level(v) +
         routes_by_level(v) + findings_section(v) + limits_section(v) + between_levels(v) +
         search_steps(v) + reproduce(v);
}

std::string render_ladder_summary(const nlohmann::json& result) {
  return render_ladder_summary(result::ladder_from_json(result));
}

}  // namespace proofload::report
