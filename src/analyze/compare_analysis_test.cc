// The A/B verdicts on constructed repeats: a known difference outside the noise is a verdict in
// the right direction; one inside the minimum effect or inside the spread between repeats is
// level; too few repeats is not judged, and said; the headline and per-condition counts add up.
#include "analyze/compare_analysis.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/usage_error_test_support.h"
#include "words/compare_words.h"

namespace proofload::analyze {
namespace {

// A check's verdict with its reason in words, as a comparison records it.
CompareVerdict judged(const CompareCell& cell, const CompareOptions& options) {
  CompareVerdict v = judge_check(cell, options);
  v.reason = words::verdict_reason(v, options);
  return v;
}

CompareCell cell(std::string name, std::vector<double> a, std::vector<double> b,
                 std::string condition = "") {
  CompareCell c;
  c.name = std::move(name);
  c.condition = std::move(condition);
  c.a = std::move(a);
  c.b = std::move(b);
  return c;
}

TEST(CompareAnalysis, AKnownDifferenceOutsideTheNoiseIsAVerdictInItsDirection) {
  const CompareOptions p50;  // lower is better
  const CompareVerdict slower = judged(cell("lookup", {10, 10.2, 9.9}, {20, 20.3, 19.8}), p50);
  EXPECT_EQ(slower.verdict, kSlower) << slower.reason;
  ASSERT_TRUE(slower.ratio);
  EXPECT_NEAR(*slower.ratio, 2.0, 0.01);
  EXPECT_EQ(slower.a, 10);
  EXPECT_EQ(slower.b, 20);
  const CompareVerdict faster = judged(cell("search", {10, 10.2, 9.9}, {7, 7.1, 6.9}), p50);
  EXPECT_EQ(faster.verdict, kFaster) << faster.reason;
  EXPECT_EQ(faster.reason, "B 30.0% lower, outside the noise of 5.0% (minimum effect)");

  CompareOptions throughput;
  throughput.metric = CompareMetric::kThroughput;  // higher is better
  EXPECT_EQ(judged(cell("x", {1000, 1010, 990}, {1300, 1290, 1310}), throughput).verdict, kFaster);
  EXPECT_EQ(judged(cell("x", {1000, 1010, 990}, {700, 710, 690}), throughput).verdict, kSlower);
}

TEST(CompareAnalysis, ADifferenceInsideTheNoiseIsLevelNeverAVerdict) {
  const CompareOptions p50;
  // A against A: the same values in another order.
  const CompareVerdict same = judged(cell("a", {100, 102, 98}, {98, 100, 102}), p50);
  EXPECT_EQ(same.verdict, kLevel) << same.reason;
  // 3% steady: inside the 5% minimum effect, however small the spread.
  const CompareVerdict small = judged(cell("b", {100, 100.1, 99.9}, {97, 97.1, 96.9}), p50);
  EXPECT_EQ(small.verdict, kLevel) << small.reason;
  EXPECT_DOUBLE_EQ(small.noise, 0.05);
  // 25% apart, but A's repeats spread 40%: inside the spread between repeats.
  const CompareVerdict noisy = judged(cell("c", {80, 100, 120}, {75, 76, 74}), p50);
  EXPECT_EQ(noisy.verdict, kLevel) << noisy.reason;
  EXPECT_NEAR(noisy.noise, 0.40, 1e-9);
  EXPECT_EQ(noisy.reason, "B 25.0% lower, inside the noise of 40.0% (spread of A's repeats)");
}

TEST(CompareAnalysis, TooFewRepeatsAreNotJudgedAndSaid) {
  const CompareOptions p50;
  const CompareVerdict two = judged(cell("a", {10, 10}, {20, 20, 20}), p50);
  EXPECT_EQ(two.verdict, kNotJudged);
  EXPECT_EQ(two.reason, "2 repeats of A and 3 of B: a verdict needs 3 of each");
  // A repeat that measured nothing is not a zero: it does not count.
  const CompareVerdict nan = judged(cell("b", {10, NAN, 10}, {20, 20, 20}), p50);
  EXPECT_EQ(nan.verdict, kNotJudged) << nan.reason;
  EXPECT_EQ(nan.a, 10);
  const CompareVerdict zero = judged(cell("c", {0, 0, 0}, {1, 1, 1}), p50);
  EXPECT_EQ(zero.verdict, kNotJudged);
  EXPECT_FALSE(zero.ratio);
}

TEST(CompareAnalysis, ASideFailingMoreThanOnePercentIsNotComparedOnLatency) {
  CompareCell fails_fast = cell("lookup", {10, 10, 10}, {1, 1, 1});
  fails_fast.a_requests = 3000;
  fails_fast.b_requests = 3000;
  fails_fast.b_errors = 600;
  const CompareVerdict v = judged(fails_fast, CompareOptions{});
  EXPECT_EQ(v.verdict, kNotJudged);
  EXPECT_EQ(v.reason,
            "B had 600 errors in 3000 requests (20.0%), above 1.0%: its answers are not "
            "comparable");
  fails_fast.b_errors = 30;  // 1%: still judged
  EXPECT_EQ(judged(fails_fast, CompareOptions{}).verdict, kFaster);
  CompareOptions throughput;
  throughput.metric = CompareMetric::kThroughput;
  fails_fast.b_errors = 600;
  EXPECT_NE(judged(fails_fast, throughput).verdict, kNotJudged) << "throughput counts every answer";
}

TEST(CompareAnalysis, TheHeadlineAndEachConditionCountTheVerdicts) {
  const std::vector<CompareCell> cells = {
      cell("lookup", {10, 10, 10}, {5, 5, 5}, "cold"),
      cell("search", {10, 10, 10}, {10, 10, 10}, "cold"),
      cell("lookup", {10, 10, 10}, {10.1, 10, 10}, "warm"),
      cell("search", {10, 10, 10}, {30, 30, 30}, "warm"),
      cell("detail", {10, 10}, {10, 10}, "warm"),
  };
  const CompareAnalysis analysis = words::described_compare(cells, CompareOptions{});
  EXPECT_EQ(analysis.metric, "p50");
  ASSERT_EQ(analysis.checks.size(), 5u);
  EXPECT_EQ(analysis.headline.faster, 1);
  EXPECT_EQ(analysis.headline.level, 2);
  EXPECT_EQ(analysis.headline.slower, 1);
  EXPECT_EQ(analysis.headline.not_judged, 1);
  EXPECT_EQ(analysis.headline.total, 5);
  EXPECT_EQ(analysis.headline.text,
            "B faster on 1 of 5 checks, level on 2, slower on 1, not judged on 1");
  ASSERT_EQ(analysis.by_condition.size(), 2u);
  EXPECT_EQ(analysis.by_condition[0].first, "cold");
  EXPECT_EQ(analysis.by_condition[0].second.text,
            "B faster on 1 of 2 checks, level on 1, slower on none");
  EXPECT_EQ(analysis.by_condition[1].first, "warm");
  EXPECT_EQ(analysis.by_condition[1].second.slower, 1);
  EXPECT_NE(analysis.statistic.find("minimum effect (5.0%)"), std::string::npos)
      << analysis.statistic;
}

TEST(CompareAnalysis, MetricsAreNamedOrRefused) {
  EXPECT_EQ(parse_compare_metric("p95"), CompareMetric::kP95);
  EXPECT_EQ(parse_compare_metric("cpu_per_request"), CompareMetric::kCpuPerRequest);
  EXPECT_EQ(compare_metric_name(CompareMetric::kThroughput), "throughput");
  EXPECT_TRUE(lower_is_better(CompareMetric::kP99));
  EXPECT_FALSE(lower_is_better(CompareMetric::kThroughput));
  EXPECT_EQ(testing::usage_error_of([] { parse_compare_metric("p90"); }),
            "metric 'p90' is not one of p50, p95, p99, throughput, cpu_per_request");
}

}  // namespace
}  // namespace proofload::analyze
