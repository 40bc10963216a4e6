// `proofload compare`: is B faster than A? A matrix of cells (compare_matrix.h: each check under
// each condition and setting) run on both sides, each cell `repeat` times, A and B interleaved so
// that drift in the machine falls on both; each cell's run is an ordinary run directory
// (a/CONDITION/CHECK-rN, b/...). The judgement (analyze/compare_analysis.h) compares the medians
// of the repeats against the noise the repeats themselves show; result.json and summary.md are
// rewritten after every cell, so a comparison killed outright still reads.
//
// The order, stated in the plan and the report:
// - two targets (--a URL --b URL): for each setting, for each repeat, each cell runs on A then
//   on B (a pair of runs minutes apart at most);
// - one target switched by hooks (--a-apply / --b-apply): for each setting, for each repeat, A is
//   applied and all its cells run, then B: one switch per side per repeat, since a switch is
//   usually a deployment.
// A cold cell runs the --reset hook first and measures from its first request; a warm cell runs
// a warm-up pass first (its run's warm-up, not measured). A setting's apply runs before its first
// cell, its restore after its last (and on every exit path once applied); --restore once at the
// end. Runs on the caller's thread; one comparison per process.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiments/compare_matrix.h"
#include "experiments/experiment_context.h"
#include "live/live_outputs.h"
#include "plan/run_spec.h"
#include "result/compare_result.h"

namespace proofload::experiments {

struct ComparePlan {
  CompareMatrix matrix;
  // Each cell's run starts from this (TLS, timeouts, observers, -H); the cell sets the target,
  // the check, the load and the directory.
  plan::RunSpec base_run;
  std::string a_target, b_target;  // the same target when hooks switch it
  std::optional<std::string> a_apply, b_apply;  // both or neither
  // Observers of one side's cells only (--a-observe, --b-observe), added to base_run's: two
  // targets are two servers, and a figure such as CPU per request must come from each one's.
  std::vector<std::string> a_observe, b_observe;
  std::optional<std::string> reset;  // before each cold cell (a cell's hook, not every step's)
  // Its directory, command line, live outputs and guards: the hooks' restore (once at the end)
  // and timeout.
  ExperimentContext context;
  // settings and source as recorded; the context opens it, the comparison fills in the rest.
  result::CompareResult initial;

  bool switched_by_hooks() const { return a_apply.has_value(); }
};

inline constexpr size_t kNoSetting = static_cast<size_t>(-1);

// One cell's run, in the order they run.
struct CompareStep {
  size_t setting = kNoSetting;  // index in matrix.settings
  int repeat = 1;               // 1-based
  std::string side;             // "a" or "b"
  std::string condition_kind;   // kCold, kWarm or ""
  size_t check = 0;             // index in matrix.checks.requests
  std::string condition;        // as reported: "cold", "warm at 0.5 CPU", ""
  std::string directory;        // relative: "a/cold/lookup-r1"
  bool switch_side = false;     // hooks: run this side's apply first
  bool apply_setting = false;   // the setting's first cell
  bool restore_setting = false;  // the setting's last cell: restore it after
};

std::vector<CompareStep> compare_steps(const ComparePlan& plan);
// The order in words, as recorded in settings.order.
std::string compare_order_text(const ComparePlan& plan);
// The run of one cell: the side's target, the check's request alone, the matrix's load, a warm
// cell's warm-up, into out_dir/step.directory.
plan::RunSpec compare_cell_run(const ComparePlan& plan, const CompareStep& step);

// `--plan`: every hook and cell in order, with the total time. Sends nothing.
std::string describe_compare_plan(const ComparePlan& plan);

struct CompareOutcome {
  result::CompareResult result;
  // 0: complete and B slower on no check; 99: B slower on at least one; 1: failed;
  // 130: interrupted.
  int exit_code = 0;
};

// Runs the comparison and writes its directory. UsageError, before anything is sent, for a
// target it cannot reach or a cell's run that cannot be planned.
CompareOutcome run_compare(const ComparePlan& plan);

}  // namespace proofload::experiments
