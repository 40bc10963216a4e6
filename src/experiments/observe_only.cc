// See observe_only.h.
#include "experiments/observe_only.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "common/clock.h"
#include "experiments/observation.h"
#include "observe/factory.h"
#include "observe/observer.h"
#include "report/result_directory.h"
#include "report/summary_text.h"

namespace proofload::experiments {
namespace {

std::atomic<bool> g_stop{false};

void on_stop_signal(int /*signal*/) { g_stop.store(true); }

// Sleeps until `deadline_ns` (monotonic) or a stop signal, in short steps so a signal is seen
// within 50 ms.
void sleep_until(int64_t deadline_ns) {
  while (!g_stop.load()) {
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
  result.spec = {{"command", "observe"},
                 {"observe", options.specs},
                 {"observe_every_s", static_cast<double>(options.every_ns) / kNsPerS},
                 {"duration_s", static_cast<double>(options.duration_ns) / kNsPerS},
                 {"window_s", static_cast<double>(result.window_ns) / kNsPerS}};

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

  struct sigaction action {};
  struct sigaction previous_int {};
  struct sigaction previous_term {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  g_stop.store(false);
  sigaction(SIGINT, &action, &previous_int);
  sigaction(SIGTERM, &action, &previous_term);

  const int64_t start_ns = monotonic_ns();
  result.start_wall_ns = wall_clock_ns();
  observer.start(start_ns);
  if (directory) directory->open(result);
  const int64_t end_ns = start_ns + options.duration_ns;
  for (int64_t index = 0; !g_stop.load(); ++index) {
    measure::WindowStats w;
    w.index = index;
    w.start_ns = index * result.window_ns;
    const int64_t window_end = std::min(end_ns, start_ns + w.start_ns + result.window_ns);
    if (window_end <= start_ns + w.start_ns) break;
    sleep_until(window_end);
    const int64_t now = monotonic_ns();
    const int64_t until = g_stop.load() ? std::min(now, window_end) : window_end;
    w.duration_ns = until - (start_ns + w.start_ns);
    const bool last = g_stop.load() || until >= end_ns;
    if (last) observer.stop();
    auto figures = observer.window(start_ns + w.start_ns, until,
                                   last ? 0 : options.every_ns + 200 * kNsPerMs);
    auto observed = totals.add_window(index, static_cast<double>(w.duration_ns) / kNsPerS,
                                      false, 0, figures);
    result.measured_duration_s += static_cast<double>(w.duration_ns) / kNsPerS;
    if (directory) directory->append_window(w, result.start_wall_ns + w.start_ns, observed);
    if (last) break;
  }
  observer.stop();
  sigaction(SIGINT, &previous_int, nullptr);
  sigaction(SIGTERM, &previous_term, nullptr);

  result.interrupted = g_stop.load();
  result.end_reason = result.interrupted ? "interrupted by a signal" : "duration reached";
  result.observed = totals.summaries(0);
  if (directory) directory->finish(result);
  if (options.print_summary) std::fputs(report::format_observed_summary(result).c_str(), stdout);
  return result;
}

}  // namespace proofload::experiments
