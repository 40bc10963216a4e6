// Thresholds against a finished run: reads the metric values a threshold names out of a
// RunResult (the whole run, or one named request or flow of a scenario). Pure; thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "measure/threshold.h"
#include "report/run_result.h"

namespace proofload::experiments {

// The observed value of `metric` in `result`'s measured part, in the threshold's units (ms,
// share 0..1, count, req/s); nullopt when there is no data (nothing recorded, or a scope that
// names no request or flow of the run).
std::optional<double> observed_metric(const report::RunResult& result,
                                      const measure::MetricRef& metric);

// The observed value of `metric` in one window taken as a run of its own (its responses over its
// length are its throughput): what an abort rule (--abort-when) watches, window by window.
std::optional<double> window_metric(const measure::WindowStats& window,
                                    const measure::MetricRef& metric);

// Evaluates every threshold against `result`, in order.
std::vector<report::ThresholdVerdict> evaluate_thresholds(
    const report::RunResult& result, const std::vector<measure::Threshold>& thresholds);

}  // namespace proofload::experiments
