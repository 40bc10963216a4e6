// A ladder's result.json (schema proofload.ladder/v1) read into plain structs, so that the report
// renders from typed values and every missing-key decision is made in one place: a missing or null
// optional key is nullopt (or ""), a missing required key or a value of the wrong type throws
// std::runtime_error naming it ("analysis.levels[2].achieved_rps"). Internal to ladder_report.cc.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace proofload::report::ladder {

// One SLO bound on one level: the worst repeat's value, as the analysis judged it.
struct SloCheck {
  std::string expression;          // "p95<=1s"
  std::optional<double> observed;  // in the bound's unit (ms, share 0..1, count, req/s)
  std::string observed_text;       // "p95 = 1,140.0 ms": printed so it never contradicts `passed`
  bool passed = false;
};

// analysis.levels[]: a level's figures (means over its repeats) and what the analysis made of it.
struct LevelView {
  double level = 0;
  int repeats = 1;
  std::optional<double> target_rps;
  double achieved_rps = 0;
  double goodput_rps = 0;  // what the rules judge (achieved_rps in a file that predates it)
  std::optional<double> arrivals_rps, flows_per_s, flow_success_rate;
  std::optional<double> p50_ms, p95_ms, p99_ms;
  std::optional<double> requests;                             // sum over repeats
  std::optional<double> error_rate, rate_429, never_started;  // shares 0..1
  std::optional<double> server_cores, server_throttled_share, generator_cores, host_load1;
  std::optional<double> server_quota_cores, server_cpu_limit_cores;
  std::string server_cpu_source, server_throttle_source, server_cpu_limit_basis;
  bool server_cpu_bound = false;
  bool generator_busy = false;
  bool meets_slo = false;
  bool errors_meet_slo = true;
  std::vector<SloCheck> slo;
  std::vector<std::string> untrusted;  // "p99", "p95"
  std::optional<double> gain;
  std::string gain_text;  // "" for the first level
  bool short_of_target = false;
  std::optional<double> rps_per_server_core, server_cpu_ms_per_request;
  std::optional<double> achieved_cv, p95_cv;
  std::string
      verdict;  // "clean", "highest within SLO", "knee", "knee, highest within SLO", "saturated"
};

// rows[]: one run of one level, as recorded.
struct RowView {
  double level = 0;
  std::optional<double> repeat;
  std::optional<double> target_rps;
  double achieved_rps = 0;
  std::optional<double> goodput_rps, arrivals_rps, flows_per_s, flow_success_rate;
  std::optional<double> p50_ms, p95_ms, p99_ms, requests, responses;
  std::optional<double> error_rate, rate_429, never_started;
  std::optional<double> server_cores, server_throttled_share, generator_cores;
  std::optional<double> server_quota_cores, server_cpu_limit_cores;
  std::optional<bool> generator_busy;
  std::optional<double> host_load1, duration_s;
  std::string directory;  // "" for analyze
  std::string status;     // "complete", "aborted", "interrupted"; "" when not recorded
};

// events[]: a hook, a drain wait or the pre-check, in the order run.
struct EventView {
  std::string kind;  // "hook", "drain", "precheck"
  std::string name;  // "before-level", "drain", "precheck"
  std::optional<double> level, repeat;
  std::string command;
  std::optional<bool> ok;
  std::optional<double> exit_code;
  bool timed_out = false;
  std::optional<double> duration_s;
  std::string output_file;
  std::string detail;
};

struct SearchStepView {
  double rate_rps = 0;
  std::string phase;  // "grow", "bisect", "confirm"
  bool passed = false;
  std::optional<size_t> row;  // index into rows
};

struct SearchView {
  std::optional<double> start_rps, growth, tolerance, step_hold_s, max_rps, found_rps;
  std::vector<SearchStepView> steps;
  bool confirmed = false;
  std::string end_reason;
};

struct LevelRef {
  double level = 0;
  double achieved_rps = 0;
  double goodput_rps = 0;  // achieved_rps in a file that predates goodput
};

struct LadderView {
  std::string kind;    // "ladder", "search", "analyze"
  std::string status;  // "complete", "stopped", "aborted", "failed", "interrupted"
  std::string end_reason;
  std::string proofload_version, command_line, started_at, finished_at;
  std::string target, scenario_file, scenario_sha256, table_file, table_sha256;

  // settings
  std::string loop;  // "closed", "open"; "" when not recorded
  std::vector<double> planned_levels;
  std::optional<double> hold_s, warmup_s, repeat;
  std::string repeat_order;
  bool stop_on_fail = false;
  std::optional<bool> server_observed;
  std::vector<std::string> observe;

  // ci_bar: --fail-if-none / --fail-below and whether the result met them (nullopt: not asked).
  std::optional<bool> ci_bar_passed;
  std::string ci_bar_reason;

  std::vector<RowView> rows;
  std::vector<EventView> events;
  std::optional<SearchView> search;

  // analysis
  std::string slo_text, slo_description;
  bool slo_is_default = false;
  std::optional<bool> count_429_as_error;
  std::optional<double> noise_floor;
  std::string noise_floor_source, noise_floor_text;
  std::vector<LevelView> levels;  // ascending, never empty
  std::optional<LevelRef> knee;
  std::string knee_reason;
  std::optional<LevelRef> best_sustained;
  std::string best_sustained_text;
  std::optional<LevelRef> peak;
  std::optional<double> plateau_from_level;
  std::optional<double> operating_target_rps, operating_fraction;
  std::string operating_basis;
  std::optional<double> daily_at_operating_target, daily_at_best_sustained;
  std::optional<double> daily_significant_digits;
};

// Required: schema ("proofload.ladder/v1"), kind, status, analysis.levels (not empty) with each
// level's `level` and `achieved_rps`, and each row's `level` and `achieved_rps`. Everything else
// may be missing or null.
LadderView read_ladder(const nlohmann::json& result);

// Only what levels.csv needs: schema and rows (each with level and achieved_rps); verdicts from
// analysis.levels and a search's steps when present.
LadderView read_ladder_rows(const nlohmann::json& result);

// The analysis level with exactly this level, or nullptr.
const LevelView* find_level(const LadderView& view, double level);

}  // namespace proofload::report::ladder
