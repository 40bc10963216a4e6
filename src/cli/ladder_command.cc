// `proofload ladder URL|SCENARIO.yaml [URL] (--concurrency L,.. | --rates R,.. | --search)`: where
// does it buckle? Turns the flags into a LadderPlan (every check happens here, before anything is
// sent: exit 2 on bad input), prints it with --plan, or runs it and prints the report.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analyze/level_table.h"
#include "cli/command_line.h"
#include "cli/experiment_command.h"
#include "cli/experiment_commands.h"
#include "cli/ladder_flags.h"
#include "cli/live_flags.h"
#include "cli/run_flags.h"
#include "cli/scenario_options.h"
#include "cli/subcommand.h"
#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "experiments/drain_gate.h"
#include "experiments/http_probe.h"
#include "experiments/ladder.h"
#include "experiments/ladder_record.h"
#include "plan/plan_run.h"
#include "registry/experiment_kinds.h"
#include "report/numbers.h"

namespace proofload::cli {
namespace {

// Open loop pool when -c / --max-connections are not given: enough connections for a slow
// service at a high rate (a level that needs more counts never-started work, reported).
constexpr int kDefaultOpenLoopMaxConnections = 1000;
// Far past any ladder a person plans (each level is at least one hold).
constexpr size_t kMaxLevels = 1000;

// "40,80,120" or "50,1.5k,3k": positive, rising.
std::vector<double> parse_levels(const std::string& flag, const std::string& text, bool whole) {
  std::vector<double> levels;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) throw UsageError(flag + " has an empty level in '" + text + "'");
    double level = parse_rate_per_s(item);
    if (level <= 0) throw UsageError(flag + " levels must be above 0, got '" + item + "'");
    if (whole && level != std::floor(level)) {
      throw UsageError(flag + " levels are connections (whole numbers), got '" + item + "'");
    }
    if (whole && level > plan::kMaxConnections) {
      throw UsageError(flag + " levels must be at most " + std::to_string(plan::kMaxConnections) +
                       " connections, got '" + item + "'");
    }
    if (!levels.empty() && level <= levels.back()) {
      throw UsageError(flag + " levels must rise, got " + item + " after " +
                       fmt::format("{}", levels.back()));
    }
    levels.push_back(level);
    if (levels.size() > kMaxLevels) {
      throw UsageError(flag + " has more than " + std::to_string(kMaxLevels) + " levels");
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return levels;
}

}  // namespace

std::string default_out_dir(const char* kind) {
  // "ladder-20261130-055000" (UTC): one directory per experiment, sorted by time.
  std::string iso = report::iso8601_utc(wall_clock_ns());  // 2026-11-30T05:50:00.000Z
  std::string stamp;
  for (char c : iso.substr(0, 19)) {
    if (c != '-' && c != ':') stamp += c == 'T' ? '-' : c;
  }
  return std::string(kind) + "-" + stamp;
}

experiments::LadderPlan build_ladder_plan(LadderFlags& f,
                                          std::shared_ptr<const workload::Scenario> scenario) {
  experiments::LadderPlan plan;
  int modes = (f.concurrency ? 1 : 0) + (f.rates ? 1 : 0) + (f.search ? 1 : 0);
  if (modes != 1) {
    throw UsageError(
        "ladder needs exactly one of --concurrency L1,L2,.. (closed loop), --rates "
        "R1,R2,.. (open loop) or --search (open loop)");
  }
  // Only set by a scenario file's settings: the ladder sets the load shape and length itself.
  f.run.forget({"rate", "stages", "duration", "executor", "requests"});
  plan.loop = f.concurrency ? analyze::Loop::kClosed : analyze::Loop::kOpen;
  if (f.concurrency) plan.levels = parse_levels("--concurrency", *f.concurrency, true);
  if (f.rates) plan.levels = parse_levels("--rates", *f.rates, false);
  plan.hold_ns = parse_positive_duration_ns("-d", f.hold);
  plan.warmup_ns = parse_duration_ns(f.warmup);
  if (plan.warmup_ns < 0) throw UsageError("--warmup must not be negative");
  plan.warmup_ns = (plan.warmup_ns + 999'999'999) / 1'000'000'000 * 1'000'000'000;
  if (f.repeat < 1 || f.repeat > 100)
    throw UsageError("--repeat must be 1 to 100, got " + std::to_string(f.repeat));
  // One row per level and repeat: what `analyze` reads back (analyze::kMaxTableRows).
  if (plan.levels.size() * static_cast<size_t>(f.repeat) > analyze::kMaxTableRows) {
    throw UsageError(fmt::format(
        "{} levels repeated {} times is {} runs; a ladder has at most {}", plan.levels.size(),
        f.repeat, plan.levels.size() * static_cast<size_t>(f.repeat), analyze::kMaxTableRows));
  }
  if (f.repeat_order != "sequence" && f.repeat_order != "interleaved") {
    throw UsageError("--repeat-order must be 'sequence' or 'interleaved', got '" + f.repeat_order +
                     "'");
  }
  plan.repeat = f.repeat;
  plan.interleaved = f.repeat_order == "interleaved";
  Judgement judgement = parse_judgement(f.judgement);
  plan.slo = judgement.slo;
  plan.analysis = judgement.analysis;
  plan.analysis.loop = plan.loop;
  plan.stop_on_fail = f.stop_on_fail;
  plan.fail_if_none = f.fail_if_none;
  if (f.fail_below) {
    plan.fail_below_rps = parse_rate_per_s(*f.fail_below);
    if (*plan.fail_below_rps <= 0) throw UsageError("--fail-below must be above 0/s");
  }

  std::optional<double> max_rate;
  if (f.max_rate) {
    max_rate = parse_rate_per_s(*f.max_rate);
    if (*max_rate <= 0) throw UsageError("--max-rate must be above 0");
  }
  if (f.max_concurrency && *f.max_concurrency < 1)
    throw UsageError("--max-concurrency must be at least 1");
  for (double level : plan.levels) {
    if (plan.loop == analyze::Loop::kClosed && f.max_concurrency && level > *f.max_concurrency) {
      throw UsageError(
          fmt::format("level {} is above --max-concurrency {}", level, *f.max_concurrency));
    }
    if (plan.loop == analyze::Loop::kOpen && max_rate && level > *max_rate) {
      throw UsageError(fmt::format("level {}/s is above --max-rate {}/s", level, *max_rate));
    }
  }
  if (f.search) {
    analyze::RateSearchOptions search;
    search.start_rps = parse_rate_per_s(f.start_rate);
    search.growth = f.growth;
    search.max_rps = max_rate;
    analyze::RateSearch validated(search);  // throws UsageError for bad options
    plan.search = search;
    plan.step_hold_ns = parse_positive_duration_ns("--step-hold", f.step_hold);
  }
  if (f.precheck && !experiments::is_url(*f.precheck)) {
    throw UsageError("--precheck must be an http:// URL, got '" + *f.precheck + "'");
  }
  plan.context = experiment_context(f.run, "ladder", f.search ? "search" : "ladder");
  experiments::ExperimentGuards& guards = plan.context.guards;
  guards.precheck_url = f.precheck;
  if (f.abort_when) guards.abort_when = analyze::parse_abort_rule(*f.abort_when);
  if (f.drain_until && experiments::is_url(*f.drain_until)) {
    experiments::parse_drain_url(*f.drain_until);  // a bad condition is refused before anything
  }
  guards.drain_until = f.drain_until;
  guards.drain_timeout_ns = parse_positive_duration_ns("--drain-timeout", f.drain_timeout);
  guards.hooks = {f.before_level, f.after_level, f.reset, f.restore,
                  parse_positive_duration_ns("--hook-timeout", f.hook_timeout)};

  // The open loop pool: -c to start, growing up to --max-connections (default 1000, or
  // --max-concurrency when that is lower).
  // Each level's run records its own `proofload run` command, so its Reproduce runs that level.
  plan.base_run = run_spec_from_flags(f.run, scenario.get());
  plan::RunSpec& base = plan.base_run;
  base.warmup_ns = plan.warmup_ns;
  // The host's load is always watched: a report says when it changed under the levels.
  if (std::find(base.observe.begin(), base.observe.end(), "host") == base.observe.end()) {
    base.observe.push_back("host");
  }
  const bool open = plan.loop == analyze::Loop::kOpen;
  if (open && !base.max_connections) {
    base.max_connections = std::max(
        base.connections, std::min(kDefaultOpenLoopMaxConnections,
                                   f.max_concurrency.value_or(kDefaultOpenLoopMaxConnections)));
  }
  if (open && f.max_concurrency && base.max_connections > *f.max_concurrency) {
    throw UsageError("--max-connections is above --max-concurrency");
  }
  if (plan.base_run.segments > 1) {
    // Every segment must run the same plan from the same clock, deciding nothing on what only
    // the whole load shows (experiments::segment_level_start_ns).
    if (!plan.base_run.start_at_wall_ns) {
      throw UsageError("ladder --segment needs --start-at: every segment's levels start at "
                       "agreed times, counted from it");
    }
    if (f.search) {
      throw UsageError("ladder --segment cannot --search: its next rate depends on the whole "
                       "load's verdict, which no segment sees; run --rates over segments and merge");
    }
    if (f.stop_on_fail) {
      throw UsageError("ladder --segment cannot --stop-on-fail: a level's verdict is the whole "
                       "load's, which no segment sees; merge the segments to judge it");
    }
  }
  for (const measure::Threshold& bound : plan.slo.bounds) {
    plan::check_metric_source(bound.metric, "--slo bound \"" + bound.expression + "\"",
                              plan.base_run);
  }
  if (guards.abort_when) {
    plan::check_metric_source(guards.abort_when->condition.metric,
                              "--abort-when '" + guards.abort_when->text + "'", plan.base_run);
  }

  std::string target = f.run.url;
  if (target.empty() && scenario && scenario->target) target = *scenario->target;
  if (scenario) {
    plan.source.scenario_file = scenario->file;
    plan.source.scenario_sha256 = experiments::file_sha256(scenario->file);
  }
  plan.source.target = target;
  result::LadderSettings& settings = plan.settings;
  const std::vector<std::string>& observe = f.run.all_given("observe");
  settings.server_observed = std::any_of(observe.begin(), observe.end(),
                                         [](auto& o) { return o != "self" && o != "host"; });
  settings.loop = open ? "open" : "closed";
  settings.levels = plan.levels;
  settings.hold_s = seconds_of(plan.hold_ns);
  settings.warmup_s = seconds_of(plan.warmup_ns);
  settings.repeat = plan.repeat;
  settings.repeat_order = f.repeat_order;
  settings.stop_on_fail = plan.stop_on_fail;
  settings.fail_if_none = plan.fail_if_none;
  settings.fail_below_rps = plan.fail_below_rps;
  settings.max_concurrency = f.max_concurrency;
  settings.max_rate = max_rate;
  settings.precheck = f.precheck;
  settings.abort_when = f.abort_when;
  settings.drain_until = f.drain_until;
  if (f.drain_until) settings.drain_timeout_s = seconds_of(guards.drain_timeout_ns);
  settings.hooks = {f.before_level, f.after_level, f.reset, f.restore};
  settings.hook_timeout_s = seconds_of(guards.hooks.timeout_ns);
  settings.observe = observe;
  record_judgement(judgement, settings);
  return plan;
}

void print_file(const std::filesystem::path& file) {
  if (std::FILE* in = std::fopen(file.c_str(), "r")) {
    char buffer[8192];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, in)) > 0) std::fwrite(buffer, 1, n, stdout);
    std::fclose(in);
  }
  // Out now, whole: stdout to a pipe is buffered, and the stderr line that follows the report
  // (unbuffered) would otherwise land in its middle, or before it.
  std::fflush(stdout);
}

