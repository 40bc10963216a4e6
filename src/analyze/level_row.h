// One level of a ladder (one repeat of it) as recorded: what the load asked for, what it got, and
// what the observers saw. The analysis reads only these rows, whether a ladder recorded them or a
// table from another tool (k6, wrk) supplied them, so it is tested on recorded data. Plain data.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace proofload::analyze {

// What a level's streams did (a ladder of `--stream` runs): the streaming ramp's columns.
struct LevelStreams {
  std::optional<double> events_per_s, bytes_per_s, tokens_per_s;  // of completed streams
  std::optional<double> ttfb_p95_ms;   // to the first byte of the stream's body
  std::optional<double> ttft_p95_ms;   // to the first content event (first token)
  std::optional<double> itl_p99_ms;    // between content events
  std::optional<double> goodput_share;  // of ended streams, those that met --goodput
  // To the response's first byte (its headers), from the request's first byte written: the
  // server's time to answer, apart from the body's first byte and the first token.
  std::optional<double> headers_p95_ms;
};

// One named request of a scenario at a level, on its own: a mix's routes move apart (its writes
// can be flat at a limit while its reads still grow, and the mix's total hides it).
struct LevelRoute {
  std::string name;          // the scenario's `requests:` name
  // Its successes, and its responses of any status, inside the measured span, per second; nullopt
  // when a table did not say.
  std::optional<double> goodput_rps, achieved_rps;
  std::optional<double> p50_ms, p95_ms, p99_ms;  // from its intended start (nearest rank)
  std::optional<int64_t> requests;               // ended (started and finished)
  std::optional<double> error_rate;              // share of those that failed (0..1)
};

struct LevelRow {
  double level = 0;  // concurrency (closed loop) or target rate (open loop), as given
  int repeat = 1;    // 1..K when a level is repeated
  // Open loop: the schedule's rate, in arrivals/s (an arrival is one pick of the mix: a request,
  // or a whole flow of several).
  std::optional<double> target_rps;
  // Responses (any status) that ended inside the measured span, per second of it: what the
  // level's windows show (docs/measurement.md, "Throughput and goodput").
  double achieved_rps = 0;
  // Successful requests per second of the span. A table without it: see goodput().
  std::optional<double> goodput_rps;
  // A scenario with flows, where an arrival is not one request: picks of the mix that ended per
  // second of the span (the target's unit).
  std::optional<double> arrivals_rps;
  std::optional<double> flows_per_s;        // flows that ended per second of the span
  std::optional<double> flow_success_rate;  // share of finished flows that succeeded (0..1)

  std::optional<double> p50_ms;  // latency from the intended start (nearest rank)
  std::optional<double> p95_ms;
  std::optional<double> p99_ms;
  // Requests that ended (started and finished, any outcome): the denominator of the error rate
  // and the latency sample count (a percentile needs enough of them to be trusted). nullopt when
  // the table did not say.
  std::optional<int64_t> requests;
  // Responses: the samples behind the latency percentiles (whether one is trusted). nullopt when
  // not recorded (a table from another tool): then `requests` stands in.
  std::optional<int64_t> responses;

  std::optional<double> error_rate;     // share of ended requests that failed, 429 included (0..1)
  std::optional<double> rate_429;       // share of ended requests answered 429 (0..1)
  std::optional<double> never_started;  // share of arrivals offered never started (0..1)

  std::optional<double> server_cores;            // the server's mean CPU use, in cores
  std::optional<double> server_throttled_share;  // share of CFS periods throttled (0..1)
  std::optional<double> server_quota_cores;      // its cgroup's CPU quota, in cores
  // The most CPU the server could have used, in cores: the least of its threads, the CPUs it may
  // run on and its quota, as far as the observers saw them.
  std::optional<double> server_cpu_limit_cores;
  std::string
      server_cpu_limit_basis;  // what set it: "its one thread", "its CPU quota of 0.8 cores"
  // Which observed source each server figure came from ("pid:4242", "cgroup:/sys/fs/..."), so a
  // report can say so when several measured it; "" when none did. Several instances, whose CPU
  // server_cores adds, are joined by kSourcesJoiner ("pidfile:/a-0.pid + pidfile:/a-1.pid").
  std::string server_cpu_source;
  std::string server_throttle_source;
  std::optional<double> generator_cores;  // the generator's mean CPU use, in cores
  bool generator_busy = false;       // the generator used 80% or more of its cores in a window here
  std::optional<double> host_load1;  // the host's highest 1-minute load average during the level
  // The host's mean CPU busy share over the level, of all its cores (0..1): at
  // kHostSaturatedShare or more the host itself, shared by the generator and any server on it,
  // may have been the limit.
  std::optional<double> host_cpu_busy;
  std::optional<double> duration_s;  // measured length (warm-up excluded)
  // The level's warm-up, excluded from every figure above: requests that ended in it (started
  // and finished) and how many of them failed. nullopt when not recorded (no warm-up, a table).
  std::optional<int64_t> warmup_requests, warmup_errors;

  std::optional<LevelStreams> streams;      // a level that streamed
  std::optional<double> server_rss_bytes;   // the server's peak resident memory, when observed
  std::string reconcile;                    // --reconcile's verdict ("exact", ...); "" without
  std::optional<double> drop_share;         // and its drops, a share of the client's successes

  // SLO metrics beyond the fields above (p99.9, scoped ones such as "p95(lookup)"), keyed by
  // measure::MetricRef::text(); a ladder fills in every metric its SLO names.
  std::vector<std::pair<std::string, double>> extra_metrics;
  // Each named request of a scenario, in the scenario's order; empty without a scenario.
  std::vector<LevelRoute> routes;

  // Successes per second: goodput_rps when recorded; for a table without it, achieved_rps less
  // its error share (when that is known), else achieved_rps.
  double goodput() const;
  // In the target's unit: arrivals_rps when an arrival is not a single request, else
  // achieved_rps. What "short of the target" is judged on: whether the schedule was kept.
  double achieved_in_target_unit() const;
};

inline constexpr std::string_view kSourcesJoiner = " + ";

// A server_cpu_source split into its instances' sources: one for a single instance, none for "".
inline std::vector<std::string> server_cpu_sources(const std::string& server_cpu_source) {
  std::vector<std::string> out;
  size_t start = 0;
  while (!server_cpu_source.empty()) {
    const size_t at = server_cpu_source.find(kSourcesJoiner, start);
    out.push_back(server_cpu_source.substr(start, at - start));
    if (at == std::string::npos) break;
    start = at + kSourcesJoiner.size();
  }
  return out;
}

// A host whose CPU was busy this share of all its cores or more, over a level, was saturated:
// whatever shares it (the generator, a server on the same machine) may have been held back.
inline constexpr double kHostSaturatedShare = 0.9;
inline bool host_saturated(std::optional<double> host_cpu_busy) {
  return host_cpu_busy && *host_cpu_busy >= kHostSaturatedShare;
}

// A row's figure as the analyses use it: none when it is missing or not finite (a NaN in a table
// is a figure nobody measured, not a value).
inline std::optional<double> finite_or_none(std::optional<double> value) {
  if (value && !std::isfinite(*value)) return std::nullopt;
  return value;
}

// Its file form (a ladder's `rows`) is in result/level_row_json.h.

}  // namespace proofload::analyze
