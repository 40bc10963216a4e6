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

WindowSummary summarize_window(const measure::WindowStats& w) {
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
          .observed = {}};
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
