// The running experiment's counters in the Prometheus text format 0.0.4 (--metrics-listen), so
// the load shows in a team's Grafana next to the service it hits. Each measured window is folded
// into totals kept since the process started (across a ladder's levels: a counter never goes
// back), and the latency into fixed buckets, so every scrape sees the same series.
// Thread-safety: add_window (the run's coordinator) and render (the listener) may race; a mutex
// guards the totals.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/text.h"  // escape_label_value
#include "measure/outcome.h"
#include "measure/window_stats.h"

namespace proofload::live {

// The latency buckets' upper bounds, in seconds (Prometheus' `le`): fixed, so that series from
// several runs, and several generators, add up.
constexpr std::array<double, 13> kLatencyBucketsS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                     0.25,  0.5,    1,     2.5,  5,     10};

class MetricsExposition {
 public:
  // A step of the experiment begins (a run, a ladder's level, a comparison's cell): its number
  // from 1, its label ("level 3 of 5 (1,000/s)"; "" for a lone run) and its scenario's request
  // names (the order of WindowStats::request_outcomes; none without a scenario).
  void begin_step(const std::string& label, std::vector<std::string> request_names = {});
  // Folds one measured window in (warm-up windows too: they are load the service saw).
  void add_window(const measure::WindowStats& w);
  // The exposition, every family with # HELP and # TYPE, ending in '\n'.
  std::string render() const;

 private:
  mutable std::mutex mutex_;
  std::array<int64_t, measure::kOutcomeCount> outcomes_{};  // requests ended, by outcome
  std::map<int, int64_t> status_;  // responses by status code (600: any other)
  // Latency of responses: counts at or below each bound (cumulative, as `le` is), all, and the
  // sum in seconds.
  std::array<int64_t, kLatencyBucketsS.size()> latency_le_{};
  int64_t latency_count_ = 0;
  double latency_sum_s_ = 0;
  int64_t intended_ = 0;    // requests the schedule wanted
  int64_t bytes_in_ = 0;    // bytes read from the servers
  int64_t bytes_out_ = 0;   // bytes written to them
  int64_t connects_ = 0;    // connections opened
  int64_t windows_ = 0;     // windows folded in
  int64_t in_flight_ = 0;   // gauge: requests started and not ended at the last window's end
  int64_t queued_ = 0;      // gauge: open loop, requests waiting for a connection then
  bool warmup_ = false;     // gauge: the last window was in the warm-up
  int64_t step_ = 0;        // gauge: the step in progress, from 1 (0: none begun)
  std::string step_label_;  // its label
  std::vector<std::string> step_request_names_;  // its scenario's requests, in workload order
  // Requests ended by name and outcome, over every step (a comparison's checks differ by cell).
  std::map<std::string, std::array<int64_t, measure::kOutcomeCount>> by_request_;
};

}  // namespace proofload::live
