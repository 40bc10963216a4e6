// `proofload sizing URL --configs A,B,C --apply CMD --restore CMD (--concurrency L,.. | --rates
// R,.. | --search)`: which shape carries most? Turns the flags into a SizingPlan: the ladder's
// flags (every check of `ladder`, before anything is sent: exit 2 on bad input) for each
// configuration's ladder, and the configurations with their hooks; prints it with --plan, or
// runs it and prints the report.
#include <fmt/format.h>

#include <cstdio>

#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/experiment_commands.h"
#include "cli/ladder_flags.h"
#include "cli/live_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/drain_gate.h"
#include "experiments/http_probe.h"
#include "experiments/sizing.h"
#include "registry/experiment_kinds.h"

namespace proofload::cli {
namespace {

struct SizingFlags {
  LadderFlags ladder;  // its --restore is the sizing's (once at the very end)
  std::string configs;
  std::vector<std::string> cores;
  std::optional<std::string> apply;
  std::optional<std::string> ready_until;
  std::string ready_timeout =
      format_duration(static_cast<int64_t>(result::kDefaultReadyTimeoutS) * kNsPerS);
};

experiments::SizingPlan build_sizing_plan(SizingFlags& f,
                                          std::shared_ptr<const workload::Scenario> scenario) {
  experiments::SizingPlan plan;
  plan.configs = experiments::parse_sizing_configs(f.configs, f.cores);
  if (!f.ladder.run.out) f.ladder.run.out = default_out_dir("sizing");
  // Observers and targets may name the configuration (${PROOFLOAD_CONFIG}): they are resolved
  // for each configuration after its apply (run_sizing), nothing is reached before.
  plan.ladder = build_ladder_plan(f.ladder, scenario);
  if (f.ladder.fail_below) {
    throw UsageError("--fail-below is a ladder's bar; a sizing's is --fail-if-none");
  }
  plan.context = experiment_context(f.ladder.run, "sizing");
  experiments::ExperimentGuards& guards = plan.context.guards;
  experiments::StepHooks& ladder_hooks = plan.ladder.context.guards.hooks;
  guards.hooks.restore = ladder_hooks.restore;
  guards.hooks.timeout_ns = ladder_hooks.timeout_ns;
  ladder_hooks.restore.reset();
  plan.ladder.settings.hooks.restore.reset();  // each configuration's ladder never runs it
  plan.apply = f.apply;
  if (f.ready_until && experiments::is_url(f.ready_until.value())) {
    experiments::parse_drain_url(*f.ready_until);  // a bad condition is refused before anything
  }
  guards.drain_until = f.ready_until;
  guards.drain_timeout_ns = parse_positive_duration_ns("--ready-timeout", f.ready_timeout);
  plan.fail_if_none = f.ladder.fail_if_none;
  result::SizingSettings& s = plan.settings;
  s.apply = plan.apply;
  s.restore = guards.hooks.restore;
  s.ready_until = guards.drain_until;
  s.ready_timeout_s = seconds_of(guards.drain_timeout_ns);
  s.hook_timeout_s = seconds_of(guards.hooks.timeout_ns);
  s.loop = plan.ladder.settings.loop;
  s.levels = plan.ladder.levels;
  s.search = plan.ladder.search.has_value();
  s.hold_s = seconds_of(plan.ladder.hold_ns);
  s.warmup_s = seconds_of(plan.ladder.warmup_ns);
  s.slo = plan.ladder.settings.slo;
  s.observe = f.ladder.run.all_given("observe");
  return plan;
}

}  // namespace

Subcommand add_sizing_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto f = std::make_shared<SizingFlags>();
  CLI::App* app = parent.add_subcommand(
      kind.name,
      "Which shape carries most? The same ladder (or search) over several configurations, each "
      "applied by a hook, restored once at the end on every exit path");
  add_ladder_flags(app, f->ladder);
  app->add_option("--configs", f->configs,
                  "The configurations, e.g. 2x500m/1Gi,4x500m/1Gi,2x1000m/2Gi (NxCPU/MEM, or "
                  "free-form names)")
      ->required();
  app->add_option("--cores", f->cores,
                  "NAME=N: cores of limit of a configuration whose name does not say (repeatable)");
  app->add_option("--apply", f->apply,
                  "Command that puts a configuration in place ($PROOFLOAD_CONFIG, "
                  "$PROOFLOAD_INSTANCES, $PROOFLOAD_CPU, $PROOFLOAD_MEMORY, ...)");
  app->add_option("--ready-until", f->ready_until,
                  "After each apply, wait until this URL answers 2xx or this command exits 0");
  app->add_option("--ready-timeout", f->ready_timeout,
                  "Longest ready wait (default " + f->ready_timeout + ")");
  app->get_option("--restore")
      ->description("Command run once at the very end, on every exit path (Ctrl-C included)");
  app->get_option("--hook-timeout")->description("Longest a hook may run (default 60s)");
  app->get_option("--fail-if-none")
      ->description("Exit 99 when no configuration met the SLO at any level");
  app->get_option("--plan")->description(
      "Print every apply, level and restore and the total time; send nothing");
  app->get_option("-o")->description("The report directory (default sizing-DATE-TIME)");

  return {
      app, [f, app] {
        return run_experiment_command(
            experiment_command<experiments::SizingPlan, experiments::SizingOutcome>(
                "sizing",
                [f, app] {
                  return build_sizing_plan(
                      *f, take_scenario(f->ladder.targets, f->ladder.run, app, "sizing"));
                },
                experiments::describe_sizing_plan, experiments::run_sizing,
                [](const auto&, const experiments::SizingOutcome& outcome, const auto& summary) {
                  return fmt::format("sizing: {}; report in {}\n", outcome.result.end_reason,
                                     summary.string());
                }),
            f->ladder.run, f->ladder.plan);
      }};
}

}  // namespace proofload::cli
