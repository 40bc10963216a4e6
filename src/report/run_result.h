// The result of one run, as the report formatters read it: the normalized spec, every window as
// recorded (merged across workers, kept as counts and percentiles), and the totals. Pure data;
// the summarize_* helpers are pure functions. Thread-safe to read.
#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/reconcile.h"
#include "measure/hdr_histogram.h"
#include "measure/named_stats.h"
#include "measure/outcome.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"
#include "result/run_record.h"

namespace proofload::report {

constexpr const char* kResultSchema = result::kRunSchema;

// One histogram reduced to what reports show. Milliseconds with microsecond precision
// (recorded microseconds / 1000); nullopt when nothing was recorded: "no data", never 0.
struct LatencySummary {
  int64_t count = 0;             // values recorded
  std::optional<double> p50_ms;  // nearest-rank percentiles (bucket's highest equivalent)
  std::optional<double> p90_ms;
  std::optional<double> p95_ms;  // the percentile most SLOs name
  std::optional<double> p99_ms;
  std::optional<double> p99_9_ms;
  std::optional<double> max_ms;   // largest value (bucket's highest equivalent)
  std::optional<double> mean_ms;  // exact mean, rounded to the microsecond
};

// What one observed source (an `--observe` sampler, or the generator itself) showed in one
// window: figures named as in observe/window_figures.h ("cpu_cores", "rss_bytes",
// "cpu_throttled_share", ...). Plain data, so the report layer knows nothing of samplers.
struct ObservedFigures {
  std::string label;       // stable prefix of its columns: "self", "pid", "cgroup", "cgroup2", ...
  std::string source;      // the spec as given: "self", "pid:42", "cgroup:/sys/fs/cgroup/cpu/x"
  int samples = 0;         // good samples in the window
  int gaps = 0;            // samples that failed (process gone, endpoint down, ...)
  std::string last_error;  // why the last one failed ("" when none)
  std::vector<std::pair<std::string, double>> figures;

  std::optional<double> value(const std::string& name) const;
};

// A counter of an observed source (a Prometheus series) over the measured part: its raw value at
// the start and at the end, so that a count the server kept can be set against the client's.
struct CounterTotal {
  std::string name;
  double first = 0;
  double last = 0;
  double delta() const { return last - first; }
};

// One observed source over the measured part of the run.
struct ObservedSummary {
  std::string label;
  std::string source;
  int64_t samples = 0;
  int64_t gaps = 0;  // a gap is stated in the summary: the figures have holes
  std::string last_error;
  // "cpu_cores_mean", "cpu_cores_max", "cpu_seconds" (used in the measured part),
  // "cpu_ms_per_request" (per completed request), "rss_bytes_end", "rss_bytes_peak",
  // "memory_bytes_end", "memory_peak_bytes_peak", "cpu_throttled_share_mean", "restarts",
  // "oom_kills", "load1_max", "cpu_busy_share_mean": only those its readings allow.
  std::vector<std::pair<std::string, double>> figures;
  std::vector<CounterTotal> counters;  // Prometheus endpoints only, by series name

  std::optional<double> value(const std::string& name) const;
};

// The server as the observers saw it over the measured part, each figure taken from the source
// that measures it, whatever the order of --observe: its CPU from its process (pid:, pidfile:),
// else from its cgroup, else from a Prometheus endpoint's process_cpu_seconds_total; throttling
// and quota from its cgroup; the most CPU it could use from its threads and the CPUs it may run
// on (its process) and its quota (its cgroup). Sources that measured a figure too but were not
// used are named, so a report can say which one it used.
struct ServerFigures {
  // Several sources of the kind used (pidfile:/run/app-0.pid, pidfile:/run/app-1.pid) are
  // several instances of the server: their CPU is added, so a figure per core or per request
  // divides by the CPU of every instance observed.
  std::optional<double> cpu_cores_mean;  // cores, every instance's added
  std::optional<double> cpu_cores_max;   // each instance's highest window, added (a bound)
  std::string cpu_source;                         // the spec used: "pid:4242"; "" when none
  std::vector<std::string> cpu_sources;           // with several instances, every one added
  std::vector<std::string> cpu_also_measured_by;  // other sources with a CPU figure, not used
  std::optional<double> throttled_share_mean;     // share of CFS periods throttled (0..1)
  std::optional<double> quota_cores;              // the cgroup's CPU quota, cores
  std::string cgroup_source;                      // where throttling and quota came from
  std::optional<double> cpu_limit_cores;          // the least of threads, CPUs allowed and quota
                                                  // (instances' threads and quotas added)
  std::string cpu_limit_basis;                    // "its one thread", "its CPU quota of 0.8 cores"

