// Folds a run's 1 s windows into a soak's windows (a minute by default) as they arrive: one
// histogram for the window in progress, nothing kept per request or per finished window, so a
// soak of any length holds flat memory. Owned by the run's coordinator thread.
#pragma once

#include <cstdint>
#include <optional>

#include "analyze/soak_analysis.h"
#include "measure/hdr_histogram.h"
#include "measure/stream_window.h"
#include "measure/window_stats.h"

namespace proofload::experiments {

class SoakWindowFolder {
 public:
  // `window_ns`: the soak window's length (a whole number of run windows); `ramp_ns`: the ramp
  // before the hold, so the hold starts `ramp_ns` after the run's start.
  // `goodput`: streams are judged by --goodput (the window's stream_goodput share is kept).
  SoakWindowFolder(int64_t window_ns, int64_t ramp_ns, bool goodput = false);

  // One run window. Returns the soak window it completed, if the run window belongs to the next
  // one. A drain window (after the schedule ended) adds its outcomes to the window in progress.
  // `observer_gaps`: the observers' failed samples in the run window, and `gap_reason` the first
  // failing source and why ("" when none).
  std::optional<analyze::SoakWindowRow> add(const measure::WindowStats& w,
                                            int64_t observer_gaps = 0,
                                            const std::string& gap_reason = "");
  // The window in progress (a partial one at the end of the run), if any request was in it.
  std::optional<analyze::SoakWindowRow> finish();

 private:
  // The soak window a moment belongs to, `since_hold_ns` from the hold's start (negative: ramp).
  int64_t index_of(int64_t since_hold_ns) const;
  analyze::SoakWindowRow take();

  int64_t window_ns_;
  int64_t ramp_ns_;
  std::optional<int64_t> index_;  // the window in progress
  int64_t start_ns_ = 0;          // its first run window's start, from the hold's start
  int64_t duration_ns_ = 0;
  int64_t requests_ = 0, errors_ = 0, status_429_ = 0, responses_ = 0;
  int64_t slowest_us_ = -1;
  int64_t slowest_at_ns_ = 0;
  int64_t observer_gaps_ = 0;
  std::string observer_gap_;
  measure::HdrHistogram latency_us_;
  bool goodput_ = false;
  measure::StreamWindow streams_;  // a soak of streams: the window's, as they ended
};

}  // namespace proofload::experiments
