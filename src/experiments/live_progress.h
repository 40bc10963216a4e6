// A run's progress on stderr while it runs: on a terminal, a panel of a few lines redrawn in
// place each window (cursor up and clear, no full-screen mode); elsewhere (a CI log, a file), a
// plain line per window for the first minute and then one every 10 s, so an hour's soak leaves
// some 400 lines rather than 3,600 while a short run's ramp is seen second by second. Off with -q.
// The generator's CPU over each window comes from /proc/self/stat: the observers' figures for a
// window arrive a window later, too late for a live view.
// Thread-safety: the run's coordinator thread alone.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/window_stats.h"
#include "report/summary_text.h"

namespace proofload::experiments {

class LiveProgress {
 public:
  // `enabled`: progress is wanted (not -q). Whether stderr is a terminal is decided here.
  explicit LiveProgress(bool enabled);
  // Shows the window that just ended; `where` without the generator's CPU (filled in here).
  void show(const measure::WindowStats& w, report::LiveContext where);
  // Clears the panel (the summary follows, or a line of the experiment's own: a soak's window);
  // plain lines stay.
  void clear();
  // Draws the last panel again after clear().
  void redraw();

 private:
  std::optional<double> generator_cpu_cores();
  void draw();

  enum class Mode { kOff, kPanel, kLines };
  Mode mode_ = Mode::kOff;
  size_t columns_ = 0;                 // the terminal's width (panel)
  size_t drawn_ = 0;                   // lines of the panel on screen
  std::vector<std::string> panel_;     // the last panel drawn
  std::optional<double> last_line_s_;  // elapsed time of the last plain line
  uint64_t cpu_ticks_ = 0;             // the process's utime + stime at the last window
  int64_t cpu_at_ns_ = 0;              // when it was read (monotonic)
};

}  // namespace proofload::experiments