  // Its mean CPU reached kCpuBoundShare of what it could use: CPU was its limit.
  static constexpr double kCpuBoundShare = 0.9;
  bool cpu_bound() const {
    return cpu_cores_mean && cpu_limit_cores && *cpu_limit_cores > 0 &&
           *cpu_cores_mean >= kCpuBoundShare * *cpu_limit_cores;
  }
  bool any() const { return cpu_cores_mean || throttled_share_mean || quota_cores; }
};

// One window as the run keeps it once it has been streamed to disk: counts and percentiles but
// no histograms (a WindowStats holds ~0.5 MB of counters; a soak has thousands of windows).
struct WindowSummary {
  int64_t index = 0;        // window number from the start of the run (warm-up included)
  int64_t start_ns = 0;     // window start, ns since the run started
  int64_t duration_ns = 0;  // nominal length; the last window may be shorter
  bool warmup = false;      // inside --warmup: recorded, excluded from results
  bool drain = false;       // after the measured span: the schedule had ended (the grace period)

  LatencySummary latency;  // from the intended start to the last byte
  LatencySummary service;  // from the first byte written to the last byte read
  LatencySummary ttfb;     // from the first byte written to the first byte read

  std::array<int64_t, measure::kOutcomeCount> outcomes{};  // requests ended, by outcome
  int64_t intended = 0;        // requests the schedule wanted in this window
  int64_t arrivals = 0;        // of them, new work: a single request or a flow's first step
  int64_t bytes_in = 0;        // bytes read from the server
  int64_t bytes_out = 0;       // bytes written to the server
  int64_t connects = 0;        // TCP connections opened successfully
  LatencySummary connect;      // their connect times
  int64_t tls_handshakes = 0;  // https: handshakes completed, and of them resumed
  int64_t tls_resumed = 0;
  LatencySummary tls_handshake;
  int64_t h2_goaways = 0;     // HTTP/2: GOAWAY frames the server sent
  int64_t in_flight_end = 0;  // requests started but not ended at the window's end (gauge)
  int64_t queued_end = 0;     // open loop: requests waiting for a connection at the end (gauge)
  std::vector<ObservedFigures> observed;  // by observed source, in the order they were given
  std::optional<result::StreamsRecord> streams;  // streams that ended (or had gaps) in it

  int64_t count(measure::Outcome o) const { return outcomes[static_cast<int>(o)]; }
  int64_t responses() const;  // requests that got an HTTP response, whatever its status
  int64_t errors() const;     // failures (every outcome but success and never-started)
};

// A threshold as evaluated at the end of the run (see measure/threshold.h).
struct ThresholdVerdict {
  std::string expression;  // as written: "p95(lookup) < 200ms"
  std::optional<double>
      observed;               // in the metric's unit (ms, share 0..1, count, req/s); none: no data
  std::string observed_text;  // "p95(lookup) = 183.2 ms", "no data"
  bool passed = false;        // no data never passes
};

struct RunResult {
  // The run as configured, normalized (every default filled in), as result.json records it, so
  // the report layer knows nothing of the engine's types. Secrets never reach it.
  result::SpecRecord spec;
  std::string command_line;       // how it was started (argv joined, for "Reproduce")
  // HTTP/2: the lowest SETTINGS_MAX_CONCURRENT_STREAMS a server announced (nullopt: none did).
  std::optional<int64_t> h2_server_max_streams;
  std::string first_tls_failure;  // https: why the first failed handshake failed ("" if none)
  std::string proofload_version;
  int64_t start_wall_ns = 0;  // wall-clock time of the run's start (ns since the Unix epoch)
  int64_t window_ns = 1'000'000'000;  // window length

