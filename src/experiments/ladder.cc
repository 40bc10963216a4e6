// See ladder.h.
#include "experiments/ladder.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "common/clock.h"
#include "common/usage_error.h"
#include "common/wall_time.h"
#include "experiments/ladder_record.h"
#include "experiments/segment_file.h"
#include "experiments/thresholds.h"
#include "plan/plan_run.h"
#include "report/numbers.h"
#include "words/abort_words.h"
#include "words/numbers.h"
#include "words/search_words.h"

namespace proofload::experiments {
namespace {

namespace fs = std::filesystem;

// A level as a hook's environment and a step's directory name carry it: the shortest text that
// reads back as the same number, no separators ("1000", "2.5").
std::string level_value(double level) { return fmt::format("{}", level); }

// A ladder on the experiment runner: the planner is the caller's loop (the levels, or the
// search); this runs a level as a step, records its row, and keeps the result being built.
class LadderRun {
 public:
  LadderRun(const LadderPlan& ladder, plan::Preflight preflight)
      : plan_(ladder),
        preflight_(std::move(preflight)),
        experiment_(ExperimentSetup{ladder.context, [this] { save(); }, ladder.base_run.tls}) {
    result_.kind = ladder.search ? "search" : "ladder";
    ladder.context.open_record(result_);
    result_.source = ladder.source;
    if (preflight_.tls) {
      result_.source.tls_version = preflight_.tls->version;
      result_.source.tls_alpn = preflight_.tls->alpn;
    }
    const bool h2 = ladder.base_run.protocol == engine::Protocol::kHttp2;
    result_.source.protocol = h2 ? "h2" : "http/1.1";
    if (h2) result_.source.h2_streams = ladder.base_run.h2_streams.value_or(1);
    result_.settings = ladder.settings;
    if (const plan::RunSpec& base = ladder.base_run; base.segments > 1) {
      // Its levels' runs record when each started; the ladder, the plan's start.
      result_.segment = segment_record(base.segment, base.segments, base.start_at_wall_ns,
                                       base.start_at_wall_ns.value_or(0));
    }
  }

  result::LadderResult& result() { return result_; }
  Experiment& experiment() { return experiment_; }
  Ending& ending() { return experiment_.ending(); }

  // Rewrites the ladder's files with what has been recorded so far.
  void save() {
    result_.events = experiment_.events();
    write_ladder_directory(plan_.context.out_dir, result_);
  }

  // One level as a step of the runner. Returns the row's index, or nothing when the level did
  // not run.
  std::optional<size_t> level(const ScheduledLevel& at, int64_t hold_ns) {
    std::optional<size_t> index;
    if (experiment_.stopping()) {
      ending().set("interrupted", "interrupted by a signal" + where(at), kExitInterrupted);
      return index;
    }
    ++ordinal_;
    StepLabel label;
    label.level = at.level;
    label.repeat = at.repeat;
    label.file_prefix = prefix(at);
    label.where = where(at);
    label.env = {{"PROOFLOAD_LEVEL", level_value(at.level)},
                 {"PROOFLOAD_REPEAT", std::to_string(at.repeat)}};
    experiment_.step(label, [&] { return run_level(at, hold_ns, index); });
    return index;
  }

  // Whether the last level run met the SLO (and, with a target, reached it within the noise
  // floor): what --stop-on-fail and the search decide on.
  std::optional<bool> last_passed() const { return last_passed_; }

