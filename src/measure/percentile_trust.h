// When a latency percentile has enough samples behind it to be trusted: decided here once, for
// every output that marks one (the terminal summary, summary.md, the ladder's analysis and its
// table). A percentile is trusted when at least kTailSamplesForTrust samples lie at or beyond it:
// pNN needs n * (1 - NN/100) >= 10, so p50 needs 20 samples, p90 100, p95 200, p99 1,000 and
// p99.9 10,000. Below that it is "one of the slowest few", not a stable figure. Pure.
#pragma once

#include <cmath>
#include <cstdint>

namespace proofload::measure {

constexpr int64_t kTailSamplesForTrust = 10;

// Samples a percentile (0 < percentile < 100) needs to be trusted: 1,000 for 99.
inline int64_t samples_needed_for(double percentile) {
  // The tolerance keeps p99 at 1,000 (not 1,001) despite 1 - 0.99 in binary.
  return static_cast<int64_t>(
      std::ceil(static_cast<double>(kTailSamplesForTrust) / (1 - percentile / 100) - 1e-6));
}

inline bool percentile_trusted(int64_t samples, double percentile) {
  return samples >= samples_needed_for(percentile);
}

}  // namespace proofload::measure
