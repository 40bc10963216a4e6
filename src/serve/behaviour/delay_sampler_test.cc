// DelaySampler: sampled percentiles agree with the exact quantiles within sampling error,
// the lognormal parameterisation by median and p99, reproducibility per thread, bad input;
// the drift of a delay with the server's age.
#include "serve/behaviour/delay_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

constexpr int kSamples = 200'000;

std::vector<int64_t> draw(const DelaySampler& sampler, uint64_t thread_index, int count) {
  Rng rng = sampler.rng_for_thread(thread_index);
  std::vector<int64_t> samples(count);
  for (int64_t& s : samples) s = sampler.sample_ns(rng);
  return samples;
}

// For each of p50, p90, p99: the fraction of samples at or below quantile_ns(p) is p within
// 4 standard errors (sqrt(p(1-p)/n), whatever the distribution), and the sampled percentile
// lies between the true quantiles at p -/+ 4 standard errors.
void expect_percentiles_match(const DelaySampler& sampler) {
  std::vector<int64_t> samples = draw(sampler, 0, kSamples);
  std::sort(samples.begin(), samples.end());
  for (double p : {0.5, 0.9, 0.99}) {
    double sigma_p = std::sqrt(p * (1 - p) / kSamples);
    int64_t truth_ns = sampler.quantile_ns(p);
    double at_or_below =
        static_cast<double>(std::upper_bound(samples.begin(), samples.end(), truth_ns) -
                            samples.begin()) /
        kSamples;
    EXPECT_NEAR(at_or_below, p, 4 * sigma_p) << "p" << p * 100 << " truth " << truth_ns;
    int64_t sampled_ns = samples[static_cast<size_t>(p * kSamples)];
    EXPECT_GE(sampled_ns, sampler.quantile_ns(p - 4 * sigma_p)) << "p" << p * 100;
    EXPECT_LE(sampled_ns, sampler.quantile_ns(p + 4 * sigma_p)) << "p" << p * 100;
  }
}

