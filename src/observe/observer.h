// Runs the samplers on their own thread, on a grid aligned to the run's clock (a sample at the
// start, then every period), and hands out per-window figures to the run's coordinator. The load
// workers never wait on it: sampling is slow I/O (files in /proc and /sys, an HTTP endpoint) and
// must not touch the hot path. Thread-safe: window() is called by one consumer thread while the
// sampler thread runs.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "observe/sampler.h"
#include "observe/window_figures.h"

namespace proofload::observe {

struct SamplerFigures {
  std::string spec;        // "self", "pid:42", ...
  WindowFigures figures;
};

class Observer {
 public:
  Observer(std::vector<std::unique_ptr<Sampler>> samplers, int64_t period_ns);
  ~Observer();
  Observer(const Observer&) = delete;
  Observer& operator=(const Observer&) = delete;

  // Starts sampling: the first sample at `start_ns` (monotonic), then one every period.
  void start(int64_t start_ns);
  // Takes a last sample of every sampler and ends the thread. Idempotent.
  void stop();

  // The figures of every sampler for [start_ns, end_ns), in the samplers' order. Waits at most
  // `wait_ns` for each sampler to have sampled past the window's end (it normally has: the
  // coordinator asks only once the engine has finished the window); a sampler that has not
  // gives what it has.
  std::vector<SamplerFigures> window(int64_t start_ns, int64_t end_ns, int64_t wait_ns);

  const std::vector<std::unique_ptr<Sampler>>& samplers() const { return samplers_; }
  int64_t period_ns() const { return period_ns_; }

 private:
  void run(int64_t start_ns);
  void sample_all();

  std::vector<std::unique_ptr<Sampler>> samplers_;
  const int64_t period_ns_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<SampleSeries> series_;      // by sampler, guarded by mutex_
  std::vector<int64_t> last_sample_ns_;   // by sampler, guarded by mutex_
  bool stopping_ = false;                 // guarded by mutex_
  bool stopped_ = false;                  // the thread has taken its last samples
  std::thread thread_;
};

}  // namespace proofload::observe
