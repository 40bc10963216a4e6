// The rate search against simulated services of known capacity: it finds the capacity to within
// the tolerance from below, in a number of steps bounded by the bracket and the tolerance, and
// always ends (noise, a capacity below the floor, a ceiling, a step limit), saying why.
#include "analyze/rate_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

#include "common/usage_error.h"
#include "words/search_words.h"

namespace proofload::analyze {
namespace {

using Phase = RateSearch::Phase;

// Runs the search to the end against `passes` (the service: does the SLO hold at this rate?).
// Fails the test rather than loop if the search never ends.
void run(RateSearch& search, const std::function<bool(double)>& passes) {
  for (int guard = 0; guard < 10'000 && search.next_rate(); ++guard) {
    search.record(passes(*search.next_rate()));
  }
  ASSERT_EQ(search.phase(), Phase::kDone);
  EXPECT_FALSE(search.next_rate());
}

// Grow and bisect steps (the confirming run excluded).
int search_steps(const RateSearch& search) {
  int n = 0;
  for (const RateSearch::Step& step : search.steps()) n += step.phase != Phase::kConfirm;
  return n;
}

// With a service that passes iff rate <= C: reaching the bracket takes floor(log_g(C/s)) + 2 steps
// up (or ceil(log_g(s/C)) + 1 down), leaving a bracket hi = g * lo; bisection halves it, and lo
// only rises, so the relative width is at most (g - 1) / 2^n after n steps.
double step_bound(double capacity, double start, double growth, double tolerance) {
  const double bracket_steps = capacity >= start
                                   ? std::floor(std::log(capacity / start) / std::log(growth)) + 2
                                   : std::ceil(std::log(start / capacity) / std::log(growth)) + 1;
  return bracket_steps + std::ceil(std::log2((growth - 1) / tolerance));
}

struct Case {
  double capacity;
  double start;
  double growth;
  double tolerance;
};

TEST(RateSearch, FindsTheCapacityFromBelowWithinTheToleranceInBoundedSteps) {
  const Case cases[] = {
      {150, 100, 2, 0.01},    {1000, 100, 2, 0.01}, {100, 100, 2, 0.01},     {12'345, 10, 2, 0.01},
      {37, 500, 2, 0.01},     {5, 1000, 3, 0.01},   {777.7, 50, 1.5, 0.005}, {250, 1, 4, 0.02},
      {199.99, 200, 2, 0.01}, {2.5, 2.5, 2, 0.01},  {64'000, 100, 2, 0.05},  {1.2, 80, 2, 0.01},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "capacity " << c.capacity << ", start " << c.start
                                    << ", growth " << c.growth << ", tolerance " << c.tolerance);
    RateSearch search({.start_rps = c.start, .growth = c.growth, .tolerance = c.tolerance});
    run(search, [&](double rate) { return rate <= c.capacity; });
    ASSERT_TRUE(search.found_rps());
    const double found = *search.found_rps();
    EXPECT_LE(found, c.capacity);
    EXPECT_GE(found, c.capacity * (1 - c.tolerance));
    EXPECT_LE(search_steps(search), step_bound(c.capacity, c.start, c.growth, c.tolerance));
    // One confirming run, last, at the rate found; a service that is not noisy confirms it.
    ASSERT_FALSE(search.steps().empty());
    EXPECT_EQ(search.steps().back().phase, Phase::kConfirm);
    EXPECT_EQ(search.steps().back().rate_rps, found);
    EXPECT_TRUE(search.confirmed());
    EXPECT_EQ(words::search_end_reason(search).rfind("converged within ", 0), 0u)
        << words::search_end_reason(search);
  }
}

TEST(RateSearch, GrowsThenBisectsAndSaysWhereItConverged) {
  RateSearch search({.start_rps = 100});
  EXPECT_EQ(search.phase(), Phase::kGrow);
  EXPECT_EQ(search.next_rate(), 100);
  search.record(true);
  EXPECT_EQ(search.next_rate(), 200);
  search.record(false);
  EXPECT_EQ(search.phase(), Phase::kBisect);
  EXPECT_EQ(search.next_rate(), 150);
  EXPECT_EQ(words::search_end_reason(search), "");  // still running
  run(search, [](double rate) { return rate <= 150; });
  EXPECT_EQ(search.steps()[0].phase, Phase::kGrow);
  EXPECT_EQ(search.steps()[2].phase, Phase::kBisect);
  EXPECT_EQ(*search.found_rps(), 150);
  // 150 passed, then every midpoint above it failed down to 150 + 50/64 (within 1%).
  EXPECT_EQ(words::search_end_reason(search), "converged within 1%: between 150/s and 150.8/s");
}

TEST(RateSearch, StartAboveCapacityGoesDownThenBisects) {
  RateSearch search({.start_rps = 1000});
  run(search, [](double rate) { return rate <= 300; });
  // 1000 and 500 fail, 250 passes: the bracket is [250, 500].
  ASSERT_GE(search.steps().size(), 4u);
  EXPECT_EQ(search.steps()[1].rate_rps, 500);
  EXPECT_FALSE(search.steps()[1].passed);
  EXPECT_EQ(search.steps()[2].rate_rps, 250);
  EXPECT_TRUE(search.steps()[2].passed);
  EXPECT_EQ(search.steps()[3].phase, Phase::kBisect);
  EXPECT_EQ(search.steps()[3].rate_rps, 375);
  EXPECT_LE(*search.found_rps(), 300);
  EXPECT_GE(*search.found_rps(), 297);
}

TEST(RateSearch, CapacityBelowTheMinimumRateFindsNothing) {
  RateSearch search({.start_rps = 100, .min_rps = 1});
  run(search, [](double rate) { return rate <= 0.5; });
  EXPECT_FALSE(search.found_rps());
  EXPECT_FALSE(search.confirmed());
  // Never below the floor, and the floor itself was tried.
  for (const RateSearch::Step& step : search.steps()) EXPECT_GE(step.rate_rps, 1);
  EXPECT_EQ(search.steps().back().rate_rps, 1);
  EXPECT_EQ(words::search_end_reason(search), "no rate passed down to 1/s");
}

TEST(RateSearch, HoldingAtTheMaximumRateConfirmsThereWithoutBisecting) {
  RateSearch search({.start_rps = 1000, .max_rps = 5000});
  run(search, [](double rate) { return rate <= 1e6; });
  // 1000, 2000, 4000, then capped at 5000; then the confirming run.
  ASSERT_EQ(search.steps().size(), 5u);
  EXPECT_EQ(search.steps()[3].rate_rps, 5000);
  EXPECT_EQ(search.steps()[4].phase, Phase::kConfirm);
  for (const RateSearch::Step& step : search.steps()) EXPECT_NE(step.phase, Phase::kBisect);
  EXPECT_EQ(search.found_rps(), 5000);
  EXPECT_TRUE(search.confirmed());
  EXPECT_EQ(words::search_end_reason(search), "held the SLO up to --max-rate 5,000/s");
}

TEST(RateSearch, FailingAtTheMaximumRateBisectsBelowIt) {
  RateSearch search({.start_rps = 1000, .max_rps = 5000});
  run(search, [](double rate) { return rate <= 4500; });
  for (const RateSearch::Step& step : search.steps()) EXPECT_LE(step.rate_rps, 5000);
  EXPECT_LE(*search.found_rps(), 4500);
  EXPECT_GE(*search.found_rps(), 4500 * 0.99);
}

TEST(RateSearch, AFailedConfirmingRunStepsDownUntilOneHolds) {
  RateSearch search({.start_rps = 100});
  // Capacity 150 in the short steps, 140 over the full length: 150 fails, 142.5 fails, 135.4 holds.
  run(search, [&](double rate) {
    return rate <= (search.phase() == Phase::kConfirm ? 140 : 150);
  });
  EXPECT_TRUE(search.confirmed());
  EXPECT_DOUBLE_EQ(*search.found_rps(), 150 * 0.95 * 0.95);
  int confirms = 0;
  for (const RateSearch::Step& step : search.steps()) confirms += step.phase == Phase::kConfirm;
  EXPECT_EQ(confirms, 3);
  EXPECT_EQ(words::search_end_reason(search),
            "converged within 1%: between 150/s and 150.8/s; confirmed at 135.4/s after the "
            "confirming runs at 150/s and 142.5/s broke the SLO");
}

TEST(RateSearch, WhenNoConfirmingRunHoldsTheSearchSaysSoAndKeepsTheRateFound) {
  RateSearch search({.start_rps = 100});
  run(search, [&](double rate) { return search.phase() != Phase::kConfirm && rate <= 150; });
  EXPECT_FALSE(search.confirmed());
  EXPECT_EQ(search.found_rps(), 150);
  EXPECT_EQ(words::search_end_reason(search),
            "the confirming runs at 150/s, 142.5/s and 135.4/s broke the SLO");
  RateSearch once({.start_rps = 100, .confirm_attempts = 1});
  run(once, [&](double rate) { return once.phase() != Phase::kConfirm && rate <= 150; });
  EXPECT_EQ(words::search_end_reason(once), "the confirming run at 150/s broke the SLO");
}

TEST(RateSearch, StepLimitEndsASearchThatNeverFails) {
  RateSearch search({.start_rps = 1, .max_steps = 10});
  run(search, [](double) { return true; });
  EXPECT_EQ(search_steps(search), 10);
  EXPECT_EQ(search.found_rps(), 512);  // 1 * 2^9, the tenth step
  EXPECT_TRUE(search.confirmed());
  EXPECT_EQ(words::search_end_reason(search), "step limit (10) reached: held the SLO up to 512/s");
}

TEST(RateSearch, StepLimitDuringBisectionConfirmsTheBestSoFar) {
  RateSearch search({.start_rps = 100, .tolerance = 0.001, .max_steps = 4});
  run(search, [](double rate) { return rate <= 170; });
  // 100 pass, 200 fail, 150 pass, 175 fail: limit; confirm at 150.
  EXPECT_EQ(search_steps(search), 4);
  EXPECT_EQ(search.found_rps(), 150);
  EXPECT_EQ(words::search_end_reason(search), "step limit (4) reached: between 150/s and 175/s");
}

TEST(RateSearch, NoisyServiceStillEndsWithinTheStepLimitAndNeverInvertsTheBracket) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    SCOPED_TRACE(testing::Message() << "seed " << seed);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> jitter(0.9, 1.1);
    const double capacity = 800;
    RateSearch search({.start_rps = 100, .max_steps = 40});
    // Passes iff the rate is under a capacity that wobbles by 10% from one run to the next.
    run(search, [&](double rate) { return rate <= capacity * jitter(rng); });
    EXPECT_LE(search_steps(search), 40);
    // Then 1 to 3 confirming runs when a rate was found (none otherwise).
    const size_t confirms = search.steps().size() - static_cast<size_t>(search_steps(search));
    if (search.found_rps()) {
      EXPECT_GE(confirms, 1u);
      EXPECT_LE(confirms, 3u);
    } else {
      EXPECT_EQ(confirms, 0u);
    }
    // Each bisection midpoint lies strictly inside the bracket of passes and failures so far.
    double lo = 0;
    double hi = INFINITY;
    for (const RateSearch::Step& step : search.steps()) {
      if (step.phase == Phase::kBisect) {
        EXPECT_GT(step.rate_rps, lo);
        EXPECT_LT(step.rate_rps, hi);
      }
      if (step.phase != Phase::kConfirm) (step.passed ? lo : hi) = step.rate_rps;
    }
    ASSERT_TRUE(search.found_rps());
    EXPECT_LE(*search.found_rps(), capacity * 1.1);
    // At worst the low edge of the wobble, less the tolerance, stepped down by two failed
    // confirming runs.
    EXPECT_GE(*search.found_rps(), capacity * 0.9 / 1.01 * 0.95 * 0.95);
  }
}

TEST(RateSearch, ACoinFlipServiceEndsToo) {
  std::mt19937 rng(7);
  std::bernoulli_distribution coin(0.5);
  RateSearch search({.start_rps = 50, .max_steps = 40});
  run(search, [&](double) { return coin(rng); });
  EXPECT_LE(search_steps(search), 40);
  EXPECT_FALSE(words::search_end_reason(search).empty());
}

TEST(RateSearch, RecordAfterTheEndIsALogicError) {
  RateSearch search({.start_rps = 10, .min_rps = 10});
  search.record(false);  // the start is the floor: nothing passed
  ASSERT_EQ(search.phase(), Phase::kDone);
  EXPECT_THROW(search.record(true), std::logic_error);
}

TEST(RateSearch, RejectsOptionsOutsideTheirRanges) {
  auto error_of = [](RateSearchOptions options) -> std::string {
    try {
      RateSearch search(options);
    } catch (const UsageError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(error_of({.start_rps = 0}).find("start rate"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = -5}).find("start rate"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = NAN}).find("start rate"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = 100, .growth = 1}).find("growth"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = 100, .tolerance = 0}).find("tolerance"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = 100, .tolerance = 0.6}).find("tolerance"), std::string::npos);
  EXPECT_EQ(error_of({.start_rps = 100, .tolerance = 0.5}), "");
  EXPECT_NE(error_of({.start_rps = 100, .max_rps = 50}).find("--max-rate 50/s"), std::string::npos);
  EXPECT_EQ(error_of({.start_rps = 100, .max_rps = 100}), "");
  EXPECT_NE(error_of({.start_rps = 100, .min_rps = 0}).find("minimum rate"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = 100, .min_rps = 200}).find("minimum rate"), std::string::npos);
  EXPECT_NE(error_of({.start_rps = 100, .max_steps = 0}).find("step limit"), std::string::npos);
  for (const std::string& message :
       {error_of({.start_rps = 0}), error_of({.start_rps = 100, .growth = 0.5})}) {
    EXPECT_EQ(message.find('\n'), std::string::npos);
  }
}

TEST(RateSearch, PhaseTexts) {
  EXPECT_EQ(phase_text(Phase::kGrow), "grow");
  EXPECT_EQ(phase_text(Phase::kBisect), "bisect");
  EXPECT_EQ(phase_text(Phase::kConfirm), "confirm");
  EXPECT_EQ(phase_text(Phase::kDone), "done");
}

}  // namespace
}  // namespace proofload::analyze
