// See compare.h.
#include "experiments/compare.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "common/clock.h"
#include "common/units.h"
#include "experiments/compare_record.h"
#include "experiments/experiment.h"
#include "experiments/run_experiment.h"
#include "plan/plan_run.h"
#include "report/numbers.h"
#include "words/numbers.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

const std::string& check_name(const ComparePlan& plan, size_t check) {
  return plan.matrix.checks.requests.at(check).name;
}

// "cold at 0.5 CPU": the condition as reported.
std::string condition_label(const std::string& kind, const std::string& setting) {
  if (setting.empty()) return kind;
  return kind.empty() ? setting : kind + " at " + setting;
}

// A condition as a directory name: a setting's name may hold '/' ("0.5 CPU / 1 GiB").
std::string directory_name(std::string text) {
  for (char& c : text) {
    if (c == '/' || c == '\\' || static_cast<unsigned char>(c) < 0x20) c = '_';
  }
  if (!text.empty() && text.front() == '.') text.insert(text.begin(), '_');
  return text;
}

std::string side_name(const std::string& side) { return side == "a" ? "A" : "B"; }

const std::optional<std::string>& side_apply(const ComparePlan& plan, const std::string& side) {
  return side == "a" ? plan.a_apply : plan.b_apply;
}

std::string load_words(const CompareMatrix& m) {
  return m.rate_per_s
             ? fmt::format("{}/s", words::fixed_with_thousands(*m.rate_per_s, 1))
             : fmt::format("{} connection{}", m.connections, m.connections == 1 ? "" : "s");
}

int64_t cell_ns(const ComparePlan& plan, const CompareStep& step) {
  return plan.matrix.duration_ns + (step.condition_kind == kWarm ? plan.matrix.warmup_ns : 0);
}

StepLabel label_of(const ComparePlan& plan, const CompareStep& step, size_t index) {
  StepLabel label;
  label.repeat = step.repeat;
  label.file_prefix = fmt::format("{:03}-", index + 1);
  label.where = fmt::format(" at {}{} on {} (repeat {})", check_name(plan, step.check),
                            step.condition.empty() ? "" : ", " + step.condition,
                            side_name(step.side), step.repeat);
  const std::string setting =
      step.setting == kNoSetting ? "" : plan.matrix.settings[step.setting].name;
  label.env = {{"PROOFLOAD_SIDE", step.side},
               {"PROOFLOAD_CHECK", check_name(plan, step.check)},
               {"PROOFLOAD_CONDITION", step.condition_kind},
               {"PROOFLOAD_SETTING", setting},
               {"PROOFLOAD_REPEAT", std::to_string(step.repeat)}};
  if (step.apply_setting) {
    label.first_hooks.emplace_back("apply-setting", plan.matrix.settings[step.setting].apply);
  }
  if (step.switch_side) {
    label.first_hooks.emplace_back("apply-" + step.side, *side_apply(plan, step.side));
  }
  if (step.condition_kind == kCold && plan.reset) {
    label.first_hooks.emplace_back("reset", *plan.reset);
  }
  return label;
}

}  // namespace

std::vector<CompareStep> compare_steps(const ComparePlan& plan) {
  const CompareMatrix& m = plan.matrix;
  std::vector<size_t> settings;
  for (size_t i = 0; i < m.settings.size(); ++i) settings.push_back(i);
  if (settings.empty()) settings.push_back(kNoSetting);
  const std::vector<std::string> conditions =
      m.conditions.empty() ? std::vector<std::string>{""} : m.conditions;
  const std::vector<std::string> sides = {"a", "b"};

  std::vector<CompareStep> steps;
  for (const size_t setting : settings) {
    const std::string setting_name = setting == kNoSetting ? "" : m.settings[setting].name;
    const size_t first = steps.size();
    auto add = [&](int repeat, const std::string& side, const std::string& kind, size_t check) {
      CompareStep s;
      s.setting = setting;
      s.repeat = repeat;
      s.side = side;
      s.condition_kind = kind;
      s.check = check;
      s.condition = condition_label(kind, setting_name);
      s.directory = side + "/" + (s.condition.empty() ? "" : directory_name(s.condition) + "/") +
                    fmt::format("{}-r{}", check_name(plan, check), repeat);
      steps.push_back(std::move(s));
    };
    for (int repeat = 1; repeat <= m.repeat; ++repeat) {
      if (plan.switched_by_hooks()) {
        for (const std::string& side : sides) {
          const size_t side_first = steps.size();
          for (const std::string& kind : conditions) {
            for (size_t c = 0; c < m.checks.requests.size(); ++c) add(repeat, side, kind, c);
          }
          if (steps.size() > side_first) steps[side_first].switch_side = true;
        }
      } else {
        for (const std::string& kind : conditions) {
          for (size_t c = 0; c < m.checks.requests.size(); ++c) {
            for (const std::string& side : sides) add(repeat, side, kind, c);
          }
        }
      }
    }
    if (setting != kNoSetting && steps.size() > first) {
      steps[first].apply_setting = true;
      steps.back().restore_setting = true;
    }
  }
  return steps;
}

