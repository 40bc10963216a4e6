// HdrHistogram: percentiles against exact sorted data, adversarial values, merge.
#include "measure/hdr_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

namespace proofload::measure {
namespace {

constexpr int64_t kHighest = 3'600'000'000;

// The bucket geometry of a 1..3.6e9, 3-figure histogram written out independently: values below
// 2048 have unit resolution; above, [1024 * 2^k, 2048 * 2^k) is cut into slices of width 2^k.
int64_t expected_highest_equivalent(int64_t v) {
  if (v < 2048) return v;
  const int k = (63 - std::countl_zero(static_cast<uint64_t>(v))) - 10;
  return ((v >> k) << k) + (int64_t{1} << k) - 1;
}

int64_t expected_lowest_equivalent(int64_t v) {
  if (v < 2048) return v;
  const int k = (63 - std::countl_zero(static_cast<uint64_t>(v))) - 10;
  return (v >> k) << k;
}

// Percentiles as parts per million, so that the exact nearest rank is integer arithmetic.
constexpr int64_t kPpm[] = {1,       10'000,  250'000, 500'000, 750'000,  900'000,
                            990'000, 999'000, 999'900, 999'990, 1'000'000};

// Checks every percentile of `h` against nearest-rank on the exact data.
void expect_percentiles_match(const HdrHistogram& h, std::vector<int64_t> values) {
  std::sort(values.begin(), values.end());
  const auto n = static_cast<int64_t>(values.size());
  ASSERT_EQ(h.total_count(), n);
  for (int64_t ppm : kPpm) {
    const int64_t rank = std::max<int64_t>(1, (ppm * n + 999'999) / 1'000'000);
    const int64_t exact = values[static_cast<size_t>(rank - 1)];
    const int64_t got = h.value_at_percentile(static_cast<double>(ppm) / 10'000.0);
    EXPECT_EQ(got, expected_highest_equivalent(exact)) << "p" << ppm / 10'000.0 << " n=" << n;
    // Within the promised precision: at most 1/1000 above the exact value.
    EXPECT_GE(got, exact);
    EXPECT_LE(got - exact, exact / 1000);
  }
  EXPECT_EQ(h.min(), expected_lowest_equivalent(values.front()));
  EXPECT_EQ(h.max(), expected_highest_equivalent(values.back()));
  long double sum = 0;
  for (int64_t v : values) sum += static_cast<long double>(v);
  EXPECT_NEAR(h.mean(), static_cast<double>(sum / n), 1e-9 * static_cast<double>(sum / n) + 1e-12);
}

TEST(HdrHistogram, DefaultConfigurationUsesAbout23kCounters) {
  HdrHistogram h;
  EXPECT_EQ(h.lowest_discernible(), 1);
  EXPECT_EQ(h.highest_trackable(), kHighest);
  EXPECT_EQ(h.significant_figures(), 3);
  // 2048 sub-buckets (2^ceil(log2(2 * 10^3))), 22 buckets, (22 + 1) * 1024 counters.
  EXPECT_EQ(h.counter_count(), 23u * 1024u);
}

TEST(HdrHistogram, BucketBoundaries) {
  HdrHistogram h;
  EXPECT_EQ(h.highest_equivalent(2047), 2047);
  EXPECT_EQ(h.lowest_equivalent(2049), 2048);
  EXPECT_EQ(h.highest_equivalent(2048), 2049);
  EXPECT_EQ(h.lowest_equivalent(4095), 4094);
  EXPECT_EQ(h.highest_equivalent(4096), 4099);
  EXPECT_EQ(h.lowest_equivalent(1'000'000), 999'936);
  EXPECT_EQ(h.highest_equivalent(1'000'000), 1'000'447);
}

TEST(HdrHistogram, CoarserConfigurationsFollowTheSameGeometry) {
  // lowest 1000 makes the unit 512 (2^floor(log2 1000)); 2 figures give 256 sub-buckets.
  HdrHistogram h(1000, 1'000'000'000, 2);
  EXPECT_EQ(h.lowest_equivalent(1000), 512);
  EXPECT_EQ(h.highest_equivalent(1000), 1023);
  h.record(100'000);
  EXPECT_EQ(h.value_at_percentile(50), h.highest_equivalent(100'000));
  EXPECT_LE(h.value_at_percentile(50) - 100'000, 100'000 / 100);
}

TEST(HdrHistogram, RejectsInvalidConfiguration) {
  EXPECT_THROW(HdrHistogram(0, 1000, 3), std::invalid_argument);
  EXPECT_THROW(HdrHistogram(10, 19, 3), std::invalid_argument);
  EXPECT_THROW(HdrHistogram(1, 1000, 0), std::invalid_argument);
  EXPECT_THROW(HdrHistogram(1, 1000, 6), std::invalid_argument);
}

TEST(HdrHistogram, EmptyHistogramReportsZeros) {
  HdrHistogram h;
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.value_at_percentile(50), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.count_at_or_below(1'000'000), 0);
}

TEST(HdrHistogram, UniformRandomMatchesExactNearestRank) {
  std::mt19937_64 rng(20240501);
  std::uniform_int_distribution<int64_t> dist(1, 2'000'000);
  for (int n : {1, 2, 3, 10, 999, 1000, 1001, 100'000}) {
    HdrHistogram h;
    std::vector<int64_t> values;
    for (int i = 0; i < n; ++i) {
      values.push_back(dist(rng));
      h.record(values.back());
    }
    expect_percentiles_match(h, values);
  }
}

TEST(HdrHistogram, LognormalRandomMatchesExactNearestRank) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(std::log(2000.0), 1.5);
  HdrHistogram h;
  std::vector<int64_t> values;
  for (int i = 0; i < 200'000; ++i) {
    const auto v = std::min<int64_t>(static_cast<int64_t>(dist(rng)), kHighest);
    values.push_back(v);
    h.record(v);
  }
  expect_percentiles_match(h, values);
}

TEST(HdrHistogram, AllEqualValues) {
  HdrHistogram h;
  std::vector<int64_t> values(5000, 123'457);
  for (int64_t v : values) h.record(v);
  expect_percentiles_match(h, values);
  EXPECT_EQ(h.value_at_percentile(0), h.lowest_equivalent(123'457));
  EXPECT_EQ(h.mean(), 123'457.0);  // exact, not the bucket midpoint
}

TEST(HdrHistogram, ValuesAtBucketBoundaries) {
  HdrHistogram h;
  std::vector<int64_t> values;
  for (int k = 0; k <= 31; ++k) {
    for (int64_t v : {(int64_t{1} << k) - 1, int64_t{1} << k, (int64_t{1} << k) + 1,
                      (int64_t{2047} << k), (int64_t{2048} << k) - 1}) {
      if (v < 0 || v > kHighest) continue;
      values.push_back(v);
      h.record(v);
    }
  }
  values.push_back(kHighest);
  h.record(kHighest);
  expect_percentiles_match(h, values);
  EXPECT_EQ(h.clamped_count(), 0);
}

TEST(HdrHistogram, ZeroIsRecordable) {
  HdrHistogram h;
  h.record(0);
  h.record(0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.value_at_percentile(100), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.count_at_or_below(0), 2);
}

TEST(HdrHistogram, ClampsOutOfRangeValuesAndCountsThem) {
  HdrHistogram h;
  h.record(10);
  h.record(kHighest * 2);
  h.record(-5);
  EXPECT_EQ(h.total_count(), 3);
  EXPECT_EQ(h.clamped_count(), 2);
  EXPECT_EQ(h.max(), h.highest_equivalent(kHighest));
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.value_at_percentile(100), expected_highest_equivalent(kHighest));
  EXPECT_DOUBLE_EQ(h.mean(), (10.0 + static_cast<double>(kHighest)) / 3.0);
}

TEST(HdrHistogram, SingleValue) {
  HdrHistogram h;
  h.record(1'234'567);
  for (double p : {0.0, 0.001, 50.0, 99.999, 100.0}) {
    const int64_t want =
        p == 0.0 ? h.lowest_equivalent(1'234'567) : expected_highest_equivalent(1'234'567);
    EXPECT_EQ(h.value_at_percentile(p), want) << p;
  }
  EXPECT_EQ(h.mean(), 1'234'567.0);
  EXPECT_EQ(h.max(), expected_highest_equivalent(1'234'567));
  EXPECT_EQ(h.min(), h.lowest_equivalent(1'234'567));
}

TEST(HdrHistogram, HugeCountsViaRecordN) {
  HdrHistogram h;
  const int64_t n = 1'000'000'000'000'000;  // 1e15 each: sums beyond 2^64 stay exact
  h.record_n(1000, n);
  h.record_n(2'000'000, n);
  EXPECT_EQ(h.total_count(), 2 * n);
  EXPECT_EQ(h.value_at_percentile(50), 1000);
  EXPECT_EQ(h.value_at_percentile(50.001), expected_highest_equivalent(2'000'000));
  EXPECT_EQ(h.value_at_percentile(100), expected_highest_equivalent(2'000'000));
  EXPECT_EQ(h.mean(), 1'000'500.0);
  EXPECT_EQ(h.count_at_or_below(1000), n);
}

TEST(HdrHistogram, NonPositiveCountRecordsNothing) {
  HdrHistogram h;
  h.record_n(50, 0);
  h.record_n(50, -3);
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.max(), 0);
}

TEST(HdrHistogram, PercentileRankIsNotPushedUpByFloatingPoint) {
  HdrHistogram h;
  for (int v = 1; v <= 1000; ++v) h.record(v);
  // 99.9% of 1000 is 999.0000000000001 in doubles; nearest rank is still 999.
  EXPECT_EQ(h.value_at_percentile(99.9), 999);
  EXPECT_EQ(h.value_at_percentile(99.91), 1000);
  EXPECT_EQ(h.value_at_percentile(150), 1000);
  EXPECT_EQ(h.value_at_percentile(-1), 1);
}

TEST(HdrHistogram, CountAtOrBelow) {
  HdrHistogram h;
  for (int v = 1; v <= 100; ++v) h.record(v * 100);
  EXPECT_EQ(h.count_at_or_below(-1), 0);
  EXPECT_EQ(h.count_at_or_below(99), 0);
  EXPECT_EQ(h.count_at_or_below(100), 1);
  EXPECT_EQ(h.count_at_or_below(5000), 50);
  EXPECT_EQ(h.count_at_or_below(kHighest * 4), 100);
}

TEST(HdrHistogram, MergeOfTwoEqualsRecordingIntoOne) {
  std::mt19937_64 rng(99);
  std::lognormal_distribution<double> dist(std::log(500.0), 2.0);
  HdrHistogram a, b, all;
  std::vector<int64_t> values;
  for (int i = 0; i < 50'000; ++i) {
    const auto v = static_cast<int64_t>(dist(rng));
    (i % 3 == 0 ? a : b).record(v);
    all.record(v);
    values.push_back(std::min(v, kHighest));
  }
  a.merge(b);
  EXPECT_TRUE(a.same_counts(all));
  EXPECT_EQ(a.clamped_count(), all.clamped_count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  expect_percentiles_match(a, values);
}

TEST(HdrHistogram, MergeIntoEmptyAndOfEmpty) {
  HdrHistogram a, b;
  b.record(42);
  a.merge(b);
  EXPECT_EQ(a.min(), 42);
  EXPECT_EQ(a.max(), 42);
  a.merge(HdrHistogram());
  EXPECT_EQ(a.total_count(), 1);
  EXPECT_EQ(a.min(), 42);
}

TEST(HdrHistogram, MergeRejectsDifferentConfiguration) {
  HdrHistogram a;
  EXPECT_THROW(a.merge(HdrHistogram(1, 1'000'000, 3)), std::invalid_argument);
  EXPECT_THROW(a.merge(HdrHistogram(1, kHighest, 2)), std::invalid_argument);
  EXPECT_THROW(a.merge(HdrHistogram(2, kHighest, 3)), std::invalid_argument);
}

TEST(HdrHistogram, ResetClearsEverything) {
  HdrHistogram h;
  h.record(kHighest * 2);
  h.record(5);
  h.reset();
  EXPECT_TRUE(h.same_counts(HdrHistogram()));
  EXPECT_EQ(h.clamped_count(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  h.record(7);
  EXPECT_EQ(h.min(), 7);
  EXPECT_EQ(h.max(), 7);
}

}  // namespace
}  // namespace proofload::measure

namespace proofload::measure {
namespace {

TEST(HdrHistogram, MemoryFollowsTheHighestValueRecorded) {
  // 1 us .. 1 h at 3 digits has 23,552 counters (188 KB); a histogram kept per named request and
  // per window must not cost that when it holds nothing or only milliseconds.
  HdrHistogram h;
  EXPECT_EQ(h.allocated_counters(), 0u);
  h.record(1'500);  // 1.5 ms
  const size_t at_ms = h.allocated_counters();
  EXPECT_LE(at_ms, 2'048u);
  h.record(900);
  EXPECT_EQ(h.allocated_counters(), at_ms);  // no growth below the highest so far
  h.record(3'600'000'000);
  EXPECT_EQ(h.allocated_counters(), h.counter_count());
  // Merging a short one into an empty one, and comparing, see the same counts.
  HdrHistogram a;
  HdrHistogram b;
  b.record(42);
  a.merge(b);
  EXPECT_TRUE(a.same_counts(b));
  b.record(5'000'000);
  a.record(5'000'000);
  EXPECT_TRUE(a.same_counts(b));
  EXPECT_EQ(a.value_at_percentile(100), b.value_at_percentile(100));
}


TEST(HdrHistogram, ACopyThroughTheEncodingKeepsTheExactMeanWithItsTotals) {
  HdrHistogram h;
  for (int64_t v : {1001, 1003, 250'000, 7'777'777}) h.record(v);
  h.record(-5);  // clamped to 0
  const std::vector<uint8_t> bytes = h.encode_compressed();
  HdrHistogram copy = HdrHistogram::decode_compressed(bytes.data(), bytes.size());
  EXPECT_NE(copy.mean(), h.mean());  // the encoding alone gives bucket midpoints
  ASSERT_TRUE(copy.restore_exact_totals(h.exact_totals()));
  EXPECT_EQ(copy.mean(), h.mean());
  EXPECT_EQ(copy.clamped_count(), 1);
  // Totals that cannot be this histogram's change nothing.
  EXPECT_FALSE(copy.restore_exact_totals({-1, 0, 0}));
  EXPECT_FALSE(copy.restore_exact_totals({1, 0, 0}));  // 2^64: past count x highest
  EXPECT_FALSE(copy.restore_exact_totals({0, 10, 6}));  // more clamped than recorded
  EXPECT_EQ(copy.mean(), h.mean());
}

}  // namespace
}  // namespace proofload::measure
