// A comparison's summary.md and cells.csv (see compare_report.h).
#include "report/compare_report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "report/csv_fields.h"
#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report {
namespace {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
using analyze::CompareVerdict;
using result::CompareResult;

constexpr const char* kTitle = "# Compare: is B faster than A?\n\n";

bool is_throughput(const CompareResult& r) { return r.analysis.metric == "throughput"; }

// The metric as a column heading: "p50 ms", "throughput /s", "CPU ms per request".
std::string metric_heading(const CompareResult& r) {
  const std::string& m = r.analysis.metric;
  if (m == "throughput") return "throughput /s";
  if (m == "cpu_per_request") return "server CPU ms / request";
  return m + " ms";
}

// The metric in words: "p50 latency", "throughput", "server CPU per request".
std::string metric_words(const CompareResult& r) {
  const std::string& m = r.analysis.metric;
  if (m == "throughput") return "throughput (responses per second)";
  if (m == "cpu_per_request") return "server CPU per request (from an observer)";
  return m + " latency (from the intended start)";
}

std::string value_text(const CompareResult& r, const std::optional<double>& v) {
  if (!v) return std::string(kNotMeasured);
  if (is_throughput(r)) return rate_number(*v);
  return fixed(*v, ms_decimals(*v));
}

// A value with its unit, for sentences: "4.1 ms", "2,066/s".
std::string value_with_unit(const CompareResult& r, const std::optional<double>& v) {
  if (!v) return "not measured";
  return value_text(r, v) + (is_throughput(r) ? "/s" : " ms");
}

std::string ratio_text(const std::optional<double>& ratio) {
  return ratio ? fixed(*ratio, 3) : std::string(kNotMeasured);
}

std::string check_label(const CompareVerdict& v) {
  return v.condition.empty() ? v.name : v.name + " (" + v.condition + ")";
}

std::string errors_text(int64_t errors, int64_t requests) {
  if (requests == 0) return errors == 0 ? std::string(kNotMeasured) : count_text(errors);
  return fmt::format("{} of {}", count_text(static_cast<double>(errors)),
                     count_text(static_cast<double>(requests)));
}

int64_t side_total(const CompareResult& r, const std::string& side, bool errors) {
  int64_t total = 0;
  for (const result::CompareRun& run : r.runs) {
    if (run.side == side) total += errors ? run.errors : run.requests;
  }
  return total;
}

size_t runs_without_value(const CompareResult& r) {
  return static_cast<size_t>(std::count_if(r.runs.begin(), r.runs.end(),
                                           [](const auto& run) { return !run.value; }));
}

std::string load_words(const result::CompareSettings& s) {
  std::string load = s.rate_per_s ? "at " + rate_text(*s.rate_per_s) + " (open loop)"
                                  : fmt::format("with {} connection{} (closed loop)",
                                                s.connections.value_or(0),
                                                s.connections.value_or(0) == 1 ? "" : "s");
  return fmt::format("{} {}", seconds_text(s.duration_s), load);
}

void title_and_scope(std::string& out, const CompareResult& r) {
  const result::CompareSettings& s = r.settings;
  out += kTitle;
  if (s.mode == "hooks") {
    out += fmt::format("A and B: {}, switched by hooks ({} for A, {} for B).", inline_code(s.a),
                       "`--a-apply`", "`--b-apply`");
  } else {
    out += fmt::format("A: {}. B: {}.", inline_code(s.a), inline_code(s.b));
  }
  if (s.a_a) {
    out += " An A/A comparison: both sides are the same, so every difference it finds is the "
           "matrix's noise.";
  }
  if (s.mode == "recorded") {
    out += " Judged again from recorded runs: nothing was sent.";
  } else {
    if (!s.matrix_file.empty()) out += " Matrix " + inline_code(s.matrix_file) + ".";
    out += fmt::format(" Each cell ran {} times a side, {}", s.repeat, load_words(s));
    if (s.cold_requests) {
      out += fmt::format("; a cold cell its first {} request{} after the reset", *s.cold_requests,
                         *s.cold_requests == 1 ? "" : "s");
    }
    if (std::find(s.conditions.begin(), s.conditions.end(), "warm") != s.conditions.end()) {
      out += fmt::format("; a warm cell after a {} warm-up pass", seconds_text(s.warmup_s));
    }
    out += ". Order: " + s.order + ".";
  }
  out += fmt::format(" Metric: {}.\n", metric_words(r));
  out += fmt::format("Started {}, proofload {}.",
                     r.started_at.empty() ? "at a time not recorded" : r.started_at,
                     r.proofload_version);
  if (r.status != "complete") {
    out += fmt::format(" Ended {}: {}.", r.status,
                       r.end_reason.empty() ? "no reason recorded" : r.end_reason);
  }
  out += "\n\n";
}

// Whether the cold checks' figure is of cold requests: "" without a cold check or for a rate.
std::string cold_answer(const CompareResult& r) {
  if (!r.analysis.cold_warning.empty()) return "No: " + r.analysis.cold_warning + ".";
  int64_t most = 0;
  bool any = false;
  for (const CompareVerdict& v : r.analysis.checks) {
    if (!analyze::is_cold_condition(v.condition)) continue;
    any = true;
    most = std::max(most, v.requests_per_run);
  }
  // Checks exist only as analyze_compare judged them, under a metric it named.
  if (!any || most == 0 ||
      !analyze::first_request_decides_up_to(analyze::parse_compare_metric(r.analysis.metric))) {
    return "";
  }
  return fmt::format(
      "Yes: a cold run sent at most {} request{} after its reset, few enough for "
      "its slowest (the first, surely cold) to be its {}",
      count_text(static_cast<double>(most)), most == 1 ? "" : "s", r.analysis.metric);
}

void short_version(std::string& out, const CompareResult& r) {
  const analyze::CompareAnalysis& a = r.analysis;
  out += "## The short version\n\n| Question | Answer | Evidence |\n| --- | --- | --- |\n";
  out += table_row({"Is B faster than A?",
                    a.checks.empty() ? std::string("not judged: no cell ran")
                                     : table_cell(a.headline.text),
                    fmt::format("{} runs; the Checks table", r.runs.size())});
  if (!a.by_condition.empty()) {
    std::vector<std::string> each;
    for (const auto& [condition, counts] : a.by_condition) {
      std::string text = counts.text;
      if (text.starts_with("B ")) text = text.substr(2);
      each.push_back(condition + ": " + text);
    }
    out += table_row({"By condition", table_cell(fmt::format("{}", fmt::join(each, "; "))),
                      "the checks of each condition"});
  }
  if (const std::string cold = cold_answer(r); !cold.empty()) {
    out += table_row({"Were the cold checks cold?", table_cell(cold),
                      "requests a cold run sent after its reset"});
  }
  out += table_row({"How was it judged?", table_cell(capitalized(a.statistic)),
                    "the noise column"});
  out += table_row(
      {"Errors and incomplete answers",
       fmt::format("A: {}; B: {}",
                   errors_text(side_total(r, "a", true), side_total(r, "a", false)),
                   errors_text(side_total(r, "b", true), side_total(r, "b", false))),
       "requests of every run, per side"});
  out += "\n";
}

void checks_section(std::string& out, const CompareResult& r) {
  out += "## Checks\n\n";
  if (r.analysis.checks.empty()) {
    out += "No cell ran.\n\n";
    return;
  }
  const std::string heading = metric_heading(r);
  out += fmt::format(
      "A and B are the medians of each side's repeats; noise is what |B/A − 1| had to exceed "
      "(the larger of the minimum effect and the spread of either side's repeats).\n\n"
      "| check | condition | A {} | B {} | B/A | noise | verdict | A errors | B errors |\n"
      "| --- | --- | ---: | ---: | ---: | ---: | --- | ---: | ---: |\n",
      heading, heading);
  for (const CompareVerdict& v : r.analysis.checks) {
    out += table_row({table_cell(v.name), v.condition.empty() ? "–" : table_cell(v.condition),
                      value_text(r, v.a), value_text(r, v.b), ratio_text(v.ratio),
                      percent_text(v.noise, 1), v.verdict, errors_text(v.a_errors, v.a_requests),
                      errors_text(v.b_errors, v.b_requests)});
  }
  out += "\n";
}

void findings(std::string& out, const CompareResult& r) {
  out += "## Findings\n\n";
  std::vector<std::string> level;
  for (const CompareVerdict& v : r.analysis.checks) {
    if (v.verdict == analyze::kFaster || v.verdict == analyze::kSlower) {
      out += fmt::format("- {}: B {} ({} against {}): {}.\n", check_label(v), v.verdict,
                         value_with_unit(r, v.b), value_with_unit(r, v.a), v.reason);
    } else if (v.verdict == analyze::kLevel) {
      level.push_back(check_label(v));
    } else {
      out += fmt::format("- {}: not judged: {}.\n", check_label(v), v.reason);
    }
  }
  if (!level.empty()) {
    out += fmt::format("- Level on {}: each difference inside its noise; not a finding either "
                       "way.\n",
                       list_text(level));
  }
  for (const CompareVerdict& v : r.analysis.checks) {
    if (v.a_errors == 0 && v.b_errors == 0) continue;
    out += fmt::format(
        "- {} had errors or incomplete answers (A {}, B {}): its {} is of the answers that "
        "came, and the errors are part of the comparison too.\n",
        check_label(v), errors_text(v.a_errors, v.a_requests),
        errors_text(v.b_errors, v.b_requests), r.analysis.metric);
  }
  if (const size_t missing = runs_without_value(r); missing > 0) {
    out += fmt::format("- {} of {} runs measured nothing (cut short, failed, or no answer): "
                       "they are not repeats.\n",
                       missing, r.runs.size());
  }
  out += "\n";
}

void not_shown(std::string& out, const CompareResult& r) {
  const result::CompareSettings& s = r.settings;
  out += "## What this does not show\n\n";
  std::vector<std::string> lines;
  lines.push_back(fmt::format(
      "{} repeats a cell give a rough measure of the noise: a difference smaller than its noise "
      "column is not shown to be absent, only not shown.",
      s.repeat));
  lines.push_back(
      "Every run came from one generator on one machine: a difference that needs more load, "
      "other clients or another network to appear is not tested.");
  const bool cold = std::find(s.conditions.begin(), s.conditions.end(), "cold") != s.conditions.end();
  const bool warm = std::find(s.conditions.begin(), s.conditions.end(), "warm") != s.conditions.end();
  if (warm) {
    lines.push_back("Warm checks measure with caches filled by their warm-up pass: they say "
                    "nothing of a cache's misses.");
  }
  if (cold) {
    lines.push_back("Cold checks are as cold as the --reset hook makes them: what it does not "
                    "clear was warm.");
  }
  if (!r.analysis.cold_warning.empty()) lines.push_back(capitalized(r.analysis.cold_warning) + ".");
  if (!cold && !warm && s.mode != "recorded") {
    lines.push_back("No cold or warm condition was asked for: whatever the earlier runs left in "
                    "caches was there.");
  }
  if (!s.rate_per_s && s.mode != "recorded") {
    lines.push_back("Closed loop: latency at the load each side accepted, which may differ "
                    "between A and B; an open-loop `rate` in the matrix compares at one arrival "
                    "rate.");
  }
  if (r.analysis.metric == "cpu_per_request") {
    lines.push_back("CPU per request is the server's CPU over its answers, from the observer; a "
                    "run without a server observer has none and is not judged.");
  }
  for (const std::string& line : lines) out += "- " + line + "\n";
  out += "\n";
}

}  // namespace

std::string render_compare_summary(const CompareResult& r) {
  std::string out;
  title_and_scope(out, r);
  short_version(out, r);
  checks_section(out, r);
  findings(out, r);
  not_shown(out, r);
  out += "## Reproduce\n\n";
  out += command_block(r.command_line);
  out += "Judge again from the recorded runs: `proofload report DIR`, or "
         "`proofload compare --a DIR/a --b DIR/b` (with another `--metric` or `--min-effect` "
         "if wanted).\n";
  return out;
}

std::string render_compare_csv(const CompareResult& r) {
  std::string out = "side,check,condition,repeat,value,requests,errors,status,directory\n";
  for (const result::CompareRun& run : r.runs) {
    out += fmt::format("{},{},{},{},{},{},{},{},{}\n", run.side, csv_text(run.check),
                       csv_text(run.condition), run.repeat, csv_number(run.value), run.requests,
                       run.errors, csv_text(run.status), csv_text(run.directory));
  }
  return out;
}

}  // namespace proofload::report