 private:
  // The load of a level; false when it could not start (nothing of it was sent).
  bool run_level(const ScheduledLevel& at, int64_t hold_ns, std::optional<size_t>& index) {
    const std::string dir_name = "levels/" + prefix(at).substr(0, prefix(at).size() - 1);
    RunOptions options;
    try {
      plan::RunSpec spec = level_run(plan_, at.level, hold_ns, plan_.context.out_dir / dir_name);
      if (plan_.base_run.segments > 1) {
        spec.start_at_wall_ns = segment_level_start_ns(plan_, ordinal_);
      }
      options.run = plan::plan_run(spec);
      plan::aim(options.run, preflight_);
    } catch (const std::exception& e) {
      ending().set(
          "failed",
          fmt::format("level {} could not start: {}", words::level_text(at.level), e.what()),
          kExitFailure);
      return false;
    }
    options.print_summary = false;
    options.live_progress = !plan_.context.quiet;
    options.live = plan_.context.live;
    const std::string unit = plan_.loop == analyze::Loop::kOpen ? "/s" : " connections";
    options.progress_label =
        plan_.search
            ? fmt::format("search step {} ({}{})", ordinal_, words::level_text(at.level), unit)
            : fmt::format("level {} of {} ({}{})", ordinal_, schedule_levels(plan_).size(),
                          words::level_text(at.level), unit);
    std::optional<analyze::AbortWatch> watch;
    if (plan_.context.guards.abort_when) {
      watch.emplace(*plan_.context.guards.abort_when);
      options.abort_check = [&watch](const measure::WindowStats& w) {
        bool fire = watch->add_window(
            w.duration_ns, [&](const measure::MetricRef& m) { return window_metric(w, m); });
        return fire ? words::abort_reason(*watch) : std::string();
      };
    }
    if (!plan_.context.quiet) {
      std::fprintf(stderr, "ladder: level %s%s (%s), hold %s\n",
                   words::level_text(at.level).c_str(),
                   plan_.loop == analyze::Loop::kOpen ? "/s" : " connections",
                   plan_.repeat > 1 ? fmt::format("repeat {}", at.repeat).c_str() : "once",
                   words::duration_text(seconds_of(hold_ns)).c_str());
    }
    const StepRun step = run_step_load(options, experiment_, where(at));
    const report::RunResult& run = step.run;
    if (step.failure.empty()) {
      analyze::LevelRow row =
          row_from_run(run, at.level, at.repeat, plan_.loop == analyze::Loop::kOpen, plan_.slo);
      result_.rows.push_back({row, dir_name,
                              run.aborted       ? "aborted"
                              : run.interrupted ? "interrupted"
                                                : "complete"});
      index = result_.rows.size() - 1;
      last_passed_ = passes(row);
      if (!plan_.context.quiet) print_row(row, *last_passed_);
    }
    return true;
  }

  bool passes(const analyze::LevelRow& row) const {
    auto results = measure::evaluate_thresholds(plan_.slo.bounds, [&](const measure::MetricRef& m) {
      return analyze::row_metric(row, m, plan_.slo.count_429_as_error);
    });
    double floor = plan_.analysis.noise_floor.value_or(analyze::kDefaultNoiseFloor);
    bool reached = !row.target_rps || row.achieved_rps >= *row.target_rps * (1 - floor);
    return measure::all_passed(results) && reached;
  }

  void print_row(const analyze::LevelRow& row, bool passed) const {
    auto ms = [](const std::optional<double>& v) {
      return v ? fmt::format("{:.1f} ms", *v) : std::string("no data");
    };
    std::fprintf(stderr, "ladder:   achieved %s/s, p50 %s, p95 %s, errors %s: %s\n",
                 words::fixed_with_thousands(row.achieved_rps, 1).c_str(), ms(row.p50_ms).c_str(),
                 ms(row.p95_ms).c_str(),
                 row.error_rate ? fmt::format("{:.2f}%", *row.error_rate * 100).c_str() : "no data",
                 passed ? "within the SLO" : "outside the SLO");
  }

  // "03-400-" (and "03-400-r2-" when levels repeat): the run order keeps the files sorted.
  std::string prefix(const ScheduledLevel& at) const {
    std::string p = fmt::format("{:02}-{}-", ordinal_, level_value(at.level));
    if (plan_.repeat > 1) p += fmt::format("r{}-", at.repeat);
    return p;
  }

  std::string where(const ScheduledLevel& at) const {
    return fmt::format(" at level {}{}", words::level_text(at.level),
                       plan_.repeat > 1 ? fmt::format(" (repeat {})", at.repeat) : "");
  }

