// A run's result.json (schema proofload.result/v2, v1 read too, docs/result-schema.md "Run")
// without its windows, as one typed value, RunRecord, with its paired to_json and from_json: the
// run's writer (report/result_json.h) reduces a finished run to it and writes it, summary.md
// renders from it as read back, so a field is added in one place. The windows are streamed apart as
// the run goes (report/result_directory.h) and are never read here.
//
// Reading (from_json) is of a file this or an earlier proofload wrote, or one edited by hand: a
// missing or null optional key is the field's "not recorded" (nullopt, "", empty); a missing
// required key (schema, status, summary as an object) or a value of the wrong type throws
// std::runtime_error naming it ("run result.json: 'summary.latency_ms.p99' is not a number").
// Counts are whole numbers 0 or more. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analyze/reconcile.h"
#include "result/json_reader.h"
#include "result/segment_record.h"
#include "result/spec_record.h"

namespace proofload::result {

// v2 says when it started as `started_at`, as every experiment's record does; v1 said
// `start_time`, and is read as well.
constexpr const char* kRunSchema = "proofload.result/v2";
constexpr const char* kRunSchemaV1 = "proofload.result/v1";
inline bool is_run_schema(std::string_view schema) {
  return schema == kRunSchema || schema == kRunSchemaV1;
}

// {p50, p90, p95, p99, p99_9, max, mean}, in ms; nullopt: no data (p95: not in files before it).
struct Latency {
  std::optional<double> p50, p90, p95, p99, p99_9, max, mean;
};

using Counts = std::vector<std::pair<std::string, int64_t>>;  // by name: outcomes, status codes

// summary.streams (a run that streams): how the streams ended and, of those completed as
// configured, their events, bytes and tokens (in all and per second of the measured span, or of
// the window) and times from the intended start; with --goodput, how many met the per-stream SLO.
// The same object is each window's `streams` and each streamed named request's.
struct StreamsRecord {
  std::optional<int64_t> completed, cut_short, idle_timeout, malformed, fixture_mismatch;
  std::optional<int64_t> events, bytes, tokens;
  std::optional<double> streams_per_s, events_per_s, bytes_per_s, tokens_per_s;
  Latency ttfb, ttfe, ttfce, inter_event, tpot, duration;
  std::string goodput_slo;  // --goodput as given ("" without)
  std::optional<int64_t> goodput;  // streams that met it
  std::optional<double> goodput_share, goodput_per_s;  // of the streams that ended; per second

  // Streams that ended another way than completed (absent counts as 0).
  int64_t not_completed() const {
    return cut_short.value_or(0) + idle_timeout.value_or(0) + malformed.value_or(0) +
           fixture_mismatch.value_or(0);
  }
};
nlohmann::json streams_json(const StreamsRecord& s);
StreamsRecord streams_from_json(const JsonReader& streams);

// requests.<name>: one named request of a scenario (measured part).
struct NamedRequest {
  std::string name;
  std::optional<int64_t> requests;  // ended, every outcome
  std::optional<int64_t> responses, errors;
  std::optional<double> error_rate, throughput_rps;
  Latency latency;
  Counts outcomes;
  std::optional<StreamsRecord> streams;  // a streamed request's (`stream:`)
  std::optional<double> goodput_rps;     // its successes inside the measured span, per second
};

// flows.<name>: flows have their own denominator (flows, not requests).
struct FlowRecord {
  std::string name;
  std::optional<int64_t> started, succeeded, failed, abandoned;
  std::optional<double> success_rate;
  Latency duration;  // of successful flows
};

struct ThresholdRecord {
  std::string expression;
  std::optional<double> observed;
  std::string observed_text;   // printed so that it never contradicts `passed`
  std::optional<bool> passed;  // nullopt: not recorded (never read as a pass)
};

// A Prometheus endpoint's counter over the measured part: its raw first and last values.
struct CounterRecord {
  std::string series;
  double first = 0;
  double last = 0;
};

// observed.<label>: one observed source over the measured part.
struct SourceRecord {
  std::string label;   // "self", "pid", "host", "cgroup2", ...
  std::string source;  // the spec as given: "pid:4242"; "" when not recorded
  std::optional<int64_t> samples, gaps;
  std::string error;                                    // the last sample's failure
  std::vector<std::pair<std::string, double>> figures;  // every other number, by name
  std::vector<CounterRecord> counters;                  // Prometheus endpoints only

