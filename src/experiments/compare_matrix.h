// A comparison's matrix file (`compare.yaml`, docs/compare.md): the checks (requests, written as
// in a scenario file's `requests:`, with the scenario's `target`, `protocol`, `defaults` and
// `data`), the conditions (`cold` after the --reset hook, `warm` after a warm-up pass), the
// settings (named hook pairs applied before their cells and restored after), the metric, each
// cell's run and the repeats. Configuration time only: every mistake is a UsageError with one
// line "FILE:LINE:COLUMN: message". Stateless.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/compare_analysis.h"
#include "workload/scenario.h"

namespace proofload::experiments {

inline constexpr std::string_view kCold = "cold";
inline constexpr std::string_view kWarm = "warm";

// A named pair of hooks around the cells run under it: "0.5 CPU / 1 GiB".
struct CompareSetting {
  std::string name;
  std::string apply;                   // before the setting's first cell
  std::optional<std::string> restore;  // after its last, and on every exit path once applied
};

struct CompareMatrix {
  std::string file;
  // The checks are its requests, in the order written; target, protocol, default headers and
  // data as a scenario file has them.
  workload::Scenario checks;
  std::vector<std::string> conditions;  // kCold, kWarm; empty: one condition, neither
  std::vector<CompareSetting> settings;  // empty: none
  analyze::CompareMetric metric = analyze::CompareMetric::kP50;
  // Each cell's run: closed loop with `connections`, or open loop at `rate` when given.
  int connections = 10;
  std::optional<double> rate_per_s;
  int64_t duration_ns = int64_t{30} * 1'000'000'000;
  int64_t warmup_ns = int64_t{5} * 1'000'000'000;  // a warm cell's warm-up pass, not measured
  // run.cold_requests: a cold cell ends after this many requests (within duration_ns); 1 measures
  // the first request after its reset, the only one surely cold. Warm cells run their duration.
  std::optional<int64_t> cold_requests;
  int repeat = 3;
  double min_effect = 0.05;
};

CompareMatrix parse_compare_matrix(std::string_view text, std::string_view file_name,
                                   const std::filesystem::path& base_dir);
// Reads the file ("cannot read compare matrix 'x': reason") and parses it.
CompareMatrix load_compare_matrix(const std::string& path);

}  // namespace proofload::experiments