  // Every window in order (warm-up windows included and flagged), merged across workers. A run
  // writing to a ResultDirectory leaves this empty: its windows are streamed to disk instead, so
  // the generator's memory stays flat however long it runs.
  std::vector<WindowSummary> windows;

  // Sum of the non-warm-up windows: what the summary reports.
  measure::WindowStats total;
  // Sum of the warm-up windows: recorded apart.
  measure::WindowStats warmup_total;
  // What ended inside the measured span (from the end of the warm-up to the end of the schedule)
  // and its length: throughput and goodput are these counts per second of it.
  measure::MeasuredSpan span;
  // The span's length, s (span.duration_ns in seconds).
  double measured_duration_s = 0;
  // Responses (any status) and successes per second of the span; 0 for an empty span.
  double throughput_rps() const { return span.per_s(span.counts.responses); }
  double goodput_rps() const { return span.per_s(span.counts.successes); }
  // Total length of the warm-up windows, s.
  double warmup_duration_s = 0;

  // A scenario's totals by named request and by flow (indexes match the names), measured part
  // only; all empty for a plain run.
  std::vector<std::string> request_names;
  std::vector<std::string> flow_names;
  measure::NamedTotals named_total;

  // Observed sources (the generator itself first): windows.csv's extra columns ("label.figure",
  // fixed at the start), and each source over the measured part.
  std::vector<std::string> observed_columns;
  std::vector<ObservedSummary> observed;
  ServerFigures server;  // combined from `observed` (the generator and the host are not the server)
  // Measured windows in which the generator's workers used 80% or more of their cores: there the
  // generator, not the server, may have been the limit.
  std::vector<int64_t> generator_busy_windows;

  // --reconcile: the server's count read before and after the run, set against its successes
  // (warm-up included); nullopt when the run had no --reconcile.
  std::optional<analyze::Reconciliation> reconcile;

  // Thresholds, evaluated once the run ended; empty when none were set.
  std::vector<ThresholdVerdict> thresholds;
  bool thresholds_passed() const;

  // --segment: where and when this segment started (result::SegmentRecord); a merge: the
  // segments it holds and those missing.
  std::optional<result::SegmentRecord> segment;
  std::optional<result::MergeRecord> merged;

  bool interrupted = false;  // Ctrl-C / SIGTERM ended the run early
  bool aborted = false;      // an abort condition (a ladder's --abort-when) ended it early
  std::string end_reason;    // "duration reached", "request count reached", ...
};

LatencySummary summarize_latency(const measure::HdrHistogram& us);
result::Latency latency_record(const measure::HdrHistogram& us);
// A window; its `streams` when any stream ended or had a gap in it (with the goodput count when
// the run judged streams by --goodput, `goodput_slo`).
WindowSummary summarize_window(const measure::WindowStats& w, const std::string& goodput_slo = "");
// What streams did: how they ended, and their times (`s`); their rates are the streams that
// completed in a span (`ended`: the measured span's, or a window's own) over its `duration_s`;
// the goodput when `goodput_slo` is set.
result::StreamsRecord streams_record(const measure::StreamWindow& s,
                                     const measure::SpanStreams& ended, double duration_s,
                                     const std::string& goodput_slo);
// A window's streams as the span counts of that window (a window's rates are of what ended in it).
measure::SpanStreams ended_in(const measure::StreamWindow& s);

}  // namespace proofload::report