  std::optional<double> value(const std::string& name) const;
  bool is_prometheus() const { return source.starts_with("prom:"); }
  bool is_generator() const { return label == "self"; }
  bool is_host() const;
};

// server: the server's figures, each from the source that measures it (report::ServerFigures).
struct ServerRecord {
  std::optional<double> cpu_cores_mean, cpu_cores_max, throttled_share_mean, quota_cores,
      cpu_limit_cores;
  std::string cpu_source, cgroup_source, cpu_limit_basis;
  std::vector<std::string> cpu_also_measured_by;
  bool cpu_bound = false;
  // With several instances observed: every source whose CPU cpu_cores_mean adds (cpu_source is
  // the first); empty for one.
  std::vector<std::string> cpu_sources;
};


struct RunRecord {
  std::string status;  // "running", "complete", "interrupted", "aborted"
  std::string end_reason, proofload_version, command_line;
  std::string started_at;  // "2026-12-05T10:00:00.000Z"; "" when not recorded
  std::optional<double> window_s;

  SpecRecord spec;  // as plan::plan_run recorded it, or `proofload observe`

  // summary (null while the run is running)
  bool summary_recorded = false;
  // arrivals: work offered, each a single request or a whole flow (the denominator of
  // never_started_share); nullopt in files before it, whose share was over `intended`.
  std::optional<int64_t> requests, intended, arrivals, errors, never_started;
  std::optional<double> error_rate, never_started_share, throughput_rps, goodput_rps, duration_s;
  std::optional<int64_t> bytes_in, bytes_out, connects;
  // summary.span: what ended inside the measured span, the numerators of its rates.
  std::optional<int64_t> span_responses, span_successes, span_iterations, span_iterations_succeeded,
      span_flows, span_flows_succeeded;
  bool span_extended = false;  // the span ran to the last response (every request began at once)
  // send_lag: summary.send_lag_ms, from the intended start to the first byte written.
  Latency latency, service_time, ttfb, send_lag;
  // summary.latency_spectrum: the latency at each percentile HdrHistogram's plots draw
  // (report::percentile_spectrum), for report.html; empty when not recorded.
  std::vector<double> spectrum_percentiles, spectrum_ms;
  Latency connect_time;  // summary.connect_ms: TCP connects of the whole run (warm-up too)
  // summary.tls (https only): handshakes, how many resumed, their times, the first failure.
  std::optional<int64_t> tls_handshakes, tls_resumed;
  Latency tls_handshake;
  std::string tls_first_error;
  // summary.h2 (HTTP/2 only): GOAWAYs the server sent, and the lowest stream limit it announced.
  std::optional<int64_t> h2_goaways, h2_server_max_streams;
  // as recorded, in the order of measure::kOutcomeNames (success first; unknown names last)
  Counts outcomes;
  Counts status_codes;  // "200" -> count
  std::optional<StreamsRecord> streams;  // nullopt: not a --stream run
  // summary.reconcile: the server's count set against the successes; nullopt: no --reconcile.
  std::optional<analyze::Reconciliation> reconcile;

  // warmup
  std::optional<double> warmup_s;
  std::optional<int64_t> warmup_requests;
  Counts warmup_outcomes;

  std::vector<NamedRequest> named;
  std::vector<FlowRecord> flows;
  std::vector<ThresholdRecord> thresholds;
  std::optional<bool> thresholds_passed;

  bool observed_recorded = false;      // result.json holds `observed`
  std::vector<SourceRecord> sources;   // the generator ("self") first, then in key order
  std::optional<ServerRecord> server;  // nullopt: no server figures recorded
  std::optional<std::vector<int64_t>> busy_windows;  // nullopt: not recorded

  // `segment`: this run was segment I of N of one load (--segment); nullopt otherwise.
  std::optional<SegmentRecord> segment;
  // `merged`: this run is N segments' runs merged (`proofload merge`); nullopt otherwise.
  std::optional<MergeRecord> merged;

  // An outcome's count; nullopt when outcomes were not recorded.
  std::optional<int64_t> outcome(const std::string& name) const;
  // Requests that were started (every outcome but never_started), from the outcomes; nullopt
  // when they were not recorded.
  std::optional<double> started() const;
  // The warm-up's requests that ended (every outcome but never_started) and those of them that
  // failed, from warmup_outcomes; nullopt when they were not recorded.
  std::optional<int64_t> warmup_ended() const;
  std::optional<int64_t> warmup_errors() const;
  const SourceRecord* generator() const;
  const SourceRecord* host() const;
};

// The document without `windows`: a running record (status "running") holds the header and the
// spec only; a finished one its summary, warm-up and what was observed and judged.
nlohmann::json run_to_json(const RunRecord& run);
RunRecord run_from_json(const nlohmann::json& result);

}  // namespace proofload::result
