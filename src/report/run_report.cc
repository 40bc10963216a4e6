// summary.md of one run, from its result.json (see run_report.h). Every figure is read from the
// result as recorded; the only arithmetic is a share's denominator (the started requests, from the
// outcomes) and a sum of named requests for the mix's shares. Numbers are written as every report
// writes them (words/numbers.h, markdown_text.h), so that all read alike. The title, the short
// version, how to reproduce it and an observation's summary are here; the tables and what this
// does not show are in run_sections.cc.
#include "report/run_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/drawn_windows.h"
#include "report/html/pages.h"
#include "report/markdown_text.h"
#include "report/numbers.h"
#include "report/run_sections.h"
#include "report/segment_section.h"
#include "result/recorded_json.h"
#include "result/run_record.h"
#include "words/numbers.h"

namespace proofload::report {
namespace {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
using namespace run;

const std::string kDash(kNotMeasured);

std::string rows_text(const std::vector<std::vector<std::string>>& rows) {
  std::string out;
  for (const auto& row : rows) {
    std::vector<std::string> cells;
    for (const std::string& cell : row) cells.push_back(table_cell(cell));
    out += table_row(cells);
  }
  return out;
}

// ---- Title and scope ----

// The recorded scenario's file ("" when not recorded), its named requests and flows (nullopt: not
// recorded) and the seed its draws used.
std::string scenario_file(const RunRecord& v) {
  return v.spec.scenario ? v.spec.scenario->file.value_or("") : "";
}
std::optional<size_t> scenario_requests(const RunRecord& v) {
  if (!v.spec.scenario || !v.spec.scenario->requests) return std::nullopt;
  return v.spec.scenario->requests->size();
}
std::optional<size_t> scenario_flows(const RunRecord& v) {
  if (!v.spec.scenario || !v.spec.scenario->flows) return std::nullopt;
  return v.spec.scenario->flows->size();
}
std::optional<uint64_t> seed_of(const RunRecord& v) {
  return v.spec.scenario ? v.spec.scenario->seed.get() : std::nullopt;
}

bool is_scenario(const RunRecord& v) {
  return !scenario_file(v).empty() || scenario_requests(v).has_value();
}

std::string stages_text(const RunRecord& v) {
  std::vector<std::string> items;
  for (const auto& [duration_s, target] : stages_of(v)) {
    items.push_back(seconds_text(duration_s) + " to " + level_text(target));
  }
  return list_text(items);
}

std::string load_words(const RunRecord& v) {
  if (executor_of(v) == "closed_loop") {
    if (!stages_of(v).empty()) {
      return "Closed loop: connections ramped by stages (linear, from 0) " + stages_text(v);
    }
    if (!v.spec.connections) return "Closed loop: the number of connections is not recorded";
    return "Closed loop: " + plural(*v.spec.connections, "connection", "connections") +
           ", each sending its next request when the answer to the last one arrives";
  }
  if (executor_of(v) == "open_loop") {
    const std::string unit =
        is_scenario(v) ? "arrivals/s (each one pick of the mix)" : "requests/s";
    std::string out = "Open loop: ";
    if (!stages_of(v).empty()) {
      out += "the arrival rate ramped by stages (linear, from 0) " + stages_text(v) + " " + unit;
    } else if (v.spec.rate_per_s) {
      out += level_text(*v.spec.rate_per_s) + " " + unit +
             " on schedule, whether or not earlier ones had finished";
    } else {
      out += "the rate is not recorded";
    }
    if (v.spec.connections) {
      out +=
          ", over " + plural(*v.spec.connections, "connection", "connections") + " opened up front";
      if (v.spec.max_connections && *v.spec.max_connections > *v.spec.connections) {
        out += " (at most " + count_text(*v.spec.max_connections) + ")";
      }
    }
    return out;
  }
  return executor_of(v).empty() ? "Executor not recorded" : "Executor " + executor_of(v);
}

std::string load_length_words(const RunRecord& v) {
  std::string out;
  if (v.spec.duration_s && v.spec.requests_limit) {
    out = "for up to " + seconds_text(*v.spec.duration_s) + " or " +
          count_text(*v.spec.requests_limit) + " requests, whichever came first";
  } else if (v.spec.duration_s) {
    out = "for " + seconds_text(*v.spec.duration_s);
  } else if (v.spec.requests_limit) {
    out = "until " + count_text(*v.spec.requests_limit) + " requests";
  } else {
    out = "duration not recorded";
  }
  if (!v.spec.warmup_s) return out + " (warm-up not recorded)";
  if (*v.spec.warmup_s == 0) return out + ", with no warm-up";
  const std::string warmup = seconds_text(*v.spec.warmup_s);
  if (!stages_of(v).empty()) {
    return out + ", the first " + warmup + " of it a warm-up (recorded apart, not in the figures)";
  }
  return out + " after " + warmup + " of warm-up (recorded apart, not in the figures)";
}

std::string scenario_words(const RunRecord& v) {
  if (!is_scenario(v)) return "";
  const std::string file = scenario_file(v);
  std::string out =
      "Scenario " + (file.empty() ? std::string("file not recorded") : inline_code(file));
  std::vector<std::string> parts;
  if (const std::optional<size_t> requests = scenario_requests(v)) {
    parts.push_back(plural(static_cast<double>(*requests), "named request", "named requests"));
  }
  if (const std::optional<size_t> flows = scenario_flows(v); flows && *flows > 0) {
    parts.push_back(plural(static_cast<double>(*flows), "flow", "flows"));
  }
  if (!parts.empty()) out += ": " + list_text(parts);
  if (const std::optional<uint64_t> seed = seed_of(v)) {
    out += "; its random draws used seed " + std::to_string(*seed);
  }
  return out + ".\n\n";
}

std::string when_words(const RunRecord& v) {
  std::vector<std::string> parts;
  parts.push_back(v.started_at.empty() ? "Start time not recorded" : "Started " + v.started_at);
  parts.push_back(v.duration_s ? "measured " + seconds_text(*v.duration_s)
                               : "measured time not recorded");
  if (v.warmup_s && *v.warmup_s > 0) {
    parts.push_back(
        "warm-up " + seconds_text(*v.warmup_s) +
        (v.warmup_requests
             ? " (" + plural(*v.warmup_requests, "response", "responses") + ", not in the figures)"
             : " (not in the figures)"));
  }
  if (!v.end_reason.empty()) parts.push_back("ended: " + v.end_reason);
  parts.push_back(v.proofload_version.empty() ? "proofload version not recorded"
                                              : "proofload " + v.proofload_version);
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : "; ") + parts[i];
  return out + ".";
}

std::string status_notice(const RunRecord& v) {
  if (v.status == "complete") return "";
  return "**Not complete (" + v.status +
         ")**: " + (v.end_reason.empty() ? "no reason recorded" : v.end_reason) +
         ". Every figure below covers only the part that ran.\n\n";
}

std::string header_of(const RunRecord& v) {
  const std::string target = v.spec.target.value_or("");
  const std::string title = !target.empty()             ? target
                            : !scenario_file(v).empty() ? scenario_file(v)
                                                        : "target not recorded";
  return "# Run: " + title + "\n\n" + load_words(v) + "; " + load_length_words(v) + ".\n\n" +
         scenario_words(v) + when_words(v) + "\n\n" + segments_paragraph(v.segment, v.merged) +
         status_notice(v);
}

// ---- The short version ----

std::vector<std::string> carry_row(const RunRecord& v) {
  const std::string question = "How much did it carry?";
  std::string evidence =
      "responses (of any status) and successes that ended in the measured span, from the end of "
      "the warm-up to the end of the schedule, per second of it";
  if (v.span_extended) evidence += " (extended to the last response: every request began at once)";
  if (!v.throughput_rps) {
    return {question, "Not measured: no measured time recorded", evidence};
  }
  std::string answer = rps_number(v, "rps", *v.throughput_rps) + "/s";
  if (v.span_responses && v.duration_s) {
    answer += " (" + plural(*v.span_responses, "response", "responses") + " in the " +
              seconds_text(*v.duration_s) + " measured span)";
  }
  if (v.goodput_rps) answer += ", goodput " + rps_number(v, "goodput", *v.goodput_rps) + "/s";
  if (executor_of(v) == "open_loop" && stages_of(v).empty() && v.spec.rate_per_s) {
    answer += ", against " + level_text(*v.spec.rate_per_s) + "/s scheduled";
  }
  return {question, answer, evidence};
}

// Whether the server's CPU was its limit: its mean CPU against the most it could use.
std::optional<std::vector<std::string>> server_cpu_row(const RunRecord& v) {
  if (!v.server || !v.server->cpu_cores_mean) return std::nullopt;
  const ServerRecord& s = *v.server;
  const std::string question = "Was the server's CPU the limit?";
  const std::string used = cores_text(*s.cpu_cores_mean) + " cores mean";
  std::string evidence = "server CPU from " + cpu_sources_text(s);
  if (!s.cpu_limit_basis.empty()) evidence += "; its limit: " + s.cpu_limit_basis;
  if (!s.cpu_limit_cores) {
    return std::vector<std::string>{
        question,
        "Not shown: the server used " + used +
            ", and nothing observed says how many cores it could use (no threads, affinity or "
            "quota seen)",
        evidence};
  }
  const std::string limit = cores_text(*s.cpu_limit_cores);
  if (s.cpu_bound) {
    return std::vector<std::string>{question,
                                    "Yes: CPU-bound, it used " + used + " of the " + limit +
                                        " it could use (90% or more of it)",
                                    evidence};
  }
  return std::vector<std::string>{
      question, "No: it used " + used + " of the " + limit + " it could use", evidence};
}

std::vector<std::string> fast_row(const RunRecord& v) {
  const std::string question = "How fast?";
  if (!v.latency.p50) return {question, "Not measured: no response was received", kDash};
  std::string answer = "p50 " + ms_number(v, "p50", *v.latency.p50) + " ms";
  if (v.latency.p99) {
    answer += ", p99 " + ms_number(v, "p99", *v.latency.p99) + " ms";
    if (untrusted(v, kPercentiles[2])) answer += " (too few responses to trust)";
  }
  answer += ", from the intended start";
  std::string evidence = v.requests ? "latency of " + plural(*v.requests, "response", "responses")
                                    : std::string("latency");
  if (v.service_time.p50 && v.service_time.p99) {
    evidence += "; service time p50 " + ms_number(v, "", *v.service_time.p50) + " ms, p99 " +
                ms_number(v, "", *v.service_time.p99) + " ms";
  }
  return {question, answer, evidence};
}

std::vector<std::string> failed_row(const RunRecord& v) {
  const std::optional<double> started = v.started();
  std::string answer;
  if (v.error_rate) {
    answer = share_text(v, "errors", *v.error_rate) + " of started requests failed";
    if (v.errors && started) {
      answer += " (" + count_text(*v.errors) + " of " + count_text(*started) + ")";
    }
  } else if (started && *started == 0) {
    answer = "No request was started";
  } else {
    answer = "Errors not recorded";
  }
  const std::optional<int64_t> offered = v.arrivals ? v.arrivals : v.intended;
  // Files from before arrivals were recorded: their share was over the intended requests.
  const std::string noun = v.arrivals ? arrivals_noun(v.spec) : "intended requests";
  if (v.never_started && *v.never_started == 0 && offered && *offered > 0) {
    answer += v.arrivals ? "; every one of the " + count_text(*offered) + " " + noun +
                               " offered started"
                         : "; every intended request started (" + count_text(*offered) + " of " +
                               count_text(*offered) + ")";
  } else if (v.never_started_share) {
    answer += "; " + share_text(v, "never_started", *v.never_started_share) + " of " + noun +
              " offered never started";
    if (v.never_started && offered) {
      answer += " (" + count_text(*v.never_started) + " of " + count_text(*offered) + ")";
    }
  }
  if (const std::optional<int64_t> warm = v.warmup_errors(); warm && *warm > 0) {
    answer += "; and " + count_text(*warm) + " of the warm-up's " +
              count_text(v.warmup_ended().value_or(0)) +
              " requests failed, which these figures exclude";
  }
  std::vector<std::string> failures;
  for (const auto& [name, count] : v.outcomes) {
    if (name != "success" && name != "never_started" && count > 0) {
      failures.push_back(outcome_words(name) + ": " + count_text(count));
    }
  }
  const std::string evidence = v.outcomes.empty() ? kDash
                               : failures.empty() ? std::string("no failed outcome")
                                                  : "outcomes: " + list_text(failures);
  return {"How many failed?", answer, evidence};
}

std::vector<std::string> thresholds_row(const RunRecord& v) {
  const std::string question = "Did it meet its thresholds?";
  if (v.thresholds.empty()) {
    if (v.thresholds_passed == false) return {question, "No: recorded as failed", kDash};
    return {question, "None were set", kDash};
  }
  const std::vector<const ThresholdRecord*> failed = failed_thresholds(v);
  if (failed.empty() && v.thresholds_passed != false) {
    return {question,
            v.thresholds.size() == 1 ? "Yes: it passed"
                                     : fmt::format("Yes: all {} passed", v.thresholds.size()),
            "Thresholds"};
  }
  if (failed.empty()) {
    return {question, "No: recorded as failed, though no single threshold shows it", "Thresholds"};
  }
  std::vector<std::string> items;
  for (const ThresholdRecord* t : failed) {
    items.push_back(inline_code(t->expression) + " (" + observed_words(*t) +
                    (t->passed ? "" : ", verdict not recorded") + ")");
  }
  return {
      question,
      fmt::format("No: {} of {} failed: ", failed.size(), v.thresholds.size()) + list_text(items),
      "Thresholds (exit code 99)"};
}

std::vector<std::string> generator_row(const RunRecord& v) {
  const std::string question = "Was the generator the limit?";
  const SourceRecord* self = v.generator();
  if (self == nullptr) return {question, "Not measured: the generator was not observed", kDash};
  const std::string evidence = "the generator's own CPU (observer self), per window";
  if (v.busy_windows && !v.busy_windows->empty()) {
    return {question,
            "Possibly: it used 80% or more of its workers' cores in " +
                plural(static_cast<double>(v.busy_windows->size()), "measured window",
                       "measured windows") +
                " (" + windows_text(*v.busy_windows) +
                "); there it, not the server, may have been the limit",
            evidence};
  }
  const std::optional<double> max = self->value("cpu_cores_max");
  if (!v.busy_windows || !max) {
    return {question, "Not measured: the generator's CPU was not recorded", kDash};
  }
  std::string answer = "No: it used at most " + cores_text(*max) + " cores";
  if (const auto mean = self->value("cpu_cores_mean"))
    answer += " (" + cores_text(*mean) + " mean)";
  return {question, answer + " and was never busy (80% of its workers' cores) in a measured window",
          evidence};
}

std::vector<std::string> status_row(const RunRecord& v) {
  std::string evidence = "status " + v.status;
  if (v.duration_s && v.spec.duration_s) {
    evidence += "; measured " + seconds_text(*v.duration_s) + " of " +
                seconds_text(*v.spec.duration_s) + " planned";
  }
  return {"Did it run to the end?",
          "No (" + v.status + "): " + (v.end_reason.empty() ? "no reason recorded" : v.end_reason) +
              "; every figure covers only the part that ran",
          evidence};
}

std::string short_version(const RunRecord& v) {
  std::vector<std::vector<std::string>> rows = {carry_row(v), fast_row(v), failed_row(v),
                                                thresholds_row(v), generator_row(v)};
  if (auto server = server_cpu_row(v)) rows.push_back(*server);
  if (auto reconcile = reconcile_row(v)) rows.push_back(*reconcile);
  if (v.status != "complete") rows.push_back(status_row(v));
  return "## The short version\n\n" + table_row({"Question", "Answer", "Evidence"}) +
         table_row({"---", "---", "---"}) + rows_text(rows) + "\n";
}

// ---- Reproduce ----

std::string reproduce(const RunRecord& v) {
  std::string out = "## Reproduce\n\n" + command_block(v.command_line);
  if (const std::optional<uint64_t> seed = seed_of(v)) {
    out += "The scenario's random draws used seed " + std::to_string(*seed) + ": " +
           inline_code("--seed " + std::to_string(*seed)) + " repeats them.\n\n";
  }
  out += "Re-render this report from the recorded data: `proofload report DIR`. " +
         std::string(v.spec.observe_only()
                         ? "`windows.csv` holds the observers' figures window by window."
                         : "Window by window: `windows.csv` (a row per window) and "
                           "`latency.hlog` (each window's latency histogram, for "
                           "HdrHistogram's tools).") +
         "\n";
  return out;
}

// ---- `proofload observe`: no load was sent ----

std::string observation_summary(const RunRecord& v) {
  std::vector<std::string> specs;
  for (const std::string& spec : v.spec.observe.value_or(std::vector<std::string>())) {
    specs.push_back(inline_code(spec));
  }
  std::string out =
      "# Observation: " + (specs.empty() ? std::string("the generator itself") : list_text(specs)) +
      "\n\nNo load was sent: `proofload observe` watched these sources " +
      (v.spec.duration_s ? "for " + seconds_text(*v.spec.duration_s)
                         : std::string("(duration not recorded)")) +
      ".\n\n" + when_words(v) + "\n\n" + status_notice(v);
  int64_t lost = 0;
  std::vector<std::string> lossy;
  for (const SourceRecord& s : v.sources) {
    if (s.gaps && *s.gaps > 0) {
      lost += static_cast<int64_t>(*s.gaps);
      lossy.push_back(s.label);
    }
  }
  std::vector<std::vector<std::string>> rows = {
      {"Was load sent?", "No: observers only", "spec.command observe"},
      {"Were samples lost?",
       !v.observed_recorded ? "Not recorded"
       : lossy.empty()      ? "No: every sample of every source was taken"
                       : "Yes: " + count_text(static_cast<double>(lost)) + " samples failed (" +
                             list_text(lossy) + ")",
       !v.observed_recorded ? kDash : "samples and gaps per source"}};
  if (v.status != "complete") rows.push_back(status_row(v));
  out += "## The short version\n\n" + table_row({"Question", "Answer", "Evidence"}) +
         table_row({"---", "---", "---"}) + rows_text(rows) + "\n" + observed_table(v);
  std::vector<std::string> bullets = {
      "No load was sent by proofload: nothing here says how fast the service answered or how "
      "much it carried."};
  if (v.status != "complete") bullets.insert(bullets.begin(), status_limit(v));
  add_observer_limits(v, bullets);
  out += "## What this does not show\n\n";
  for (const std::string& b : bullets) out += "- " + b + "\n";
  return out + "\n" + reproduce(v);
}

}  // namespace

