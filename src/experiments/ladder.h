// `proofload ladder`: where does it buckle? Runs a list of levels (concurrency for closed loop,
// target rates for open loop), each held for a duration after a recorded warm-up, optionally
// repeated, with hooks and a drain gate between levels and guards around them; or searches the
// highest rate that meets the SLO (grow, bisect to within 1%, confirm). Each level is an ordinary
// run with its own result directory under levels/; the ladder's result.json, summary.md and
// levels.csv are rewritten atomically after every level, so a crash loses at most the level in
// progress. Restore hooks run on every exit path, Ctrl-C included.
// Runs on the caller's thread; one ladder per process (it owns SIGINT/SIGTERM while it runs).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analyze/abort_rule.h"
#include "analyze/ladder_analysis.h"
#include "analyze/rate_search.h"
#include "analyze/slo.h"
#include "experiments/experiment.h"
#include "experiments/run_experiment.h"
#include "plan/run_spec.h"
#include "result/ladder_result.h"

namespace proofload::experiments {

struct LadderPlan {
  analyze::Loop loop = analyze::Loop::kClosed;
  std::vector<double> levels;  // as given (empty for a search)
  int64_t hold_ns = 0;
  int64_t warmup_ns = 0;
  int repeat = 1;
  bool interleaved = false;  // the whole ladder K times, instead of each level K times in a row

  // The run every level is: its shape (the level's rate or connections) and its length (the
  // hold) are set per level (level_run).
  plan::RunSpec base_run;

  analyze::Slo slo;
  analyze::AnalysisOptions analysis;
  bool stop_on_fail = false;
  // For CI: exit 99 when no level met the SLO (a search: no rate was confirmed), or when best
  // sustained (the search's confirmed rate) is below fail_below_rps.
  bool fail_if_none = false;
  std::optional<double> fail_below_rps;

  // --search: the levels come from an adaptive rate search; each step runs `step_hold_ns`, the
  // confirming run `hold_ns`.
  std::optional<analyze::RateSearchOptions> search;
  int64_t step_hold_ns = 0;

  // Its directory, command line, live outputs and guards: the pre-check, the abort rule, the
  // drain gate and the hooks around each level.
  ExperimentContext context;
  result::LadderSource source;      // what is measured (target, scenario file and hash)
  result::LadderSettings settings;  // the flags as normalized, as result.json records them
};

// The run of one level: base_run with the level's rate (open loop) or connections (closed), held
// for `hold_ns`, its results in `out_dir`.
plan::RunSpec level_run(const LadderPlan& ladder, double level, int64_t hold_ns,
                        const std::filesystem::path& out_dir);

// A ladder over segments (--segment, with --start-at T): level K (in run order, from 1) of every
// segment starts at T + (K-1) x (warm-up + hold + grace + kSegmentLevelGapNs), so that the plan is
// the same on every machine and no segment waits on another. A level that could not start on
// time (its hooks or drain gate took longer) starts late, and its run records by how much.
constexpr int64_t kSegmentLevelGapNs = 3'000'000'000;
int64_t segment_level_start_ns(const LadderPlan& ladder, int ordinal);

// One level run in order: (level, repeat), sequence or interleaved.
struct ScheduledLevel {
  double level = 0;
  int repeat = 1;
};
std::vector<ScheduledLevel> schedule_levels(const LadderPlan& plan);

// `--plan`: the levels in the order they run, the hooks and gate around each, and the total time
// (the load's exactly; hooks and drain waits as their bounds). Sends nothing.
std::string describe_plan(const LadderPlan& plan);

struct LadderOutcome {
  result::LadderResult result;  // as written to out_dir/result.json
  // 0: complete or stopped as asked (and the CI bar met); 99: aborted, or the bar of
  // --fail-if-none / --fail-below not met; 1: failed (pre-check, hook, drain gate, worker);
  // 130: interrupted. (2, bad input, is the CLI's, before anything runs.)
  int exit_code = 0;
};

// The CI bar of --fail-if-none and --fail-below over a finished result: "" when met (or not
// asked for), else why not ("no level met the SLO"). Pure.
std::string ci_bar_failure(const LadderPlan& plan, const result::LadderResult& result);

// Runs the ladder (or the search) on the experiment runner (experiment.h) and writes its
// directory. First checks the largest level's run and does pre-flight once (resolving the
// target, the fd limit, a connection): UsageError for bad input found before anything is sent
// (an unreachable target, a level the flags cannot take).
LadderOutcome run_ladder(const LadderPlan& plan);

}  // namespace proofload::experiments
