// Simulated probe sources for the probe's tests (analysis, result file, report): sources flat out
// against their own token bucket or against one shared by several, from a seeded generator so
// that every run sees the same counts. Test-only; pure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyze/probe_analysis.h"
#include "common/rng.h"

namespace proofload::analyze::testing_support {

inline constexpr double kProbeDurationS = 60;
inline constexpr double kProbeSettleS = 10;
inline constexpr int64_t kSentPerSecond = 2500;  // flat out: far more than any allowance

// Source `index` binds 127.0.0.(index + 2), as the probe numbers them.
inline ProbeSourceSeries probe_source(int index) {
  ProbeSourceSeries s;
  s.address = "127.0.0." + std::to_string(index + 2);
  return s;
}

inline void add_second(ProbeSourceSeries& s, int64_t second, int64_t let_through) {
  s.per_second.push_back({second, let_through, kSentPerSecond - let_through, 0});
}

// A source with its own token bucket of 100/s and a burst of 600, flat out: the burst and the
// first second's refill in second 0, then 100 a second give or take one (when a request ends).
inline ProbeSourceSeries own_allowance(int index, Rng& rng, int64_t before_first_429 = 600) {
  ProbeSourceSeries s = probe_source(index);
  add_second(s, 0, 700);
  for (int64_t second = 1; second < kProbeDurationS; ++second) {
    add_second(s, second, 99 + static_cast<int64_t>(unit_double(rng) * 3));
  }
  s.let_through_before_first_429 = before_first_429;
  return s;
}

// `count` sources (from `first_index`) flat out against one bucket of 100/s (burst 600): each
// second's allowance falls to them in random shares. `rate_per_s` 200 is two such allowances
// shared by them all (an ingress of two pods, each with its own 100/s, that hid the callers).
inline std::vector<ProbeSourceSeries> sharing(int count, Rng& rng, int first_index = 0,
                                              int64_t rate_per_s = 100) {
  std::vector<ProbeSourceSeries> sources;
  for (int i = 0; i < count; ++i) {
    sources.push_back(probe_source(first_index + i));
    sources.back().let_through_before_first_429 = 600 / count;
  }
  for (int64_t second = 0; second < kProbeDurationS; ++second) {
    const int64_t allowance = second == 0 ? 600 + rate_per_s : rate_per_s;
    std::vector<double> weights;
    double sum = 0;
    for (int i = 0; i < count; ++i) sum += weights.emplace_back(0.2 + unit_double(rng));
    int64_t left = allowance;
    for (int i = 0; i < count; ++i) {
      const int64_t share =
          i + 1 == count ? left
                         : static_cast<int64_t>(static_cast<double>(allowance) * weights[i] / sum);
      left -= share;
      add_second(sources[i], second, share);
    }
  }
  return sources;
}

}  // namespace proofload::analyze::testing_support