std::string render_run_summary(const nlohmann::json& result) {
  const RunRecord v = result::run_from_json(result);
  if (v.spec.observe_only()) return observation_summary(v);
  return header_of(v) + short_version(v) + latency_table(v) + outcomes_table(v) +
         connections_section(v) + streams_table(v) + reconcile_section(v) + named_table(v) +
         flows_table(v) +
         thresholds_table(v) +
         observed_table(v) + limits_section(v) + reproduce(v);
}

nlohmann::json parse_result_for_summary(std::istream& in) {
  // Returning false for the top-level key "windows" drops it and its value as they are read.
  const nlohmann::json::parser_callback_t without_windows =
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed == "windows");
      };
  return result::parse_recorded_json(in, without_windows);
}

RunForReport parse_result_for_report(std::istream& in) {
  // A window's keys are dropped as they are read (a key at depth 3 while inside the top-level
  // "windows") unless report.html draws it; each window, once read (an object ending at depth 2),
  // goes to `drawn` and out of the parsed array.
  bool in_windows = false;
  DrawnWindows drawn;
  const nlohmann::json::parser_callback_t thin_windows =
      [&in_windows, &drawn](int depth, nlohmann::json::parse_event_t event,
                            nlohmann::json& parsed) {
        if (event == nlohmann::json::parse_event_t::object_end && depth == 2 && in_windows) {
          drawn.add(std::move(parsed));
          return false;
        }
        if (event != nlohmann::json::parse_event_t::key) return true;
        if (depth == 1) in_windows = parsed == "windows";
        if (depth != 3 || !in_windows) return true;
        const std::string& key = parsed.get_ref<const std::string&>();
        return std::find(std::begin(html::kWindowFields), std::end(html::kWindowFields), key) !=
               std::end(html::kWindowFields);
      };
  RunForReport run;
  run.result = result::parse_recorded_json(in, thin_windows);
  run.windows = drawn.windows();
  run.windows_per_point = drawn.group();
  if (run.result.is_object() && run.result.contains("windows") &&
      run.result["windows"].is_array()) {
    run.result["windows"] = drawn.take();
  }
  return run;
}

}  // namespace proofload::report
