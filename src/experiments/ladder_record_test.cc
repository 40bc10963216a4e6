// A ladder's row out of a finished run: its rates are the run's span rates, its server figures
// come from the source that measures each whatever the --observe order, and flows carry their own
// rate and success.
#include "experiments/ladder_record.h"

#include <gtest/gtest.h>

#include "analyze/slo.h"
#include "experiments/observation.h"
#include "result/level_row_json.h"

namespace proofload::experiments {
namespace {

report::ObservedSummary source(std::string label, std::string spec,
                               std::vector<std::pair<std::string, double>> figures) {
  report::ObservedSummary s;
  s.label = std::move(label);
  s.source = std::move(spec);
  s.figures = std::move(figures);
  return s;
}

report::RunResult run_observing(std::vector<report::ObservedSummary> observed) {
  report::RunResult run;
  run.span.duration_ns = 8'000'000'000;
  run.span.counts.responses = 8'192;
  run.span.counts.successes = 8'000;
  run.measured_duration_s = 8;
  run.total.outcomes[static_cast<int>(measure::Outcome::kSuccess)] = 8'000;
  run.total.outcomes[static_cast<int>(measure::Outcome::kStatus503)] = 192;
  run.observed = std::move(observed);
  run.server = server_figures(run.observed);
  return run;
}

const report::ObservedSummary kPid =
    source("pid", "pid:4242", {{"cpu_cores_mean", 0.79}, {"threads_end", 4}});
const report::ObservedSummary kCgroup = source(
    "cgroup", "cgroup:/sys/fs/cgroup/cpu/app",
    {{"cpu_cores_mean", 0.8}, {"cpu_throttled_share_mean", 1.0}, {"cpu_quota_cores_end", 0.8}});

TEST(LadderRow, TheSameLevelObservedInEitherOrderGivesTheSameRow) {
  const analyze::Slo slo = analyze::parse_slo(analyze::kDefaultSlo);
  const analyze::LevelRow a = row_from_run(run_observing({kPid, kCgroup}), 200, 1, false, slo);
  const analyze::LevelRow b = row_from_run(run_observing({kCgroup, kPid}), 200, 1, false, slo);
  EXPECT_EQ(result::row_to_json(a), result::row_to_json(b));
  EXPECT_EQ(a.server_cores, 0.79);
  EXPECT_EQ(a.server_throttled_share, 1.0);
  EXPECT_EQ(a.server_quota_cores, 0.8);
  EXPECT_EQ(a.server_cpu_source, "pid:4242");
  EXPECT_EQ(a.server_throttle_source, "cgroup:/sys/fs/cgroup/cpu/app");
}

TEST(LadderRow, RatesAreTheSpansAndGoodputCountsSuccessesOnly) {
  const analyze::LevelRow row =
      row_from_run(run_observing({}), 2048, 1, false, analyze::parse_slo(analyze::kDefaultSlo));
  EXPECT_DOUBLE_EQ(row.achieved_rps, 1'024);
  EXPECT_DOUBLE_EQ(*row.goodput_rps, 1'000);
  EXPECT_EQ(row.responses, 8'192);
  EXPECT_FALSE(row.flows_per_s);  // no flows, no flow columns
}

}  // namespace
}  // namespace proofload::experiments
