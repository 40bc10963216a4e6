// See observer.h.
#include "observe/observer.h"

#include <chrono>

#include "common/clock.h"

namespace proofload::observe {

Observer::Observer(std::vector<std::unique_ptr<Sampler>> samplers, int64_t period_ns)
    : samplers_(std::move(samplers)),
      period_ns_(period_ns),
      series_(samplers_.size()),
      last_sample_ns_(samplers_.size(), INT64_MIN) {}

Observer::~Observer() { stop(); }

void Observer::start(int64_t start_ns) {
  thread_ = std::thread([this, start_ns] { run(start_ns); });
}

void Observer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

// Sampling outside the lock: a slow endpoint must not block window() longer than its timeout.
void Observer::sample_all() {
  for (size_t i = 0; i < samplers_.size(); ++i) {
    Sample sample = samplers_[i]->sample(monotonic_ns());
    {
      std::lock_guard lock(mutex_);
      last_sample_ns_[i] = sample.at_ns;
      series_[i].add(std::move(sample));
    }
    changed_.notify_all();
  }
}

void Observer::run(int64_t start_ns) {
  int64_t next_ns = start_ns;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      // The grid is on the monotonic clock, as steady_clock is on Linux.
      auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(next_ns));
      changed_.wait_until(lock, deadline, [this] { return stopping_; });
      if (stopping_) break;
    }
    sample_all();
    // Skips grid points a slow sampler made us miss rather than sampling in a burst.
    const int64_t now = monotonic_ns();
    do next_ns += period_ns_;
    while (next_ns <= now);
  }
  sample_all();  // the run's end: the last window gets its closing sample
  std::lock_guard lock(mutex_);
  stopped_ = true;
  changed_.notify_all();
}

std::vector<SamplerFigures> Observer::window(int64_t start_ns, int64_t end_ns, int64_t wait_ns) {
  std::unique_lock lock(mutex_);
  // A sample belongs to the boundary it follows by at most half a period.
  const int64_t slack = period_ns_ / 2;
  auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(monotonic_ns() + wait_ns));
  changed_.wait_until(lock, deadline, [&] {
    if (stopped_) return true;
    for (int64_t at : last_sample_ns_) {
      if (at < end_ns - slack) return false;
    }
    return true;
  });
  std::vector<SamplerFigures> out;
  for (size_t i = 0; i < samplers_.size(); ++i) {
    out.push_back({samplers_[i]->spec(), series_[i].figures(start_ns, end_ns, slack)});
  }
  return out;
}

}  // namespace proofload::observe
