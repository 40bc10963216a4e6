// `proofload run`: one load test, from a planned run (plan/plan_run.h) to result files and a
// printed summary.
// Owns the run's coordinator thread (the caller's): merges windows as the workers finish them,
// streams them to the result directory, shows live progress, and turns Ctrl-C / SIGTERM into a
// graceful stop (a second one ends at once; results are written either way).
#pragma once

#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "experiments/experiment.h"
#include "live/live_outputs.h"
#include "plan/plan_run.h"
#include "report/run_result.h"

namespace proofload::experiments {

struct RunOptions {
  // The load, its recorded spec and command, thresholds, observers and result directory.
  plan::PlannedRun run;
  // Progress on stderr (not -q): a panel redrawn in place on a terminal, plain lines elsewhere
  // (live_progress.h).
  bool live_progress = false;
  std::string progress_label;  // its first words: "level 3 of 5 (1,000/s)" in a ladder
  // The dashboard and the metrics (--dashboard, --metrics-listen), if any: the process's one,
  // which outlives the run (a ladder's levels are runs of one experiment). Not owned.
  live::LiveOutputs* live = nullptr;
  bool print_summary = true;   // the human summary on stdout at the end
  // Called with each measured window as it is merged (the coordinator thread); a non-empty
  // answer ends the run gracefully as aborted, with that reason (a ladder's --abort-when).
  std::function<std::string(const measure::WindowStats&)> abort_check;
  // Called once the load has started (the coordinator thread): its monotonic start, the origin
  // of every window's start_ns, and the same moment on the wall clock. A soak starts its canaries
  // and places its marks by it.
  std::function<void(int64_t start_ns, int64_t start_wall_ns)> on_start;
  // Called with each window once the observers have sampled past its end (the coordinator
  // thread, a window after abort_check saw it), with what they saw in it: what a soak folds.
  std::function<void(const measure::WindowStats&, const std::vector<report::ObservedFigures>&)>
      on_window_observed;
};

// Runs the load test; returns the result (also written to out_dir when set). Throws UsageError
// for an observer that cannot be set up (before anything is sent), and std::runtime_error, after
// writing what was recorded, if a load worker failed.
report::RunResult run_load_test(const RunOptions& options);

// A step's run as an experiment takes it: its result, or why it failed (a worker failed, the disk
// filled up; its files hold what it measured until then).
struct StepRun {
  report::RunResult run;
  std::string failure;
};

// run_load_test as a step of `experiment`, whose Ending it sets as the run ended: "failed",
// "interrupted" (and the experiment stops: the signal reached the run, not the runner) or
// "aborted", each reason followed by `where` (" at level 400").
StepRun run_step_load(const RunOptions& options, Experiment& experiment,
                      const std::string& where = "");

}  // namespace proofload::experiments
