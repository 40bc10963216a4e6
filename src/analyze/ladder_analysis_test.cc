// The ladder analysis on synthetic tables whose answers are known by construction: verdicts, the
// knee and why, best sustained, peak, plateau, noise floor, operating target, and the JSON that
// scripts read.
#include "analyze/ladder_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/usage_error.h"
#include "result/ladder_analysis_json.h"
#include "words/ladder_words.h"

namespace proofload::analyze {
namespace {

// One repeat of a level with everything a ladder records; the latency shape is p50 = p95 / 2,
// p99 = 1.5 x p95.
LevelRow row(double level, double achieved_rps, double p95_ms, int repeat = 1) {
  LevelRow r;
  r.level = level;
  r.repeat = repeat;
  r.achieved_rps = achieved_rps;
  r.p50_ms = p95_ms / 2;
  r.p95_ms = p95_ms;
  r.p99_ms = p95_ms * 1.5;
  r.requests = 100'000;
  r.error_rate = 0;
  r.rate_429 = 0;
  r.never_started = 0;
  return r;
}

LevelRow open_row(double target_rps, double achieved_rps, double p95_ms) {
  LevelRow r = row(target_rps, achieved_rps, p95_ms);
  r.target_rps = target_rps;
  return r;
}

std::vector<std::string> verdicts(const LadderAnalysis& a) {
  std::vector<std::string> out;
  for (const LevelAnalysis& level : a.levels) out.emplace_back(verdict_text(level.verdict));
  return out;
}

LadderAnalysis analyze(const std::vector<LevelRow>& rows, AnalysisOptions options = {},
                       std::string_view slo = kDefaultSlo) {
  return words::described_ladder(rows, parse_slo(slo), options);
}

AnalysisOptions open_loop() {
  AnalysisOptions options;
  options.loop = Loop::kOpen;
  return options;
}

TEST(LadderAnalysis, CleanLinearRiseHasNoKneeAndALowerBoundTarget) {
  // Given highest first: the analysis orders levels itself.
  const LadderAnalysis a =
      analyze({row(80, 800, 13), row(40, 400, 12), row(20, 200, 11), row(10, 100, 10)});
  ASSERT_EQ(a.levels.size(), 4u);
  EXPECT_EQ(a.levels[0].level, 10);
  EXPECT_EQ(a.levels[3].level, 80);
  EXPECT_EQ(verdicts(a),
            (std::vector<std::string>{"clean", "clean", "clean", "highest within SLO"}));
  EXPECT_FALSE(a.knee);
  EXPECT_EQ(a.knee_reason, "");
  EXPECT_EQ(a.best_sustained, 3u);
  EXPECT_EQ(a.best_sustained_text, "800/s at level 80");
  EXPECT_EQ(a.peak, 3u);
  EXPECT_FALSE(a.plateau_from);
  EXPECT_EQ(a.operating_target_rps, 400);
  EXPECT_EQ(a.operating_basis,
            "50% of the highest level tested (800/s at level 80; no knee reached: the true "
            "headroom is larger)");
  // 400/s x 86,400 s = 34,560,000, to three significant digits: a hold of seconds carries no more.
  EXPECT_EQ(a.daily_requests_at_operating_target, 34'600'000);
  EXPECT_EQ(a.daily_requests_at_best_sustained, 69'100'000);
  EXPECT_EQ(a.noise_floor.source, NoiseFloor::Source::kDefault);
  EXPECT_EQ(a.noise_floor.value, kDefaultNoiseFloor);
  EXPECT_EQ(a.noise_floor.text,
            "5.0% (default: no repeats to measure it from; set --repeat or --noise-floor)");
  EXPECT_FALSE(a.levels[0].gain);
  EXPECT_EQ(a.levels[0].gain_text, "");
  EXPECT_DOUBLE_EQ(*a.levels[1].gain, 1.0);
  EXPECT_EQ(a.levels[1].gain_text, "+100.0%: grows, beyond the 5.0% noise floor");
  EXPECT_TRUE(a.levels[3].meets_slo);
  ASSERT_EQ(a.levels[3].slo.size(), 2u);
  EXPECT_EQ(a.levels[3].slo[0].observed_text, "p95 = 13.0 ms");
}

// Closed loop: throughput stops growing at concurrency 32 while p95 keeps climbing.
std::vector<LevelRow> saturating_table() {
  return {row(8, 1000, 20), row(16, 1900, 22), row(32, 2040, 30), row(64, 2066.52, 60),
          row(128, 2070, 120)};
}

TEST(LadderAnalysis, FlatThroughputWithClimbingLatencyIsTheKneeInClosedLoop) {
  const LadderAnalysis a = analyze(saturating_table());
  // The verdict names the level the short version calls best sustained, even past the knee: the
  // table and the short version never point at different levels.
  EXPECT_EQ(verdicts(a), (std::vector<std::string>{"clean", "clean", "knee", "saturated",
                                                   "highest within SLO"}));
  ASSERT_EQ(a.knee, 2u);
  EXPECT_EQ(a.knee_reason,
            "saturation point: the next level gains +1.3% (inside the 5.0% noise floor) while "
            "p95 climbs from 30.0 ms to 60.0 ms");
  EXPECT_EQ(a.levels[3].gain_text, "+1.3%: flat, inside the 5.0% noise floor");
  EXPECT_EQ(a.levels[2].gain_text, "+7.4%: grows, beyond the 5.0% noise floor");
  EXPECT_EQ(a.plateau_from, 2u);
  // Every level met the SLO, so the most throughput within it is the last, saturated or not.
  EXPECT_EQ(a.best_sustained, 4u);
  EXPECT_EQ(a.peak, 4u);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 1020);
  EXPECT_EQ(a.operating_basis, "50% of the knee (2,040/s at level 32): 2.0x headroom");
}

TEST(LadderAnalysis, FlatThroughputWithSteadyLatencyIsAPlateauButNoKnee) {
  const LadderAnalysis a =
      analyze({row(8, 1000, 20), row(16, 1900, 22), row(32, 1920, 22.5), row(64, 1925, 23)});
  EXPECT_FALSE(a.knee);
  EXPECT_EQ(a.plateau_from, 1u);
  EXPECT_EQ(a.levels.back().verdict, Verdict::kHighestWithinSlo);
}

TEST(LadderAnalysis, StatedOperatingFractionSetsTargetAndHeadroom) {
  AnalysisOptions options;
  options.operating_fraction = 0.25;
  const LadderAnalysis a = analyze(saturating_table(), options);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 510);
  EXPECT_EQ(a.operating_basis, "25% of the knee (2,040/s at level 32): 4.0x headroom");
}

