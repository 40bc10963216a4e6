// FailPicker: over 100k picks each kind comes up with its probability (within 4 binomial
// standard deviations); zero and full probabilities; bad settings; which scheduled fault is in
// force at a given time.
#include "serve/behaviour/fail_picker.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/usage_error.h"

namespace proofload::serve {
namespace {

TEST(FailPickerTest, CountsMatchProbabilitiesWithinABinomialBound) {
  FailProbabilities probabilities{0.05, 0.10, 0.02, 0.01, 0.03, 0.004};
  const double expected[kFailureKinds + 1] = {1 - 0.214, 0.05, 0.10, 0.02, 0.01, 0.03, 0.004};
  FailPicker picker(probabilities);
  ASSERT_TRUE(picker.enabled());
  Rng rng = make_rng(2024, 0);
  constexpr int kPicks = 100'000;
  int counts[kFailureKinds + 1] = {};
  for (int i = 0; i < kPicks; ++i) ++counts[static_cast<int>(picker.pick(rng))];
  for (size_t kind = 0; kind <= kFailureKinds; ++kind) {
    double p = expected[kind];
    double sigma = std::sqrt(kPicks * p * (1 - p));
    EXPECT_NEAR(counts[kind], kPicks * p, 4 * sigma) << failure_name(static_cast<Failure>(kind));
  }
}

TEST(FailPickerTest, DefaultAndZeroNeverFail) {
  Rng rng = make_rng(1, 0);
  FailPicker none;
  FailPicker zero(FailProbabilities{});
  EXPECT_FALSE(none.enabled());
  EXPECT_FALSE(zero.enabled());
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_EQ(none.pick(rng), Failure::kNone);
    ASSERT_EQ(zero.pick(rng), Failure::kNone);
  }
}

TEST(FailPickerTest, ProbabilityOneAlwaysFailsThatWay) {
  Rng rng = make_rng(1, 0);
  FailProbabilities all_reset;
  all_reset.reset = 1;
  FailPicker picker(all_reset);
  for (int i = 0; i < 10'000; ++i) ASSERT_EQ(picker.pick(rng), Failure::kReset);
  // Sums of exactly 1 in floating point (0.1 * 10 style rounding) are accepted.
  FailPicker split(FailProbabilities{0.7, 0.1, 0.1, 0.1, 0, 0});
  for (int i = 0; i < 10'000; ++i) ASSERT_NE(split.pick(rng), Failure::kNone);
}

TEST(FailPickerTest, NamesAreThoseOfRouteFiles) {
  EXPECT_EQ(failure_name(Failure::kStatus503), "503");
  EXPECT_EQ(failure_name(Failure::kOversizedHeader), "oversized_header");
}

TEST(FailPickerTest, BadProbabilitiesAreUsageErrors) {
  EXPECT_THROW(FailPicker(FailProbabilities{-0.1, 0, 0, 0, 0, 0}), UsageError);
  EXPECT_THROW(FailPicker(FailProbabilities{0, 1.5, 0, 0, 0, 0}), UsageError);
  EXPECT_THROW(FailPicker(FailProbabilities{0.6, 0.5, 0, 0, 0, 0}), UsageError);
  EXPECT_THROW(FailPicker(FailProbabilities{0, 0, 0, 0, std::nan(""), 0}), UsageError);
}

// Windows [1 s, 2 s) and [1.5 s, 4 s): before, inside, at the edges, after; the first listed
// wins where they overlap.
TEST(FirstFaultAtTest, PicksTheFirstWindowHoldingTheTime) {
  constexpr int64_t kS = 1'000'000'000;
  const FaultWindow windows[] = {{kS, 2 * kS}, {kS + kS / 2, 4 * kS}};
  EXPECT_EQ(first_fault_at(windows, 0), -1);
  EXPECT_EQ(first_fault_at(windows, kS - 1), -1);
  EXPECT_EQ(first_fault_at(windows, kS), 0);           // begins at `at`
  EXPECT_EQ(first_fault_at(windows, kS + kS / 2), 0);  // overlap: the first wins
  EXPECT_EQ(first_fault_at(windows, 2 * kS - 1), 0);
  EXPECT_EQ(first_fault_at(windows, 2 * kS), 1);  // the first has ended, the second holds
  EXPECT_EQ(first_fault_at(windows, 4 * kS - 1), 1);
  EXPECT_EQ(first_fault_at(windows, 4 * kS), -1);  // ends at `at + for`, exclusive
  EXPECT_EQ(first_fault_at({}, kS), -1);
}

}  // namespace
}  // namespace proofload::serve
