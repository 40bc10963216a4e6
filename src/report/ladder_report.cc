// summary.md and levels.csv of a ladder, from its result.json (see ladder_report.h). The short
// version and the closing sections are here; the title and scope are in ladder_header.cc, the
// levels table in ladder_levels.cc, findings and limits in ladder_sections.cc. Every figure is read from the
// result; none is recomputed in a way that could disagree with the analysis.
#include "report/ladder_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/ladder_sections.h"
#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report {
namespace {

using namespace ladder;    // the ladder report's facts and sections
using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)

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