TEST(LadderAnalysis, SloBreachIsTheKneeAndBestSustainedIsBelowIt) {
  const LadderAnalysis a = analyze(
      {row(1, 100, 10), row(2, 200, 12), row(3, 300, 14), row(4, 400, 1140), row(5, 500, 1500)});
  EXPECT_EQ(verdicts(a), (std::vector<std::string>{"clean", "clean", "highest within SLO", "knee",
                                                   "saturated"}));
  ASSERT_EQ(a.knee, 3u);
  EXPECT_EQ(a.levels[3].level, 4);
  EXPECT_EQ(a.knee_reason, "breaks the SLO: p95 = 1,140.0 ms (bound p95<=1s)");
  EXPECT_FALSE(a.levels[3].meets_slo);
  EXPECT_FALSE(a.levels[3].slo[0].passed);
  EXPECT_TRUE(a.levels[3].slo[1].passed);
  EXPECT_EQ(a.best_sustained, 2u);
  EXPECT_EQ(a.best_sustained_text, "300/s at level 3");
  EXPECT_EQ(a.peak, 4u);
  EXPECT_FALSE(a.plateau_from);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 200);
}

TEST(LadderAnalysis, OperatingTargetIsNeverAboveWhatMetTheSlo) {
  // The knee broke the SLO carrying 640/s; half of it (320/s) is more than the 200/s that met it.
  const LadderAnalysis a = analyze({row(1, 100, 10), row(2, 200, 40), row(3, 640, 1400)});
  ASSERT_EQ(a.knee, 2u);
  ASSERT_EQ(a.best_sustained, 1u);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 200);
  EXPECT_DOUBLE_EQ(*a.operating_headroom, 3.2);
  EXPECT_EQ(a.operating_basis,
            "best sustained (200/s at level 2): 50% of the knee (640/s at level 3) would be above "
            "the most that met the SLO; 3.2x headroom to the knee");
  EXPECT_EQ(result::analysis_to_json(a)["operating"]["headroom"], 3.2);
}

