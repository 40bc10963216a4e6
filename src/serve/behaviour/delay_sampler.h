// Waiting time per request drawn from a distribution whose quantiles are known exactly, so
// tests can hold measured percentiles against the truth. Immutable after construction: share
// one DelaySampler between threads, each drawing with its own Rng (rng_for_thread), no lock.
#pragma once

#include <cstdint>

#include "common/rng.h"

namespace proofload::serve {

// Longest delay a sampler gives (one day): caps unbounded tails so nothing overflows int64.
constexpr int64_t kMaxDelayNs = int64_t{86'400} * 1'000'000'000;

// Quantile function of the standard normal distribution (Phi^-1), accurate to about 1e-15
// relative for p in (0, 1); -inf at 0, +inf at 1.
double standard_normal_quantile(double p);

// A delay of `base_ns` grown by `add_ns` for every whole `every_ns` in `elapsed_ns` (the time
// since the server's time zero; negative counts as 0), capped at kMaxDelayNs: a route whose
// latency drifts during a soak. A pure function of elapsed time, so tests need no clock.
// Preconditions: 0 <= base_ns <= kMaxDelayNs, add_ns >= 0, every_ns > 0.
int64_t drifted_delay_ns(int64_t base_ns, int64_t add_ns, int64_t every_ns, int64_t elapsed_ns);

class DelaySampler {
 public:
  enum class Kind : uint8_t { kFixed, kUniform, kExponential, kLognormal };

  DelaySampler() = default;  // no delay

  // Every factory throws UsageError (one line) for parameters out of range: negative values,
  // min > max, a mean or median of zero, p99 below the median, anything above kMaxDelayNs.
  static DelaySampler fixed(int64_t value_ns, uint64_t seed = 0);
  // Continuous uniform on [min_ns, max_ns].
  static DelaySampler uniform(int64_t min_ns, int64_t max_ns, uint64_t seed);
  // Exponential with the given mean (the waiting time of a memoryless process).
  static DelaySampler exponential(int64_t mean_ns, uint64_t seed);
  // Lognormal given by its median and its 99th percentile, the two numbers people know of
  // a latency: ln(X) ~ Normal(mu, sigma) with mu = ln(median) and
  // sigma = ln(p99 / median) / z_0.99, where z_0.99 = Phi^-1(0.99) = 2.3263 (2.32634787...).
  // p99 == median gives sigma = 0, a fixed delay.
  static DelaySampler lognormal(int64_t median_ns, int64_t p99_ns, uint64_t seed);

  Kind kind() const { return kind_; }
  uint64_t seed() const { return seed_; }
  // Lognormal only: the parameters of ln(X).
  double log_mu() const { return a_; }
  double log_sigma() const { return b_; }

  // The generator for server thread `thread_index`: the same seed and index give the same
  // sequence of delays on every run.
  Rng rng_for_thread(uint64_t thread_index) const { return make_rng(seed_, thread_index); }

  // One delay in ns, in [0, kMaxDelayNs]. No allocation, no lock; ~10 ns (fixed) to ~130 ns
  // (lognormal) measured on the 2-core development machine.
  int64_t sample_ns(Rng& rng) const;

  // The exact q-quantile of the distribution (q clamped to [0, 1]), rounded to the nearest ns
  // and capped at kMaxDelayNs (so the 1-quantile of an unbounded tail is kMaxDelayNs).
  int64_t quantile_ns(double q) const;

 private:
  DelaySampler(Kind kind, uint64_t seed, double a, double b)
      : kind_(kind), seed_(seed), a_(a), b_(b) {}

  Kind kind_ = Kind::kFixed;
  uint64_t seed_ = 0;
  // fixed: a = value; uniform: a = min, b = max; exponential: a = mean;
  // lognormal: a = mu, b = sigma (of ln X, X in ns).
  double a_ = 0;
  double b_ = 0;
};

}  // namespace proofload::serve
