// The probe's judgement on simulated sources (seeded): separate allowances, one shared by two and
// by three, an allowance split over instances, a failed source, no limit at all; header
// variants; and sources merged from another machine. Each with its words (words/probe_words.h),
// as the probe records it.
#include "analyze/probe_analysis.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "analyze/probe_test_support.h"
#include "result/probe_expectation.h"
#include "words/probe_words.h"

namespace proofload::analyze {
namespace {

using testing_support::kSentPerSecond;
using testing_support::own_allowance;
using testing_support::probe_source;
using testing_support::sharing;

constexpr double kDurationS = testing_support::kProbeDurationS;
constexpr double kSettleS = testing_support::kProbeSettleS;

using words::correlation_text;
using words::described_probe;
using words::described_variant;

ProbeExpectation expect(const char* text) { return result::parse_probe_expectation(text, 0.10); }

TEST(ProbeAnalysis, ThreeSourcesWithTheirOwnAllowancesAreSeparate) {
  Rng rng = make_rng(7, 0);
  const std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng), own_allowance(1, rng),
                                                  own_allowance(2, rng)};
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s,burst=600"));

  EXPECT_EQ(a.verdict, kSeparateAllowances) << a.reason;
  EXPECT_NE(a.reason.find("each of the 3 sources met 100/s,burst=600 on its own"),
            std::string::npos)
      << a.reason;
  ASSERT_EQ(a.sources.size(), 3u);
  for (const ProbeSourceFigures& f : a.sources) {
    EXPECT_FALSE(f.failed);
    EXPECT_EQ(f.total, kSentPerSecond * 60);
    EXPECT_EQ(f.let_through + f.limited, f.total);
    EXPECT_EQ(f.burst_before_first_429, 600);
    ASSERT_TRUE(f.sustained);
    EXPECT_EQ(f.sustained->seconds, 50);  // from 10 s to 60 s
    EXPECT_NEAR(f.sustained->mean, 100, 1);
    EXPECT_GE(f.sustained->min, 99);
    EXPECT_LE(f.sustained->max, 101);
    ASSERT_TRUE(f.burst_from_totals);
    EXPECT_NEAR(*f.burst_from_totals, 600, 60);
    EXPECT_FALSE(f.burst_is_lower_bound);
    EXPECT_EQ(f.expect_met, true) << f.expect_reason;
    EXPECT_TRUE(f.expect_reason.starts_with("sustained ")) << f.expect_reason;
    EXPECT_NE(f.expect_reason.find(", within 10% of 100/s; burst from the totals "),
              std::string::npos)
        << f.expect_reason;
    EXPECT_NE(f.expect_reason.find(", within 160 of 600"), std::string::npos) << f.expect_reason;
  }
  ASSERT_EQ(a.correlations.size(), 3u);
  for (const ProbeCorrelation& c : a.correlations) {
    EXPECT_TRUE(!c.r || *c.r > -0.5) << c.a << " " << c.b << " r = " << *c.r;
  }
  EXPECT_EQ(a.correlations[0].a, "127.0.0.2");
  EXPECT_EQ(a.correlations[0].b, "127.0.0.3");
  EXPECT_NEAR(a.sustained_sum, 300, 3);
  EXPECT_EQ(a.expected_sum, 300);
}

TEST(ProbeAnalysis, WithoutAnExpectationSeparateMeansLevelRates) {
  Rng rng = make_rng(8, 0);
  const std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng), own_allowance(1, rng)};
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, std::nullopt);
  EXPECT_EQ(a.verdict, kSeparateAllowances) << a.reason;
  EXPECT_NE(a.reason.find("within 10% of their median"), std::string::npos) << a.reason;
  EXPECT_FALSE(a.expected_sum);
  EXPECT_FALSE(a.sources[0].expect_met);
}

TEST(ProbeAnalysis, TwoSourcesSplittingOneBucketShareIt) {
  Rng rng = make_rng(11, 0);
  const std::vector<ProbeSourceSeries> sources = sharing(2, rng);
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s"));

  EXPECT_EQ(a.verdict, kSharedAllowance) << a.reason;
  ASSERT_EQ(a.correlations.size(), 1u);
  ASSERT_TRUE(a.correlations[0].r);
  EXPECT_LT(*a.correlations[0].r, -0.8);
  EXPECT_EQ(a.correlations[0].meaning, "share one allowance: what one gains, the other loses");
  EXPECT_TRUE(
      a.reason.starts_with("127.0.0.2 and 127.0.0.3 share one allowance: their "
                           "per-second counts correlate at r = −"))
      << a.reason;
  EXPECT_TRUE(a.reason.ends_with(
      "together they got 100/s, against 2 × 100/s expected: 1.00 allowance of 100/s"))
      << a.reason;
  EXPECT_NEAR(a.sustained_sum, 100, 1e-9);
  EXPECT_EQ(a.shared_by, (std::vector<std::string>{"127.0.0.2", "127.0.0.3"}));
  ASSERT_TRUE(a.allowances_implied);
  EXPECT_NEAR(*a.allowances_implied, 1, 1e-9);
  for (const ProbeSourceFigures& f : a.sources) {
    EXPECT_EQ(f.expect_met, false);
    // Each got a random share of one burst: its totals say nothing of instances.
    EXPECT_FALSE(f.burst_is_lower_bound);
  }
}

