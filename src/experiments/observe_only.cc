// See observe_only.h.
#include "experiments/observe_only.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "common/clock.h"
#include "common/stop_signals.h"
#include "experiments/observation.h"
#include "observe/factory.h"
#include "observe/observer.h"
#include "report/result_directory.h"
#include "report/summary_text.h"

namespace proofload::experiments {
namespace {

// Sleeps until `deadline_ns` (monotonic) or a stop signal, in short steps so a signal is seen
// within 50 ms.
void sleep_until(int64_t deadline_ns, const StopSignals& signals) {
  while (!signals.requested()) {
    int64_t left = deadline_ns - monotonic_ns();
    if (left <= 0) return;
    std::this_thread::sleep_for(std::chrono::nanoseconds(std::min<int64_t>(left, 50 * kNsPerMs)));
  }
}

}  // namespace

report::RunResult run_observers(const ObserveOptions& options) {
  report::RunResult result;
  result.command_line = options.command_line;
  result.proofload_version = PROOFLOAD_VERSION;
  result.spec.command = "observe";
  result.spec.observe = options.specs;
  result.spec.observe_every_s = static_cast<double>(options.every_ns) / kNsPerS;
  result.spec.duration_s = static_cast<double>(options.duration_ns) / kNsPerS;
  result.spec.window_s = static_cast<double>(result.window_ns) / kNsPerS;

  std::optional<report::ResultDirectory> directory;
  if (options.out_dir) directory.emplace(*options.out_dir);
  const std::vector<ObservedSource> sources = label_sources(options.specs);
  std::vector<std::unique_ptr<observe::Sampler>> samplers;
  for (const ObservedSource& source : sources) {
    samplers.push_back(observe::make_sampler(source.spec, options.every_ns));
  }
  result.observed_columns = observed_columns(sources);
  ObservationTotals totals(sources, 0);  // no load workers: no generator bar to flag
  observe::Observer observer(std::move(samplers), options.every_ns);

  std::optional<StopSignals> signals(std::in_place);

  const int64_t start_ns = monotonic_ns();
  result.start_wall_ns = wall_clock_ns();
  observer.start(start_ns);
  if (directory) directory->open(result);
  const int64_t end_ns = start_ns + options.duration_ns;
  for (int64_t index = 0; !signals->requested(); ++index) {
    measure::WindowStats w;
    w.index = index;
    w.start_ns = index * result.window_ns;
    const int64_t window_end = std::min(end_ns, start_ns + w.start_ns + result.window_ns);
    if (window_end <= start_ns + w.start_ns) break;
    sleep_until(window_end, *signals);
    const int64_t now = monotonic_ns();
    const int64_t until = signals->requested() ? std::min(now, window_end) : window_end;
    w.duration_ns = until - (start_ns + w.start_ns);
    const bool last = signals->requested() || until >= end_ns;
    if (last) observer.stop();
    auto figures =
        observer.window(start_ns + w.start_ns, until, last ? 0 : options.every_ns + 200 * kNsPerMs);
    auto observed =
        totals.add_window(index, static_cast<double>(w.duration_ns) / kNsPerS, false, 0, figures);
    result.measured_duration_s += static_cast<double>(w.duration_ns) / kNsPerS;
    if (directory) directory->append_window(w, result.start_wall_ns + w.start_ns, observed);
    if (last) break;
  }
  observer.stop();
  const bool interrupted = signals->requested();
  signals.reset();

  result.interrupted = interrupted;
  result.end_reason = result.interrupted ? "interrupted by a signal" : "duration reached";
  result.observed = totals.summaries(0);
  if (directory) directory->finish(result);
  if (options.print_summary) std::fputs(report::format_observed_summary(result).c_str(), stdout);
  return result;
}

}  // namespace proofload::experiments
