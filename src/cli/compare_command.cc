// `proofload compare MATRIX.yaml --a URL --b URL`: is B faster than A? Turns the flags and the
// matrix file into a ComparePlan (every check here or in the plan, before anything is sent: exit
// 2 on bad input), prints it with --plan, or runs it and prints the report. With two recorded
// directories (`--a DIR --b DIR`) it judges their runs again and sends nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

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
#include "experiments/compare.h"
#include "experiments/compare_record.h"
#include "experiments/http_probe.h"
#include "experiments/ladder_record.h"
#include "observe/factory.h"
#include "registry/experiment_kinds.h"
#include "report/numbers.h"

namespace proofload::cli {
namespace {

namespace fs = std::filesystem;

struct CompareFlags {
  RunFlags run;
  std::optional<std::string> matrix;
  std::optional<std::string> a, b;
  std::optional<std::string> a_apply, b_apply;
  std::vector<std::string> a_observe, b_observe;
  std::optional<std::string> reset, restore;
  std::string hook_timeout = "60s";
  std::optional<int64_t> repeat;
  std::optional<std::string> metric;
  std::optional<std::string> min_effect;
  int64_t min_repeats = 3;
  bool plan = false;
};

bool is_directory(const std::optional<std::string>& path) {
  std::error_code ec;
  return path && fs::is_directory(*path, ec);
}

// The judgement's settings the flags may override in both modes.
void judge_flags(const CompareFlags& f, result::CompareSettings& s) {
  if (f.metric) s.metric = analyze::compare_metric_name(analyze::parse_compare_metric(*f.metric));
  if (f.min_effect) s.min_effect = parse_fraction("--min-effect", *f.min_effect);
  if (f.min_repeats < 1 || f.min_repeats > 1000) {
    throw UsageError("--min-repeats must be from 1 to 1000");
  }
}

int rejudge(const CompareFlags& f) {
  if (f.matrix) throw UsageError("with two recorded directories, give no matrix file");
  if (f.a_apply || f.b_apply || f.reset || f.restore || !f.a_observe.empty() ||
      !f.b_observe.empty()) {
    throw UsageError("recorded directories are judged again, nothing is run: no hooks or "
                     "observers");
  }
  const experiments::ExperimentContext context = experiment_context(f.run, "compare");
  result::CompareResult initial;
  context.open_record(initial);
  result::CompareSettings& s = initial.settings;
  s.min_repeats = f.min_repeats;
  s.mode = "recorded";
  s.a = *f.a;
  s.b = *f.b;
  judge_flags(f, s);
  s.repeat = 0;
  std::error_code ec;
  s.a_a = fs::equivalent(*f.a, *f.b, ec);
  const fs::path& out = context.out_dir;
  result::CompareResult r = experiments::rejudge_recorded(*f.a, *f.b, std::move(initial));
  r.status = "complete";
  r.end_reason = "judged again from recorded runs";
  r.finished_at = report::iso8601_utc(wall_clock_ns());
  if (f.plan) {
    std::printf("Would judge %zu recorded runs again into %s; nothing is sent.\n", r.runs.size(),
                out.c_str());
    return kExitOk;
  }
  experiments::write_compare_directory(out, r);
  return say_how_it_ended(context,
                          fmt::format("compare: {}; report in {}\n", r.analysis.headline.text,
                                      (out / "summary.md").string()),
                          r.analysis.headline.slower > 0 ? kExitThresholds : kExitOk);
}

experiments::ComparePlan build_plan(CompareFlags& f, CLI::App* app) {
  if (!f.matrix) {
    // Given as directories, one of which is not there: say which.
    for (const auto& [flag, path] : {std::pair{"--a", f.a}, std::pair{"--b", f.b}}) {
      if (path && !experiments::is_url(*path) && !is_directory(path)) {
        std::error_code ec;
        throw UsageError(fmt::format(
            "compare {} {}: {} (with no matrix file, --a and --b are two recorded directories)",
            flag, *path, fs::exists(*path, ec) ? "not a directory" : "no such directory"));
      }
    }
    throw UsageError("compare needs a matrix file (compare.yaml), or two recorded directories "
                     "as --a DIR --b DIR");
  }
  if (f.a_apply.has_value() != f.b_apply.has_value()) {
    throw UsageError("--a-apply and --b-apply go together: one switches to A, the other to B");
  }
  experiments::ComparePlan plan;
  plan.matrix = experiments::load_compare_matrix(*f.matrix);
  const experiments::CompareMatrix& m = plan.matrix;
  plan.a_target = f.a ? *f.a : m.checks.target.value_or("");
  if (plan.a_target.empty()) {
    throw UsageError("no target for A: give --a URL (and --b URL), or 'target:' in " + m.file);
  }
  plan.b_target = f.b ? *f.b : plan.a_target;
  if (!f.b && !f.a_apply) {
    throw UsageError("no target for B: give --b URL (--b " + plan.a_target +
                     " too for an A/A comparison, which measures the matrix's noise), or "
                     "--a-apply and --b-apply hooks that switch the target");
  }
  for (const std::string& spec : f.a_observe) observe::check_sampler_spec(spec);
  for (const std::string& spec : f.b_observe) observe::check_sampler_spec(spec);
  plan.a_observe = f.a_observe;
  plan.b_observe = f.b_observe;
  plan.a_apply = f.a_apply;
  plan.b_apply = f.b_apply;
  plan.reset = f.reset;
  plan.context = experiment_context(f.run, "compare");
  experiments::StepHooks& hooks = plan.context.guards.hooks;
  hooks.restore = f.restore;
  hooks.timeout_ns = parse_duration_ns(f.hook_timeout);
  if (hooks.timeout_ns <= 0) throw UsageError("--hook-timeout must be longer than 0");
  if (std::find(m.conditions.begin(), m.conditions.end(), experiments::kCold) !=
          m.conditions.end() &&
      !f.reset) {
    throw UsageError("the matrix asks for cold checks: give the --reset hook that makes a cell "
                     "cold (e.g. a restart or a cache flush)");
  }
  if (f.repeat) {
    if (*f.repeat < 1 || *f.repeat > 1000) throw UsageError("--repeat must be from 1 to 1000");
    plan.matrix.repeat = static_cast<int>(*f.repeat);
  }
  if (f.metric) plan.matrix.metric = analyze::parse_compare_metric(*f.metric);
  if (f.min_effect) plan.matrix.min_effect = parse_fraction("--min-effect", *f.min_effect);

  // Only the matrix's run sets the load: the cells' shape is its own.
  RunFlags base = f.run;
  base.url = plan.a_target;
  merge_scenario_settings(base, m.checks, flags_given(app));
  plan.base_run = run_spec_from_flags(base, &m.checks);

  result::CompareResult& r = plan.initial;
  r.source = recorded_source(plan.base_run, m.file);
  r.source.target = plan.a_target;
  result::CompareSettings& s = r.settings;
  s.min_repeats = f.min_repeats;
  s.matrix_file = m.file;
  s.metric = std::string(analyze::compare_metric_name(plan.matrix.metric));
  s.repeat = plan.matrix.repeat;
  s.min_effect = plan.matrix.min_effect;
  s.conditions = m.conditions;
  for (const experiments::CompareSetting& setting : m.settings) s.settings.push_back(setting.name);
  s.mode = plan.switched_by_hooks() ? "hooks" : "targets";
  s.a = plan.a_target;
  s.b = plan.b_target;
  // A against itself measures the matrix's noise: allowed, and said in the report.
  s.a_a = plan.b_target == plan.a_target && f.a_apply == f.b_apply;
  s.order = experiments::compare_order_text(plan);
  if (!m.rate_per_s) s.connections = m.connections;
  s.rate_per_s = m.rate_per_s;
  s.duration_s = seconds_of(m.duration_ns);
  s.warmup_s = seconds_of(m.warmup_ns);
  s.cold_requests = m.cold_requests;
  judge_flags(f, s);
  result::judge_compare(r);  // the statistic, in words, for --plan
  return plan;
}

}  // namespace

Subcommand add_compare_command(CLI::App& parent, const registry::ExperimentKind& kind) {
  auto f = std::make_shared<CompareFlags>();
  CLI::App* app = parent.add_subcommand(
      kind.name,
      "Is B faster than A? Run a matrix of checks on both, repeated and interleaved, and judge "
      "each against the noise of its repeats; or judge two recorded directories again");
  app->add_option("matrix", f->matrix, "The matrix file (compare.yaml): checks, conditions, "
                                       "settings, metric, run, repeat");
  app->add_option("--a", f->a, "A: its URL, or a directory of recorded runs");
  app->add_option("--b", f->b, "B: its URL, or a directory of recorded runs");
  app->add_option("--a-apply", f->a_apply, "A hook that switches the target to A");
  app->add_option("--b-apply", f->b_apply, "A hook that switches the target to B");
  app->add_option("--a-observe", f->a_observe,
                  "An observer of A's cells only, as --observe (e.g. pid:PID of A's server)");
  app->add_option("--b-observe", f->b_observe, "An observer of B's cells only, as --observe");
  app->add_option("--reset", f->reset, "A hook run before each cold cell");
  app->add_option("--restore", f->restore, "A hook run once at the end, on every exit path");
  app->add_option("--hook-timeout", f->hook_timeout, "How long each hook may run (default 60s)");
  app->add_option("--repeat", f->repeat, "Runs of each cell on each side (default: the "
                                         "matrix's, else 3)");
  app->add_option("--metric", f->metric, "p50, p95, p99, throughput or cpu_per_request "
                                         "(default: the matrix's, else p50)");
  app->add_option("--min-effect", f->min_effect,
                  "The smallest difference that can be a finding (default 5%)");
  app->add_option("--min-repeats", f->min_repeats,
                  "Repeats a side needs for a verdict (default 3)");
  app->add_option("-o,--out", f->run.out, "The report directory (default compare-DATE-TIME)");
  app->add_flag("--plan", f->plan, "Print every hook and cell in order; send nothing");
  add_request_flags(app, f->run, {"target"});  // its targets are --a and --b

  return {app, [f, app] {
            if (is_directory(f->a) && is_directory(f->b)) return rejudge(*f);
            return run_experiment_command(
                experiment_command<experiments::ComparePlan, experiments::CompareOutcome>(
                    "compare", [f, app] { return build_plan(*f, app); },
                    experiments::describe_compare_plan, experiments::run_compare,
                    [](const auto&, const experiments::CompareOutcome& outcome,
                       const auto& summary) {
                      return fmt::format("compare: {}; {}; report in {}\n",
                                         outcome.result.end_reason,
                                         outcome.result.analysis.headline.text, summary.string());
                    }),
                f->run, f->plan);
          }};
}

}  // namespace proofload::cli