TEST(ProbeAnalysis, ThreeSharingOneBucketAreFoundByTheirSteadySum) {
  Rng rng = make_rng(12, 0);
  const std::vector<ProbeSourceSeries> sources = sharing(3, rng);
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, std::nullopt);

  EXPECT_EQ(a.verdict, kSharedAllowance) << a.reason;
  EXPECT_TRUE(
      a.reason.starts_with("127.0.0.2, 127.0.0.3 and 127.0.0.4 share an allowance: the "
                           "sum of their per-second counts varies far less than they do"))
      << a.reason;
  // Without --expect there is no rate to divide by: how many allowances is not said.
  EXPECT_FALSE(a.allowances_implied);
  EXPECT_EQ(a.shared_by.size(), 3u);
  // Every pair is named as the group's, whatever its own r.
  ASSERT_EQ(a.correlations.size(), 3u);
  EXPECT_EQ(a.correlations[0].meaning,
            "share an allowance with 127.0.0.4: the group's per-second sum is steady");
  EXPECT_EQ(a.correlations[1].meaning,
            "share an allowance with 127.0.0.3: the group's per-second sum is steady");
  EXPECT_EQ(a.correlations[2].meaning,
            "share an allowance with 127.0.0.2: the group's per-second sum is steady");
  // Pairwise, three sharing average −0.5 only: not every pair says it alone.
  double sum_r = 0;
  for (const ProbeCorrelation& c : a.correlations) sum_r += c.r.value_or(0);
  EXPECT_NEAR(sum_r / 3, -0.5, 0.15);
}

// The report's ingress case: two pods of 100/s each behind one address, so two sources split
// 200/s between them. They move against each other as sharers do, but the total is two
// allowances, and "one" would halve what the callers really get.
TEST(ProbeAnalysis, TwoSourcesSplittingTwoAllowancesAreToldTwo) {
  Rng rng = make_rng(31, 0);
  const std::vector<ProbeSourceSeries> sources = sharing(2, rng, 0, 200);
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s"));

  EXPECT_EQ(a.verdict, kSharedAllowance) << a.reason;
  EXPECT_TRUE(a.reason.starts_with("127.0.0.2 and 127.0.0.3 share two allowances: their "
                                   "per-second counts correlate at r = −"))
      << a.reason;
  EXPECT_TRUE(a.reason.ends_with(
      "together they got 200/s, against 2 × 100/s expected: 2.00 allowances of 100/s"))
      << a.reason;
  ASSERT_TRUE(a.allowances_implied);
  EXPECT_NEAR(*a.allowances_implied, 2, 1e-9);
  ASSERT_EQ(a.correlations.size(), 1u);
  EXPECT_EQ(a.correlations[0].meaning, "share two allowances: what one gains, the other loses");

  // Without --expect nothing says how many: not "one".
  const ProbeAnalysis b = described_probe(sources, kDurationS, kSettleS, std::nullopt);
  EXPECT_EQ(b.verdict, kSharedAllowance) << b.reason;
  EXPECT_TRUE(b.reason.starts_with("127.0.0.2 and 127.0.0.3 share an allowance: ")) << b.reason;
  EXPECT_FALSE(b.allowances_implied);
  EXPECT_EQ(b.correlations[0].meaning, "share an allowance: what one gains, the other loses");
}

TEST(ProbeAnalysis, ThreeSharingTwoAllowancesAreToldTwo) {
  Rng rng = make_rng(32, 0);
  const std::vector<ProbeSourceSeries> sources = sharing(3, rng, 0, 200);
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s"));
  EXPECT_EQ(a.verdict, kSharedAllowance) << a.reason;
  EXPECT_TRUE(a.reason.starts_with(
      "127.0.0.2, 127.0.0.3 and 127.0.0.4 share two allowances: the sum of their per-second"))
      << a.reason;
  EXPECT_NEAR(a.allowances_implied.value_or(0), 2, 1e-9);
  for (const ProbeCorrelation& c : a.correlations) {
    EXPECT_TRUE(c.meaning.starts_with("share two allowances with 127.0.0.")) << c.meaning;
  }
}

