// Findings and "What this does not show" of a ladder's summary.md (see ladder_sections.h). Each
// statement is written from a fact in the result and only when that fact holds: a limit that does
// not apply to this run is not printed.
#include "report/ladder_sections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/ladder_facts.h"
#include "report/markdown_text.h"
#include "words/numbers.h"

namespace proofload::report::ladder {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)
namespace {

// A server throttled in at least this share of its CPU periods was held back by its CPU quota.
constexpr double kThrottledShareForQuotaLimit = 0.01;
// The host's load average "changed a lot" between levels: the highest more than this many times
// the lowest, and more than kHostLoadChange apart.
constexpr double kHostLoadRatio = 2;
constexpr double kHostLoadChange = 1.0;

std::string paragraph(const std::string& text) { return text + "\n\n"; }

// ---- Findings ----

std::string why_it_stopped(const LadderResult& v, const LevelAnalysis& knee) {
  if (!server_measured(v)) {
    return v.kind == "analyze"
               ? " The table holds no server CPU, so why it stopped scaling was not measured."
               : " No server observer was attached, so why it stopped scaling was not measured.";
  }
  if (!knee.server_cores) {
    return " The server's CPU at this level was not recorded, so why it stopped scaling was not "
           "measured.";
  }
  const std::string cores = cores_text(*knee.server_cores);
  if (knee.server_throttled_share && *knee.server_throttled_share >= kThrottledShareForQuotaLimit) {
    return " The ceiling is the server's CPU quota (measured): here the server used " + cores +
           " cores and was throttled in " + percent_text(*knee.server_throttled_share) +
           " of its CPU periods.";
  }
  if (knee.server_cpu_bound) {
    return " The ceiling is the server's CPU (measured): here it used " + cpu_of_limit_text(knee) +
           ".";
  }
  std::string before;
  const auto it = std::find_if(levels_of(v).begin(), levels_of(v).end(),
                               [&](const LevelAnalysis& l) { return l.level == knee.level; });
  if (it != levels_of(v).begin() && it != levels_of(v).end() && std::prev(it)->server_cores) {
    before = " (" + cores_text(*std::prev(it)->server_cores) + " at level " +
             level_text(std::prev(it)->level) + ")";
  }
  if (knee.server_cpu_limit_cores) {
    return " The server used " + cpu_of_limit_text(knee) + before +
           ", short of it: CPU was not what stopped it, and what did was not measured.";
  }
  return " The server used " + cores + " cores here" + before +
         "; the data holds no core count or quota to set that against, so whether CPU was the "
         "limit is not shown: why it stopped scaling was not measured.";
}

std::string knee_finding(const LadderResult& v) {
  if (knee_of(v) == nullptr) {
    const LevelAnalysis& last = levels_of(v).back();
    return paragraph(
        "**No knee within the levels tested**: no level broke the SLO or stopped "
        "scaling. The highest, level " +
        level_text(last.level) + ", gave " + rate_text(last.goodput_rps) + " goodput" +
        (last.gain_text.empty() ? "" : " (" + last.gain_text + ")") +
        "; where it buckles lies beyond it.");
  }
  std::string out =
      "**The knee is level " + level_text(knee_of(v)->level) + "** (" +
      rate_text(knee_of(v)->goodput_rps) + " goodput" +
      "): " + (v.analysis->knee_reason.empty() ? "reason not recorded" : v.analysis->knee_reason) +
      ".";
  out += why_it_stopped(v, *knee_of(v));
  return paragraph(out);
}

std::string steps_finding(const LadderResult& v) {
  if (levels_of(v).size() < 2) return "";
  std::string out = "**Step by step**, goodput against the level before (noise floor " +
                    noise_floor_words(v) + "):\n\n";
  for (size_t i = 1; i < levels_of(v).size(); ++i) {
    const LevelAnalysis& l = levels_of(v)[i];
    out +=
        "- level " + level_text(l.level) + ": " +
        (l.gain_text.empty() ? "not computed (the level before achieved nothing)" : l.gain_text) +
        "\n";
  }
  return out + "\n";
}

std::string best_finding(const LadderResult& v) {
  std::string out;
  if (const LevelAnalysis* best = best_of(v)) {
    out = "**Best sustained within the SLO: " +
          (v.analysis->best_sustained_text.empty()
               ? rate_text(best_of(v)->goodput_rps) + " at level " + level_text(best_of(v)->level)
               : v.analysis->best_sustained_text) +
          "** of goodput (successful requests)";
    if (!best->slo.empty()) out += " (" + bounds_text(*best) + ")";
    out += ".";
    if (peak_of(v) == best) {
      out += " It is also the peak: no level whose errors met the SLO had more goodput.";
    } else if (const LevelAnalysis* peak = peak_of(v)) {
      const std::string failed = failed_bounds_text(*peak);
      out += " The peak, " + rate_text(peak_of(v)->goodput_rps) + " at level " +
             level_text(peak_of(v)->level) + ", is past the SLO" +
             (failed.empty() ? "" : " (" + failed + ")") + ".";
    }
    return paragraph(out);
  }
  const LevelAnalysis& lowest = levels_of(v).front();
  out = "**No level met the SLO**" +
        (v.analysis->best_sustained_text.empty()
             ? std::string()
             : ": " + without_none(v.analysis->best_sustained_text)) +
        ". The lowest, level " + level_text(lowest.level) + ", shows " +
        (failed_bounds_text(lowest).empty() ? std::string("no SLO values")
                                            : failed_bounds_text(lowest)) +
        ".";
  if (peak_of(v) != nullptr) {
    out += " The peak was " + rate_text(peak_of(v)->goodput_rps) + " of goodput at level " +
           level_text(peak_of(v)->level) + ".";
  } else {
    out += " No level kept its errors within the SLO, so none is a peak.";
  }
  return paragraph(out);
}

std::string per_core_finding(const LadderResult& v) {
  const LevelAnalysis* best = best_of(v);
  if (best == nullptr) {
    return paragraph(
        "Throughput per server core and server CPU per request at best sustained: "
        "not computed (no level met the SLO).");
  }
  if ((!best->rps_per_server_core && !best->server_cpu_ms_per_request)) {
    return paragraph(
        "Throughput per server core and server CPU per request at best sustained: "
        "not measured (no server CPU at level " +
        level_text(best_of(v)->level) + ").");
  }
  std::vector<std::string> parts;
  if (best->rps_per_server_core) {
    parts.push_back("handled " + rate_number(*best->rps_per_server_core) +
                    " successful requests/s per core of CPU it used");
  }
  if (best->server_cpu_ms_per_request) {
    parts.push_back(
        "spent " +
        fixed(*best->server_cpu_ms_per_request, ms_decimals(*best->server_cpu_ms_per_request)) +
        " ms of CPU per request");
  }
  const size_t instances = analyze::server_cpu_sources(best->server_cpu_source).size();
  const std::string cpu = instances > 1 ? "the mean CPU of its " + std::to_string(instances) +
                                              " instances, added"
                                        : "the server's mean CPU";
  return paragraph("At best sustained (level " + level_text(best->level) + ") the server " +
                   list_text(parts) + " (measured: goodput, achieved throughput and " + cpu +
                   ").");
}

std::string slo_finding(const LadderResult& v) {
  std::string out = "**The SLO: " + slo_words(v) + "**";
  if (v.analysis->slo.is_default) out += " (the default; --slo sets another)";
  out += ". ";
  if (!count_429_of(v)) {
    out += "Whether 429 answers counted as errors is not recorded.";
  } else if (*count_429_of(v)) {
    out += "429 answers count as errors.";
  } else {
    out += "429 answers are reported apart (column 429) and do not count as errors.";
  }
  if (runs_per_level(v) > 1) {
    out +=
        " A level meets the SLO only when every run of it meets every bound; the values quoted "
        "are the worst run's.";
  }
  std::vector<std::string> failing;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (l.meets_slo) continue;
    const std::string failed = failed_bounds_text(l);
    failing.push_back(level_text(l.level) + (failed.empty() ? "" : " (" + failed + ")"));
  }
  out += failing.empty() ? " Every level met it."
                         : fmt::format(" {} of {} levels {} not meet it: ", failing.size(),
                                       levels_of(v).size(), failing.size() == 1 ? "does" : "do") +
                               list_text(failing) + ".";
  return paragraph(out);
}

