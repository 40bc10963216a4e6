// Builds result.json from a RunResult: the run reduced to its record (result/run_record.h), which
// writes everything but the windows, and the windows. Milliseconds carry microsecond precision; a
// percentile of nothing is null, never 0, so that "no data" cannot be read as "fast".
#include "report/result_json.h"

#include <array>
#include <optional>

#include "report/numbers.h"
#include "result/json_values.h"
#include "result/run_record.h"

namespace proofload::report {
namespace {

using measure::Outcome;
using measure::WindowStats;
using nlohmann::json;

using result::optional_json;

// {p50, p90, p99, max, mean} in ms: a window's (its p99.9 would rest on too few samples).
json window_latency_json(const LatencySummary& l) {
  return {{"p50", optional_json(l.p50_ms)},
          {"p90", optional_json(l.p90_ms)},
          {"p99", optional_json(l.p99_ms)},
          {"max", optional_json(l.max_ms)},
          {"mean", optional_json(l.mean_ms)}};
}

// A window's outcomes: only those that occurred.
json window_outcomes_json(const std::array<int64_t, measure::kOutcomeCount>& outcomes) {
  json out = json::object();
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (outcomes[i] != 0) out[std::string(measure::kOutcomeNames[i])] = outcomes[i];
  }
  return out;
}

result::Counts outcome_counts(const std::array<int64_t, measure::kOutcomeCount>& outcomes) {
  result::Counts out;
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    out.emplace_back(std::string(measure::kOutcomeNames[i]), outcomes[i]);
  }
  return out;
}

result::Counts status_counts(const WindowStats& w) {
  result::Counts out;
  for (int code = 0; code < measure::kStatusSlots; ++code) {
    if (w.status[code] == 0) continue;
    out.emplace_back(code == measure::kStatusOther ? std::string("other") : std::to_string(code),
                     w.status[code]);
  }
  return out;
}

double seconds(int64_t ns) { return static_cast<double>(ns) / 1e9; }

void record_summary(const RunResult& result, result::RunRecord& r) {
  const WindowStats& t = result.total;
  const int64_t never_started = t.count(Outcome::kNeverStarted);
  const measure::MeasuredSpan& span = result.span;
  const bool has_span = span.duration_ns > 0;
  const measure::SpanCounts& c = span.counts;
  r.summary_recorded = true;
  r.requests = t.responses();
  r.intended = t.intended;
  r.arrivals = t.arrivals;
  r.errors = t.errors();
  r.error_rate = share(t.errors(), started_requests(t));
  r.never_started = never_started;
  r.never_started_share = t.never_started_share();
  if (has_span) {
    r.throughput_rps = result.throughput_rps();
    r.goodput_rps = result.goodput_rps();
  }
  r.duration_s = result.measured_duration_s;
  // The numerators of the rates: what ended inside the measured span.
  r.span_responses = c.responses;
  r.span_successes = c.successes;
  r.span_iterations = c.iterations;
  r.span_iterations_succeeded = c.iterations_succeeded;
  r.span_flows = c.flows;
  r.span_flows_succeeded = c.flows_succeeded;
  r.span_extended = span.extended_to_last_response;
  r.latency = latency_record(t.latency_us);
  const PercentileSpectrum spectrum = percentile_spectrum(t.latency_us);
  r.spectrum_percentiles = spectrum.percentiles;
  r.spectrum_ms = spectrum.ms;
  r.service_time = latency_record(t.service_us);
  r.ttfb = latency_record(t.ttfb_us);
  r.send_lag = latency_record(t.send_lag_us);
  r.outcomes = outcome_counts(t.outcomes);
  r.status_codes = status_counts(t);
  r.bytes_in = t.bytes_in;
  r.bytes_out = t.bytes_out;
  r.connects = t.connects;
  r.connect_time = latency_record(t.connection.connect_us);
  r.tls_handshakes = t.connection.handshakes;
  r.tls_resumed = t.connection.resumed;
  r.tls_handshake = latency_record(t.connection.handshake_us);
  r.tls_first_error = result.first_tls_failure;
  r.h2_goaways = t.connection.goaways;
  r.h2_server_max_streams = result.h2_server_max_streams;
  if (result.spec.streams()) {
    r.streams = streams_record(t.streams, result.span.counts.streams, seconds(span.duration_ns),
                               result.spec.goodput_slo());
  }
  r.reconcile = result.reconcile;
}

// By named request: what each `requests:` entry of a scenario got (measured part).
void record_named(const RunResult& result, result::RunRecord& r) {
  for (size_t i = 0; i < result.request_names.size() && i < result.named_total.requests.size();
       ++i) {
    const measure::RequestStats& stats = result.named_total.requests[i];
    const int64_t ended = stats.ended();
    int64_t errors = 0;
    int64_t responses = 0;
    for (int o = 0; o < measure::kOutcomeCount; ++o) {
      if (measure::outcome_is_error(static_cast<Outcome>(o))) errors += stats.outcomes[o];
      if (measure::outcome_has_response(static_cast<Outcome>(o))) responses += stats.outcomes[o];
    }
    std::optional<double> throughput, goodput;
    if (result.span.duration_ns > 0) {
      throughput = result.span.per_s(stats.span_responses);
      goodput = result.span.per_s(stats.span_successes);
    }
    r.named.push_back({result.request_names[i], ended, responses, errors, share(errors, ended),
                       throughput, latency_record(stats.latency_us), outcome_counts(stats.outcomes),
                       std::nullopt, goodput});
    if (stats.streams) {
      r.named.back().streams =
          streams_record(*stats.streams, stats.span_streams, seconds(result.span.duration_ns),
                         result.spec.goodput_slo());
    }
  }
}

