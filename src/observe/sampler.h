// What the observers read while a load runs: the server's and the generator's CPU, memory,
// throttling, restarts, a Prometheus endpoint, the host's load. Each source is a Sampler; a
// sampler thread (never a load worker) calls sample() on each one every period and timestamps
// the result on the run's clock. A source that cannot be read gives a Sample marked as a gap,
// never an exception and never a crash, and the run goes on.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace proofload::observe {

// How a value is turned into per-window figures: a counter's increase over the window (a rate),
// a gauge's value at the window's end and its peak within it.
enum class MetricKind { kCounter, kGauge };

// One value of one sample. Names are stable (reports and CSV columns use them) and carry units:
// "cpu_seconds", "rss_bytes", "threads", "open_files", "restarts", "cpu_periods",
// "cpu_throttled_periods", "cpu_throttled_seconds", "memory_bytes", "memory_peak_bytes",
// "oom_kills", "load1", "cpu_busy_share", a k8s sampler's "pods", "ready_pods", ... (see
// k8s_sampler.h); a Prometheus sampler uses the series as exposed:
// `http_requests_total{route="lookup",code="200"}`.
struct Reading {
  std::string name;
  MetricKind kind = MetricKind::kGauge;
  double value = 0;
};

struct Sample {
  int64_t at_ns = 0;    // monotonic time the sample was taken
  bool ok = true;       // false: a gap (process gone, endpoint down, file unreadable)
  std::string error;    // when !ok: why, in one line
  std::vector<Reading> readings;
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  // The spec as given on the command line: "self", "pid:42", "cgroup:/sys/fs/cgroup/x", ...
  virtual const std::string& spec() const = 0;
  // Takes one sample at `now_ns`. Never throws; returns within the sampler's own timeout.
  virtual Sample sample(int64_t now_ns) = 0;
};

// The shape of a sampler's sample(): runs `fill(sample, error)`; a false return or an exception
// (only allocation can throw while reading small files) becomes a gap with the error, never an
// exception out of the sampler thread.
template <typename Fill>
Sample sample_or_gap(int64_t now_ns, Fill&& fill) {
  Sample sample;
  sample.at_ns = now_ns;
  std::string error;
  bool ok = false;
  try {
    ok = fill(sample, error);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (!ok) {
    sample.ok = false;
    sample.error = std::move(error);
    sample.readings.clear();
  }
  return sample;
}

}  // namespace proofload::observe