// The levels whose warm-ups had failures, in order, with the failed and ended requests of their
// warm-ups (repeats added) and whether their holds had any error.
struct WarmupFailures {
  double level = 0;
  int64_t failed = 0, ended = 0;
  bool hold_clean = true;
};
std::vector<WarmupFailures> warmup_failures(const LadderResult& v) {
  std::vector<WarmupFailures> out;
  for (const result::LadderRow& r : v.rows) {
    const analyze::LevelRow& row = r.figures;
    if (!row.warmup_errors || *row.warmup_errors == 0) continue;
    if (out.empty() || out.back().level != row.level) out.push_back({row.level});
    out.back().failed += *row.warmup_errors;
    out.back().ended += row.warmup_requests.value_or(0);
    if (row.error_rate.value_or(0) > 0) out.back().hold_clean = false;
  }
  return out;
}

// Failures inside warm-ups are in no figure of the table: said per level, so a clean hold after a
// failing warm-up is not read as a clean level.
std::string warmup_finding(const LadderResult& v) {
  const std::vector<WarmupFailures> levels = warmup_failures(v);
  if (levels.empty()) return "";
  int64_t total = 0;
  std::vector<std::string> parts;
  for (const WarmupFailures& l : levels) {
    total += l.failed;
    parts.push_back("level " + level_text(l.level) + ": " + count_text(l.failed) + " of " +
                    count_text(l.ended) + " warm-up requests failed" +
                    (l.hold_clean ? ", where its hold had no error" : ""));
  }
  return paragraph("**Warm-ups failed where the table does not show it.** " +
                   count_text(total) + (total == 1 ? " request" : " requests") +
                   " failed inside the levels' warm-ups, which every figure here excludes (" +
                   list_text(parts) +
                   "). The work a level met first failed there; each level's result.json lists "
                   "them under warmup.outcomes.");
}

