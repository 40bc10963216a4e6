// See soak.h.
#include "experiments/soak.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <mutex>
#include <thread>

#include "common/clock.h"
#include "experiments/canaries.h"
#include "experiments/hooks.h"
#include "experiments/run_experiment.h"
#include "experiments/soak_files.h"
#include "experiments/soak_record.h"
#include "experiments/soak_windows.h"
#include "experiments/thresholds.h"
#include "observe/factory.h"
#include "plan/plan_run.h"
#include "report/atomic_file.h"
#include "report/numbers.h"
#include "words/abort_words.h"
#include "words/numbers.h"
#include "words/soak_words.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

// The record as the soak starts: what the command recorded, opened by the context.
result::SoakResult opened(const SoakPlan& plan) {
  result::SoakResult r = plan.initial;
  plan.context.open_record(r);
  return r;
}

// One soak as it runs: the windows folded and judged as they finish, canaries and marks
// recorded, every line streamed to its file.
class SoakRun {
 public:
  // `run`: soak_run(plan), planned and aimed at the target (once, before anything is sent).
  SoakRun(const SoakPlan& plan, plan::PlannedRun run)
      : plan_(plan),
        run_(std::move(run)),
        result_(opened(plan)),
        bar_(analyze::parse_soak_bar(plan.initial.settings.bar)),
        folder_(plan.window_ns, plan.ramp_ns, plan.base_run.goodput.has_value()),
        canaries_tally_(seconds_of(plan.window_ns)),
        experiment_(ExperimentSetup{plan.context, {}, plan.base_run.tls}) {
    if (plan.scenario && !plan.scenario->canaries.empty()) {
      canaries_.emplace(*plan.scenario, plan.base_run.target, plan.base_run.tls);
    }
    if (plan.context.guards.abort_when) abort_watch_.emplace(*plan.context.guards.abort_when);
  }

  Experiment& experiment() { return experiment_; }
  result::SoakResult& result() { return result_; }

  // The soak's one step: the load, with everything around it.
  bool load() {
    RunOptions options;
    options.run = run_;
    options.print_summary = false;
    options.live_progress = !plan_.context.quiet;
    options.live = plan_.context.live;
    options.progress_label = "soak";
    windows_file_.emplace(plan_.context.out_dir / kSoakWindowsCsv, soak_windows_csv_header());
    canaries_file_.emplace(plan_.context.out_dir / kCanariesCsv, canaries_csv_header());
    options.on_start = [this](int64_t start_ns, int64_t start_wall_ns) {
      on_start(start_ns, start_wall_ns);
    };
    options.abort_check = [this](const measure::WindowStats& w) { return on_window(w); };
    options.on_window_observed = [this](const measure::WindowStats& w,
                                        const std::vector<report::ObservedFigures>& observed) {
      on_window_observed(w, observed);
    };
    run_step_load(options, experiment_);
    if (canary_runner_) canary_runner_->stop();
    if (auto last = folder_.finish()) on_row(std::move(*last));
    for (std::thread& hook : mark_hooks_) hook.join();
    mark_hooks_.clear();
    return true;
  }

  // What the soak recorded, judged: the windows, canaries and marks.
  void complete() {
    std::lock_guard lock(mutex_);
    complete_soak(result_, rows_, canaries_tally_, marks_);
  }

 private:
  void on_start(int64_t start_ns, int64_t start_wall_ns) {
    start_ns_ = start_ns;
    result_.hold_start_unix_ns = start_wall_ns + plan_.ramp_ns;
    // Written once: what `proofload report` rebuilds a killed soak's report from.
    report::write_file_atomically(plan_.context.out_dir / kSoakPlanJson,
                                  result::soak_to_json(result_).dump(2) + "\n");
    if (canaries_ && !canaries_->empty()) {
      canary_runner_.emplace(*canaries_, plan_.canary_every_ns, plan_.canary_timeout_ns,
                             [this](const CanaryResult& c) { on_canary(c); });
      canary_runner_->start(start_ns);
    }
  }

