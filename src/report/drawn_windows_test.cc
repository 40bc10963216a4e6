#include "report/drawn_windows.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace proofload::report {
namespace {

using nlohmann::json;

constexpr size_t kMax = DrawnWindows::kMaxDrawnPoints;

json window(int64_t i, double p99_ms = 2.0) {
  return {{"index", i},
          {"start_s", static_cast<double>(i)},
          {"duration_s", 1.0},
          {"warmup", false},
          {"drain", false},
          {"intended", 100},
          {"never_started", 1},
          {"requests", 99},
          {"throughput_rps", 99.0},
          {"latency_ms", {{"p50", 1.0}, {"p99", p99_ms}, {"max", p99_ms + 1}}},
          {"outcomes", {{"success", 98}, {"timeout", 1}}}};
}

double sum_of(const json& points, const char* key) {
  double sum = 0;
  for (const json& p : points) sum += p[key].get<double>();
  return sum;
}

TEST(DrawnWindows, ARunOfUpToTheBoundIsDrawnWindowByWindowWithTheDrawnFieldsOnly) {
  DrawnWindows drawn;
  for (size_t i = 0; i < kMax; ++i) drawn.add(window(static_cast<int64_t>(i)));
  EXPECT_EQ(drawn.group(), 1u);
  const json points = drawn.take();
  ASSERT_EQ(points.size(), kMax);
  EXPECT_EQ(points[7]["start_s"], 7.0);
  EXPECT_EQ(points[7]["outcomes"]["success"], 98);
  EXPECT_FALSE(points[7].contains("requests"));  // not drawn
  EXPECT_FALSE(points[7].contains("index"));
}

TEST(DrawnWindows, ALongerRunIsDrawnInEqualGroupsThatKeepEveryCountAndEverySpike) {
  DrawnWindows drawn;
  const int64_t windows = 3 * static_cast<int64_t>(kMax) + 5;
  const int64_t spike = 12345;
  for (int64_t i = 0; i < windows; ++i) drawn.add(window(i, i == spike ? 900.0 : 2.0));
  EXPECT_EQ(drawn.windows(), windows);
  EXPECT_EQ(drawn.group(), 4u);
  const json points = drawn.take();
  EXPECT_LE(points.size(), kMax);
  EXPECT_GE(points.size(), kMax / 2);
  // Counts and time add up to the run's.
  EXPECT_DOUBLE_EQ(sum_of(points, "intended"), 100.0 * windows);
  EXPECT_DOUBLE_EQ(sum_of(points, "never_started"), 1.0 * windows);
  EXPECT_DOUBLE_EQ(sum_of(points, "duration_s"), 1.0 * windows);
  double success = 0;
  for (const json& p : points) success += p["outcomes"]["success"].get<double>();
  EXPECT_DOUBLE_EQ(success, 98.0 * windows);
  // A group starts at its first window; the spike's group shows it; rates stay per second.
  const json& group = points[spike / 4];
  EXPECT_EQ(group["start_s"], static_cast<double>(spike / 4 * 4));
  EXPECT_EQ(group["duration_s"], 4.0);
  EXPECT_EQ(group["latency_ms"]["p99"], 900.0);
  EXPECT_EQ(group["latency_ms"]["max"], 901.0);
  EXPECT_EQ(points[spike / 4 + 1]["latency_ms"]["p99"], 2.0);
  EXPECT_DOUBLE_EQ(group["throughput_rps"].get<double>(), 99.0);
  EXPECT_EQ(points.back()["duration_s"], static_cast<double>(windows % 4));  // the short last
}

TEST(DrawnWindows, AGroupNeverMixesTheWarmupTheMeasuredPartAndTheDrain) {
  DrawnWindows drawn;
  const int64_t windows = 2 * static_cast<int64_t>(kMax) + 1;
  for (int64_t i = 0; i < windows; ++i) {
    json w = window(i);
    w["warmup"] = i < 101;
    w["drain"] = i == windows - 1;
    drawn.add(std::move(w));
  }
  const json points = drawn.take();
  EXPECT_LE(points.size(), kMax + 2);
  double warmup_s = 0;
  double drain_s = 0;
  for (const json& p : points) {
    if (p["warmup"].get<bool>()) warmup_s += p["duration_s"].get<double>();
    if (p["drain"].get<bool>()) drain_s += p["duration_s"].get<double>();
  }
  EXPECT_EQ(warmup_s, 101.0);
  EXPECT_EQ(drain_s, 1.0);
}

TEST(DrawnWindows, ObservedFiguresAreAveragedOverTheTimeThatHasThemAndPeaksAreTheHighest) {
  DrawnWindows drawn;
  const int64_t windows = 2 * static_cast<int64_t>(kMax) + 2;  // groups of 4 (then 2 points
                                                               // pass the bound again)
  for (int64_t i = 0; i < windows; ++i) {
    json w = window(i);
    json self = {{"cpu_cores", i % 4 == 0 ? 2.0 : 1.0}, {"rss_bytes_peak", 100.0 + i}};
    if (i % 4 != 3) self["rss_bytes"] = 10.0;  // a gap: one window of four has no sample
    if (i % 4 == 3) w["duration_s"] = 2.0;     // and lasts twice as long
    w["observed"] = {{"self", self}};
    drawn.add(std::move(w));
  }
  ASSERT_EQ(drawn.group(), 4u);
  const json points = drawn.take();
  const json& self = points[1]["observed"]["self"];  // windows 4..7: 1 + 1 + 1 + 2 s
  EXPECT_DOUBLE_EQ(points[1]["duration_s"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(self["cpu_cores"].get<double>(), (2.0 + 1 + 1 + 1 * 2) / 5);
  EXPECT_DOUBLE_EQ(self["rss_bytes"].get<double>(), 10.0);  // over the 3 s that have it
  EXPECT_DOUBLE_EQ(self["rss_bytes_peak"].get<double>(), 107.0);
  // Throughput is averaged over time alike: 99/s in every window.
  EXPECT_DOUBLE_EQ(points[1]["throughput_rps"].get<double>(), 99.0);
}

}  // namespace
}  // namespace proofload::report