std::string noise_finding(const LadderResult& v) {
  const std::string& recorded = v.analysis->noise_floor.text;
  const std::optional<double> floor = noise_floor_of(v);
  if (recorded.empty() && !floor) return paragraph("Noise floor: not recorded.");
  const std::string text = recorded.empty() ? percent_text(*floor, 1) : recorded;
  return paragraph("**Noise floor: " + text + ".** A step inside it is flat: not a finding.");
}

std::string operating_finding(const LadderResult& v) {
  std::string out;
  if (v.analysis->operating_target_rps) {
    out = "**Recommended operating target: ≤ " + rate_text(*v.analysis->operating_target_rps) +
          "**" + (v.analysis->operating_basis.empty() ? "" : ", " + v.analysis->operating_basis) +
          ".";
    if (const std::string warning = operating_warning(v); !warning.empty()) out += " " + warning;
  } else {
    out = "**No operating target**: " +
          (v.analysis->operating_basis.empty() ? std::string("not recorded")
                                               : without_none(v.analysis->operating_basis)) +
          ".";
  }
  if (const std::vector<std::string> parts = daily_parts(v); !parts.empty()) {
    out += " Daily capacity (" + daily_rule_text(v) + "): " + list_text(parts) + ".";
  } else {
    out += " Daily capacity: not computed.";
  }
  return paragraph(out);
}

// ---- What this does not show ----

