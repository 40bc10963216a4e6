// See run_experiment.h.
#include "experiments/run_experiment.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <stdexcept>

#include "common/clock.h"
#include "common/stop_signals.h"
#include "common/usage_error.h"
#include "common/wall_time.h"
#include "engine/engine.h"
#include "experiments/live_progress.h"
#include "experiments/observation.h"
#include "experiments/segment_file.h"
#include "experiments/thresholds.h"
#include "observe/factory.h"
#include "observe/observer.h"
#include "observe/reconcile_source.h"
#include "report/result_directory.h"
#include "report/result_json.h"
#include "report/summary_text.h"

namespace proofload::experiments {
namespace {

// The --observe sources, and with a Prometheus --reconcile its endpoint too (unless observed
// already), filtered to the counter's family: each window then holds the server's count per
// second (`prom.NAME_per_s`) beside the client's successes, the reconcile window by window.
std::vector<std::string> observed_specs(std::vector<std::string> specs,
                                        const std::optional<observe::ReconcileSpec>& source) {
  if (!source) return specs;
  const observe::ReconcileSpec& reconcile = *source;
  if (!reconcile.prometheus || reconcile.endpoint.find('?') != std::string::npos) return specs;
  const bool observed = std::any_of(specs.begin(), specs.end(), [&](const std::string& s) {
    return s.starts_with(reconcile.endpoint);
  });
  if (!observed) specs.push_back(reconcile.endpoint + "?match=" + reconcile.selector.name);
  return specs;
}

// The engine a signal stops: the first signal a graceful stop, a second one at once.
void stop_engine(void* engine) { static_cast<engine::Engine*>(engine)->request_stop(); }

int64_t wall_ns_of(int64_t monotonic) { return wall_clock_ns() + (monotonic - monotonic_ns()); }

SegmentEnd segment_end(const report::RunResult& result) {
  SegmentEnd end;
  end.total = result.total;
  end.warmup_total = result.warmup_total;
  end.span = result.span;
  end.named = result.named_total;
  end.request_names = result.request_names;
  end.flow_names = result.flow_names;
  end.warmup_duration_s = result.warmup_duration_s;
  end.end_reason = result.end_reason;
  end.interrupted = result.interrupted;
  end.aborted = result.aborted;
  end.first_tls_failure = result.first_tls_failure;
  end.h2_server_max_streams = result.h2_server_max_streams;
  return end;
}

// A run bounded only by -n has a schedule of a year: no planned end worth showing.
constexpr int64_t kNoPlannedEndNs = int64_t{300} * 24 * 3600 * kNsPerS;

}  // namespace

report::RunResult run_load_test(const RunOptions& options) {
  const plan::PlannedRun& run = options.run;
  report::RunResult result;
  result.spec = run.spec;
  result.command_line = run.command_line;
  result.proofload_version = PROOFLOAD_VERSION;
  result.window_ns = run.load.window_ns;

  // --start-at: a signal from here until the agreed moment ends the run with nothing sent.
  std::optional<StopSignals> before_start;
  if (run.start_at_wall_ns) before_start.emplace();
  std::optional<report::ResultDirectory> directory;
  if (run.out_dir) directory.emplace(*run.out_dir);  // fails before anything is sent

  // Observers: the generator itself, then every --observe source; a bad one fails here, before
  // anything is sent. They sample on their own thread, on the run's window grid.
  std::optional<observe::ReconcileSpec> reconcile_source;
  if (run.reconcile) reconcile_source = observe::parse_reconcile_spec(*run.reconcile);
  const std::vector<ObservedSource> sources =
      label_sources(observed_specs(run.observe, reconcile_source));
  std::vector<std::unique_ptr<observe::Sampler>> samplers;
  for (const ObservedSource& source : sources) {
    samplers.push_back(observe::make_sampler(source.spec, run.observe_every_ns, run.trust));
  }
  result.observed_columns = observed_columns(sources);
  ObservationTotals observation_totals(sources, run.load.workers);
  observe::Observer observer(std::move(samplers), run.observe_every_ns);

  // --reconcile: the server's count, read last before anything is sent (after pre-flight, hooks
  // and gates, which send no request the count could include). One that cannot be read now is a
  // mistake to fix before the run, not a finding: UsageError (`run` exits 2).
  std::optional<observe::ReconcileCounter> reconcile;
  double server_before = 0;
  if (reconcile_source) {
    reconcile.emplace(std::move(*reconcile_source), run.trust);
    const observe::CounterRead before = reconcile->read(false);
    if (!before.value) {
      throw UsageError("--reconcile: the server's count could not be read before the run: " +
                       before.error);
    }
    server_before = *before.value;
  }

  // --start-at: every segment's load starts at the agreed moment.
  if (before_start) {
    if (!sleep_until_wall_ns(*run.start_at_wall_ns - engine::Engine::kStartLeadNs,
                             before_start->requested_flag())) {
      result.interrupted = true;
      result.end_reason = "interrupted before the start time: nothing was sent";
      std::fprintf(stderr, "proofload: %s\n", result.end_reason.c_str());
      return result;
    }
    before_start.reset();  // the engine's own take the signals from its start
  }
  engine::Engine engine(run.load);
  engine.start();
  observer.start(engine.start_ns());
  StopSignals signals(stop_engine, &engine);  // after start: not the workers half made
  result.start_wall_ns = wall_ns_of(engine.start_ns());
  if (run.load.segments > 1 || run.start_at_wall_ns) {
    result.segment = segment_record(run.load.segment, run.load.segments, run.start_at_wall_ns,
                                    result.start_wall_ns);
  }
  if (directory) directory->open(result);
  // A segment also writes what `proofload merge` adds up without loss (segment_file.h).
  std::optional<SegmentFileWriter> segment_file;
  if (directory && run.load.segments > 1) {
    segment_file.emplace(
        *run.out_dir,
        SegmentHeader{*result.segment, result.spec, result.command_line, result.proofload_version,
                      run.load.window_ns, run.load.workers, sources});
  }
  if (options.on_start) options.on_start(engine.start_ns(), result.start_wall_ns);

  if (options.live) {
    std::vector<std::string> request_names;  // a scenario's, counted by name in the metrics
    if (const workload::Workload& w = *run.load.workload; !w.is_fixed()) {
      for (const workload::CompiledRequest& r : w.requests()) request_names.push_back(r.name);
    }
    options.live->begin_step(options.progress_label, std::move(request_names));
  }
  const std::string goodput = result.spec.goodput_slo();
  std::optional<double> planned_s;  // none when only -n bounds the run
  if (run.load.profile.duration_ns() < kNoPlannedEndNs) {
    planned_s = seconds_of(run.load.profile.duration_ns());
  }

  // A window is written once the observers have sampled past its end, so each window is held
  // until the next one arrives (and the last until the observers have stopped).
  std::optional<measure::WindowStats> held;
  // A window that cannot be written (the disk filled up) stops the run: what it measured from
  // then on could not be recorded. The result is still finished, and the error raised at the end.
  std::string write_failure;
  auto write_window = [&](const measure::WindowStats& w, int64_t wait_ns) {
    const int64_t start = engine.start_ns() + w.start_ns;
    auto figures = observer.window(start, start + w.duration_ns, wait_ns);
    auto observed = observation_totals.add_window(
        w.index, static_cast<double>(w.duration_ns) / kNsPerS, w.warmup, w.responses(), figures);
    if (options.on_window_observed) options.on_window_observed(w, observed);
    if (options.live) {
      // The window as result.json's windows[] holds it, observed figures included.
      report::WindowSummary summary = report::summarize_window(w, goodput);
      summary.observed = observed;
      options.live->add_window(w, report::window_to_json(summary), options.progress_label,
                               planned_s);
    }
    if (!directory || !write_failure.empty()) return;
    try {
      directory->append_window(w, result.start_wall_ns + w.start_ns, observed);
      if (segment_file) segment_file->append_window(w, figures);
    } catch (const std::runtime_error& e) {
      write_failure = e.what();
      engine.request_stop();
    }
  };

  std::string abort_reason;
  LiveProgress progress(options.live_progress);
  while (auto window = engine.next_window()) {
    // Requests are totalled by the part of the run they were intended in (the engine does
    // that); bytes and connections by the window they happened in.
    measure::WindowStats& part = window->warmup ? result.warmup_total : result.total;
    part.bytes_in += window->bytes_in;
    part.bytes_out += window->bytes_out;
    part.connects += window->connects;
    part.connection.merge(window->connection);
    if (window->warmup) result.warmup_duration_s += seconds_of(window->duration_ns);
    if (options.abort_check && !window->warmup && abort_reason.empty()) {
      abort_reason = options.abort_check(*window);
      if (!abort_reason.empty()) engine.request_stop();
    }
    if (options.live_progress) {
      const int64_t end_ns = window->start_ns + window->duration_ns;
      report::LiveContext where;
      where.elapsed_s = seconds_of(end_ns);
      where.label = options.progress_label;
      where.planned_s = planned_s;
      const schedule::Profile& profile = run.load.profile;
      const bool open = run.load.executor == engine::Executor::kOpenLoop;
      if (open || profile.segments().size() > 1) {
        where.target = profile.target_at(std::min(end_ns, profile.duration_ns() - 1));
        where.target_is_rate = open;
      }
      progress.show(*window, where);
    }
    if (held) {
      // An experiment's own lines (a soak's window) go above the panel, not into it.
      if (options.on_window_observed) progress.clear();
      write_window(*held, run.observe_every_ns + 200 * kNsPerMs);
      progress.redraw();
    }
    held = std::move(*window);
  }
  progress.clear();
  observer.stop();  // takes the closing sample of the last window
  if (held) write_window(*held, 0);

  for (auto [part, by_intent] : {std::pair{&result.total, engine.measured_total()},
                                 std::pair{&result.warmup_total, engine.warmup_total()}}) {
    by_intent.bytes_in = part->bytes_in;
    by_intent.bytes_out = part->bytes_out;
    by_intent.connects = part->connects;
    by_intent.connection = std::move(part->connection);
    *part = std::move(by_intent);
  }
  if (reconcile) {
    // Read once every request has ended (the engine drained them), and set against the successes
    // of the whole run, warm-up included: the first read came before the warm-up, because one at
    // its end would race the requests then in flight. Never a throw: a read that fails after the
    // run makes the reconcile unavailable, with the reason.
    const int64_t successes = result.total.count(measure::Outcome::kSuccess) +
                              result.warmup_total.count(measure::Outcome::kSuccess);
    const observe::CounterRead after = reconcile->read_settled(
        server_before + static_cast<double>(successes), observe::kReconcileSettleNs);
    result.reconcile =
        analyze::reconcile(*run.reconcile, server_before, after.value, after.error, successes);
  }
  // Connections are mostly opened before the first request: count all of them in the summary.
  result.total.connects += result.warmup_total.connects;
  result.total.connection.merge(result.warmup_total.connection);
  int stop_level = engine.stop_level();
  result.aborted = !abort_reason.empty();
  result.interrupted = stop_level > 0 && !result.aborted;
  // -n counts the measured requests (or arrivals) only: the warm-up's come on top.
  result.end_reason = result.aborted       ? "aborted: " + abort_reason
                      : result.interrupted ? "interrupted by a signal"
                      : run.load.max_requests > 0 && result.total.intended >= run.load.max_requests
                          ? "request count reached"
                          : "duration reached";
  result.span = engine.measured_span();
  result.measured_duration_s = seconds_of(result.span.duration_ns);
  result.first_tls_failure = engine.first_tls_failure();
  result.h2_server_max_streams = engine.h2_server_max_streams();
  if (std::string failure = engine.failure(); !failure.empty()) {
    result.end_reason = "a worker failed: " + failure;
  }
  if (!write_failure.empty()) {
    result.interrupted = true;  // status "interrupted": the figures cover the part that ran
    result.end_reason = "stopped: " + write_failure;
  }
  if (const workload::Workload& w = *run.load.workload; !w.is_fixed()) {
    for (const workload::CompiledRequest& r : w.requests()) result.request_names.push_back(r.name);
    result.flow_names = w.flow_names();
    result.named_total = engine.measured_named();
  }
  result.observed = observation_totals.summaries(result.total.responses());
  result.server = server_figures(result.observed);
  result.generator_busy_windows = observation_totals.generator_busy_windows();
  result.thresholds = evaluate_thresholds(result, run.thresholds);
  if (segment_file && write_failure.empty()) {
    try {
      segment_file->finish(segment_end(result));
    } catch (const std::runtime_error& e) {
      write_failure = e.what();
    }
  }
  // The terminal summary comes from memory: it is printed even when the files could not be.
  std::exception_ptr finish_failure;
  if (directory) {
    try {
      directory->finish(result);
    } catch (const std::runtime_error&) {
      finish_failure = std::current_exception();
    }
  }
  if (options.print_summary) std::fputs(report::format_summary(result).c_str(), stdout);
  if (!write_failure.empty() && !finish_failure) {
    throw std::runtime_error(write_failure +
                             "; the run stopped there, and result.json holds what "
                             "was measured until then");
  }
  if (finish_failure) std::rethrow_exception(finish_failure);
  result.first_tls_failure = engine.first_tls_failure();
  result.h2_server_max_streams = engine.h2_server_max_streams();
  if (std::string failure = engine.failure(); !failure.empty()) {
    throw std::runtime_error("a load worker failed (" + failure +
                             "); the results cover only part "
                             "of the run");
  }
  return result;
}

StepRun run_step_load(const RunOptions& options, Experiment& experiment,
                      const std::string& where) {
  StepRun step;
  try {
    step.run = run_load_test(options);
  } catch (const std::runtime_error& e) {
    step.failure = e.what();
  }
  if (!step.failure.empty()) {
    experiment.ending().set("failed", step.failure + where, kExitFailure);
  } else if (step.run.interrupted) {
    experiment.stop_requested();
    experiment.ending().set("interrupted", "interrupted by a signal" + where, kExitInterrupted);
  } else if (step.run.aborted) {
    experiment.ending().set("aborted", step.run.end_reason + where, kExitThresholds);
  }
  return step;
}

}  // namespace proofload::experiments