// A best level that carried nothing once gave "infx headroom" (a ratio over zero).
TEST(LadderAnalysis, ABestLevelThatCarriedNothingHasNoHeadroomRatio) {
  const LadderAnalysis a = analyze({row(1, 0, 10), row(2, 640, 1400)});
  ASSERT_EQ(a.best_sustained, 0u);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 0);
  EXPECT_FALSE(a.operating_headroom.has_value());
  EXPECT_EQ(a.operating_basis.find("inf"), std::string::npos) << a.operating_basis;
  EXPECT_NE(a.operating_basis.find("it carried nothing, so there is no headroom to state"),
            std::string::npos)
      << a.operating_basis;
  EXPECT_TRUE(result::analysis_to_json(a)["operating"]["headroom"].is_null());
}

TEST(LadderAnalysis, NoLevelWithinSloHasNoBestSustainedNorOperatingTarget) {
  const LadderAnalysis a = analyze({row(10, 100, 2000), row(20, 150, 3000)});
  EXPECT_EQ(verdicts(a), (std::vector<std::string>{"knee", "saturated"}));
  EXPECT_EQ(a.knee, 0u);
  EXPECT_FALSE(a.best_sustained);
  EXPECT_EQ(a.best_sustained_text, "none: the lowest level was already past it");
  EXPECT_FALSE(a.operating_target_rps);
  EXPECT_EQ(a.operating_basis, "none: the lowest level already broke the SLO");
  EXPECT_FALSE(a.daily_requests_at_operating_target);
  EXPECT_FALSE(a.daily_requests_at_best_sustained);
  EXPECT_EQ(a.peak, 1u);
}

TEST(LadderAnalysis, OpenLoopShortOfTargetIsTheKnee) {
  const LadderAnalysis a = analyze({open_row(100, 99.8, 3), open_row(200, 199.5, 4),
                                    open_row(400, 396, 6), open_row(800, 600, 80)},
                                   open_loop());
  // The knee met the SLO and carried the most: it is best sustained too, and says so.
  EXPECT_EQ(verdicts(a),
            (std::vector<std::string>{"clean", "clean", "clean", "knee, highest within SLO"}));
  ASSERT_EQ(a.knee, 3u);
  EXPECT_EQ(a.knee_reason,
            "achieved 600/s falls short of the 800/s target by 25.0% (beyond the 5.0% noise "
            "floor)");
  // 396 of 400 is inside the noise floor: on target.
  EXPECT_FALSE(a.levels[2].short_of_target);
  EXPECT_TRUE(a.levels[3].short_of_target);
  EXPECT_EQ(a.best_sustained, 3u);
  EXPECT_DOUBLE_EQ(*a.operating_target_rps, 300);
  EXPECT_EQ(analyze({open_row(100, 99.8, 3)}, open_loop()).best_sustained_text,
            "99.8/s at level 100");
}