// Two share a bucket; a third has its own but moves, weakly against one of the two by chance.
// The group is the two: the third is not opposed to what they share.
TEST(ProbeAnalysis, OfThreeOnlyTheTwoThatShareAreNamed) {
  Rng rng = make_rng(33, 0);
  std::vector<ProbeSourceSeries> sources = sharing(2, rng);
  ProbeSourceSeries third = probe_source(2);
  third.let_through_before_first_429 = 600;
  for (const ProbeSecond& first : sources[0].per_second) {
    const int64_t own = first.second == 0 ? 700
                                          : 100 - (first.let_through - 50) / 4 +
                                                static_cast<int64_t>(unit_double(rng) * 40) - 20;
    testing_support::add_second(third, first.second, own);
  }
  sources.push_back(third);
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s"));

  EXPECT_EQ(a.verdict, kSharedAllowance) << a.reason;
  EXPECT_TRUE(a.reason.starts_with("127.0.0.2 and 127.0.0.3 share one allowance: ")) << a.reason;
  EXPECT_EQ(a.shared_by, (std::vector<std::string>{"127.0.0.2", "127.0.0.3"}));
  EXPECT_NEAR(a.allowances_implied.value_or(0), 1, 1e-9);
  ASSERT_EQ(a.correlations.size(), 3u);
  EXPECT_EQ(a.correlations[0].meaning, "share one allowance: what one gains, the other loses");
  ASSERT_TRUE(a.correlations[1].r);
  EXPECT_LT(*a.correlations[1].r, -0.2) << "the third is weakly opposed to the first";
  EXPECT_FALSE(a.correlations[1].meaning.starts_with("share")) << a.correlations[1].meaning;
  EXPECT_FALSE(a.correlations[2].meaning.starts_with("share")) << a.correlations[2].meaning;
}

TEST(ProbeAnalysis, AFirst429FarBeforeTheTotalsBurstIsALowerBound) {
  Rng rng = make_rng(13, 0);
  // Instances each with a share of the allowance: one of them refused after 30.
  const std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng, 30), own_allowance(1, rng)};
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, std::nullopt);
  EXPECT_EQ(a.sources[0].burst_before_first_429, 30);
  EXPECT_NEAR(a.sources[0].burst_from_totals.value_or(0), 600, 60);
  EXPECT_TRUE(a.sources[0].burst_is_lower_bound);
  EXPECT_FALSE(a.sources[1].burst_is_lower_bound);
}

TEST(ProbeAnalysis, AFailedSourceIsNamedAndLeftOutOfTheVerdict) {
  Rng rng = make_rng(14, 0);
  std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng), probe_source(1),
                                            own_allowance(2, rng), probe_source(3)};
  sources[1].failure = "connect: connection refused";
  for (int64_t second = 0; second < kDurationS; ++second) {
    sources[3].per_second.push_back({second, 0, 0, 40});  // timeouts only: no answer
  }
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s,burst=600"));

  EXPECT_TRUE(a.sources[1].failed);
  EXPECT_EQ(a.sources[1].failure, "connect: connection refused");
  EXPECT_FALSE(a.sources[1].expect_met);
  EXPECT_TRUE(a.sources[3].failed);
  EXPECT_EQ(a.sources[3].failure, kNoAnswerFailure);
  EXPECT_EQ(a.sources[3].other, 40 * 60);
  ASSERT_EQ(a.correlations.size(), 1u);
  EXPECT_EQ(a.correlations[0].a, "127.0.0.2");
  EXPECT_EQ(a.correlations[0].b, "127.0.0.4");
  EXPECT_EQ(a.verdict, kSeparateAllowances) << a.reason;
  EXPECT_NE(a.reason.find("the 2 sources that answered"), std::string::npos) << a.reason;
  EXPECT_EQ(a.expected_sum, 200);
}

TEST(ProbeAnalysis, OneSourceLeftHasNothingToCompare) {
  Rng rng = make_rng(15, 0);
  std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng), probe_source(1)};
  sources[1].failure = "bind 127.0.0.3: cannot assign requested address";
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, std::nullopt);
  EXPECT_EQ(a.verdict, kUnclear);
  EXPECT_EQ(a.reason, "one source answered (127.0.0.3 failed): nothing to compare");
  EXPECT_TRUE(a.correlations.empty());
  EXPECT_EQ(described_probe(std::span(sources).first(1), kDurationS, kSettleS, std::nullopt).reason,
            "one source: nothing to compare");
}