  void on_canary(const CanaryResult& c) {
    const double at_s = seconds_of(c.at_ns - plan_.ramp_ns);
    std::lock_guard lock(mutex_);
    canaries_tally_.add({at_s, c.name, c.right, c.retried, c.reason});
    try {
      canaries_file_->append(canaries_csv_line(c, at_s));
    } catch (const std::runtime_error&) {
      // The answer is kept in memory for the result; only the rebuild would miss it.
    }
    if (!c.right && !plan_.context.quiet) {
      std::fprintf(stderr, "\nsoak: canary %s wrong at %+.0f s: %s\n", c.name.c_str(), at_s,
                   c.reason.c_str());
    }
  }

  // Folds a run window into the soak's once the observers have seen it (a gap is stated in the
  // window it fell in).
  void on_window_observed(const measure::WindowStats& w,
                          const std::vector<report::ObservedFigures>& observed) {
    const auto [gaps, reason] = observer_gaps(observed);
    if (auto row = folder_.add(w, gaps, reason)) on_row(std::move(*row));
    track_server_memory(result_.server, observed);
  }

  // Each window as soon as it is measured: marks and the abort rule.
  std::string on_window(const measure::WindowStats& w) {
    if (w.drain) return "";
    take_external_marks();
    fire_due_marks();
    if (abort_watch_ &&
        abort_watch_->add_window(
            w.duration_ns, [&](const measure::MetricRef& m) { return window_metric(w, m); })) {
      return words::abort_reason(*abort_watch_);
    }
    return "";
  }

  void on_row(analyze::SoakWindowRow row) {
    {
      std::lock_guard lock(mutex_);
      std::tie(row.canaries_right, row.canaries_wrong) = canaries_tally_.of_window(row.index);
    }
    words::judge_and_describe_window(bar_, row);
    windows_file_->append(soak_windows_csv_line(row));
    if (!plan_.context.quiet) {
      std::fprintf(stderr, "%ssoak: %s window %lld (%+.0f s): %s requests, p95 %s, %s\n",
                   isatty(STDERR_FILENO) ? "\r\033[K" : "", row.ramp ? "ramp" : "hold",
                   static_cast<long long>(row.index), row.start_s,
                   words::with_thousands(row.requests).c_str(),
                   (row.p95_ms ? words::ms_text(*row.p95_ms) : "no response").c_str(),
                   row.bar_met ? "bar met" : ("bar missed: " + row.reasons.front()).c_str());
    }
    rows_.push_back(std::move(row));
  }

  // Marks appended to marks.log by `proofload mark` from another process.
  void take_external_marks() {
    std::ifstream in(plan_.context.out_dir / kMarksLog, std::ios::binary);
    if (!in || !in.seekg(static_cast<std::streamoff>(marks_offset_))) return;
    // Only what was appended since the last look; a torn last line waits for the next.
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    size_t consumed = 0;
    const std::vector<LoggedMark> logged_marks = read_marks(text, consumed);
    marks_offset_ += consumed;
    for (const LoggedMark& logged : logged_marks) {
      if (logged.source != "external") continue;  // scheduled ones are this soak's own
      analyze::Mark mark;
      mark.label = logged.label;
      mark.source = "external";
      mark.at_s = seconds_of(logged.wall_ns - result_.hold_start_unix_ns);
      if (!plan_.context.quiet)
        std::fprintf(stderr, "\nsoak: mark '%s' at %+.0f s\n", mark.label.c_str(), mark.at_s);
      std::lock_guard lock(mutex_);
      marks_.push_back(std::move(mark));
    }
  }

