// A run's result.json (schema proofload.result/v1) read into plain structs, so that summary.md
// renders from typed values and every missing-key decision is made in one place: a missing or null
// optional key is nullopt (or "", or empty), a missing required key or a value of the wrong type
// throws std::runtime_error naming it ("summary.latency_ms.p99"). `windows` is never read.
// Internal to run_report.cc. Pure; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace proofload::report::run {

// {p50, p90, p99, p99_9, max, mean}, in ms.
struct LatencyView {
  std::optional<double> p50, p90, p99, p99_9, max, mean;
};

// requests.<name>: one named request of a scenario (measured part).
struct NamedView {
  std::string name;
  std::optional<double> requests;  // ended, every outcome
  std::optional<double> errors, error_rate, throughput_rps;
  LatencyView latency;
};

// flows.<name>: flows have their own denominator (flows, not requests).
struct FlowView {
  std::string name;
  std::optional<double> started, succeeded, failed, abandoned, success_rate;
  LatencyView duration;  // of successful flows
};

struct ThresholdView {
  std::string expression;
  std::optional<double> observed;
  std::string observed_text;   // printed so that it never contradicts `passed`
  std::optional<bool> passed;  // nullopt: not recorded (never read as a pass)
};

// observed.<label>: one observed source over the measured part.
struct SourceView {
  std::string label;   // "self", "pid", "host", "cgroup2", ...
  std::string source;  // the spec as given: "pid:4242"; "" when not recorded
  std::optional<double> samples, gaps;
  std::string error;                                    // the last sample's failure
  std::vector<std::pair<std::string, double>> figures;  // every other number, by name
  // A Prometheus endpoint's counters: series -> (first, last) raw values over the measured part.
  std::vector<std::pair<std::string, std::pair<double, double>>> counters;

  std::optional<double> value(const std::string& name) const;
  bool is_prometheus() const { return source.starts_with("prom:"); }
  bool is_generator() const { return label == "self"; }
  bool is_host() const;
};

// server: the server's figures, each from the source that measures it (report::ServerFigures).
struct ServerView {
  std::optional<double> cpu_cores_mean, cpu_cores_max, throttled_share_mean, quota_cores,
      cpu_limit_cores;
  std::string cpu_source, cgroup_source, cpu_limit_basis;
  std::vector<std::string> cpu_also_measured_by;
  bool cpu_bound = false;
};

struct RunView {
  std::string status;  // "complete", "interrupted", "aborted", ...
  std::string end_reason, proofload_version, command_line, start_time;

  // spec
  bool observe_only = false;  // spec.command == "observe": no load was sent
  std::string target, executor, scenario_file;
  std::optional<double> connections, max_connections, rate_per_s, planned_duration_s, spec_warmup_s,
      requests_limit;
  std::optional<uint64_t> seed;  // exact: printed in a command line that must read back
  std::vector<std::pair<double, double>> stages;  // (duration_s, target)
  std::optional<size_t> scenario_requests, scenario_flows;
  std::vector<std::string> observe;  // spec.observe as given

  // summary
  std::optional<double> requests, intended, errors, error_rate, never_started, never_started_share,
      throughput_rps, goodput_rps, duration_s, bytes_in, bytes_out, connects;
  std::optional<double> span_responses, span_successes;  // what ended inside the measured span
  bool span_extended = false;  // the span ran to the last response (every request began at once)
  LatencyView latency, service_time, ttfb;
  // as recorded, in the order of measure::kOutcomeNames (success first; unknown names last)
  std::vector<std::pair<std::string, double>> outcomes;
  std::vector<std::pair<std::string, double>> status_codes;  // "200" -> count

  // warmup
  std::optional<double> warmup_s, warmup_requests;

  std::vector<NamedView> named;
  std::vector<FlowView> flows;
  std::vector<ThresholdView> thresholds;
  std::optional<bool> thresholds_passed;

  bool observed_recorded = false;    // result.json holds `observed`
  std::vector<SourceView> sources;   // the generator ("self") first, then in key order
  std::optional<ServerView> server;  // nullopt: no server figures recorded
  std::optional<std::vector<double>> busy_windows;  // nullopt: not recorded

  // An outcome's count; nullopt when outcomes were not recorded.
  std::optional<double> outcome(const std::string& name) const;
  // Requests that were started (every outcome but never_started), from the outcomes; nullopt
  // when they were not recorded.
  std::optional<double> started() const;
  const SourceView* generator() const;
  const SourceView* host() const;
};

// Required: schema ("proofload.result/v1"), status and summary (an object). Everything else may
// be missing or null.
RunView read_run(const nlohmann::json& result);

}  // namespace proofload::report::run
