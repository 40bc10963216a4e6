// The observers of a run as the report sees them: each --observe source (and the generator
// itself, always first) gets a stable label ("self", "pid", "cgroup", "cgroup2", ...), a fixed set
// of windows.csv columns by kind, its per-window figures in report form, and totals over the
// measured part (CPU as cores and per request, memory at the end and its peak, throttling,
// restarts, OOM kills). Also flags the windows where the generator used 80% or more of its
// workers' cores. Not thread-safe: the run's coordinator owns it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "observe/observer.h"
#include "report/run_result.h"

namespace proofload::experiments {

struct ObservedSource {
  std::string label;  // column prefix
  std::string spec;   // as given
};

// The server's figures from the observed sources (see report::ServerFigures for the rules).
report::ServerFigures server_figures(const std::vector<report::ObservedSummary>& observed);

// "self" first, then each spec; a kind given twice is numbered from the second ("pid", "pid2").
std::vector<ObservedSource> label_sources(const std::vector<std::string>& specs);

// windows.csv's columns for these sources: "self.cpu_cores", "pid.rss_bytes", ... (a Prometheus
// endpoint's series vary, so they are in result.json only).
std::vector<std::string> observed_columns(const std::vector<ObservedSource>& sources);

class ObservationTotals {
 public:
  // `generator_cores`: cores the load workers may use (the generator's 80% bar is of these).
  ObservationTotals(std::vector<ObservedSource> sources, int generator_cores);

  // One window's figures, in the sources' order, converted for the report, with each source's
  // CPU per completed request of the window (`responses`) added; measured windows (not
  // warm-up) also go into the totals.
  std::vector<report::ObservedFigures> add_window(
      int64_t index, double duration_s, bool warmup, int64_t responses,
      const std::vector<observe::SamplerFigures>& figures);

  // Totals of the measured part; `completed_requests` is the denominator of CPU per request.
  std::vector<report::ObservedSummary> summaries(int64_t completed_requests) const;
  const std::vector<int64_t>& generator_busy_windows() const { return generator_busy_windows_; }

 private:
  struct Accumulated {
    double weighted_sum = 0;  // value x window seconds
    double seconds = 0;
    double max = 0;
    double first = 0;
    double last = 0;
    double sum = 0;
    bool any = false;
  };
  struct SourceTotals {
    int64_t samples = 0;
    int64_t gaps = 0;
    std::string last_error;
    std::map<std::string, Accumulated> figures;
    std::map<std::string, report::CounterTotal> counters;  // Prometheus endpoints only
  };

  std::vector<ObservedSource> sources_;
  int generator_cores_;
  std::vector<SourceTotals> totals_;
  std::vector<int64_t> generator_busy_windows_;
};

}  // namespace proofload::experiments
