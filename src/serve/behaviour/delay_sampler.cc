// DelaySampler: inverse-transform sampling for uniform and exponential, Box-Muller for the
// lognormal (so its samples do not share code with quantile_ns, which tests compare against).
// Stateless apart from the caller's Rng; thread-safe.
#include "serve/behaviour/delay_sampler.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

int64_t to_delay_ns(double ns) {
  if (!(ns > 0)) return 0;  // also NaN
  if (ns >= static_cast<double>(kMaxDelayNs)) return kMaxDelayNs;
  return std::llround(ns);
}

void check_range(int64_t value_ns, const char* what) {
  if (value_ns < 0 || value_ns > kMaxDelayNs) {
    throw UsageError(std::string("delay: ") + what + " must be between 0 and 1 day, got " +
                     std::to_string(value_ns) + " ns");
  }
}

// Lower-tail normal quantile for p in (0, 0.5]: a rational first guess (Abramowitz & Stegun
// 26.2.23, error below 4.5e-4) polished by two Halley steps on erfc, which converge cubically.
double lower_normal_quantile(double p) {
  double t = std::sqrt(-2.0 * std::log(p));
  double x = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  for (int i = 0; i < 2; ++i) {
    double error = 0.5 * std::erfc(-x / std::numbers::sqrt2) - p;
    double u = error * std::sqrt(2.0 * std::numbers::pi) * std::exp(0.5 * x * x);
    x -= u / (1.0 + 0.5 * x * u);
  }
  return x;
}

}  // namespace

double standard_normal_quantile(double p) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  if (p == 0.5) return 0.0;
  // Work in the lower tail, where erfc keeps its precision.
  return p < 0.5 ? lower_normal_quantile(p) : -lower_normal_quantile(1.0 - p);
}

DelaySampler DelaySampler::fixed(int64_t value_ns, uint64_t seed) {
  check_range(value_ns, "fixed value");
  return DelaySampler(Kind::kFixed, seed, static_cast<double>(value_ns), 0);
}

DelaySampler DelaySampler::uniform(int64_t min_ns, int64_t max_ns, uint64_t seed) {
  check_range(min_ns, "uniform min");
  check_range(max_ns, "uniform max");
  if (min_ns > max_ns) throw UsageError("delay: uniform min must not exceed max");
  return DelaySampler(Kind::kUniform, seed, static_cast<double>(min_ns),
                      static_cast<double>(max_ns));
}

DelaySampler DelaySampler::exponential(int64_t mean_ns, uint64_t seed) {
  check_range(mean_ns, "exponential mean");
  if (mean_ns == 0) throw UsageError("delay: exponential mean must be above 0");
  return DelaySampler(Kind::kExponential, seed, static_cast<double>(mean_ns), 0);
}

DelaySampler DelaySampler::lognormal(int64_t median_ns, int64_t p99_ns, uint64_t seed) {
  check_range(median_ns, "lognormal median");
  check_range(p99_ns, "lognormal p99");
  if (median_ns == 0) throw UsageError("delay: lognormal median must be above 0");
  if (p99_ns < median_ns) throw UsageError("delay: lognormal p99 must not be below the median");
  double mu = std::log(static_cast<double>(median_ns));
  double sigma = std::log(static_cast<double>(p99_ns) / static_cast<double>(median_ns)) /
                 standard_normal_quantile(0.99);
  return DelaySampler(Kind::kLognormal, seed, mu, sigma);
}

int64_t drifted_delay_ns(int64_t base_ns, int64_t add_ns, int64_t every_ns, int64_t elapsed_ns) {
  if (elapsed_ns <= 0 || add_ns == 0) return base_ns;
  int64_t steps = elapsed_ns / every_ns;
  // Compared by division, so a day-long soak with a tiny `every` cannot overflow.
  if (steps > (kMaxDelayNs - base_ns) / add_ns) return kMaxDelayNs;
  return base_ns + steps * add_ns;
}

int64_t DelaySampler::sample_ns(Rng& rng) const {
  switch (kind_) {
    case Kind::kFixed:
      return static_cast<int64_t>(a_);
    case Kind::kUniform:
      return to_delay_ns(a_ + unit_double(rng) * (b_ - a_));
    case Kind::kExponential:
      // 1 - u is in (0, 1], so the logarithm is finite.
      return to_delay_ns(-a_ * std::log1p(-unit_double(rng)));
    case Kind::kLognormal: {
      double u1 = 1.0 - unit_double(rng);  // (0, 1]
      double u2 = unit_double(rng);
      double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      return to_delay_ns(std::exp(a_ + b_ * z));
    }
  }
  return 0;
}

int64_t DelaySampler::quantile_ns(double q) const {
  if (!(q > 0)) q = 0;  // also NaN
  if (q > 1) q = 1;
  switch (kind_) {
    case Kind::kFixed:
      return static_cast<int64_t>(a_);
    case Kind::kUniform:
      return to_delay_ns(a_ + q * (b_ - a_));
    case Kind::kExponential:
      return q >= 1 ? kMaxDelayNs : to_delay_ns(-a_ * std::log1p(-q));
    case Kind::kLognormal:
      if (b_ == 0) return to_delay_ns(std::exp(a_));  // p99 == median: a fixed delay
      if (q <= 0) return 0;
      if (q >= 1) return kMaxDelayNs;
      return to_delay_ns(std::exp(a_ + b_ * standard_normal_quantile(q)));
  }
  return 0;
}

}  // namespace proofload::serve