std::string untrusted_limit(const LadderResult& v, const std::string& percentile) {
  std::vector<double> levels;
  for (const LevelAnalysis& l : levels_of(v)) {
    const std::optional<double>& value = percentile == "p50"   ? l.p50_ms
                                         : percentile == "p95" ? l.p95_ms
                                                               : l.p99_ms;
    if (value &&
        std::find(l.untrusted.begin(), l.untrusted.end(), percentile) != l.untrusted.end()) {
      levels.push_back(l.level);
    }
  }
  if (levels.empty()) return "";
  // "At 10 s each" when every run of these levels was measured for the same time.
  std::optional<double> duration_s;
  bool same_duration = true;
  for (const result::LadderRow& r : v.rows) {
    const analyze::LevelRow& row = r.figures;
    if (std::find(levels.begin(), levels.end(), row.level) == levels.end()) continue;
    if (!row.duration_s || (duration_s && *duration_s != *row.duration_s)) same_duration = false;
    duration_s = row.duration_s;
  }
  const std::string which = (levels.size() == 1 ? "level " : "levels ") + levels_text(levels);
  const std::string subject = same_duration && duration_s
                                  ? "At " + seconds_text(*duration_s) + " each, " + which
                                  : capitalized(which);
  return subject + (levels.size() == 1 ? " holds" : " hold") +
         " too few requests for a trustworthy " + percentile +
         " (fewer than 10 at or beyond it; marked * in the table).";
}

std::string host_load_limit(const LadderResult& v) {
  const LevelAnalysis* low = nullptr;
  const LevelAnalysis* high = nullptr;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (!l.host_load1) continue;
    if (low == nullptr || *l.host_load1 < *low->host_load1) low = &l;
    if (high == nullptr || *l.host_load1 > *high->host_load1) high = &l;
  }
  if (low == nullptr || low == high) return "";
  const double lo = *low->host_load1;
  const double hi = *high->host_load1;
  if (!(hi > kHostLoadRatio * lo && hi - lo > kHostLoadChange)) return "";
  auto at = [](const LevelAnalysis& l) {
    return fixed(*l.host_load1, 1) + " (level " + level_text(l.level) + ")";
  };
  const std::string change = low->level < high->level
                                 ? "rose from " + at(*low) + " to " + at(*high)
                                 : "fell from " + at(*high) + " to " + at(*low);
  return "The host's load average " + change +
         " during the run. It counts the generator (and a server on the same host) too, but "
         "anything else running there shared the CPUs the levels were measured on.";
}

std::string status_limit(const LadderResult& v) {
  std::string out;
  if (v.status != "complete") {
    out = "The run did not complete (" + v.status +
          "): " + (v.end_reason.empty() ? "no reason recorded" : v.end_reason) + ".";
    std::vector<double> missing;
    std::vector<std::string> partial;
    for (const auto& [level, runs] : short_levels(v)) {
      if (runs == 0) {
        missing.push_back(level);
      } else {
        partial.push_back(fmt::format("level {} ran {} of {} runs", level_text(level), runs,
                                      static_cast<int>(v.settings.repeat.value_or(1))));
      }
    }
    if (!missing.empty()) {
      out += (missing.size() == 1 ? " Level " : " Levels ") + levels_text(missing) +
             " planned but not run: nothing here says how the system does there.";
    }
    if (!partial.empty()) out += " " + capitalized(list_text(partial)) + ".";
  }
  std::vector<std::string> cut;
  for (const result::LadderRow& r : v.rows) {
    if (r.status.empty() || r.status == "complete") continue;
    cut.push_back(level_text(r.figures.level) + " (" + r.status + ")");
  }
  if (!cut.empty()) {
    if (!out.empty()) out += " ";
    out += cut.size() == 1 ? "Level " + cut[0] +
                                 " was cut short: its figures cover only the part "
                                 "that ran."
                           : "Levels " + list_text(cut) +
                                 " were cut short: their figures cover only the part that ran.";
  }
  return out;
}

void add_search_limits(const LadderResult& v, std::vector<std::string>& bullets) {
  if (v.kind != "search" || !v.search) return;
  const result::SearchRecord& s = *v.search;
  bullets.push_back(
      "The rates between the search's steps were not measured: the answer lies "
      "between two steps, and nothing here says how the system does in between.");
  const std::optional<double> confirm_s = confirming_run_s(v);
  if (s.step_hold_s && confirm_s && *s.step_hold_s < *confirm_s) {
    bullets.push_back("The steps held " + seconds_text(*s.step_hold_s) +
                      ", shorter than the confirming run (" + seconds_text(*confirm_s) +
                      "): a rate that passed a short step may not hold for longer.");
  }
}

}  // namespace

