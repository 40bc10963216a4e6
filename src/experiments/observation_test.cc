// Tests for how observations reach the report: labels and columns by kind, per-window figures,
// totals over the measured part only, CPU per request, and the generator's 80% flag.
#include "experiments/observation.h"

#include <gtest/gtest.h>

namespace proofload::experiments {
namespace {

observe::SamplerFigures figures(std::string spec, std::vector<observe::Figure> values,
                                int gaps = 0) {
  observe::SamplerFigures f;
  f.spec = std::move(spec);
  f.figures.samples = values.empty() ? 0 : 1;
  f.figures.gaps = gaps;
  if (gaps > 0) f.figures.last_error = "process 42 is gone";
  f.figures.figures = std::move(values);
  return f;
}

TEST(Observation, SelfComesFirstAndRepeatedKindsAreNumbered) {
  auto sources = label_sources({"pid:42", "cgroup:/a", "pid:43", "self", "host"});
  ASSERT_EQ(sources.size(), 5u);
  EXPECT_EQ(sources[0].label, "self");
  EXPECT_EQ(sources[1].label, "pid");
  EXPECT_EQ(sources[2].label, "cgroup");
  EXPECT_EQ(sources[3].label, "pid2");
  EXPECT_EQ(sources[3].spec, "pid:43");
  EXPECT_EQ(sources[4].label, "host");
  auto columns = observed_columns(label_sources({"cgroup:/a", "prom:http://127.0.0.1:1/"}));
  EXPECT_EQ(columns.front(), "self.cpu_cores");
  EXPECT_NE(std::find(columns.begin(), columns.end(), "cgroup.cpu_throttled_share"), columns.end());
  for (const std::string& c : columns) EXPECT_EQ(c.find("prom"), std::string::npos) << c;
}

TEST(Observation, TotalsCoverMeasuredWindowsOnlyWithCpuPerRequest) {
  ObservationTotals totals(label_sources({"pid:42"}), 1);
  // Warm-up: ignored in the totals, still converted for the window's row.
  auto warm = totals.add_window(0, 1.0, true, 100,
                                {figures("self", {{"cpu_cores", 0.9}}),
                                 figures("pid:42", {{"cpu_cores", 5.0}, {"rss_bytes", 1e9}})});
  ASSERT_EQ(warm.size(), 2u);
  EXPECT_EQ(warm[1].label, "pid");
  EXPECT_EQ(*warm[1].value("cpu_cores"), 5.0);
  auto first = totals.add_window(1, 1.0, false, 500,
                    {figures("self", {{"cpu_cores", 0.2}}),
                     figures("pid:42", {{"cpu_cores", 1.0}, {"rss_bytes", 100},
                                        {"rss_bytes_peak", 150}, {"restarts", 1}})});
  // The window's own CPU per request: 1 core for 1 s over 500 requests.
  EXPECT_DOUBLE_EQ(*first[1].value("cpu_ms_per_request"), 2.0);
  totals.add_window(2, 0.5, false, 0,
                    {figures("self", {{"cpu_cores", 0.85}}),
                     figures("pid:42", {{"cpu_cores", 2.5}, {"rss_bytes", 120},
                                        {"rss_bytes_peak", 130}, {"restarts", 0}}, 1)});
  auto summaries = totals.summaries(1000);
  ASSERT_EQ(summaries.size(), 2u);
  const report::ObservedSummary& pid = summaries[1];
  // (1.0 x 1 s + 2.5 x 0.5 s) / 1.5 s = 1.5 cores; 2.25 CPU-s for 1,000 requests.
  EXPECT_DOUBLE_EQ(*pid.value("cpu_cores_mean"), 1.5);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_cores_max"), 2.5);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_seconds"), 2.25);
  EXPECT_DOUBLE_EQ(*pid.value("cpu_ms_per_request"), 2.25);
  EXPECT_EQ(*pid.value("rss_bytes_end"), 120);
  EXPECT_EQ(*pid.value("rss_bytes_peak"), 150);
  EXPECT_EQ(*pid.value("restarts"), 1);
  EXPECT_EQ(pid.gaps, 1);
  EXPECT_EQ(pid.last_error, "process 42 is gone");
  // Only window 2 reached 80% of the generator's one core.
  EXPECT_EQ(totals.generator_busy_windows(), std::vector<int64_t>{2});
}

}  // namespace
}  // namespace proofload::experiments
