// See live_progress.h.
#include "experiments/live_progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "common/clock.h"
#include "observe/proc_stat.h"

namespace proofload::experiments {
namespace {

// Past the first minute, a plain line every this many seconds of the run.
constexpr double kFirstMinuteS = 60;
constexpr double kLineEveryS = 10;

// The width of the terminal on stderr; 0 when it is not one.
size_t terminal_columns() {
  winsize size{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return 0;
  return size.ws_col;
}

std::optional<uint64_t> own_cpu_ticks() {
  std::string text, error;
  if (observe::read_small_file("/proc/self/stat", text, 4096) != 0) return std::nullopt;
  const std::optional<observe::PidStat> stat = observe::parse_pid_stat(text, error);
  if (!stat) return std::nullopt;
  return stat->utime_ticks + stat->stime_ticks;
}

// Moves the cursor back to the first line of a panel `lines` high and clears from there down.
std::string back_over(size_t lines) {
  std::string out = "\r";
  if (lines > 1) out += "\033[" + std::to_string(lines - 1) + "A";
  return out + "\033[J";
}

}  // namespace

LiveProgress::LiveProgress(bool enabled) {
  if (!enabled) return;
  mode_ = isatty(STDERR_FILENO) ? Mode::kPanel : Mode::kLines;
  if (mode_ == Mode::kPanel) columns_ = terminal_columns();
  cpu_ticks_ = own_cpu_ticks().value_or(0);
  cpu_at_ns_ = monotonic_ns();
}

std::optional<double> LiveProgress::generator_cpu_cores() {
  const std::optional<uint64_t> ticks = own_cpu_ticks();
  const int64_t now = monotonic_ns();
  std::optional<double> cores;
  const long per_s = sysconf(_SC_CLK_TCK);
  if (ticks && *ticks >= cpu_ticks_ && now > cpu_at_ns_ && per_s > 0) {
    cores = static_cast<double>(*ticks - cpu_ticks_) / static_cast<double>(per_s) /
            seconds_of(now - cpu_at_ns_);
  }
  if (ticks) cpu_ticks_ = *ticks;
  cpu_at_ns_ = now;
  return cores;
}

void LiveProgress::show(const measure::WindowStats& w, report::LiveContext where) {
  if (mode_ == Mode::kOff) return;
  where.generator_cpu_cores = generator_cpu_cores();
  if (mode_ == Mode::kLines) {
    if (where.elapsed_s > kFirstMinuteS && last_line_s_ &&
        where.elapsed_s - *last_line_s_ < kLineEveryS - 0.5) {
      return;
    }
    last_line_s_ = where.elapsed_s;
    std::fprintf(stderr, "%s\n", report::format_live_line(w, where).c_str());
    std::fflush(stderr);
    return;
  }
  panel_ = report::format_live_panel(w, where);
  draw();
}

void LiveProgress::draw() {
  std::string out = drawn_ > 0 ? back_over(drawn_) : std::string();
  for (size_t i = 0; i < panel_.size(); ++i) {
    out += report::fit_to_terminal(panel_[i], columns_);
    if (i + 1 < panel_.size()) out += "\n";
  }
  drawn_ = panel_.size();
  std::fputs(out.c_str(), stderr);
  std::fflush(stderr);
}

void LiveProgress::clear() {
  if (mode_ != Mode::kPanel || drawn_ == 0) return;
  std::fputs(back_over(drawn_).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = 0;
}

void LiveProgress::redraw() {
  if (mode_ == Mode::kPanel && drawn_ == 0 && !panel_.empty()) draw();
}

}  // namespace proofload::experiments
