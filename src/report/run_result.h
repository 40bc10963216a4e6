// The result of one run, as the report formatters read it: the normalized spec, every window as
// recorded (merged across workers), and the totals. Pure data, no I/O.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/window_stats.h"

namespace proofload::report {

constexpr const char* kResultSchema = "proofload.result/v1";

struct RunResult {
  // The run as configured, normalized (every default filled in), as JSON so the report layer
  // knows nothing of the engine's types. Secrets never reach it.
  nlohmann::json spec;
  std::string command_line;     // how it was started (argv joined, for "Reproduce")
  std::string proofload_version;
  int64_t start_wall_ns = 0;    // wall-clock time of the run's start (ns since the Unix epoch)
  int64_t window_ns = 1'000'000'000;  // window length

  // Every window in order (warm-up windows included and flagged), merged across workers.
  std::vector<measure::WindowStats> windows;

  // Sum of the non-warm-up windows: what the summary reports.
  measure::WindowStats total;
  // Sum of the warm-up windows: recorded apart.
  measure::WindowStats warmup_total;
  // Length of the measured part of the run (after warm-up, until the last request ended), s.
  double measured_duration_s = 0;

  bool interrupted = false;     // Ctrl-C / SIGTERM ended the run early
  std::string end_reason;       // "duration", "request count", "interrupted", ...
};

}  // namespace proofload::report