std::string ladder_end_lines(const char* command, const experiments::LadderPlan& plan,
                             const experiments::LadderOutcome& outcome) {
  const std::filesystem::path& dir = plan.context.out_dir;
  std::string lines =
      fmt::format("{}: {}; report in {}, charts in {}\n", command, outcome.result.end_reason,
                  (dir / "summary.md").string(), (dir / "report.html").string());
  if (const std::optional<result::CiBar>& bar = outcome.result.ci_bar;
      bar && !bar->passed.value_or(true)) {
    lines += fmt::format("{}: FAILED the CI bar: {} (exit {})\n", command, bar->reason,
                         outcome.exit_code);
  }
  return lines;
}

void print_report(const char* command, const experiments::LadderPlan& plan,
                  const experiments::LadderOutcome& outcome, bool print_summary) {
  if (print_summary) print_file(plan.context.out_dir / "summary.md");
  std::fputs(ladder_end_lines(command, plan, outcome).c_str(), stderr);
}

void add_ladder_flags(CLI::App* app, LadderFlags& flags) {
  app->add_option("target", flags.targets,
                  "Target URL, or a scenario file (.yaml) and optionally the URL that replaces its "
                  "target (or --target URL)")
      ->expected(1, 2);
  app->add_option("--concurrency", flags.concurrency,
                  "Closed loop levels: connections, e.g. 40,80,120");
  app->add_option("--rates", flags.rates, "Open loop levels: target rates, e.g. 50,150,400,1.5k");
  app->add_flag("--search", flags.search,
                "Search the highest rate that meets the SLO: grow, bisect to within 1%, confirm");
  app->add_option("--start-rate", flags.start_rate, "--search: the first rate tried (default 100)");
  app->add_option("--growth", flags.growth, "--search: factor between growing steps (default 2)");
  app->add_option("--step-hold", flags.step_hold,
                  "--search: how long each step is measured (default 10s)");
  app->add_option("-d,--duration", flags.hold, "How long each level is measured (default 30s)");
  add_hidden_alias(app, "--hold", flags.hold);
  app->add_option("--warmup", flags.warmup,
                  "Per level: recorded, excluded from the results (default 5s)");
  app->add_option("--repeat", flags.repeat, "Run each level K times (default 1)");
  app->add_option(
      "--repeat-order", flags.repeat_order,
      "sequence (each level K times in a row) or interleaved (the whole ladder K times)");
  add_judgement_flags(app, flags.judgement);
  app->add_flag("--stop-on-fail", flags.stop_on_fail, "End at the first level that breaks the SLO");
  app->add_flag("--fail-if-none", flags.fail_if_none,
                "Exit 99 when no level met the SLO (a search: when no rate was confirmed)");
  app->add_option("--fail-below", flags.fail_below,
                  "Exit 99 when best sustained (a search: the confirmed rate) is below this rate");
  app->add_option("--max-concurrency", flags.max_concurrency,
                  "Guard: refuse levels (closed loop) or pools (open loop) above this");
  app->add_option("--max-rate", flags.max_rate,
                  "Guard: refuse rates above this (also caps --search)");
  app->add_option("--precheck", flags.precheck,
                  "A URL that must answer 2xx before anything starts");
  app->add_option("--abort-when", flags.abort_when,
                  "End a level, and the ladder, when this holds, e.g. 'errors > 50% for 10s'");
  app->add_option(
      "--drain-until", flags.drain_until,
      "Before each level, wait until this URL answers 2xx (and, with URL#/pointer==value, "
      "its JSON holds that) or this command exits 0");
  app->add_option("--drain-timeout", flags.drain_timeout, "Longest drain wait (default 60s)");
  app->add_option("--before-level", flags.before_level, "Command run just before each level");
  app->add_option("--after-level", flags.after_level, "Command run after each level");
  app->add_option("--reset", flags.reset,
                  "Command run before each level (ahead of the drain gate)");
  app->add_option("--restore", flags.restore, "Command run once at the end, on every exit path");
  app->add_option("--hook-timeout", flags.hook_timeout, "Longest a hook may run (default 60s)");
  app->add_flag("--plan", flags.plan, "Print the levels, hooks and total time; send nothing");
  add_run_setting(app, flags.run, "connections", "Open loop: the initial pool");
  app->add_option("-o,--out", flags.run.out, "The report directory (default ladder-DATE-TIME)");
  add_request_flags(app, flags.run);
  // The shared flag's default is run's (-c); a ladder's pool grows further by default.
  app->get_option("--max-connections")
      ->description(
          "Open loop: the pool may grow to this many connections (default 1000, or "
          "--max-concurrency when lower)");
}

Subcommand add_ladder_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto f = std::make_shared<LadderFlags>();
  CLI::App* app = parent.add_subcommand(
      kind.name,
      "Where does it buckle? Run a list of levels (or search the highest rate within the "
      "SLO), judge each, and write a report");
  add_ladder_flags(app, *f);
  add_segment_settings(app, f->run, kind);

  return {app, [f, app] {
            // A scenario's settings fill the flags not given; `ladder` has no --rate, -d, ...
            // of its own (its levels set the load), so those always come from the file and are
            // then replaced by the levels.
            return run_experiment_command(
                experiment_command<experiments::LadderPlan, experiments::LadderOutcome>(
                    "ladder",
                    [f, app] {
                      return build_ladder_plan(*f,
                                               take_scenario(f->targets, f->run, app, "ladder"));
                    },
                    experiments::describe_plan, experiments::run_ladder,
                    [](const auto& plan, const auto& outcome, const auto&) {
                      return ladder_end_lines("ladder", plan, outcome);
                    }),
                f->run, f->plan);
          }};
}

}  // namespace proofload::cli