std::string compare_order_text(const ComparePlan& plan) {
  std::string order =
      plan.switched_by_hooks()
          ? "for each repeat, A is applied (--a-apply) and all its cells run, then B's"
          : "for each repeat, each cell runs on A and then at once on B";
  if (!plan.matrix.settings.empty()) order = "for each setting in turn, " + order;
  return order;
}

plan::RunSpec compare_cell_run(const ComparePlan& plan, const CompareStep& step) {
  const CompareMatrix& m = plan.matrix;
  plan::RunSpec spec = plan.base_run;
  spec.target = step.side == "a" ? plan.a_target : plan.b_target;
  const std::vector<std::string>& observe = step.side == "a" ? plan.a_observe : plan.b_observe;
  spec.observe.insert(spec.observe.end(), observe.begin(), observe.end());
  spec.target_from_scenario = false;
  auto scenario = std::make_shared<workload::Scenario>(m.checks);
  const workload::RequestSpec request = m.checks.requests.at(step.check);
  scenario->requests = {request};
  scenario->flows.clear();
  scenario->mix = {{request.name, 1, request.where}};
  scenario->thresholds.clear();
  scenario->canaries.clear();
  spec.scenario = std::move(scenario);
  spec.connections = m.connections;
  spec.stages.clear();
  // A cold cell may end at its first requests after the reset: the only ones surely cold.
  spec.requests_limit.reset();
  if (step.condition_kind == kCold) spec.requests_limit = m.cold_requests;
  if (m.rate_per_s) {
    spec.executor = engine::Executor::kOpenLoop;
    spec.rate_per_s = m.rate_per_s;
  } else {
    spec.executor = engine::Executor::kClosedLoop;
    spec.rate_per_s.reset();
    spec.max_connections.reset();
  }
  spec.duration_ns = m.duration_ns;
  spec.warmup_ns = step.condition_kind == kWarm ? m.warmup_ns : 0;
  spec.out_dir = plan.context.out_dir / step.directory;
  spec.quiet = true;
  return spec;
}

std::string describe_compare_plan(const ComparePlan& plan) {
  const CompareMatrix& m = plan.matrix;
  const std::vector<CompareStep> steps = compare_steps(plan);
  int64_t total_ns = 0;
  for (const CompareStep& s : steps) total_ns += cell_ns(plan, s);
  const size_t conditions = std::max<size_t>(m.conditions.size(), 1);
  const size_t settings = std::max<size_t>(m.settings.size(), 1);
  std::string out = fmt::format(
      "Compare: {} check{} × {} condition{} × {} setting{}, {} repeat{} on each side: {} runs of "
      "{} ({}), {} of load in all (hooks not counted).\n",
      m.checks.requests.size(), m.checks.requests.size() == 1 ? "" : "s", conditions,
      conditions == 1 ? "" : "s", settings, settings == 1 ? "" : "s", m.repeat,
      m.repeat == 1 ? "" : "s", steps.size(), format_duration(m.duration_ns), load_words(m),
      format_duration(total_ns));
  if (m.cold_requests) {
    out += fmt::format(
        "  a cold run ends after its first {} request{} after the reset (at most {})\n",
        *m.cold_requests, *m.cold_requests == 1 ? "" : "s", format_duration(m.duration_ns));
  }
  if (plan.switched_by_hooks()) {
    out += fmt::format("  A and B: {}, switched by --a-apply '{}' and --b-apply '{}'\n",
                       plan.a_target, *plan.a_apply, *plan.b_apply);
  } else {
    out += fmt::format("  A: {}\n  B: {}\n", plan.a_target, plan.b_target);
  }
  out += fmt::format("  metric {}; {}\n", analyze::compare_metric_name(m.metric),
                     plan.initial.analysis.statistic.empty() ? "judged against the noise"
                                                             : plan.initial.analysis.statistic);
  out += "  order: " + compare_order_text(plan) + "\n";
  for (size_t i = 0; i < steps.size(); ++i) {
    const CompareStep& s = steps[i];
    for (const auto& [name, command] : label_of(plan, s, i).first_hooks) {
      out += fmt::format("  {} hook: {}\n", name, command);
    }
    out += fmt::format("  {:>3}. {} on {}{}, repeat {}{} -> {}\n", i + 1,
                       check_name(plan, s.check), side_name(s.side),
                       s.condition.empty() ? "" : " (" + s.condition + ")", s.repeat,
                       s.condition_kind == kWarm
                           ? fmt::format(", after a {} warm-up", format_duration(m.warmup_ns))
                           : "",
                       s.directory);
    if (s.restore_setting && m.settings[s.setting].restore) {
      out += fmt::format("  restore-setting hook: {}\n", *m.settings[s.setting].restore);
    }
  }
  if (const std::optional<std::string>& restore = plan.context.guards.hooks.restore) {
    out += fmt::format("  restore hook: {}\n", *restore);
  }
  out += fmt::format("Results: {}\nNothing was sent (--plan).\n", plan.context.out_dir.string());
  return out;
}

