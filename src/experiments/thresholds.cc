// See thresholds.h. A scope may name a request (its latency and outcomes) or a flow (its whole
// duration, and its success and failure over finished flows).
#include "experiments/thresholds.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include "common/clock.h"
#include "report/numbers.h"

namespace proofload::experiments {
namespace {

using measure::MetricRef;
using measure::Outcome;

int index_of(const std::vector<std::string>& names, const std::string& name) {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::optional<Outcome> outcome_named(std::string_view name) {
  for (int i = 0; i < measure::kOutcomeCount; ++i) {
    if (measure::kOutcomeNames[i] == name) return static_cast<Outcome>(i);
  }
  return std::nullopt;
}

std::optional<double> from_histogram(const measure::HdrHistogram& us, const MetricRef& metric) {
  switch (metric.kind) {
    case MetricRef::Kind::kPercentile:
      return report::percentile_ms(us, metric.percentile);
    case MetricRef::Kind::kMean:
      return report::mean_ms(us);
    case MetricRef::Kind::kMax:
      return report::max_ms(us);
    default:
      return std::nullopt;
  }
}

bool is_latency(const MetricRef& metric) {
  return metric.kind == MetricRef::Kind::kPercentile || metric.kind == MetricRef::Kind::kMean ||
         metric.kind == MetricRef::Kind::kMax;
}

// Counts of one population of requests (the whole run, or one named request).
struct RequestCounts {
  const std::array<int64_t, measure::kOutcomeCount>* outcomes;
  int64_t started;         // ended requests, never-started excluded
  int64_t span_responses;  // got an HTTP response inside the measured span
  int64_t span_successes;  // succeeded inside the measured span
};

std::optional<double> from_counts(const RequestCounts& counts, const MetricRef& metric,
                                  const measure::MeasuredSpan& span) {
  auto count_of = [&](Outcome o) { return (*counts.outcomes)[static_cast<int>(o)]; };
  switch (metric.kind) {
    case MetricRef::Kind::kErrorRate: {
      int64_t errors = 0;
      for (int i = 0; i < measure::kOutcomeCount; ++i) {
        if (measure::outcome_is_error(static_cast<Outcome>(i))) errors += (*counts.outcomes)[i];
      }
      return report::share(errors, counts.started);
    }
    case MetricRef::Kind::kOutcomeRate:
      if (auto o = outcome_named(metric.outcome))
        return report::share(count_of(*o), counts.started);
      return std::nullopt;
    case MetricRef::Kind::kCount:
      if (metric.outcome == "requests") return static_cast<double>(counts.started);
      if (auto o = outcome_named(metric.outcome)) return static_cast<double>(count_of(*o));
      return std::nullopt;
    case MetricRef::Kind::kThroughput:
      if (span.duration_ns <= 0) return std::nullopt;
      return span.per_s(counts.span_responses);
    case MetricRef::Kind::kGoodput:
      if (span.duration_ns <= 0) return std::nullopt;
      return span.per_s(counts.span_successes);
    default:
      return std::nullopt;
  }
}

std::optional<double> from_flow(const measure::FlowStats& flow, const MetricRef& metric) {
  if (is_latency(metric)) return from_histogram(flow.duration_us, metric);
  const int64_t finished = flow.succeeded + flow.failed;
  switch (metric.kind) {
    case MetricRef::Kind::kErrorRate:
      return report::share(flow.failed, finished);
    case MetricRef::Kind::kOutcomeRate:
      if (metric.outcome == "flow_success" || metric.outcome == "success") {
        return report::share(flow.succeeded, finished);
      }
      return std::nullopt;
    case MetricRef::Kind::kCount:
      if (metric.outcome == "flow_success" || metric.outcome == "success") {
        return static_cast<double>(flow.succeeded);
      }
      if (metric.outcome == "requests") return static_cast<double>(flow.started);
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

bool is_stream(const MetricRef& metric) {
  return metric.kind == MetricRef::Kind::kStreamPercentile ||
         metric.kind == MetricRef::Kind::kStreamRate ||
         metric.kind == MetricRef::Kind::kStreamGoodput;
}

// Of the run's streams, or of one streamed request's; no data when nothing streamed there.
// Rates count the streams that completed inside the span, as throughput counts responses.
std::optional<double> stream_metric(const report::RunResult& result, const MetricRef& metric) {
  const measure::StreamWindow* s = &result.total.streams;
  const measure::SpanStreams* ended = &result.span.counts.streams;
  if (!metric.scope.empty()) {
    const int r = index_of(result.request_names, metric.scope);
    if (r < 0 || static_cast<size_t>(r) >= result.named_total.requests.size()) return std::nullopt;
    const measure::RequestStats& request = result.named_total.requests[static_cast<size_t>(r)];
    if (!request.streams) return std::nullopt;
    s = &*request.streams;
    ended = &request.span_streams;
  }
  switch (metric.kind) {
    case MetricRef::Kind::kStreamPercentile: {
      const measure::HdrHistogram& h = metric.figure == "ttft"   ? s->ttfce_us
                                       : metric.figure == "itl"  ? s->inter_event_us
                                       : metric.figure == "tpot" ? s->tpot_us
                                                                 : s->ttfb_us;
      return report::percentile_ms(h, metric.percentile);
    }
    case MetricRef::Kind::kStreamRate:
      if (result.span.duration_ns <= 0 || s->ended() == 0) return std::nullopt;
      return result.span.per_s(metric.figure == "tokens" ? ended->tokens : ended->events);
    case MetricRef::Kind::kStreamGoodput:
      return report::share(s->goodput, s->ended());
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<double> observed_metric(const report::RunResult& result, const MetricRef& metric) {
  if (is_stream(metric)) return stream_metric(result, metric);
  if (metric.needs_reconcile()) {
    // No reconcile, or a counter that could not be read: no data, which never passes.
    if (!result.reconcile) return std::nullopt;
    const std::optional<double> difference = result.reconcile->difference();
    if (metric.kind == MetricRef::Kind::kDrops) return result.reconcile->drop_share();
    if (!difference) return std::nullopt;
    return std::abs(*difference);  // how far apart: 0 is exact
  }
  const measure::MeasuredSpan& span = result.span;
  if (metric.scope.empty()) {
    const measure::WindowStats& t = result.total;
    if (is_latency(metric)) return from_histogram(t.latency_us, metric);
    if (metric.kind == MetricRef::Kind::kNeverStarted) {
      return t.never_started_share();
    }
    if (metric.outcome == "flow_success") {
      // Over every flow of the scenario.
      measure::FlowStats all;
      for (const measure::FlowStats& f : result.named_total.flows) all.merge(f);
      if (result.flow_names.empty()) return std::nullopt;
      return from_flow(all, metric);
    }
    return from_counts(
        {&t.outcomes, report::started_requests(t), span.counts.responses, span.counts.successes},
        metric, span);
  }
  if (int r = index_of(result.request_names, metric.scope);
      r >= 0 && static_cast<size_t>(r) < result.named_total.requests.size()) {
    const measure::RequestStats& stats = result.named_total.requests[static_cast<size_t>(r)];
    if (is_latency(metric)) return from_histogram(stats.latency_us, metric);
    int64_t started = stats.ended() - stats.count(Outcome::kNeverStarted);
    return from_counts({&stats.outcomes, started, stats.span_responses, stats.span_successes},
                       metric, span);
  }
  if (int f = index_of(result.flow_names, metric.scope);
      f >= 0 && static_cast<size_t>(f) < result.named_total.flows.size()) {
    return from_flow(result.named_total.flows[static_cast<size_t>(f)], metric);
  }
  return std::nullopt;
}

std::optional<double> window_metric(const measure::WindowStats& w,
                                    const measure::MetricRef& metric) {
  report::RunResult window;
  window.total = w;
  window.span.duration_ns = w.duration_ns;
  window.span.counts.responses = w.responses();
  window.span.counts.successes = w.count(measure::Outcome::kSuccess);
  window.span.counts.streams = report::ended_in(w.streams);
  window.measured_duration_s = seconds_of(w.duration_ns);
  return observed_metric(window, metric);
}

std::vector<report::ThresholdVerdict> evaluate_thresholds(
    const report::RunResult& result, const std::vector<measure::Threshold>& thresholds) {
  auto results = measure::evaluate_thresholds(
      thresholds, [&](const MetricRef& metric) { return observed_metric(result, metric); });
  std::vector<report::ThresholdVerdict> verdicts;
  for (const measure::ThresholdResult& r : results) {
    verdicts.push_back({r.expression, r.observed, r.observed_text, r.passed});
  }
  return verdicts;
}

}  // namespace proofload::experiments