  // --mark-at marks whose moment has come: logged, and their hook started on its own thread.
  void fire_due_marks() {
    const std::vector<result::ScheduledMark>& scheduled = result_.settings.marks;
    while (next_scheduled_ < scheduled.size()) {
      const result::ScheduledMark& s = scheduled[next_scheduled_];
      const int64_t due = start_ns_ + plan_.ramp_ns + static_cast<int64_t>(s.at_s * 1e9);
      if (monotonic_ns() < due) return;
      const int64_t wall = wall_clock_ns();
      append_mark(plan_.context.out_dir, "scheduled", s.label, wall);
      analyze::Mark mark;
      mark.label = s.label;
      mark.source = "scheduled";
      mark.at_s = seconds_of(wall - result_.hold_start_unix_ns);
      if (!s.command.empty()) mark.command = s.command;
      if (!plan_.context.quiet)
        std::fprintf(stderr, "\nsoak: mark '%s' at %+.0f s%s\n", s.label.c_str(), mark.at_s,
                     s.command.empty() || plan_.base_run.segment != 0 ? "" : ", running its hook");
      size_t slot;
      {
        std::lock_guard lock(mutex_);
        marks_.push_back(mark);
        slot = marks_.size() - 1;
      }
      // Over segments, the mark's hook (a rollout, say) runs once, on segment 0; every segment
      // marks the moment.
      if (!s.command.empty() && plan_.base_run.segment == 0) {
        const fs::path log =
            plan_.context.out_dir / "hooks" / fmt::format("mark-{:02}.log", next_scheduled_ + 1);
        mark_hooks_.emplace_back([this, slot, command = s.command, label = s.label, log] {
          HookResult hook = run_hook("mark", command, plan_.context.guards.hooks.timeout_ns, log,
                                     {{"PROOFLOAD_MARK", label}});
          std::lock_guard lock(mutex_);
          marks_[slot].exit_code = hook.exit_code;
          marks_[slot].hook_outcome = hook.describe();
        });
      }
      ++next_scheduled_;
    }
  }

  const SoakPlan& plan_;
  plan::PlannedRun run_;
  result::SoakResult result_;
  analyze::SoakBar bar_;
  SoakWindowFolder folder_;
  CanaryTally canaries_tally_;  // an entry per window, not per answer (guarded by mutex_)
  Experiment experiment_;
  std::optional<CanarySet> canaries_;
  std::optional<CanaryRunner> canary_runner_;
  std::optional<analyze::AbortWatch> abort_watch_;
  std::optional<LineFile> windows_file_;
  std::optional<LineFile> canaries_file_;
  int64_t start_ns_ = 0;
  std::vector<analyze::SoakWindowRow> rows_;  // a few hundred bytes a window
  size_t marks_offset_ = 0;
  size_t next_scheduled_ = 0;
  std::vector<std::thread> mark_hooks_;
  std::mutex mutex_;  // guards what the canary and hook threads write
  std::vector<analyze::Mark> marks_;
};

}  // namespace

plan::RunSpec soak_run(const SoakPlan& plan) {
  plan::RunSpec spec = plan.base_run;
  spec.executor = plan.open_loop ? engine::Executor::kOpenLoop : engine::Executor::kClosedLoop;
  spec.rate_per_s.reset();
  spec.stages.clear();
  if (plan.ramp_ns > 0 && plan.ramp_steps > 0) {
    const int64_t step_ns = plan.ramp_ns / plan.ramp_steps;
    for (int i = 1; i <= plan.ramp_steps; ++i) {
      const double target = plan.open_loop
                                ? plan.level * i / plan.ramp_steps
                                : std::max(1.0, std::round(plan.level * i / plan.ramp_steps));
      spec.stages.push_back({0, target});  // a jump to the step
      spec.stages.push_back(
          {i == plan.ramp_steps ? plan.ramp_ns - step_ns * (plan.ramp_steps - 1) : step_ns,
           target});
    }
    spec.stages.push_back({0, plan.level});
    spec.stages.push_back({plan.hold_ns, plan.level});
    spec.duration_ns.reset();
  } else {
    if (plan.open_loop) {
      spec.rate_per_s = plan.level;
    } else {
      spec.connections = static_cast<int>(plan.level);
      spec.max_connections.reset();
    }
    spec.duration_ns = plan.hold_ns;
  }
  if (!plan.open_loop) spec.connections = static_cast<int>(plan.level);
  spec.warmup_ns = 0;
  spec.out_dir = plan.context.out_dir / "run";
  return spec;
}

