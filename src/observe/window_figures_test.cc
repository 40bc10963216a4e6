// Tests for per-window figures: rates from counters over the window, gauges at the end and their
// peak, throttled share, event counts, gaps, resets, and bounded memory.
#include "observe/window_figures.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/clock.h"

namespace proofload::observe {
namespace {

constexpr int64_t kS = kNsPerS;
constexpr int64_t kSlack = 100 * kNsPerMs;  // half of a 200 ms (or longer) period, capped

Sample good(int64_t at_ns, std::vector<Reading> readings) {
  Sample s;
  s.at_ns = at_ns;
  s.readings = std::move(readings);
  return s;
}

Sample gap(int64_t at_ns, std::string error) {
  Sample s;
  s.at_ns = at_ns;
  s.ok = false;
  s.error = std::move(error);
  return s;
}

Reading counter(std::string name, double value) {
  return {std::move(name), MetricKind::kCounter, value};
}
Reading gauge(std::string name, double value) {
  return {std::move(name), MetricKind::kGauge, value};
}

TEST(WindowFigures, CountersBecomeRatesBetweenTheWindowsBoundaries) {
  SampleSeries series;
  // Samples a little after each boundary, as a sampler on the window grid takes them.
  series.add(good(0 * kS + 1000, {counter("cpu_seconds", 10.0), counter("bytes", 0)}));
  series.add(good(1 * kS + 2000, {counter("cpu_seconds", 10.5), counter("bytes", 1000)}));
  series.add(good(2 * kS + 1500, {counter("cpu_seconds", 11.5), counter("bytes", 1000)}));
  WindowFigures first = series.figures(0, kS, kSlack);
  EXPECT_NEAR(*first.value("cpu_cores"), 0.5, 1e-4);
  EXPECT_NEAR(*first.value("bytes_per_s"), 1000, 0.01);
  WindowFigures second = series.figures(kS, 2 * kS, kSlack);
  EXPECT_NEAR(*second.value("cpu_cores"), 1.0, 1e-4);
  EXPECT_NEAR(*second.value("bytes_per_s"), 0, 1e-9);
}

TEST(WindowFigures, GaugesGiveTheEndValueAndThePeakWithinTheWindow) {
  SampleSeries series;
  series.add(good(0, {gauge("rss_bytes", 100)}));
  series.add(good(kS / 2, {gauge("rss_bytes", 900)}));
  series.add(good(kS, {gauge("rss_bytes", 300)}));
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_EQ(*w.value("rss_bytes"), 300);
  EXPECT_EQ(*w.value("rss_bytes_peak"), 900);
}

TEST(WindowFigures, ThrottledShareAndEventCounts) {
  SampleSeries series;
  series.add(good(0, {counter("cpu_periods", 100), counter("cpu_throttled_periods", 10),
                      counter("restarts", 0), counter("oom_kills", 1)}));
  series.add(good(kS, {counter("cpu_periods", 110), counter("cpu_throttled_periods", 16),
                       counter("restarts", 1), counter("oom_kills", 1)}));
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_NEAR(*w.value("cpu_throttled_share"), 0.6, 1e-12);
  EXPECT_EQ(*w.value("restarts"), 1);
  EXPECT_EQ(*w.value("oom_kills"), 0);
}

TEST(WindowFigures, GapsAreCountedAndACounterThatWentBackIsNotARate) {
  SampleSeries series;
  series.add(good(0, {counter("cpu_seconds", 50)}));
  series.add(gap(kS / 2, "process 42 is gone"));
  series.add(good(kS, {counter("cpu_seconds", 1)}));  // a new process: the counter restarted
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_EQ(w.gaps, 1);
  EXPECT_EQ(w.last_error, "process 42 is gone");
  EXPECT_FALSE(w.value("cpu_cores").has_value());
}

TEST(WindowFigures, ACounterBornWithinTheWindowCountsFromZero) {
  SampleSeries series;
  // A labelled series appears at its first increment, after the sample at the window's start.
  series.add(good(0, {counter("cpu_seconds", 5)}));
  series.add(good(kS, {counter("cpu_seconds", 5.5), counter("requests{route=\"lookup\"}", 40)}));
  WindowFigures w = series.figures(0, kS, kSlack);
  ASSERT_TRUE(w.value("requests{route=\"lookup\"}_per_s").has_value());
  EXPECT_NEAR(*w.value("requests{route=\"lookup\"}_per_s"), 40, 1e-9);
  EXPECT_NEAR(*w.value("cpu_cores"), 0.5, 1e-9);
}

TEST(WindowFigures, AWindowWithoutGoodSamplesHasNoFigures) {
  SampleSeries series;
  series.add(gap(kS / 2, "connection refused"));
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_EQ(w.samples, 0);
  EXPECT_TRUE(w.figures.empty());
}

TEST(WindowFigures, ARunsShortTailWindowRepeatsNothingOfTheWindowBefore) {
  SampleSeries series;
  series.add(good(0, {counter("restarts", 0)}));
  series.add(good(kS + 3 * kNsPerMs, {counter("restarts", 1)}));  // a little after the boundary
  series.add(good(kS + 5 * kNsPerMs, {counter("restarts", 1)}));  // the closing sample
  EXPECT_EQ(*series.figures(0, kS, kSlack).value("restarts"), 1);
  // The last 4 ms of the run: no figures rather than the restart counted again.
  WindowFigures tail = series.figures(kS, kS + 4 * kNsPerMs, kSlack);
  EXPECT_FALSE(tail.value("restarts").has_value());
}

TEST(WindowFigures, AShareIsItsMeanOverTheWindowNotItsLastValue) {
  SampleSeries series;
  series.add(good(0, {gauge("cpu_busy_share", 0.0)}));
  series.add(good(kS / 2, {gauge("cpu_busy_share", 0.9)}));
  series.add(good(kS, {gauge("cpu_busy_share", 0.1)}));
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_DOUBLE_EQ(*w.value("cpu_busy_share"), 0.5);
  EXPECT_FALSE(w.value("cpu_busy_share_peak").has_value());
}

TEST(WindowFigures, OldSamplesAreDroppedSoMemoryStaysBounded) {
  SampleSeries series;
  for (int64_t i = 0; i <= 10'000; ++i) {
    series.add(good(i * kS / 10, {counter("cpu_seconds", static_cast<double>(i) / 10)}));
    if (i % 10 == 0 && i > 0) {
      WindowFigures w = series.figures((i / 10 - 1) * kS, (i / 10) * kS, kS / 20);
      ASSERT_NEAR(*w.value("cpu_cores"), 1.0, 1e-6) << i;
    }
  }
  // Only the last window's samples are still held (the test cannot see the deque: a second
  // pass over the same window must give the same figures, which it could not if it kept none).
  WindowFigures again = series.figures(999 * kS, 1000 * kS, kS / 20);
  EXPECT_GT(again.samples, 0);
}

// A Prometheus endpoint's sample holds thousands of readings, each with its own figures. They are
// looked up by name (a linear search per reading kept a 6 s run with 100,000 series going for
// 43 s; bench/observe_bench.cc measures it).
TEST(WindowFigures, ThousandsOfReadingsEachGetTheirFigures) {
  constexpr int kReadings = 40'000;
  SampleSeries series;
  for (int at = 0; at <= 4; ++at) {
    std::vector<Reading> readings;
    for (int i = 0; i < kReadings; ++i) {
      const std::string key = "s{i=\"" + std::to_string(i) + "\"}";
      readings.push_back(i % 2 == 0 ? counter(key, at) : gauge(key, at));
    }
    series.add(good(at * kS / 4, std::move(readings)));
  }
  WindowFigures w = series.figures(0, kS, kSlack);
  EXPECT_EQ(w.figures.size(), size_t{kReadings} / 2 * 3);  // a rate; a value and a peak
  EXPECT_NEAR(*w.value("s{i=\"0\"}_per_s"), 4, 1e-9);
  EXPECT_EQ(*w.value("s{i=\"1\"}_peak"), 4);
}

}  // namespace
}  // namespace proofload::observe
