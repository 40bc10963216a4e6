// The text a person reads in the terminal: the end-of-run summary (what wrk users look for,
// plus what wrk hides: never-started work, errors by kind, service time beside latency) and the
// live progress (a panel on a terminal, a line per window elsewhere). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measure/window_stats.h"
#include "report/run_result.h"

namespace proofload::report {

// The end-of-run summary, several lines ending in '\n'. Reads from RunResult::spec only these
// keys, each optional: "target" (URL string), "executor" ("closed_loop" | "open_loop"),
// "connections" (closed loop), "rate_per_s" (open loop, constant rate), "tls" (https: its
// "version").
std::string format_summary(const RunResult& result);
// Only the observers' part of the summary ("observed (measured part)" and its lines), for
// `proofload observe`, which sends no load.
std::string format_observed_summary(const RunResult& result);

// Where the run is, for the live line: time so far and planned, and what the schedule asks now.
struct LiveContext {
  double elapsed_s = 0;
  std::optional<double> planned_s;  // warm-up included; none when only -n bounds the run
  std::optional<double> target;     // open loop: the arrival rate now; closed loop with stages:
  bool target_is_rate = true;       //   the users now (target_is_rate false)
  std::string label;                // "level 3 of 5 (1,000/s)" in a ladder; "" in a run
  // The generator's own CPU over the window, in cores (1.0: one core busy all the time): a
  // generator near its cores' limit measures itself, not the server.
  std::optional<double> generator_cpu_cores;
};

// One progress line for the window that just ended, without a newline, e.g.
// "  12s of 40s (28s left)  9,981 req/s  p50 1.02ms  p99 3.40ms  errors 0  in flight 12".
std::string format_live_line(const measure::WindowStats& last_window, const LiveContext& where);

// The live panel a terminal shows, redrawn in place each window: a few lines (no newlines in
// them) saying where the run is, the rate achieved against the target, the last window's p50 and
// p99, errors, never started, what waits and the generator's CPU.
std::vector<std::string> format_live_panel(const measure::WindowStats& last_window,
                                           const LiveContext& where);

// The live line cut to a terminal `columns` wide (0: not a terminal, left whole): a line that
// wraps is rewritten by "\r" only in its last part, leaving the rest as a stray partial line.
std::string fit_to_terminal(std::string line, size_t columns);

}  // namespace proofload::report