TEST(ProbeAnalysis, No429AnywhereIsUnclear) {
  std::vector<ProbeSourceSeries> sources = {probe_source(0), probe_source(1)};
  for (ProbeSourceSeries& s : sources) {
    for (int64_t second = 0; second < kDurationS; ++second) {
      s.per_second.push_back({second, 50, 0, 0});
    }
  }
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s"));
  EXPECT_EQ(a.verdict, kUnclear);
  EXPECT_EQ(a.reason, "no 429 in 60 s: no limit was seen at this load");
  EXPECT_FALSE(a.sources[0].burst_before_first_429);
  EXPECT_EQ(a.sources[0].burst_from_totals, 0);  // 3,000 let through, 50/s for 60 s
}

TEST(ProbeAnalysis, ASourceShortOfItsExpectationWithoutSharingIsUnclear) {
  Rng rng = make_rng(16, 0);
  std::vector<ProbeSourceSeries> sources = {own_allowance(0, rng), own_allowance(1, rng),
                                            own_allowance(2, rng)};
  for (ProbeSecond& second : sources[2].per_second) {
    if (second.second > 0) second.let_through = 61;
  }
  const ProbeAnalysis a = described_probe(sources, kDurationS, kSettleS, expect("100/s,burst=600"));
  EXPECT_EQ(a.verdict, kUnclear);
  EXPECT_EQ(a.reason, "127.0.0.4 sustained 61.0/s against 100/s expected, with no sign of sharing");
  EXPECT_EQ(a.sources[2].expect_met, false);
  EXPECT_NE(a.sources[2].expect_reason.find("sustained 61.0/s, not within 10% of 100/s"),
            std::string::npos)
      << a.sources[2].expect_reason;
}

TEST(ProbeAnalysis, SecondsMergedFromAnotherMachineAlignBySecond) {
  Rng rng = make_rng(17, 0);
  std::vector<ProbeSourceSeries> whole = sharing(2, rng);
  // Seconds in which the second source sent nothing (its connections were stuck).
  for (int64_t quiet : {20, 33, 47}) {
    whole[0].per_second[quiet] = {quiet, 100, 2400, 0};
    whole[1].per_second[quiet] = {quiet, 0, 0, 0};
  }
  // The same, as another machine's file holds it: the empty seconds absent, newest first.
  std::vector<ProbeSourceSeries> merged = whole;
  std::erase_if(merged[1].per_second,
                [](const ProbeSecond& s) { return s.let_through + s.limited + s.other == 0; });
  std::reverse(merged[1].per_second.begin(), merged[1].per_second.end());
  ASSERT_EQ(merged[1].per_second.size(), 57u);

  const ProbeAnalysis a = described_probe(whole, kDurationS, kSettleS, std::nullopt);
  const ProbeAnalysis b = described_probe(merged, kDurationS, kSettleS, std::nullopt);
  ASSERT_TRUE(a.correlations[0].r);
  EXPECT_EQ(a.correlations[0].r, b.correlations[0].r);
  EXPECT_LT(*b.correlations[0].r, -0.8);
  EXPECT_EQ(b.sources[1].sustained->min, 0);
  EXPECT_EQ(a.sources[1].sustained->mean, b.sources[1].sustained->mean);
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.reason, b.reason);
}

TEST(ProbeVariant, HeldLiftedOrTooLittleToTell) {
  ProbeVariantRun run{"Origin: https://example.test", "127.0.0.2", 5, 412, 2708, 0};
  ProbeVariantVerdict v = described_variant(run, 100, 600);
  EXPECT_EQ(v.limited, true);
  EXPECT_EQ(v.verdict, "held");
  EXPECT_EQ(v.reason, "412 of 3,120 let through, 2,708 limited: the limit holds with the header");
  EXPECT_EQ(v.run.header, run.header);

  run.let_through = 3120;
  run.limited = 0;
  v = described_variant(run, 100, 600);
  EXPECT_EQ(v.limited, false);
  EXPECT_EQ(v.verdict, "lifted");
  EXPECT_EQ(v.reason,
            "3,120 of 3,120 let through and no 429, more than the allowance allows in 5 s "
            "(100/s + burst 600): the header lifts the limit");

  run.let_through = 500;
  v = described_variant(run, 100, 600);
  EXPECT_FALSE(v.limited);
  EXPECT_EQ(v.verdict, "unclear");
  EXPECT_EQ(v.reason,
            "no 429 and 500 let through, within what the allowance allows in 5 s (100/s + burst "
            "600): sent too little to tell");

  v = described_variant(run, std::nullopt, std::nullopt);
  EXPECT_EQ(v.verdict, "unclear");
  EXPECT_NE(v.reason.find("no allowance is known"), std::string::npos) << v.reason;
}

TEST(ProbeCorrelationText, UsesATrueMinusAndTwoDecimals) {
  EXPECT_EQ(correlation_text(-0.961), "−0.96");
  EXPECT_EQ(correlation_text(0.08), "0.08");
  EXPECT_EQ(correlation_text(-0.001), "0.00");
}

}  // namespace
}  // namespace proofload::analyze