// By flow: its own denominator (flows, not requests). The success rate is over flows that
// finished; flows the end of the run cut short are counted apart as abandoned.
void record_flows(const RunResult& result, result::RunRecord& r) {
  for (size_t i = 0; i < result.flow_names.size() && i < result.named_total.flows.size(); ++i) {
    const measure::FlowStats& f = result.named_total.flows[i];
    r.flows.push_back({result.flow_names[i], f.started, f.succeeded, f.failed, f.abandoned,
                       share(f.succeeded, f.succeeded + f.failed), latency_record(f.duration_us)});
  }
}

void record_observed(const RunResult& result, result::RunRecord& r) {
  if (result.observed.empty()) return;
  r.observed_recorded = true;
  for (const ObservedSummary& o : result.observed) {
    result::SourceRecord source{};  // {}: GCC 12 falsely warns it may be uninitialized
    source.label = o.label;
    source.source = o.source;
    source.samples = o.samples;
    source.gaps = o.gaps;
    source.error = o.last_error;
    source.figures = o.figures;
    for (const CounterTotal& c : o.counters) source.counters.push_back({c.name, c.first, c.last});
    r.sources.push_back(std::move(source));
  }
  const ServerFigures& s = result.server;
  if (s.any() || s.cpu_limit_cores) {
    r.server = result::ServerRecord{s.cpu_cores_mean, s.cpu_cores_max,   s.throttled_share_mean,
                                    s.quota_cores,    s.cpu_limit_cores, s.cpu_source,
                                    s.cgroup_source,  s.cpu_limit_basis, s.cpu_also_measured_by,
                                    s.cpu_bound(),    s.cpu_sources};
  }
  r.busy_windows = result.generator_busy_windows;
}

result::RunRecord header_record(const RunResult& result, const char* status) {
  result::RunRecord r;
  r.status = status;
  r.proofload_version = result.proofload_version;
  r.command_line = result.command_line;
  r.started_at = iso8601_utc(result.start_wall_ns);
  r.window_s = seconds(result.window_ns);
  r.spec = result.spec;
  r.segment = result.segment;
  r.merged = result.merged;
  return r;
}

}  // namespace

json figures_json(const std::vector<std::pair<std::string, double>>& figures) {
  json out = json::object();
  for (const auto& [name, value] : figures) out[name] = value;
  return out;
}

json observed_window_json(const std::vector<ObservedFigures>& observed) {
  json out = json::object();
  for (const ObservedFigures& o : observed) {
    json entry = figures_json(o.figures);
    entry["samples"] = o.samples;
    entry["gaps"] = o.gaps;
    if (!o.last_error.empty()) entry["error"] = o.last_error;
    out[o.label] = std::move(entry);
  }
  return out;
}

json window_to_json(const WindowSummary& w) {
  const double duration_s = seconds(w.duration_ns);
  json throughput =
      duration_s > 0 ? json(static_cast<double>(w.responses()) / duration_s) : json(nullptr);
  json out = {{"index", w.index},
              {"start_s", seconds(w.start_ns)},
              {"duration_s", duration_s},
              {"warmup", w.warmup},
              {"drain", w.drain},
              {"requests", w.responses()},
              {"intended", w.intended},
              {"arrivals", w.arrivals},
              {"errors", w.errors()},
              {"never_started", w.count(Outcome::kNeverStarted)},
              {"throughput_rps", throughput},
              {"latency_ms", window_latency_json(w.latency)},
              {"outcomes", window_outcomes_json(w.outcomes)},
              {"in_flight", w.in_flight_end},
              {"queued", w.queued_end},
              {"connects", w.connects},
              {"connect_ms", window_latency_json(w.connect)},
              {"tls_handshakes", w.tls_handshakes},
              {"tls_resumed", w.tls_resumed},
              {"tls_handshake_ms", window_latency_json(w.tls_handshake)},
              {"h2_goaways", w.h2_goaways}};
  if (!w.observed.empty()) out["observed"] = observed_window_json(w.observed);
  if (w.streams) out["streams"] = result::streams_json(*w.streams);
  return out;
}

result::RunRecord run_record(const RunResult& result) {
  result::RunRecord r = header_record(result, result.aborted       ? "aborted"
                                              : result.interrupted ? "interrupted"
                                                                   : "complete");
  r.end_reason = result.end_reason;
  record_summary(result, r);
  record_named(result, r);
  record_flows(result, r);
  record_observed(result, r);
  for (const ThresholdVerdict& t : result.thresholds) {
    r.thresholds.push_back({t.expression, t.observed, t.observed_text, t.passed});
  }
  if (!result.thresholds.empty()) r.thresholds_passed = result.thresholds_passed();
  r.warmup_s = result.warmup_duration_s;
  r.warmup_requests = result.warmup_total.responses();
  r.warmup_outcomes = outcome_counts(result.warmup_total.outcomes);
  return r;
}

json result_to_json(const RunResult& result) {
  json out = result::run_to_json(run_record(result));
  json windows = json::array();
  for (const WindowSummary& w : result.windows) windows.push_back(window_to_json(w));
  out["windows"] = std::move(windows);
  return out;
}

json running_result_to_json(const RunResult& initial) {
  return result::run_to_json(header_record(initial, "running"));
}

std::string result_json_text(const json& document) {
  // argv and the spec may hold bytes that are not UTF-8: replace them rather than fail to
  // write the record of a run.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace proofload::report
