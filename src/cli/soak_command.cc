// `proofload soak URL|SCENARIO.yaml [URL] --rate R --hold 24h`: does it stay up and correct for a
// day, and through a rollout? Turns the flags into a SoakPlan (every check here, before anything
// is sent: exit 2 on bad input), prints it with --plan, or runs it and prints the report.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "analyze/ladder_analysis.h"
#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/experiment_commands.h"
#include "cli/ladder_flags.h"
#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/http_probe.h"
#include "experiments/ladder_record.h"
#include "experiments/segment_file.h"
#include "experiments/soak.h"
#include "plan/plan_run.h"
#include "registry/experiment_kinds.h"
#include "report/numbers.h"

namespace proofload::cli {
namespace {

struct SoakFlags {
  RunFlags run;
  std::vector<std::string> targets;
  std::optional<std::string> hold;
  std::string ramp = "0s";
  int ramp_steps = 5;
  std::string window = "1m";
  std::string bar = std::string(analyze::kDefaultSoakBar);
  std::string canary_every = "1m";
  std::string canary_timeout = "10s";
  std::optional<std::string> drift_blocks;
  std::optional<std::string> drift_noise;
  std::string drift_floor_share = "5%";
  std::string drift_floor = "1ms";
  std::string drift_fails = "rise";
  std::vector<std::string> mark_at;
  std::string mark_window = "2m";
  std::string hook_timeout = "60s";
  std::optional<std::string> abort_when, precheck, restore;
  bool plan = false;
};

// "15m:rollback:kubectl rollout undo deploy/x": AT:LABEL, then optionally :COMMAND (which may
// hold colons). AT is from the start of the hold.
result::ScheduledMark parse_mark_at(const std::string& text) {
  const size_t first = text.find(':');
  const size_t second = first == std::string::npos ? first : text.find(':', first + 1);
  result::ScheduledMark mark;
  if (first == std::string::npos) {
    throw UsageError("--mark-at '" + text +
                     "': expected AT:LABEL or AT:LABEL:COMMAND, e.g. "
                     "15m:rollback:'kubectl rollout undo deploy/app'");
  }
  mark.at_s = seconds_of(parse_duration_ns(text.substr(0, first)));
  mark.label =
      text.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  if (second != std::string::npos) mark.command = text.substr(second + 1);
  if (mark.label.empty()) throw UsageError("--mark-at '" + text + "': the label is empty");
  return mark;
}

experiments::SoakPlan build_soak_plan(SoakFlags& f,
                                      std::shared_ptr<const workload::Scenario> scenario) {
  experiments::SoakPlan plan;
  if (!f.hold) throw UsageError("soak needs -d, how long to hold the load (e.g. 24h)");
  plan.hold_ns = parse_positive_duration_ns("-d", *f.hold);
  plan.ramp_ns = parse_duration_ns(f.ramp);
  if (plan.ramp_ns < 0) throw UsageError("--ramp must not be negative");
  if (f.ramp_steps < 1 || f.ramp_steps > 100)
    throw UsageError("--ramp-steps must be 1 to 100, got " + std::to_string(f.ramp_steps));
  plan.ramp_steps = f.ramp_steps;
  plan.window_ns = parse_positive_duration_ns("--window", f.window);
  if (plan.window_ns % kNsPerS != 0)
    throw UsageError("--window must be whole seconds (it is made of 1 s records), got '" +
                     f.window + "'");
  if (plan.window_ns > plan.hold_ns) throw UsageError("--window is longer than the hold (-d)");
  const std::optional<std::string> rate = f.run.given("rate");
  const std::string executor = f.run.given("executor").value_or(rate ? "open" : "");
  plan.open_loop = executor != "closed";
  if (plan.open_loop) {
    if (!rate) throw UsageError("soak needs --rate (open loop), or --executor closed with -c");
    plan.level = parse_rate_per_s(*rate);
    if (plan.level <= 0) throw UsageError("--rate must be above 0");
  }
  // Only a scenario file's settings set these: the soak's ramp and hold are the load's shape.
  f.run.forget({"stages", "duration", "requests"});
  plan.canary_every_ns = parse_positive_duration_ns("--canary-every", f.canary_every);
  plan.canary_timeout_ns = parse_positive_duration_ns("--canary-timeout", f.canary_timeout);
  const analyze::SoakBar bar = analyze::parse_soak_bar(f.bar);  // refused here if bad
  std::optional<analyze::AbortRule> abort_when;
  if (f.abort_when) abort_when = analyze::parse_abort_rule(*f.abort_when);
  if (f.precheck && !experiments::is_url(*f.precheck)) {
    throw UsageError("--precheck must be an http:// URL, got '" + *f.precheck + "'");
  }
  plan.context = experiment_context(f.run, "soak");
  experiments::ExperimentGuards& guards = plan.context.guards;
  guards.precheck_url = f.precheck;
  guards.hooks.restore = f.restore;
  guards.hooks.timeout_ns = parse_positive_duration_ns("--hook-timeout", f.hook_timeout);
  plan.scenario = scenario;

  RunFlags base_flags = f.run;
  base_flags.forget({"rate", "executor"});  // the soak's level, above
  plan.base_run = run_spec_from_flags(base_flags, scenario.get());
  plan::RunSpec& base = plan.base_run;
  if (!plan.open_loop) plan.level = base.connections;
  if (std::find(base.observe.begin(), base.observe.end(), "host") == base.observe.end())
    base.observe.push_back("host");
  if (plan.open_loop && !base.max_connections) {
    base.max_connections = std::max(base.connections, 1000);
  }
  if (abort_when) {
    plan::check_metric_source(abort_when->condition.metric,
                              "--abort-when '" + abort_when->text + "'", plan.base_run);
  }
  guards.abort_when = std::move(abort_when);

  result::SoakResult& r = plan.initial;
  if (const plan::RunSpec& run = plan.base_run; run.segments > 1) {
    // Its run records when it started; the soak, the plan's start.
    r.segment = experiments::segment_record(run.segment, run.segments, run.start_at_wall_ns,
                                            run.start_at_wall_ns.value_or(wall_clock_ns()));
  }
  r.source = recorded_source(plan.base_run, scenario ? scenario->file : "");
  result::SoakSettings& s = r.settings;
  s.loop = plan.open_loop ? "open" : "closed";
  if (plan.open_loop)
    s.rate_rps = plan.level;
  else
    s.connections = static_cast<int64_t>(plan.level);
  s.hold_s = seconds_of(plan.hold_ns);
  s.ramp_s = seconds_of(plan.ramp_ns);
  s.ramp_steps = plan.ramp_ns > 0 ? plan.ramp_steps : 0;
  s.window_s = seconds_of(plan.window_ns);
  s.bar = bar.text;
  if (scenario && !scenario->canaries.empty()) {
    s.canary_every_s = seconds_of(plan.canary_every_ns);
    for (const workload::RequestSpec& c : scenario->canaries) s.canaries.push_back(c.name);
  }
  if (f.drift_blocks) {
    s.drift_block_s = seconds_of(parse_positive_duration_ns("--drift-blocks", *f.drift_blocks));
  }
  if (f.drift_noise) {
    s.drift_noise_ms = static_cast<double>(parse_duration_ns(*f.drift_noise)) / 1e6;
  }
  s.drift_floor_share = parse_fraction("--drift-floor-share", f.drift_floor_share);
  s.drift_floor_ms = static_cast<double>(parse_duration_ns(f.drift_floor)) / 1e6;
  if (f.drift_fails != "rise" && f.drift_fails != "any") {
    throw UsageError("--drift-fails must be 'rise' or 'any', got '" + f.drift_fails + "'");
  }
  s.drift_fails = f.drift_fails;
  s.mark_window_s = seconds_of(parse_positive_duration_ns("--mark-window", f.mark_window));
  for (const std::string& text : f.mark_at) s.marks.push_back(parse_mark_at(text));
  std::stable_sort(s.marks.begin(), s.marks.end(),
                   [](const auto& a, const auto& b) { return a.at_s < b.at_s; });
  for (const result::ScheduledMark& m : s.marks) {
    if (m.at_s > s.hold_s) {
      throw UsageError(fmt::format("--mark-at {}: after the end of the hold ({})", m.label,
                                   format_duration(plan.hold_ns)));
    }
  }
  s.abort_when = f.abort_when;
  s.observe = f.run.all_given("observe");
  s.server_observed = std::any_of(s.observe.begin(), s.observe.end(),
                                  [](auto& o) { return o != "self" && o != "host"; });
  return plan;
}

}  // namespace

Subcommand add_soak_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto f = std::make_shared<SoakFlags>();
  CLI::App* app = parent.add_subcommand(
      kind.name,
      "Does it stay up and correct for a day? Hold a steady load for hours in windows, each "
      "judged against a bar, with canaries, drift and marks");
  app->add_option("target", f->targets,
                  "Target URL, or a scenario file (.yaml) and optionally the URL that replaces its "
                  "target")
      ->required()
      ->expected(1, 2);
  add_run_setting(app, f->run, "rate", "Open loop (the default): requests per second held");
  add_run_setting(app, f->run, "executor", "open (default) or closed (with -c)");
  add_run_setting(app, f->run, "connections",
                  "Closed loop: connections; open loop: the initial pool");
  app->add_option("-d,--duration", f->hold, "How long the load is held and judged, e.g. 24h");
  add_hidden_alias(app, "--hold", f->hold);
  app->add_option("--ramp", f->ramp, "A ramp in steps before the hold, e.g. 10m (default none)");
  app->add_option("--ramp-steps", f->ramp_steps, "Steps of the ramp (default 5)");
  app->add_option("--window", f->window, "The length of a judged window (default 1m)");
  app->add_option("--bar", f->bar,
                  "What every window must meet (default 'errors<=1%,p95<2s,canaries')");
  app->add_option("--canary-every", f->canary_every,
                  "How often the scenario's canaries are sent (default 1m)");
  app->add_option("--canary-timeout", f->canary_timeout, "Longest a canary may take (default 10s)");
  app->add_option("--drift-blocks", f->drift_blocks,
                  "Drift by blocks of this length (default: quarters of the hold)");
  app->add_option("--drift-noise", f->drift_noise,
                  "The noise drift is judged against, e.g. 5ms (default: measured)");
  app->add_option("--drift-floor-share", f->drift_floor_share,
                  "The smallest p95 change that is a finding, a share of p95 (default 5%)");
  add_hidden_alias(app, "--noise-floor", f->drift_floor_share);  // a ladder's is throughput noise
  app->add_option("--drift-floor", f->drift_floor,
                  "The smallest p95 change that is a finding, in time (default 1ms)");
  app->add_option("--drift-fails", f->drift_fails,
                  "Which drift fails the soak: rise (default; a fall is reported) or any");
  app->add_option("--mark-at", f->mark_at,
                  "AT:LABEL[:COMMAND]: a mark at AT into the hold, running COMMAND (repeatable)");
  app->add_option("--mark-window", f->mark_window,
                  "A mark is judged from the windows this far either side (default 2m)");
  app->add_option("--hook-timeout", f->hook_timeout,
                  "Longest a mark's command or --restore may run (default 60s)");
  app->add_option("--abort-when", f->abort_when,
                  "End the soak when this holds, e.g. 'errors > 50% for 1m'");
  app->add_option("--precheck", f->precheck, "A URL that must answer 2xx before anything starts");
  app->add_option("--restore", f->restore, "Command run once at the end, on every exit path");
  app->add_option("-o,--out", f->run.out, "The report directory (default soak-DATE-TIME)");
  app->add_flag("--plan", f->plan, "Print the soak's plan; send nothing");
  add_request_flags(app, f->run);
  add_segment_settings(app, f->run, kind);
  app->get_option("--max-connections")
      ->description("Open loop: the pool may grow to this many connections (default 1000)");

  return {app, [f, app] {
            return run_experiment_command(
                experiment_command<experiments::SoakPlan, experiments::SoakOutcome>(
                    "soak",
                    [f, app] {
                      return build_soak_plan(*f, take_scenario(f->targets, f->run, app, "soak"));
                    },
                    experiments::describe_soak_plan, experiments::run_soak,
                    [](const auto&, const experiments::SoakOutcome& outcome, const auto& summary) {
                      return fmt::format(
                          "soak: {}; {} of {} windows missed the bar; report in {}\n",
                          outcome.result.end_reason, outcome.result.windows_missed,
                          outcome.result.windows.size(), summary.string());
                    }),
                f->run, f->plan);
          }};
}

}  // namespace proofload::cli
