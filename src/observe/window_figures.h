// Turns one sampler's timestamped samples into per-window figures on the run's clock: a
// counter's increase becomes a rate over the window (CPU seconds become cores), a gauge gives its
// value at the window's end and its peak within it, and a window whose samples failed says so.
// Pure bookkeeping, no I/O; one SampleSeries per sampler, owned by one thread.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "observe/sampler.h"

namespace proofload::observe {

// One figure of one window. Names derive from the readings': a counter "x" gives "x_per_s"
// (except "cpu_seconds", which gives "cpu_cores", and the event counters "restarts" and
// "oom_kills", which give their increase in the window); "cpu_throttled_periods" over
// "cpu_periods" gives "cpu_throttled_share"; a gauge "x" gives "x" (at the end) and "x_peak",
// except a share (a gauge named "*_share", e.g. the host's busy share since the previous sample),
// which gives its mean over the window's samples.
struct Figure {
  std::string name;
  double value = 0;
};

// A counter's raw values over a window: at its base sample and at its last one.
struct CounterSpan {
  std::string name;
  double start = 0;
  double end = 0;
};

struct WindowFigures {
  int64_t start_ns = 0;  // the window, on the same clock as the samples
  int64_t end_ns = 0;
  int samples = 0;         // good samples taken inside the window
  int gaps = 0;            // failed samples inside the window
  std::string last_error;  // the last gap's reason ("" when none)
  std::vector<Figure> figures;
  // Each counter's raw values (those the figures above turned into rates), so a server-side
  // count can be set against the client's; a reset counter is left out, as in the figures.
  std::vector<CounterSpan> counters;

  std::optional<double> value(const std::string& name) const;
};

class SampleSeries {
 public:
  // Samples must arrive in time order.
  void add(Sample sample);
  // The figures of [start_ns, end_ns). A sample belongs to the window whose boundary it follows
  // by at most `slack_ns` (a sampler on the window grid samples just after each boundary); half
  // a sampling period is right. A window shorter than the slack (the last few milliseconds of a
  // run) gets no figures rather than a repeat of the window before. Samples before start_ns
  // that no later window needs are dropped, so memory stays bounded however long the run.
  WindowFigures figures(int64_t start_ns, int64_t end_ns, int64_t slack_ns);

 private:
  std::deque<Sample> samples_;
  // The last good sample before the current window: the base of its counters.
  std::optional<Sample> base_;
};

}  // namespace proofload::observe
