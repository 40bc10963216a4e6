// Thresholds (k6-style pass/fail conditions such as "p95(lookup) < 200ms" or "errors < 1%"),
// parsed at configuration time and evaluated once at the end of a run. Pure: observed values come
// from a caller-supplied lookup, so this knows nothing of sockets, files or result formats.
// Stateless functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::measure {

// A metric a threshold reads. `scope` is empty for the whole run, else the name of a request or
// flow.
struct MetricRef {
  enum class Kind {
    kPercentile,    // pNN or pNN.N (p50, p95, p99, p99.9): latency, ms
    kMean,          // mean or avg: latency, ms
    kMax,           // max: latency, ms
    kErrorRate,     // errors / error_rate: share of ended requests that failed (0..1)
    kNeverStarted,  // never_started: share of arrivals offered never started (0..1)
    kOutcomeRate,   // rate(OUTCOME[, scope]): share of ended requests with that outcome (0..1);
                    // rate(flow_success, FLOW): share of finished flows that succeeded
    kCount,         // count(OUTCOME[, scope]) or requests[(scope)]: a count
    kThroughput,    // rps[(scope)]: responses (any status) per second of the measured span
    kGoodput,       // goodput[(scope)]: successful requests per second of the measured span
    // Read off a `--reconcile` counter once the run has ended (analyze/reconcile.h):
    kReconcile,  // reconcile == exact: the observed value is |client successes - server delta|
    kDrops,      // drops: (client successes - server delta) / client successes (share, signed)
    // Of the streams (a run with --stream, or a scenario's streamed requests), whole or scoped:
    kStreamPercentile,  // ttft_pNN, itl_pNN, tpot_pNN, ttfb_pNN: a stream time, ms
    kStreamRate,        // tokens_per_s, events_per_s: of completed streams, per second
    kStreamGoodput,     // stream_goodput: share of ended streams that met --goodput (0..1)
  };
  Kind kind = Kind::kErrorRate;
  double percentile = 0;  // kPercentile: 95, 99.9 (strictly between 0 and 100)
  std::string outcome;    // kOutcomeRate / kCount: "success", "status_429", "check_failed",
                          // "flow_success", ... ("requests" for the plain request count)
  std::string scope;
  std::string figure;  // kStreamPercentile: ttft, itl, tpot, ttfb; kStreamRate: tokens, events

  // Canonical form: "p95(lookup)", "rate(flow_success, lifecycle)", "errors", "requests".
  // Aliases are normalised (avg -> mean, error_rate -> errors, count(requests) -> requests).
  std::string text() const;
  bool operator==(const MetricRef&) const = default;
  // reconcile and drops: a metric that only a run with --reconcile has.
  bool needs_reconcile() const { return kind == Kind::kReconcile || kind == Kind::kDrops; }
};

enum class Comparison { kLess, kLessEqual, kGreater, kGreaterEqual, kEqual };

// "<", "<=", ">", ">=", "==".
std::string_view comparison_text(Comparison comparison);

struct Threshold {
  std::string expression;  // as written (surrounding whitespace removed)
  MetricRef metric;
  Comparison comparison = Comparison::kLess;
  double bound = 0;  // in the metric's unit: ms for latency, 0..1 for shares, count, req/s
};

// Parses one threshold: METRIC OP BOUND, with whitespace anywhere between tokens. OP is <, <=, >,
// >=, == (or =). Metric keywords and outcomes are case-insensitive; scopes are not.
// Units: latency bounds take durations ("200ms", "1.5s", "250us"; a bare number is ms); shares
// take "1%" or a fraction "0.01" (at most 100% / 1); counts and rps take plain numbers. Bounds
// are plain decimals, never negative. `reconcile` takes one form only, `reconcile == exact`
// (its bound 0: no difference); `drops` is a share (drops <= 0.1%). Neither takes a scope.
// A unit that does not fit the metric (p95 < 1%, errors < 200ms), an unknown metric or outcome
// (names the allowed ones and the nearest), a bad percentile (p0, p100, p-1), a missing operator
// or bound: UsageError with one line quoting the expression.
Threshold parse_threshold(std::string_view expression);

// Supplies observed values in the metric's unit (see Threshold::bound); nullopt = no data (e.g.
// no request with that name completed, or the scope names nothing). The caller implements it
// over its result data. A NaN is treated as no data.
using MetricLookup = std::function<std::optional<double>(const MetricRef&)>;

struct ThresholdResult {
  std::string expression;
  std::optional<double> observed;  // nullopt: no data
  // No data never passes: a threshold that could not be shown to hold fails.
  bool passed = false;
  // "p95(lookup) = 183.2 ms", "errors = 0.42%", "requests = 1200", "rps = 512.3 req/s", or
  // "no data". Latency prints 1 decimal (3, i.e. µs, below 1 ms), shares up to 2 decimals, rps 1.
  // More decimals are printed when fewer would round the value onto the other side of the bound
  // (or a non-zero value to zero), so the printed number never contradicts the verdict.
  std::string observed_text;
};

// One result per threshold, in order. Calls `lookup` once per threshold.
std::vector<ThresholdResult> evaluate_thresholds(const std::vector<Threshold>& thresholds,
                                                 const MetricLookup& lookup);

// True when every result passed (and for an empty list).
bool all_passed(const std::vector<ThresholdResult>& results);

}  // namespace proofload::measure
