// `proofload soak`: does it stay up and correct for a day, and through a rollout? One long step
// on the experiment runner (experiment.h): a steady load (open loop by default, after an optional
// ramp in steps) held for hours, folded into windows (a minute by default) as it runs, each
// judged against a bar; canaries on their own connection; marks scheduled (--mark-at, a hook
// run at that moment) or sent from outside (`proofload mark DIR label`, picked up within a
// second); the observers for the whole length. At the end (Ctrl-C included) the windows, drift,
// the slowest request and each mark's verdict go to result.json and summary.md; a soak killed
// outright leaves windows.csv, canaries.csv, marks.log and the run's hlog, from which `proofload
// report DIR` rebuilds the report (soak_record.h).
// Runs on the caller's thread; one soak per process.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analyze/abort_rule.h"
#include "analyze/soak_analysis.h"
#include "experiments/experiment.h"
#include "live/live_outputs.h"
#include "plan/run_spec.h"
#include "result/soak_result.h"

namespace proofload::experiments {

struct SoakPlan {
  // The load: the base run with the soak's rate (open loop) or connections (closed); soak_run
  // sets its stages and length.
  plan::RunSpec base_run;
  bool open_loop = true;
  double level = 0;  // the rate per second (open loop) or connections (closed) held
  int64_t hold_ns = 0;
  int64_t ramp_ns = 0;  // 0: no ramp
  int ramp_steps = 0;
  int64_t window_ns = 60 * int64_t{1'000'000'000};
  // Known-answer requests (the scenario file's canaries), every canary_every_ns.
  std::shared_ptr<const workload::Scenario> scenario;
  int64_t canary_every_ns = 60 * int64_t{1'000'000'000};
  int64_t canary_timeout_ns = 10 * int64_t{1'000'000'000};
  // Its directory, command line, live outputs and guards: the pre-check, the abort rule and the
  // hooks (restore, once at the end, and the marks' timeout).
  ExperimentContext context;
  // settings holds the bar, the marks, the drift settings and the mark window as recorded;
  // the soak reads them from there (one copy). The record's header comes from the context.
  result::SoakResult initial;  // source, settings, segment
};

// The run of the soak: base_run with the ramp's steps (each a jump to level * i / steps, held
// ramp / steps) and the hold at `level`, its results in out_dir/run.
plan::RunSpec soak_run(const SoakPlan& plan);

// `--plan`: the shape, the windows and bar, canaries, marks and the total time. Sends nothing.
std::string describe_soak_plan(const SoakPlan& plan);

struct SoakOutcome {
  result::SoakResult result;
  // 0: complete and every hold window met the bar, no mark failed and no drift; 99: any of
  // those not so, or aborted; 1: failed; 130: interrupted.
  int exit_code = 0;
};

// Runs the soak and writes its directory. UsageError for bad input found before anything is sent
// (an unreachable target, a canary that does not compile).
SoakOutcome run_soak(const SoakPlan& plan);

}  // namespace proofload::experiments