std::string describe_soak_plan(const SoakPlan& plan) {
  const result::SoakSettings& s = plan.initial.settings;
  std::string out = fmt::format(
      "Soak: {} at {}{} for {}{}, in windows of {}.\n",
      plan.open_loop ? "open loop" : "closed loop",
      words::fixed_with_thousands(plan.level, plan.open_loop ? 1 : 0),
      plan.open_loop ? "/s" : " connections", words::duration_text(seconds_of(plan.hold_ns)),
      plan.ramp_ns > 0
          ? fmt::format(" after a ramp of {} in {} steps",
                        words::duration_text(seconds_of(plan.ramp_ns)), plan.ramp_steps)
          : "",
      words::duration_text(seconds_of(plan.window_ns)));
  out += fmt::format("  each window must meet the bar: {}\n", s.bar);
  if (s.canaries.empty()) {
    out += "  canaries: none (a scenario file's `canaries:` section adds them)\n";
  } else {
    out += fmt::format("  canaries: {} every {}, on their own connection\n", s.canaries.size(),
                       words::duration_text(seconds_of(plan.canary_every_ns)));
  }
  out += fmt::format(
      "  drift: first quarter of the hold against the last, by blocks of {}\n",
      s.drift_block_s ? words::duration_text(*s.drift_block_s) : std::string("a quarter"));
  for (const result::ScheduledMark& m : s.marks) {
    out += fmt::format("  mark '{}' at {} into the hold{}\n", m.label, words::duration_text(m.at_s),
                       m.command.empty() ? "" : ": runs " + m.command);
  }
  out += fmt::format("  marks are judged from the windows {} either side\n",
                     words::duration_text(s.mark_window_s));
  if (plan.context.guards.abort_when)
    out += fmt::format("Abort when: {}\n", plan.context.guards.abort_when->text);
  out += fmt::format("Total: {} of load.\nResults: {}\nNothing was sent (--plan).\n",
                     words::duration_text(seconds_of(plan.ramp_ns + plan.hold_ns)),
                     plan.context.out_dir.string());
  return out;
}

SoakOutcome run_soak(const SoakPlan& plan) {
  // Before anything is sent: the run is checked as it will be, and the canaries compiled.
  plan::PlannedRun planned = plan::plan_run(soak_run(plan));
  // Each observer is made once now, so one that cannot watch (a selector that matches no pod, a
  // process that is gone) is refused before the first request rather than hours into the soak.
  for (const std::string& spec : planned.observe) {
    observe::make_sampler(spec, planned.observe_every_ns, planned.trust);
  }
  plan::aim(planned, plan::preflight(soak_run(plan)));
  SoakRun run(plan, std::move(planned));
  fs::create_directories(plan.context.out_dir);
  Ending& ending = run.experiment().ending();
  try {
    if (run.experiment().precheck()) {
      StepLabel label;
      label.file_prefix = "soak-";
      run.experiment().step(label, [&] { return run.load(); });
    }
  } catch (const std::exception& e) {
    ending.set("failed", e.what(), kExitFailure);
  }
  run.experiment().restore();
  result::SoakResult& result = run.result();
  run.complete();
  if (!ending.ended()) ending.set("complete", "the hold ended", kExitOk);
  result.status = ending.status;
  result.end_reason = ending.reason;
  result.finished_at = report::iso8601_utc(wall_clock_ns());
  result.events = run.experiment().events();
  write_soak_directory(plan.context.out_dir, result);
  int exit_code = ending.exit_code;
  if (exit_code == kExitOk && !soak_held(result)) exit_code = kExitThresholds;
  return {result, exit_code};
}

}  // namespace proofload::experiments
