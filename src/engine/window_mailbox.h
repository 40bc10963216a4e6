// Hands finished windows from the workers to the coordinator and merges them in order. Workers
// post once per window (about once a second), so a mutex is fine here: nothing on the per-request
// path touches it. A post is a swap: the worker's window (half a megabyte of histograms) goes in
// as it is and a cleared one of the same shape comes back, so a window's boundary costs the
// worker no copy, no merge and no clearing (they happen on the coordinator's thread), and the
// open loop's arrivals around the boundary are not held up. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "measure/named_stats.h"
#include "measure/span_counts.h"
#include "measure/window_stats.h"

namespace proofload::engine {

class WindowMailbox {
 public:
  explicit WindowMailbox(int workers);

  // Worker side: window `window.index` of `worker` is complete. `window` is taken, and replaced
  // by a cleared window of the same shape for the worker to record its next window in (one it
  // posted before, once the coordinator merged it: no allocation after the first windows).
  void post(int worker, measure::WindowStats& window);
  // Worker side: `worker` has ended; it posted windows up to `last_index`, its last request
  // ended at `end_ns` (ns since the run's start), this is what ended inside its measured span,
  // and these are its totals by part of the run (and, for a scenario, by named request and flow).
  void post_done(int worker, int64_t last_index, int64_t end_ns, const measure::MeasuredSpan& span,
                 const measure::WindowStats& measured_total,
                 const measure::WindowStats& warmup_total,
                 const measure::NamedTotals& measured_named = {},
                 const measure::NamedTotals& warmup_named = {});

  // Coordinator side: blocks until the next window (in index order) has been posted by every
  // worker still running at that index, and returns it merged; nullopt when every worker has
  // ended and every window was returned.
  std::optional<measure::WindowStats> next_merged();

  // Valid once next_merged() returned nullopt: when the last worker's last request ended, and
  // the workers' totals merged.
  int64_t end_ns() const;
  measure::MeasuredSpan measured_span() const;
  measure::WindowStats measured_total() const;
  measure::WindowStats warmup_total() const;
  measure::NamedTotals measured_named() const;
  measure::NamedTotals warmup_named() const;

 private:
  bool ready_locked(int64_t index) const;

  struct WorkerState {
    int64_t posted_up_to = -1;  // highest window index posted
    bool done = false;
  };
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<WorkerState> workers_;
  // Posted windows by index, each with the worker that posted it (merged by next_merged).
  std::map<int64_t, std::vector<std::pair<int, measure::WindowStats>>> pending_;
  // Merged windows cleared for reuse, by the worker they go back to.
  std::vector<std::vector<measure::WindowStats>> spares_;
  int64_t next_index_ = 0;
  int64_t end_ns_ = 0;
  measure::MeasuredSpan span_;
  measure::WindowStats measured_total_;
  measure::WindowStats warmup_total_;
  measure::NamedTotals measured_named_;
  measure::NamedTotals warmup_named_;
};

}  // namespace proofload::engine