TEST(LadderAnalysis, RatesAreJudgedOnGoodputSoFastErrorsAreNeverThePeak) {
  // A route that fails fast: level 40 answers 131,002/s, 99.41% of them errors.
  std::vector<LevelRow> rows = {row(10, 500, 5), row(20, 900, 6), row(40, 131'002, 1)};
  rows[2].error_rate = 0.9941;
  rows[2].goodput_rps = 131'002 * (1 - 0.9941);
  const LadderAnalysis a = analyze(rows);
  ASSERT_TRUE(a.peak);
  EXPECT_EQ(a.levels[*a.peak].level, 20);
  EXPECT_EQ(a.best_sustained, 1u);
  EXPECT_EQ(a.best_sustained_text, "900/s at level 20");
  EXPECT_NEAR(a.levels[2].goodput_rps, 772.9, 0.1);
  EXPECT_NEAR(a.levels[2].achieved_rps, 131'002, 1e-9);
  EXPECT_EQ(a.knee, 2u);  // it breaks the SLO on errors
  // Every level failing on errors: no peak at all.
  for (LevelRow& r : rows) r.error_rate = 0.5;
  EXPECT_FALSE(analyze(rows).peak);
  // A latency-only SLO: errors cannot rule a level out of the peak, goodput still ranks them.
  const LadderAnalysis latency_only = analyze(rows, {}, "p95<=1s");
  ASSERT_TRUE(latency_only.peak);
  EXPECT_EQ(latency_only.levels[*latency_only.peak].level, 40);
}

TEST(LadderAnalysis, ATableWithoutGoodputTakesAchievedLessItsErrors) {
  LevelRow r = row(10, 1000, 5);
  r.error_rate = 0.25;
  EXPECT_DOUBLE_EQ(r.goodput(), 750);
  r.error_rate.reset();
  EXPECT_DOUBLE_EQ(r.goodput(), 1000);  // nothing known of its errors
  r.goodput_rps = 640;
  EXPECT_DOUBLE_EQ(r.goodput(), 640);
}

TEST(LadderAnalysis, TheVerdictColumnNamesTheLevelTheShortVersionCallsBestSustained) {
  // Errors-only SLO, closed loop 40..200: the knee is the saturation point at 160 and a +1.3%
  // step at 200 inside the 6.7% noise floor makes 200 the most within the SLO.
  std::vector<LevelRow> rows = {row(40, 1000, 40), row(80, 1800, 45), row(120, 2400, 50),
                                row(160, 2600, 62), row(200, 2634, 80)};
  AnalysisOptions options;
  options.noise_floor = 0.067;
  const std::vector<LadderAnalysis> analyses = {
      analyze(rows, options, "errors<=1%"), analyze(saturating_table()),
      analyze({open_row(100, 99.8, 3), open_row(200, 199.5, 4), open_row(400, 396, 6),
               open_row(800, 600, 80)},
              open_loop()),
      analyze({row(10, 100, 2000), row(20, 150, 3000)})};
  for (const LadderAnalysis& a : analyses) {
    std::optional<size_t> marked;
    for (size_t i = 0; i < a.levels.size(); ++i) {
      if (std::string(verdict_text(a.levels[i].verdict)).find("highest within SLO") !=
          std::string::npos) {
        EXPECT_FALSE(marked) << "two levels marked";
        marked = i;
      }
    }
    EXPECT_EQ(marked, a.best_sustained);
  }
  EXPECT_EQ(verdicts(analyses[0]),
            (std::vector<std::string>{"clean", "clean", "clean", "knee", "highest within SLO"}));
}

TEST(LadderAnalysis, ArrivalsOfFlowsAreSetAgainstTheTargetInTheirOwnUnit) {
  // 250 arrivals/s, a flow of three requests among them: 264 requests/s, 249.5 arrivals/s.
  LevelRow on_target = open_row(250, 264, 5);
  on_target.arrivals_rps = 249.5;
  LevelRow short_of_it = open_row(500, 528, 8);  // more requests than the target, yet short
  short_of_it.arrivals_rps = 400;
  const LadderAnalysis a = analyze({on_target, short_of_it}, open_loop());
  EXPECT_FALSE(a.levels[0].short_of_target);
  EXPECT_TRUE(a.levels[1].short_of_target);
  EXPECT_EQ(a.knee_reason,
            "arrivals 400/s falls short of the 500/s arrivals target by 20.0% (beyond the 5.0% "
            "noise floor)");
}

TEST(LadderAnalysis, ErrorsInsideTheSloBudgetDoNotMakeALevelShortOfItsTarget) {
  // Every arrival answered on schedule, 0.8% of them errors: within errors <= 1%, and goodput
  // 1.3% under the target, beyond a 1% noise floor. The schedule was kept: no knee.
  LevelRow kept = open_row(200, 200, 5);
  kept.error_rate = 0.008;
  kept.goodput_rps = 198.4 - 1;
  AnalysisOptions options = open_loop();
  options.noise_floor = 0.01;
  const LadderAnalysis a = analyze({open_row(100, 100, 5), kept}, options);
  EXPECT_FALSE(a.levels[1].short_of_target);
  EXPECT_FALSE(a.knee);
}

TEST(LadderAnalysis, DailyCapacityIsRoundedToThreeSignificantDigits) {
  EXPECT_EQ(round_significant(90'986'611, 3), 91'000'000);
  EXPECT_EQ(round_significant(1'234.5, 3), 1'230);
  EXPECT_EQ(round_significant(0, 3), 0);
  EXPECT_EQ(round_significant(999'600, 3), 1'000'000);
}

TEST(LadderAnalysis, OpenLoopOnTargetIsNoKneeEvenWhenLatencyClimbs) {
  // The saturation-point rule reads a closed loop, where throughput is the outcome; in open loop
  // the schedule sets it, so a small step with climbing latency says nothing.
  const LadderAnalysis a = analyze({open_row(100, 100, 10), open_row(102, 102, 50)}, open_loop());
  EXPECT_FALSE(a.knee);
  EXPECT_EQ(verdicts(a), (std::vector<std::string>{"clean", "highest within SLO"}));
}

TEST(LadderAnalysis, GeneratorBusyIsCarriedWithoutChangingVerdicts) {
  std::vector<LevelRow> rows = saturating_table();
  const LadderAnalysis plain = analyze(rows);
  rows[3].generator_busy = true;
  const LadderAnalysis busy = analyze(rows);
  EXPECT_TRUE(busy.levels[3].generator_busy);
  EXPECT_FALSE(busy.levels[2].generator_busy);
  EXPECT_EQ(verdicts(busy), verdicts(plain));
  EXPECT_EQ(busy.knee, plain.knee);
  EXPECT_EQ(busy.best_sustained, plain.best_sustained);
  // One busy repeat marks the whole level.
  rows = {row(10, 100, 5, 1), row(10, 100, 5, 2)};
  rows[1].generator_busy = true;
  EXPECT_TRUE(analyze(rows).levels[0].generator_busy);
}

TEST(LadderAnalysis, NoiseFloorIsTheMedianSpreadOfRepeatsAndSmallerStepsAreFlat) {
  // Spreads: 10%, 3%, 6% -> median 6%. Level 400 ran once and does not count. The repeats' trends
  // (+2.5%, 0, -1.5% a run) have a median of 0: noise, not drift.
  std::vector<LevelRow> rows = {row(100, 95, 10, 1),  row(100, 105, 20, 2), row(100, 100, 30, 3),
                                row(200, 202, 10, 1), row(200, 196, 10, 2), row(200, 202, 10, 3),
                                row(300, 300, 10, 1), row(300, 309, 10, 2), row(300, 291, 10, 3),
                                row(400, 316, 10, 1)};
  const LadderAnalysis a = analyze(rows);
  EXPECT_EQ(a.noise_floor.source, NoiseFloor::Source::kMeasured);
  EXPECT_DOUBLE_EQ(a.noise_floor.value, 0.06);
  EXPECT_DOUBLE_EQ(*a.noise_floor.spread, 0.06);
  EXPECT_DOUBLE_EQ(*a.noise_floor.drift, 0);
  EXPECT_EQ(a.noise_floor.text,
            "6.0% (measured from repeats of 3 levels: a spread of 6.0% between a level's repeats "
            "plus 0.0% of drift over the time between levels)");
  EXPECT_EQ(a.levels[0].repeats, 3);
  EXPECT_DOUBLE_EQ(a.levels[0].achieved_rps, 100);
  EXPECT_DOUBLE_EQ(*a.levels[0].p95_ms, 20);
  EXPECT_EQ(a.levels[0].requests, 300'000);
  EXPECT_DOUBLE_EQ(*a.levels[0].achieved_cv, 0.05);
  EXPECT_DOUBLE_EQ(*a.levels[0].p95_cv, 0.5);
  EXPECT_FALSE(a.levels[3].achieved_cv);
  EXPECT_FALSE(a.levels[3].p95_cv);
  // +5.3% would grow against the 5% default; against the measured 6% it is flat.
  EXPECT_EQ(a.levels[3].gain_text, "+5.3%: flat, inside the 6.0% noise floor");
  EXPECT_FALSE(a.knee);  // flat, but latency did not climb
  EXPECT_EQ(a.plateau_from, 2u);

  AnalysisOptions stated;
  stated.noise_floor = 0.02;
  const LadderAnalysis s = analyze(rows, stated);
  EXPECT_EQ(s.noise_floor.source, NoiseFloor::Source::kStated);
  EXPECT_EQ(s.noise_floor.text, "2.0% (stated with --noise-floor)");
  EXPECT_FALSE(s.noise_floor.spread);
  EXPECT_EQ(s.levels[3].gain_text, "+5.3%: grows, beyond the 2.0% noise floor");
  EXPECT_FALSE(s.plateau_from);
}

TEST(LadderAnalysis, TheNoiseFloorCoversTheDriftBetweenLevelsRunInSequence) {
  // A flat ceiling on a system that speeds up by 1% a run: each level's three repeats, run back to
  // back, spread 2%, but the mean of a level is 3 runs after the one before, so every step gains
  // +3.0%. Against the spread alone that would be growth, with no plateau.
  std::vector<LevelRow> rows;
  double goodput = 300;
  for (double level : {8, 16, 32, 64}) {
    for (int repeat = 1; repeat <= 3; ++repeat) {
      rows.push_back(row(level, goodput, 30, repeat));
      goodput *= 1.01;
    }
  }
  const LadderAnalysis a = analyze(rows);
  EXPECT_NEAR(*a.noise_floor.spread, 0.02, 0.0005);
  EXPECT_NEAR(*a.noise_floor.drift, 0.03, 0.0005);  // 1% a run, 3 runs between levels
  EXPECT_NEAR(a.noise_floor.value, 0.05, 0.0005);
  EXPECT_EQ(a.noise_floor.text,
            "5.0% (measured from repeats of 4 levels: a spread of 2.0% between a level's repeats "
            "plus 3.0% of drift over the time between levels)");
  EXPECT_EQ(a.levels[3].gain_text, "+3.0%: flat, inside the 5.0% noise floor");
  EXPECT_EQ(a.plateau_from, 0u);

  // Interleaved, a level's repeats span the whole ladder: their spread holds the drift.
  AnalysisOptions interleaved;
  interleaved.repeat_order = RepeatOrder::kInterleaved;
  const LadderAnalysis i = analyze(rows, interleaved);
  EXPECT_DOUBLE_EQ(*i.noise_floor.drift, 0);
  EXPECT_NEAR(i.noise_floor.value, 0.02, 0.0005);
  EXPECT_EQ(i.noise_floor.text,
            "2.0% (measured from repeats of 4 levels: a spread of 2.0% between a level's repeats, "
            "which holds the drift between passes (repeats interleaved))");
}

TEST(LadderAnalysis, IdenticalRepeatsMeasureTheMinimumNoiseFloor) {
  const LadderAnalysis a = analyze({row(10, 100, 5, 1), row(10, 100, 5, 2)});
  EXPECT_EQ(a.noise_floor.source, NoiseFloor::Source::kMeasured);
  EXPECT_EQ(a.noise_floor.value, kMinimumMeasuredNoiseFloor);
  EXPECT_EQ(a.noise_floor.text,
            "1.0% (measured from repeats of 1 level: a spread of 0.0% between a level's repeats "
            "plus 0.0% of drift over the time between levels, raised to the 1.0% minimum)");
}

TEST(LadderAnalysis, OneFailingRepeatFailsTheLevelAndItsValueIsShown) {
  // The mean p95 of level 200 (433 ms) is within 1 s; its third repeat is not.
  const LadderAnalysis a =
      analyze({row(100, 100, 50, 1), row(100, 100, 50, 2), row(200, 200, 100, 1),
               row(200, 200, 100, 2), row(200, 200, 1100, 3), row(300, 300, 60)});
  EXPECT_NEAR(*a.levels[1].p95_ms, 433.33, 0.01);
  EXPECT_FALSE(a.levels[1].meets_slo);
  EXPECT_EQ(a.levels[1].slo[0].observed, 1100);
  EXPECT_EQ(a.levels[1].slo[0].observed_text, "p95 = 1,100.0 ms");
  ASSERT_EQ(a.knee, 1u);
  EXPECT_EQ(a.knee_reason, "breaks the SLO in 1 of 3 repeats: p95 = 1,100.0 ms (bound p95<=1s)");
  // A later level that meets the SLO is still the best sustained; it is past the knee.
  EXPECT_EQ(a.best_sustained, 2u);
  EXPECT_EQ(verdicts(a), (std::vector<std::string>{"clean", "knee", "highest within SLO"}));
}

TEST(LadderAnalysis, PercentilesWithFewSamplesAreUntrusted) {
  auto untrusted_at = [](std::vector<int64_t> requests, std::string_view slo = kDefaultSlo) {
    std::vector<LevelRow> rows;
    for (size_t i = 0; i < requests.size(); ++i) {
      rows.push_back(row(10, 100, 5, static_cast<int>(i + 1)));
      rows.back().requests = requests[i];
    }
    return analyze(rows, {}, slo).levels[0].untrusted;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(untrusted_at({500}), Names{"p99"});
  EXPECT_EQ(untrusted_at({1000}), Names{});
  EXPECT_EQ(untrusted_at({150}), (Names{"p95", "p99"}));
  EXPECT_EQ(untrusted_at({19}), (Names{"p50", "p95", "p99"}));
  // The smallest repeat decides, not the sum.
  EXPECT_EQ(untrusted_at({1000, 500}), Names{"p99"});
  // A percentile the SLO judges beyond the recorded three.
  EXPECT_EQ(untrusted_at({5000}, "p99.9<1s"), Names{"p99.9"});
  // Unknown request counts mark nothing.
  LevelRow unknown = row(10, 100, 5);
  unknown.requests.reset();
  EXPECT_TRUE(analyze({unknown}).levels[0].untrusted.empty());
}

TEST(LadderAnalysis, Answers429AreCountedAsErrorsOrApart) {
  LevelRow r = row(10, 100, 5);
  r.error_rate = 0.03;
  r.rate_429 = 0.025;
  const LadderAnalysis counted = analyze_ladder({r}, parse_slo(kDefaultSlo, true), {});
  EXPECT_FALSE(counted.levels[0].meets_slo);
  EXPECT_EQ(counted.levels[0].slo[1].observed_text, "errors = 3%");
  const LadderAnalysis apart = analyze_ladder({r}, parse_slo(kDefaultSlo, false), {});
  EXPECT_TRUE(apart.levels[0].meets_slo);
  EXPECT_EQ(apart.levels[0].slo[1].observed_text, "errors = 0.5%");
  // The recorded figures are unchanged either way; only the judgement differs.
  EXPECT_DOUBLE_EQ(*apart.levels[0].error_rate, 0.03);
  EXPECT_DOUBLE_EQ(*apart.levels[0].rate_429, 0.025);
}

TEST(LadderAnalysis, PerCoreFiguresComeFromServerCpu) {
  LevelRow r = open_row(100, 99.8, 3);
  r.server_cores = 0.21;
  const LevelAnalysis level = analyze({r}, open_loop()).levels[0];
  EXPECT_NEAR(*level.rps_per_server_core, 475.24, 0.01);
  EXPECT_NEAR(*level.server_cpu_ms_per_request, 2.104, 0.001);
  EXPECT_FALSE(analyze({row(10, 100, 5)}).levels[0].rps_per_server_core);
}

TEST(LadderAnalysis, BadInputIsUsageError) {
  EXPECT_THROW(analyze({}), UsageError);
  EXPECT_THROW(analyze({row(-1, 100, 5)}), UsageError);
  EXPECT_THROW(analyze({row(std::numeric_limits<double>::infinity(), 100, 5)}), UsageError);
  EXPECT_THROW(analyze({row(10, std::nan(""), 5)}), UsageError);
  EXPECT_THROW(analyze({row(10, -5, 5)}), UsageError);
  for (double fraction : {0.0, -0.5, 1.5, std::nan("")}) {
    AnalysisOptions options;
    options.operating_fraction = fraction;
    EXPECT_THROW(analyze({row(10, 100, 5)}, options), UsageError) << fraction;
  }
  for (double floor : {0.0, 1.5}) {
    AnalysisOptions options;
    options.noise_floor = floor;
    EXPECT_THROW(analyze({row(10, 100, 5)}, options), UsageError) << floor;
  }
}

TEST(AnalysisToJson, HoldsWhatScriptsRead) {
  const nlohmann::json j = result::analysis_to_json(analyze(saturating_table()));
  EXPECT_EQ(j["loop"], "closed");
  EXPECT_EQ(j["slo"]["text"], std::string(kDefaultSlo));
  EXPECT_EQ(j["slo"]["description"], "p95 ≤ 1 s, errors ≤ 1%");
  EXPECT_EQ(j["slo"]["bounds"], (nlohmann::json{"p95<=1s", "errors<=1%"}));
  EXPECT_EQ(j["noise_floor"]["source"], "default");
  ASSERT_EQ(j["levels"].size(), 5u);
  EXPECT_TRUE(j["levels"][0]["level"].is_number_integer());
  EXPECT_EQ(j["levels"][0]["level"], 8);
  EXPECT_EQ(j["levels"][0]["gain"], nullptr);
  EXPECT_EQ(j["levels"][1]["verdict"], "clean");
  EXPECT_EQ(j["levels"][2]["verdict"], "knee");
  EXPECT_EQ(j["levels"][3]["verdict"], "saturated");
  EXPECT_EQ(j["levels"][4]["verdict"], "highest within SLO");
  EXPECT_EQ(j["levels"][0]["slo"][0]["expression"], "p95<=1s");
  EXPECT_EQ(j["levels"][0]["slo"][0]["passed"], true);
  EXPECT_EQ(j["knee"]["level"], 32);
  EXPECT_EQ(j["knee"]["achieved_rps"], 2040);
  EXPECT_TRUE(j["knee"]["reason"].get<std::string>().starts_with("saturation point"));
  EXPECT_EQ(j["best_sustained"]["level"], 128);
  EXPECT_EQ(j["peak"]["level"], 128);
  EXPECT_EQ(j["plateau"]["from_level"], 32);
  EXPECT_EQ(j["operating_target_rps"], 1020);
  EXPECT_EQ(j["operating"]["fraction"], 0.5);
  EXPECT_EQ(j["operating"]["headroom"], 2.0);
  EXPECT_TRUE(j["daily_capacity"]["at_operating_target"].is_number_integer());
  EXPECT_EQ(j["daily_capacity"]["at_operating_target"], 88'100'000);  // 88,128,000 to 3 digits
  EXPECT_EQ(j["daily_capacity"]["significant_digits"], 3);
  for (const char* key : {"target_rps",
                          "achieved_rps",
                          "p50_ms",
                          "p95_ms",
                          "p99_ms",
                          "requests",
                          "error_rate",
                          "rate_429",
                          "never_started",
                          "server_cores",
                          "server_throttled_share",
                          "generator_cores",
                          "host_load1",
                          "generator_busy",
                          "meets_slo",
                          "slo",
                          "untrusted",
                          "gain",
                          "gain_text",
                          "short_of_target",
                          "rps_per_server_core",
                          "server_cpu_ms_per_request",
                          "achieved_cv",
                          "p95_cv",
                          "repeats"}) {
    EXPECT_TRUE(j["levels"][0].contains(key)) << key;
  }
}

TEST(AnalysisToJson, NoneIsNull) {
  const nlohmann::json clean =
      result::analysis_to_json(analyze({row(10, 100, 5), row(20, 200, 6)}));
  EXPECT_TRUE(clean["knee"].is_null());
  EXPECT_TRUE(clean["plateau"].contains("from_level"));
  EXPECT_TRUE(clean["plateau"]["from_level"].is_null());

  const nlohmann::json broken = result::analysis_to_json(analyze({row(10, 100, 2000)}));
  EXPECT_TRUE(broken["best_sustained"].is_null());
  EXPECT_EQ(broken["best_sustained_text"], "none: the lowest level was already past it");
  EXPECT_TRUE(broken["operating_target_rps"].is_null());
  EXPECT_TRUE(broken["operating"]["headroom"].is_null());
  EXPECT_TRUE(broken["daily_capacity"]["at_operating_target"].is_null());
  EXPECT_TRUE(broken["daily_capacity"]["at_best_sustained"].is_null());
  EXPECT_EQ(broken["knee"]["level"], 10);
}

}  // namespace
}  // namespace proofload::analyze