  const LadderPlan& plan_;
  plan::Preflight preflight_;
  result::LadderResult result_;
  Experiment experiment_;
  int ordinal_ = 0;  // the level in progress, in run order from 1
  std::optional<bool> last_passed_;
};

// Runs the search's steps until it is done or the ladder ends; records them in `search`.
void run_search(const LadderPlan& plan, LadderRun& run) {
  analyze::RateSearch search(*plan.search);
  const analyze::RateSearchOptions& o = *plan.search;
  result::SearchRecord record;
  record.start_rps = o.start_rps;
  record.growth = o.growth;
  record.tolerance = o.tolerance;
  record.step_hold_s = seconds_of(plan.step_hold_ns);
  record.max_rps = o.max_rps;
  auto record_search = [&] {
    record.found_rps = search.found_rps();
    record.confirmed = search.confirmed();
    if (search.phase() == analyze::RateSearch::Phase::kDone)
      record.end_reason = words::search_end_reason(search);
    run.result().search = record;
  };
  while (auto rate = search.next_rate()) {
    const analyze::RateSearch::Phase phase = search.phase();
    const bool confirm = phase == analyze::RateSearch::Phase::kConfirm;
    std::optional<size_t> row = run.level({*rate, 1}, confirm ? plan.hold_ns : plan.step_hold_ns);
    const bool ended = run.ending().ended();
    // A step cut short (aborted, interrupted) is recorded as not passed, so that its row is
    // never read as a level of its own.
    const bool passed = row && !ended && run.last_passed().value_or(false);
    if (row) {
      record.steps.push_back({*rate, std::string(analyze::phase_text(phase)), passed, *row});
    }
    if (!row || ended) {
      record_search();
      return;
    }
    search.record(passed);
    record_search();
    run.save();
  }
}

}  // namespace

std::vector<ScheduledLevel> schedule_levels(const LadderPlan& plan) {
  std::vector<ScheduledLevel> out;
  if (plan.interleaved) {
    for (int r = 1; r <= plan.repeat; ++r) {
      for (double level : plan.levels) out.push_back({level, r});
    }
  } else {
    for (double level : plan.levels) {
      for (int r = 1; r <= plan.repeat; ++r) out.push_back({level, r});
    }
  }
  return out;
}

std::string describe_plan(const LadderPlan& plan) {
  const ExperimentGuards& guards = plan.context.guards;
  const bool open = plan.loop == analyze::Loop::kOpen;
  const char* unit = open ? "/s" : " connections";
  std::string out;
  int64_t load_ns = 0;
  int waits = 0;
  if (plan.search) {
    const analyze::RateSearchOptions& s = *plan.search;
    out += fmt::format(
        "Search: open loop from {}/s, growing x{:g} while the SLO ({}) holds, then bisecting to "
        "within {:g}%, then a confirming run at the rate found ({:g}% lower after one that "
        "breaks the SLO, up to {}).\n",
        words::level_text(s.start_rps), s.growth, analyze::describe_slo(plan.slo),
        s.tolerance * 100, s.confirm_step_down * 100, s.confirm_attempts);
    out += fmt::format("  each step: {} warm-up + {} measured; each confirming run: {} + {}\n",
                       words::duration_text(seconds_of(plan.warmup_ns)),
                       words::duration_text(seconds_of(plan.step_hold_ns)),
                       words::duration_text(seconds_of(plan.warmup_ns)),
                       words::duration_text(seconds_of(plan.hold_ns)));
    out += fmt::format(
        "  at most {} search steps and {} confirming runs{}\n", s.max_steps, s.confirm_attempts,
        s.max_rps ? fmt::format(", never above {}/s", words::fixed_with_thousands(*s.max_rps, 0))
                  : "");
    load_ns = s.max_steps * (plan.warmup_ns + plan.step_hold_ns) +
              s.confirm_attempts * (plan.warmup_ns + plan.hold_ns);
    waits = s.max_steps + s.confirm_attempts;
  } else {
    std::vector<ScheduledLevel> levels = schedule_levels(plan);
    out += fmt::format(
        "Ladder: {} loop, {} level runs ({} levels x {} {}), each {} warm-up + {} "
        "measured.\n",
        open ? "open" : "closed", levels.size(), plan.levels.size(), plan.repeat,
        plan.repeat == 1   ? "run"
        : plan.interleaved ? "passes (interleaved)"
                           : "runs in a row",
        words::duration_text(seconds_of(plan.warmup_ns)),
        words::duration_text(seconds_of(plan.hold_ns)));
    int n = 0;
    for (const ScheduledLevel& l : levels) {
      out += fmt::format("  {:>3}. level {}{}{}\n", ++n, words::level_text(l.level), unit,
                         plan.repeat > 1 ? fmt::format(" (repeat {})", l.repeat) : "");
    }
    load_ns = static_cast<int64_t>(levels.size()) * (plan.warmup_ns + plan.hold_ns);
    waits = static_cast<int>(levels.size());
  }
  out += "Around each level, in order:\n";
  auto line = [&](const char* what, const std::optional<std::string>& command) {
    out += fmt::format("  {:<13} {}\n", what, command ? *command : "(none)");
  };
  line("reset", guards.hooks.reset);
  out += fmt::format("  {:<13} {}\n", "drain gate",
                     guards.drain_until
                         ? fmt::format("{} (at most {})", *guards.drain_until,
                                       words::duration_text(seconds_of(guards.drain_timeout_ns)))
                         : "(none)");
  line("before-level", guards.hooks.before);
  out += fmt::format("  {:<13} the load\n", "");
  line("after-level", guards.hooks.after);
  out += fmt::format("At the end, on every exit path: restore {}\n",
                     guards.hooks.restore ? *guards.hooks.restore : "(none)");
  if (guards.precheck_url)
    out += fmt::format("Before anything: pre-check {} must answer 2xx\n", *guards.precheck_url);
  if (guards.abort_when) out += fmt::format("Abort a level when: {}\n", guards.abort_when->text);
  if (plan.stop_on_fail) out += "Stop at the first level that breaks the SLO.\n";
  if (plan.fail_if_none) {
    out += plan.search ? "Exit 99 unless the search confirms a rate (--fail-if-none).\n"
                       : "Exit 99 unless a level meets the SLO (--fail-if-none).\n";
  }
  if (plan.fail_below_rps) {
    out += fmt::format("Exit 99 when {} is below {}/s (--fail-below).\n",
                       plan.search ? "the confirmed rate" : "best sustained",
                       words::fixed_with_thousands(*plan.fail_below_rps, 0));
  }
  int hooks_per_level =
      (guards.hooks.reset ? 1 : 0) + (guards.hooks.before ? 1 : 0) + (guards.hooks.after ? 1 : 0);
  int64_t bound_ns = waits * (hooks_per_level * guards.hooks.timeout_ns +
                              (guards.drain_until ? guards.drain_timeout_ns : 0)) +
                     (guards.hooks.restore ? guards.hooks.timeout_ns : 0);
  out += fmt::format("Total: {} of load{}{}.\n",
                     plan.search ? "at most " + words::duration_text(seconds_of(load_ns))
                                 : words::duration_text(seconds_of(load_ns)),
                     bound_ns > 0 ? fmt::format(", plus at most {} in hooks and drain waits",
                                                words::duration_text(seconds_of(bound_ns)))
                                  : "",
                     "");
  if (const plan::RunSpec& base = plan.base_run; base.segments > 1) {
    out += fmt::format(
        "Segment {} of {}: each level starts at an agreed time, level K at {} + (K-1) x {} "
        "(warm-up + hold + grace + {}), on every segment alike.\n",
        base.segment, base.segments, format_rfc3339_utc(base.start_at_wall_ns.value_or(0)),
        words::duration_text(
            seconds_of(segment_level_start_ns(plan, 2) - segment_level_start_ns(plan, 1))),
        words::duration_text(seconds_of(kSegmentLevelGapNs)));
  }
  out += fmt::format("Results: {}\n", plan.context.out_dir.string());
  out += "Nothing was sent (--plan).\n";
  return out;
}

plan::RunSpec level_run(const LadderPlan& ladder, double level, int64_t hold_ns,
                        const fs::path& out_dir) {
  plan::RunSpec spec = ladder.base_run;
  if (ladder.loop == analyze::Loop::kOpen) {
    spec.executor = engine::Executor::kOpenLoop;
    spec.rate_per_s = level;
  } else {
    spec.executor = engine::Executor::kClosedLoop;
    spec.connections = static_cast<int>(level);
    spec.max_connections.reset();
  }
  spec.duration_ns = hold_ns;
  spec.out_dir = out_dir;
  return spec;
}

int64_t segment_level_start_ns(const LadderPlan& ladder, int ordinal) {
  const plan::RunSpec& base = ladder.base_run;
  const int64_t slot = base.warmup_ns + ladder.hold_ns + base.send.grace_ns + kSegmentLevelGapNs;
  return base.start_at_wall_ns.value_or(0) + static_cast<int64_t>(ordinal - 1) * slot;
}

LadderOutcome run_ladder(const LadderPlan& ladder) {
  // Before anything is sent: the largest level is checked as the run it would be (it sets the
  // file-descriptor limit), and the target resolved and reached, once for every level.
  const plan::RunSpec largest =
      ladder.search
          ? level_run(ladder, ladder.search->start_rps, ladder.step_hold_ns, ladder.context.out_dir)
          : level_run(ladder, ladder.levels.back(), ladder.hold_ns, ladder.context.out_dir);
  plan::plan_run(largest);
  LadderRun run(ladder, plan::preflight(largest));
  fs::create_directories(ladder.context.out_dir);
  try {
    run.save();
    if (run.experiment().precheck()) {
      if (ladder.search) {
        run_search(ladder, run);
      } else {
        for (const ScheduledLevel& at : schedule_levels(ladder)) {
          run.level(at, ladder.hold_ns);
          if (run.ending().ended()) break;
          if (ladder.stop_on_fail && run.last_passed() == false) {
            run.ending().set("stopped",
                             fmt::format("stopped at level {}, the first that broke the SLO "
                                         "(--stop-on-fail)",
                                         words::level_text(at.level)),
                             kExitOk);
            break;
          }
        }
      }
    }
  } catch (const std::exception& e) {
    // A result file that cannot be written, a hook that cannot be started: restore still runs.
    run.ending().set("failed", e.what(), kExitFailure);
  }
  run.experiment().restore();
  Ending& ending = run.ending();
  if (!ending.ended())
    ending.set("complete", ladder.search ? "the search ended" : "every level ran", kExitOk);
  result::LadderResult& result = run.result();
  result.status = ending.status;
  result.end_reason = ending.reason;
  result.finished_at = report::iso8601_utc(wall_clock_ns());
  run.save();
  int exit_code = ending.exit_code;
  if (ladder.fail_if_none || ladder.fail_below_rps) {
    const std::string failure = ci_bar_failure(ladder, result);
    result.ci_bar =
        result::CiBar{ladder.fail_if_none, ladder.fail_below_rps, failure.empty(), failure};
    run.save();
    if (!failure.empty() && exit_code == kExitOk) exit_code = kExitThresholds;
  }
  return {result, exit_code};
}

std::string ci_bar_failure(const LadderPlan& plan, const result::LadderResult& result) {
  // A search answers with its confirmed rate; a ladder with its best sustained level.
  std::optional<double> shown_rps;
  std::string what;
  if (plan.search) {
    if (result.search && result.search->confirmed) shown_rps = result.search->found_rps;
    what = "the search confirmed no rate within the SLO";
  } else {
    if (result.analysis && result.analysis->best_sustained) {
      shown_rps = result.analysis->levels[*result.analysis->best_sustained].goodput_rps;
    }
    what = "no level met the SLO";
  }
  if (!shown_rps) return plan.fail_if_none || plan.fail_below_rps ? what : "";
  if (plan.fail_below_rps && *shown_rps < *plan.fail_below_rps) {
    return fmt::format("{} {}/s is below --fail-below {}/s",
                       plan.search ? "the confirmed rate" : "best sustained",
                       words::fixed_with_thousands(*shown_rps, 1),
                       words::fixed_with_thousands(*plan.fail_below_rps, 1));
  }
  return "";
}

}  // namespace proofload::experiments
