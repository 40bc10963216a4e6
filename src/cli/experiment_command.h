// What every experiment command shares once its flags are parsed: its context (the output
// directory, quiet, the command line, the start), and one runner for "build the plan → with
// --plan, describe it and exit → start the live outputs → run → end them → say how it went → the
// exit code", with a hook for each part that differs (a ladder's CI bar line, a soak's windows
// missed, run's thresholds). Configuration time and the main thread only.
#pragma once

#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "common/usage_error.h"
#include "experiments/experiment_context.h"
#include "live/live_outputs.h"
#include "plan/run_spec.h"
#include "result/ladder_result.h"
#include "workload/scenario.h"

namespace proofload::cli {

// An experiment's context from its command's flags: its name, --out (default
// DEFAULT_DIR-DATE-TIME, DEFAULT_DIR being the name unless given), --quiet, the command line and
// now. No guards: the command adds its own.
experiments::ExperimentContext experiment_context(const RunFlags& flags, const char* name,
                                                  const char* default_dir = nullptr);

// `TARGET [URL]` taken (take_target), the scenario shared with the plan; null for a plain URL.
std::shared_ptr<const workload::Scenario> take_scenario(const std::vector<std::string>& targets,
                                                        RunFlags& flags, CLI::App* app,
                                                        const char* command);

// What an experiment measures, as its record's `source` says: the run's target and protocol, and
// the scenario (or matrix) file with its SHA-256 when one is given ("" when not).
result::LadderSource recorded_source(const plan::RunSpec& run, const std::string& scenario_file);

// Prints DIR/summary.md on stdout unless quiet, then `end` on stderr (after it: print_file
// flushes); returns `exit_code`.
int say_how_it_ended(const experiments::ExperimentContext& context, const std::string& end,
                     int exit_code);

// One command's parts. `Plan` is what it runs (an XPlan, or run's RunOptions); `Outcome` what
// running it returns.
template <typename Plan, typename Outcome>
struct ExperimentCommand {
  const char* name;  // names the live outputs' page ("proofload soak")
  // The flags made the plan: the target taken, every check made (UsageError: exit 2).
  std::function<Plan()> plan;
  std::function<std::string(const Plan&)> describe;  // --plan's text; nothing is sent
  // Runs it, feeding `live` (null when no live output was asked for).
  std::function<Outcome(Plan&, live::LiveOutputs* live)> run;
  // What is said once it ran; returns the exit code.
  std::function<int(const Plan&, const Outcome&)> end;
};

template <typename Plan, typename Outcome>
int run_experiment_command(const ExperimentCommand<Plan, Outcome>& command, const RunFlags& flags,
                           bool describe_only) {
  Plan plan = command.plan();
  if (describe_only) {
    std::fputs(command.describe(plan).c_str(), stdout);
    return kExitOk;
  }
  const std::unique_ptr<live::LiveOutputs> live = start_live_outputs(flags, command.name);
  Outcome outcome = command.run(plan, live.get());
  if (live) live->end();
  return command.end(plan, outcome);
}

// The parts of an experiment whose plan has a context (LadderPlan, SoakPlan, ...) and whose
// outcome an exit_code: run feeds context.live; the end prints the summary (say_how_it_ended)
// with `end_line`'s text on stderr.
template <typename Plan, typename Outcome>
ExperimentCommand<Plan, Outcome> experiment_command(
    const char* name, std::function<Plan()> plan, std::string (*describe)(const Plan&),
    Outcome (*run)(const Plan&),
    std::function<std::string(const Plan&, const Outcome&, const std::filesystem::path& summary)>
        end_line) {
  return {name, std::move(plan), describe,
          [run](Plan& p, live::LiveOutputs* live) {
            p.context.live = live;
            return run(p);
          },
          [end_line = std::move(end_line)](const Plan& p, const Outcome& outcome) {
            return say_how_it_ended(p.context,
                                    end_line(p, outcome, p.context.out_dir / "summary.md"),
                                    outcome.exit_code);
          }};
}

}  // namespace proofload::cli