TEST(StandardNormalQuantileTest, KnownValues) {
  EXPECT_EQ(standard_normal_quantile(0.5), 0.0);
  EXPECT_NEAR(standard_normal_quantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(standard_normal_quantile(0.99), 2.326347874040841, 1e-12);
  EXPECT_NEAR(standard_normal_quantile(0.001), -3.090232306167814, 1e-12);
  EXPECT_NEAR(standard_normal_quantile(1e-10), -6.361340902404056, 1e-9);
  EXPECT_TRUE(std::isinf(standard_normal_quantile(0)));
  EXPECT_TRUE(std::isinf(standard_normal_quantile(1)));
}

TEST(DelaySamplerTest, FixedAlwaysGivesTheValue) {
  DelaySampler sampler = DelaySampler::fixed(2'500'000);
  Rng rng = sampler.rng_for_thread(3);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(sampler.sample_ns(rng), 2'500'000);
  EXPECT_EQ(sampler.quantile_ns(0.0), 2'500'000);
  EXPECT_EQ(sampler.quantile_ns(0.99), 2'500'000);
  Rng other = DelaySampler().rng_for_thread(0);
  EXPECT_EQ(DelaySampler().sample_ns(other), 0);
}

TEST(DelaySamplerTest, UniformPercentilesMatchQuantiles) {
  DelaySampler sampler = DelaySampler::uniform(1'000'000, 5'000'000, 42);
  EXPECT_EQ(sampler.quantile_ns(0), 1'000'000);
  EXPECT_EQ(sampler.quantile_ns(0.5), 3'000'000);
  EXPECT_EQ(sampler.quantile_ns(1), 5'000'000);
  expect_percentiles_match(sampler);
  std::vector<int64_t> samples = draw(sampler, 1, 10'000);
  EXPECT_GE(*std::min_element(samples.begin(), samples.end()), 1'000'000);
  EXPECT_LE(*std::max_element(samples.begin(), samples.end()), 5'000'000);
}

TEST(DelaySamplerTest, ExponentialPercentilesAndMeanMatch) {
  const int64_t mean_ns = 10'000'000;
  DelaySampler sampler = DelaySampler::exponential(mean_ns, 7);
  EXPECT_NEAR(sampler.quantile_ns(0.5), mean_ns * std::log(2.0), 1);
  EXPECT_NEAR(sampler.quantile_ns(0.99), mean_ns * std::log(100.0), 1);
  EXPECT_EQ(sampler.quantile_ns(1), kMaxDelayNs);
  expect_percentiles_match(sampler);
  // The mean, too: the standard deviation of an exponential equals its mean.
  std::vector<int64_t> samples = draw(sampler, 0, kSamples);
  double sum = 0;
  for (int64_t s : samples) sum += static_cast<double>(s);
  EXPECT_NEAR(sum / kSamples, mean_ns, 4.0 * mean_ns / std::sqrt(kSamples));
}

TEST(DelaySamplerTest, LognormalIsParameterisedByMedianAndP99) {
  const int64_t median_ns = 20'000'000;
  const int64_t p99_ns = 200'000'000;
  DelaySampler sampler = DelaySampler::lognormal(median_ns, p99_ns, 11);
  EXPECT_EQ(sampler.quantile_ns(0.5), median_ns);
  EXPECT_NEAR(sampler.quantile_ns(0.99), p99_ns, 1);
  // The documented rule, with z_0.99 rounded to 2.3263.
  EXPECT_NEAR(sampler.log_sigma(), std::log(10.0) / 2.3263, 1e-4);
  EXPECT_NEAR(sampler.log_mu(), std::log(static_cast<double>(median_ns)), 1e-12);
  expect_percentiles_match(sampler);
}

TEST(DelaySamplerTest, LognormalWithP99AtTheMedianIsFixed) {
  DelaySampler sampler = DelaySampler::lognormal(5'000'000, 5'000'000, 1);
  Rng rng = sampler.rng_for_thread(0);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(sampler.sample_ns(rng), 5'000'000);
  EXPECT_EQ(sampler.quantile_ns(0), 5'000'000);
  EXPECT_EQ(sampler.quantile_ns(1), 5'000'000);
}

TEST(DelaySamplerTest, SameSeedAndThreadRepeatOtherThreadsDiffer) {
  DelaySampler a = DelaySampler::exponential(1'000'000, 99);
  DelaySampler b = DelaySampler::exponential(1'000'000, 99);
  DelaySampler c = DelaySampler::exponential(1'000'000, 100);
  EXPECT_EQ(draw(a, 2, 1000), draw(b, 2, 1000));
  EXPECT_NE(draw(a, 2, 1000), draw(a, 3, 1000));
  EXPECT_NE(draw(a, 2, 1000), draw(c, 2, 1000));
}

TEST(DelaySamplerTest, BadParametersAreUsageErrors) {
  EXPECT_THROW(DelaySampler::fixed(-1), UsageError);
  EXPECT_THROW(DelaySampler::uniform(5, 4, 0), UsageError);
  EXPECT_THROW(DelaySampler::uniform(-5, 4, 0), UsageError);
  EXPECT_THROW(DelaySampler::exponential(0, 0), UsageError);
  EXPECT_THROW(DelaySampler::lognormal(0, 10, 0), UsageError);
  EXPECT_THROW(DelaySampler::lognormal(10, 9, 0), UsageError);
  EXPECT_THROW(DelaySampler::fixed(kMaxDelayNs + 1), UsageError);
}

// `drift: {add: 1ms, every: 1s}` on `delay: 2ms`: steps at each whole second, never a slope.
TEST(DriftedDelayTest, GrowsByAddForEveryWholePeriodSinceTimeZero) {
  constexpr int64_t kMs = 1'000'000;
  constexpr int64_t kS = 1'000'000'000;
  EXPECT_EQ(drifted_delay_ns(2 * kMs, kMs, kS, 0), 2 * kMs);
  EXPECT_EQ(drifted_delay_ns(2 * kMs, kMs, kS, kS - 1), 2 * kMs);
  EXPECT_EQ(drifted_delay_ns(2 * kMs, kMs, kS, kS), 3 * kMs);
  EXPECT_EQ(drifted_delay_ns(2 * kMs, kMs, kS, 90 * kS + kS / 2), 92 * kMs);
  EXPECT_EQ(drifted_delay_ns(0, kMs, kS, 3600 * kS), 3600 * kMs);   // no base delay: drift alone
  EXPECT_EQ(drifted_delay_ns(2 * kMs, kMs, kS, -5 * kS), 2 * kMs);  // before time zero: none
}

TEST(DriftedDelayTest, IsCappedAtTheLongestDelayWithoutOverflow) {
  EXPECT_EQ(drifted_delay_ns(0, kMaxDelayNs, 1, INT64_MAX), kMaxDelayNs);
  EXPECT_EQ(drifted_delay_ns(kMaxDelayNs, 1, 1, 1), kMaxDelayNs);
  EXPECT_EQ(drifted_delay_ns(kMaxDelayNs - 10, 3, 1, 3), kMaxDelayNs - 1);
  EXPECT_EQ(drifted_delay_ns(kMaxDelayNs - 10, 3, 1, 4), kMaxDelayNs);
}

}  // namespace
}  // namespace proofload::serve
