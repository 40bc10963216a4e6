// Reduces windows to the counts and percentiles the reports keep (see run_result.h).
#include "report/run_result.h"

#include "report/numbers.h"

namespace proofload::report {

int64_t WindowSummary::responses() const {
  int64_t n = 0;
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (measure::outcome_has_response(static_cast<measure::Outcome>(i))) n += outcomes[i];
  }
  return n;
}

int64_t WindowSummary::errors() const {
  int64_t n = 0;
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (measure::outcome_is_error(static_cast<measure::Outcome>(i))) n += outcomes[i];
  }
  return n;
}

LatencySummary summarize_latency(const measure::HdrHistogram& us) {
  return {.count = us.total_count(),
          .p50_ms = percentile_ms(us, 50.0),
          .p90_ms = percentile_ms(us, 90.0),
          .p95_ms = percentile_ms(us, 95.0),
          .p99_ms = percentile_ms(us, 99.0),
          .p99_9_ms = percentile_ms(us, 99.9),
          .max_ms = max_ms(us),
          .mean_ms = mean_ms(us)};
}

result::Latency latency_record(const measure::HdrHistogram& us) {
  const LatencySummary l = summarize_latency(us);
  return {l.p50_ms, l.p90_ms, l.p95_ms, l.p99_ms, l.p99_9_ms, l.max_ms, l.mean_ms};
}

measure::SpanStreams ended_in(const measure::StreamWindow& s) {
  return {.completed = s.completed,
          .events = s.events,
          .bytes = s.bytes,
          .tokens = s.tokens,
          .goodput = s.goodput};
}

result::StreamsRecord streams_record(const measure::StreamWindow& s,
                                     const measure::SpanStreams& ended, double duration_s,
                                     const std::string& goodput_slo) {
  result::StreamsRecord r;
  r.completed = s.completed;
  r.cut_short = s.cut_short;
  r.idle_timeout = s.idle_timeout;
  r.malformed = s.malformed;
  r.fixture_mismatch = s.fixture_mismatch;
  r.events = s.events;
  r.bytes = s.bytes;
  r.tokens = s.tokens;
  const auto per_s = [&](int64_t count) -> std::optional<double> {
    if (duration_s <= 0) return std::nullopt;
    return static_cast<double>(count) / duration_s;
  };
  // Of the completed streams only (those that matched, when a fixture is checked), that ended in
  // the span: what its windows show, as throughput is.
  r.streams_per_s = per_s(ended.completed);
  r.events_per_s = per_s(ended.events);
  r.bytes_per_s = per_s(ended.bytes);
  r.tokens_per_s = per_s(ended.tokens);
  r.ttfb = latency_record(s.ttfb_us);
  r.ttfe = latency_record(s.ttfe_us);
  r.ttfce = latency_record(s.ttfce_us);
  r.inter_event = latency_record(s.inter_event_us);
  r.tpot = latency_record(s.tpot_us);
  r.duration = latency_record(s.duration_us);
  if (!goodput_slo.empty()) {
    r.goodput_slo = goodput_slo;
    r.goodput = s.goodput;
    // Of every stream that ended: one cut short or idle did not meet the SLO either.
    if (s.ended() > 0) {
      r.goodput_share = static_cast<double>(s.goodput) / static_cast<double>(s.ended());
    }
    r.goodput_per_s = per_s(ended.goodput);
  }
  return r;
}

namespace {

WindowSummary summarize_window_counts(const measure::WindowStats& w) {
  return {.index = w.index,
          .start_ns = w.start_ns,
          .duration_ns = w.duration_ns,
          .warmup = w.warmup,
          .drain = w.drain,
          .latency = summarize_latency(w.latency_us),
          .service = summarize_latency(w.service_us),
          .ttfb = summarize_latency(w.ttfb_us),
          .outcomes = w.outcomes,
          .intended = w.intended,
          .arrivals = w.arrivals,
          .bytes_in = w.bytes_in,
          .bytes_out = w.bytes_out,
          .connects = w.connects,
          .connect = summarize_latency(w.connection.connect_us),
          .tls_handshakes = w.connection.handshakes,
          .tls_resumed = w.connection.resumed,
          .tls_handshake = summarize_latency(w.connection.handshake_us),
          .h2_goaways = w.connection.goaways,
          .in_flight_end = w.in_flight_end,
          .queued_end = w.queued_end,
          .observed = {},
          .streams = std::nullopt};
}

}  // namespace

WindowSummary summarize_window(const measure::WindowStats& w, const std::string& goodput_slo) {
  WindowSummary out = summarize_window_counts(w);
  if (w.streams.ended() > 0 || w.streams.inter_event_us.total_count() > 0) {
    out.streams = streams_record(w.streams, ended_in(w.streams),
                                 static_cast<double>(w.duration_ns) / 1e9, goodput_slo);
  }
  return out;
}

bool RunResult::thresholds_passed() const {
  for (const ThresholdVerdict& t : thresholds) {
    if (!t.passed) return false;
  }
  return true;
}

namespace {
std::optional<double> find_figure(const std::vector<std::pair<std::string, double>>& figures,
                                  const std::string& name) {
  for (const auto& [key, value] : figures) {
    if (key == name) return value;
  }
  return std::nullopt;
}
}  // namespace

std::optional<double> ObservedFigures::value(const std::string& name) const {
  return find_figure(figures, name);
}

std::optional<double> ObservedSummary::value(const std::string& name) const {
  return find_figure(figures, name);
}

}  // namespace proofload::report
