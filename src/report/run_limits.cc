// What a run's summary.md says it does not show: the run's status, what its observers (and their
// limits) left out, the host's load, figures too few to trust. Internal to run_report.cc (declared
// in run_sections.h). Pure; thread-safe.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "measure/percentile_trust.h"
#include "observe/prom_limits.h"
#include "report/markdown_text.h"
#include "report/numbers.h"
#include "report/run_sections.h"
#include "words/numbers.h"

namespace proofload::report::run {

using namespace markdown;  // tables and code (markdown_text.h)
using namespace words;     // numbers (words/numbers.h)

namespace {

// A run's host load is worth a word when its peak is at least twice its start and a core apart.
constexpr double kHostLoadRatio = 2;
constexpr double kHostLoadChange = 1.0;

}  // namespace

namespace {

// What a Prometheus endpoint's limits (observe/prom_limits.h, named as Prometheus names its own)
// left out of its figures: each total is the most any one scrape left out (the body limit's, the
// scrapes skipped so far).
void add_prom_limits(const SourceRecord& s, std::vector<std::string>& bullets) {
  auto peak = [&](const char* reading) {
    return s.value(std::string(reading) + "_peak").value_or(0);
  };
  std::vector<std::string> dropped;
  if (const double n = peak(observe::kPromSeriesNotKept); n > 0) {
    dropped.push_back("up to " + plural(n, "series", "series") +
                      " a scrape not kept, past its cap of " +
                      count_text(static_cast<double>(observe::kPromSeriesLimit)) +
                      " distinct series over the run (sample_limit; the first seen are kept)");
  }
  if (const double n = peak(observe::kPromSeriesTooLong); n > 0) {
    dropped.push_back("up to " + plural(n, "series", "series") +
                      " a scrape skipped for a key over " +
                      count_text(static_cast<double>(observe::kPromSeriesKeyLimitBytes)) +
                      " bytes (label_value_length_limit)");
  }
  if (const double n = peak(observe::kPromScrapesOverBodyLimit); n > 0) {
    dropped.push_back(plural(n, "scrape", "scrapes") + " skipped for a body over " +
                      count_text(static_cast<double>(observe::kPromBodySizeLimitBytes >> 20)) +
                      " MiB (body_size_limit)");
  }
  if (dropped.empty()) return;
  bullets.push_back("The observer " + inline_code(s.source) + " did not keep all it was sent: " +
                    list_text(dropped) + ". Its figures are of the series it kept.");
}

}  // namespace

void add_observer_limits(const RunRecord& v, std::vector<std::string>& bullets) {
  if (!v.observed_recorded) {
    bullets.push_back(
        "Nothing was observed (result.json holds no observer figures), so nothing "
        "here says what the server or the generator spent.");
    return;
  }
  const bool server = std::any_of(v.sources.begin(), v.sources.end(), [](const SourceRecord& s) {
    return !s.is_generator() && !s.is_host();
  });
  if (!server && !v.spec.observe_only()) {
    bullets.push_back(std::string("No server observer was attached (only the generator itself") +
                      (v.host() != nullptr ? " and the host" : "") +
                      " were observed), so nothing here says what the server spent or why it "
                      "answered as it did.");
  }
  for (const SourceRecord& s : v.sources) {
    if (!s.gaps || *s.gaps <= 0) continue;
    std::string text =
        (s.is_generator() ? std::string("The generator's own observer")
                          : "The observer " + inline_code(s.source.empty() ? s.label : s.source)) +
        " lost " + count_text(*s.gaps) + " of " + count_text(*s.gaps + s.samples.value_or(0)) +
        " samples";
    if (!s.error.empty()) text += " (last: " + s.error + ")";
    bullets.push_back(text + ": its figures have holes there.");
  }
  for (const SourceRecord& s : v.sources) {
    if (s.is_prometheus()) add_prom_limits(s, bullets);
  }
  if (const SourceRecord* host = v.host()) {
    const auto start = host->value("load1_start");
    const auto max = host->value("load1_max");
    if (start && max && *max > kHostLoadRatio * *start && *max - *start > kHostLoadChange) {
      bullets.push_back("The host's load average rose from " + fixed(*start, 1) +
                        " at the start to " + fixed(*max, 1) +
                        " during the run. It counts the generator (and a server on the same host) "
                        "too, but anything else running there shared the CPUs this run was "
                        "measured on.");
    }
  }
}

std::string status_limit(const RunRecord& v) {
  std::string out = "The run did not complete (" + v.status +
                    "): " + (v.end_reason.empty() ? "no reason recorded" : v.end_reason) +
                    ". The figures cover only the part that ran";
  if (v.duration_s && v.spec.duration_s) {
    out += ": " + seconds_text(*v.duration_s) + " measured of the " +
           seconds_text(*v.spec.duration_s) + " planned";
  }
  return out + ".";
}

std::string limits_section(const RunRecord& v) {
  std::vector<std::string> bullets;
  if (v.status != "complete") bullets.push_back(status_limit(v));
  if (executor_of(v) == "closed_loop") {
    bullets.push_back(
        "Closed loop: this measures what the system accepts, not what happens when demand does "
        "not wait. Each sender waits for its answer, so a slower server is simply sent less; "
        "queues that real arrivals would build do not form.");
  }
  if (!stages_of(v).empty()) {
    bullets.push_back(
        "The load was ramped by stages: the figures are totals over every stage, so they do not "
        "say how the service did at any one level (windows.csv has them window by window).");
  } else if (executor_of(v) == "closed_loop" || executor_of(v) == "open_loop") {
    const std::string level =
        executor_of(v) == "closed_loop"
            ? (v.spec.connections ? plural(*v.spec.connections, "connection", "connections")
                                  : std::string("one number of connections"))
            : (v.spec.rate_per_s ? level_text(*v.spec.rate_per_s) + "/s" : std::string("one rate"));
    bullets.push_back("One load level was tested (" + level +
                      "): this shows how the service did there, not where it buckles; "
                      "`proofload ladder` finds that.");
  }
  bullets.push_back(
      "One run gives no variance: a repeat could differ, and by how much is not measured here, "
      "so a difference from another run smaller than the run-to-run noise is not a finding.");
  if (v.busy_windows && !v.busy_windows->empty()) {
    bullets.push_back("The generator was flagged busy (80% or more of its workers' cores) in " +
                      windows_text(*v.busy_windows) +
                      ": there the generator, not the server, may have been the limit; read "
                      "those windows' figures as a floor.");
  } else if (v.observed_recorded && v.generator() == nullptr) {
    bullets.push_back(
        "The generator's own CPU was not observed, so whether it was the limit is "
        "not shown.");
  }
  std::vector<std::string> few;
  std::vector<std::string> needed;
  for (const Percentile& p : kPercentiles) {
    if ((v.latency.*p.value).has_value() && untrusted(v, p)) {
      few.emplace_back(p.label);
      needed.push_back(count_text(static_cast<double>(measure::samples_needed_for(p.percentile))));
    }
  }
  if (!few.empty()) {
    bullets.push_back(plural(*v.requests, "measured response is", "measured responses are") +
                      " too few for a trustworthy " + list_text(few) +
                      (few.size() == 1 ? " (it needs " : " (they need ") + list_text(needed) +
                      (few.size() == 1 ? " responses: 10 at or beyond it)"
                                       : " responses: 10 at or beyond each)") +
                      "; marked * in the Latency table.");
  }
  add_observer_limits(v, bullets);
  const std::optional<double> warmup_s = v.warmup_s ? v.warmup_s : v.spec.warmup_s.get();
  if (const std::optional<int64_t> warm = v.warmup_errors(); warm && *warm > 0) {
    std::vector<std::string> failures;
    for (const auto& [name, count] : v.warmup_outcomes) {
      if (name != "success" && name != "never_started" && count > 0) {
        failures.push_back(outcome_words(name) + ": " + count_text(count));
      }
    }
    bullets.push_back("The warm-up's " + plural(*warm, "failed request", "failed requests") +
                      " (" + list_text(failures) +
                      ") are in no figure here: the error rate, the outcomes and the thresholds "
                      "cover only the measured part. The work the run met first failed.");
  }
  if (warmup_s && *warmup_s == 0) {
    bullets.push_back(
        "No warm-up: the first requests, with connections being opened and caches "
        "filling, are in the figures.");
  }
  std::string out = "## What this does not show\n\n";
  for (const std::string& b : bullets) out += "- " + b + "\n";
  return out + "\n";
}

}  // namespace proofload::report::run