std::string findings_section(const LadderResult& v) {
  return "## Findings\n\n" + knee_finding(v) + steps_finding(v) + best_finding(v) +
         per_core_finding(v) + slo_finding(v) + warmup_finding(v) + noise_finding(v) +
         operating_finding(v);
}

std::string limits_section(const LadderResult& v) {
  std::vector<std::string> bullets;
  if (loop_of(v) == "closed") {
    bullets.push_back(
        "Closed loop: this measures what the system accepts, not what happens when "
        "demand does not wait. Each sender waits for its answer, so a slower server "
        "is simply sent less; queues that real arrivals would build do not form.");
  }
  if (runs_per_level(v) <= 1) {
    std::string floor = "One run per level gives no variance: differences under the " +
                        noise_floor_words(v) + " noise floor are not findings";
    if (noise_floor_source_of(v) == "default")
      floor += " (and that floor is a default, not measured here)";
    if (noise_floor_source_of(v) == "stated")
      floor += " (and that floor was stated, not measured here)";
    bullets.push_back(floor + ".");
  }
  std::vector<double> busy;
  for (const LevelAnalysis& l : levels_of(v)) {
    if (l.generator_busy) busy.push_back(l.level);
  }
  if (!busy.empty()) {
    bullets.push_back("The generator was flagged busy (80% or more of its cores) at " +
                      std::string(busy.size() == 1 ? "level " : "levels ") + levels_text(busy) +
                      ": there the generator, not the server, may have been the limit.");
  }
  if (std::string load = host_load_limit(v); !load.empty()) bullets.push_back(load);
  if (const std::vector<WarmupFailures> warmups = warmup_failures(v); !warmups.empty()) {
    int64_t failed = 0;
    std::vector<double> levels;
    for (const WarmupFailures& l : warmups) {
      failed += l.failed;
      levels.push_back(l.level);
    }
    bullets.push_back("The " + count_text(failed) +
                      (failed == 1 ? " request that failed" : " requests that failed") +
                      " in the warm-ups of " + (levels.size() == 1 ? "level " : "levels ") +
                      levels_text(levels) +
                      " are in no error rate, flow success or verdict here: those judge only "
                      "each level's hold.");
  }
  for (const char* p : {"p99", "p95", "p50"}) {
    if (std::string text = untrusted_limit(v, p); !text.empty()) bullets.push_back(text);
  }
  if (!server_measured(v)) {
    bullets.push_back(v.kind == "analyze"
                          ? "The table holds no server CPU, so nothing here says why it stopped "
                            "scaling."
                          : "No server observer was attached, so nothing here says why it stopped "
                            "scaling.");
  }
  if (std::string status = status_limit(v); !status.empty()) bullets.push_back(status);
  if (v.kind == "analyze") {
    bullets.push_back(
        "The numbers were taken from a table as given and not re-measured: how they "
        "were measured (hold, warm-up, the generator's own load) is not known here.");
  }
  add_search_limits(v, bullets);
  if (v.analysis->daily_requests_at_operating_target ||
      v.analysis->daily_requests_at_best_sustained) {
    std::optional<double> longest;
    for (const result::LadderRow& r : v.rows) {
      const std::optional<double>& held = r.figures.duration_s;
      if (held && (!longest || *held > *longest)) longest = held;
    }
    if (!longest) longest = v.settings.hold_s;
    bullets.push_back("Daily capacity multiplies a rate by 86,400 s; " +
                      (longest
                           ? "no level here was measured for longer than " + seconds_text(*longest)
                           : std::string("how long each level was held is not recorded")) +
                      ", so holding that rate for a day is not shown.");
  }
  std::string out = "## What this does not show\n\n";
  for (const std::string& b : bullets) out += "- " + b + "\n";
  return out + "\n";
}

}  // namespace proofload::report::ladder