CompareOutcome run_compare(const ComparePlan& plan) {
  const std::vector<CompareStep> steps = compare_steps(plan);
  // Before anything is sent: each side's target reached once, every cell's run planned.
  std::map<std::string, plan::Preflight> found;
  std::vector<plan::PlannedRun> runs;
  for (const CompareStep& s : steps) {
    const plan::RunSpec spec = compare_cell_run(plan, s);
    if (!found.contains(spec.target)) found.emplace(spec.target, plan::preflight(spec));
    runs.push_back(plan::plan_run(spec));
    plan::aim(runs.back(), found.at(spec.target));
  }

  fs::create_directories(plan.context.out_dir);
  result::CompareResult result = plan.initial;
  plan.context.open_record(result);
  Experiment experiment(ExperimentSetup{plan.context,
                                        [&] {
                                          result::judge_compare(result);
                                          write_compare_directory(plan.context.out_dir, result);
                                        },
                                        plan.base_run.tls});
  Ending& ending = experiment.ending();
  const analyze::CompareMetric metric = plan.matrix.metric;
  size_t applied = kNoSetting;  // the setting applied and not yet restored
  auto restore_setting = [&](const StepLabel& at) {
    if (applied != kNoSetting && plan.matrix.settings[applied].restore) {
      experiment.undo_hook("restore-setting", *plan.matrix.settings[applied].restore, at);
    }
    applied = kNoSetting;
  };
  StepLabel last;
  try {
    for (size_t i = 0; i < steps.size() && !ending.ended() && !experiment.stopping(); ++i) {
      const CompareStep& s = steps[i];
      const StepLabel label = label_of(plan, s, i);
      if (s.apply_setting) applied = s.setting;  // restored even if its apply failed halfway
      experiment.step(label, [&] {
        RunOptions options;
        options.run = runs[i];
        options.print_summary = false;
        options.live_progress = !plan.context.quiet;
        options.live = plan.context.live;
        options.progress_label = fmt::format("cell {} of {}{}", i + 1, steps.size(), label.where);
        const StepRun step = run_step_load(options, experiment, label.where);
        result::CompareRun run;
        run.side = s.side;
        run.check = check_name(plan, s.check);
        run.condition = s.condition;
        run.repeat = s.repeat;
        run.directory = s.directory;
        read_cell(plan.context.out_dir, run, metric);
        // A run cut short is no repeat: its figures cover another length.
        if (!step.failure.empty() || step.run.interrupted || step.run.aborted) run.value.reset();
        result.runs.push_back(std::move(run));
        return true;
      });
      last = label;
      if (s.restore_setting) restore_setting(label);
    }
  } catch (const std::exception& e) {
    ending.set("failed", e.what(), kExitFailure);
  }
  restore_setting(last);
  experiment.restore();
  if (!ending.ended()) ending.set("complete", "every cell ran", kExitOk);
  result.status = ending.status;
  result.end_reason = ending.reason;
  result.finished_at = report::iso8601_utc(wall_clock_ns());
  result.events = experiment.events();
  result::judge_compare(result);
  write_compare_directory(plan.context.out_dir, result);

  int exit_code = ending.exit_code;
  if (exit_code == kExitOk && result.analysis.headline.slower > 0) exit_code = kExitThresholds;
  return {result, exit_code};
}

}  // namespace proofload::experiments
