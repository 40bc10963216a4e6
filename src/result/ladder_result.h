// A ladder's result.json (schema proofload.ladder/v1, kinds "ladder", "search" and "analyze";
// docs/result-schema.md "Ladder") as one typed value, LadderResult, with its paired to_json and
// from_json: `proofload ladder` and `proofload analyze` write it, `proofload report` and the
// ladder's summary.md and levels.csv read it, so a field is added in one place. The rows are
// analyze::LevelRow (level_row_json.h) and the analysis analyze::LadderAnalysis
// (ladder_analysis_json.h), as the analysis computes them.
//
// Reading (from_json) is of a file this or an earlier proofload wrote, or one edited by hand: a
// missing or null optional key is the field's "not recorded" (nullopt, "", empty); a missing
// required key or a value of the wrong type throws std::runtime_error naming the key
// ("ladder result.json: 'rows[2].level' is missing"). Required: schema, kind (ladder, search or
// analyze) and status; each row's level and achieved_rps; each search step's rate_rps; and, when
// `analysis` is not null, its levels (see ladder_analysis_json.h). Pure; thread-safe.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/ladder_analysis.h"
#include "analyze/level_row.h"
#include "result/event.h"
#include "result/experiment_header.h"
#include "result/json_reader.h"
#include "result/segment_record.h"

namespace proofload::result {

constexpr const char* kLadderSchema = "proofload.ladder/v1";

// rows[]: one run of one level as recorded, and where that run's own files are.
struct LadderRow {
  analyze::LevelRow figures;
  std::string directory;  // "levels/03-400" under the ladder's directory; "" for analyze
  std::string status;     // "complete", "aborted", "interrupted"; "" when not recorded
};

// search.steps[]: one rate the search tried.
struct SearchStep {
  double rate_rps = 0;
  std::string phase;  // "grow", "bisect", "confirm"
  bool passed = false;
  std::optional<size_t> row;  // index into rows
};

// search: a rate search's settings, steps and answer (null for a ladder).
struct SearchRecord {
  std::optional<double> start_rps, growth, tolerance, step_hold_s, max_rps;
  std::vector<SearchStep> steps;
  std::optional<double> found_rps;
  bool confirmed = false;
  std::string end_reason;  // "" while it runs
};

struct LadderHookCommands {
  std::optional<std::string> before_level, after_level, reset, restore;
};

// settings: how the ladder was asked to run and judge. A table's analysis records only the
// judgement (slo .. operating_fraction) and the loop, and is written so.
struct LadderSettings {
  std::string loop;  // "closed", "open"; "" when not recorded
  std::vector<double> levels;
  std::optional<double> hold_s, warmup_s;
  std::optional<int> repeat;
  std::string repeat_order;  // "sequence", "interleaved"
  bool stop_on_fail = false;
  bool fail_if_none = false;
  std::optional<double> fail_below_rps, max_concurrency, max_rate;
  std::optional<std::string> precheck, abort_when, drain_until;
  std::optional<double> drain_timeout_s;
  LadderHookCommands hooks;
  std::optional<double> hook_timeout_s;
  std::vector<std::string> observe;
  std::optional<bool> server_observed;
  // The judgement: what the analysis is recomputed under.
  std::string slo;  // "" when not recorded
  bool slo_is_default = false;
  std::optional<bool> count_429_as_error;
  std::optional<double> noise_floor;  // stated with --noise-floor; else measured or the default
  std::optional<double> operating_fraction;
};

// ci_bar: --fail-if-none / --fail-below and whether the result met them.
struct CiBar {
  bool fail_if_none = false;
  std::optional<double> fail_below_rps;
  std::optional<bool> passed;  // nullopt: not recorded
  std::string reason;          // why it failed; "" when it passed
};

// What an analysis in the file left out where analyze::LadderAnalysis holds a value regardless
// (an older or hand-edited file), so that a report says "not recorded" instead of presenting a
// default as found.
struct AnalysisRecorded {
  bool loop = true;                      // analysis.loop
  bool noise_floor = true;               // analysis.noise_floor.value (and its source)
  bool count_429_as_error = true;        // settings' or analysis.slo's count_429_as_error
  bool daily_significant_digits = true;  // analysis.daily_capacity.significant_digits
  std::vector<bool> verdicts;            // per level of the analysis: its verdict was written
};

// Its header (status, times, source, events, segment and merge records) is ExperimentRecord's;
// rebuilt and run_directory are not a ladder's and are never written.
struct LadderResult : ExperimentRecord {
  std::string kind;  // "ladder", "search", "analyze"
  LadderSettings settings;
  std::optional<CiBar> ci_bar;  // nullopt: no bar was set
  std::vector<LadderRow> rows;  // in the order run
  std::optional<SearchRecord> search;
  // null until a level has run (a pre-check or the first drain gate failed, or in progress).
  std::optional<analyze::LadderAnalysis> analysis;
  AnalysisRecorded recorded;
  // segment (ExperimentRecord's): this ladder was segment I of N of one load (--segment; each
  // level's run records its own start); merged: N segments' ladders merged level by level.

  // The analysis's level with exactly this level, or nullptr (levels are ascending: log time).
  const analyze::LevelAnalysis* level(double level) const;
  // Rows that are a search's confirming runs: reported apart from the analysis of its steps.
  std::vector<bool> confirming_rows() const;
};

nlohmann::json ladder_to_json(const LadderResult& result);
// `source`, as a ladder's and a soak's result.json record it.
nlohmann::json source_to_json(const LadderSource& source);
LadderSource source_from_json(const JsonReader& source);
LadderResult ladder_from_json(const nlohmann::json& result);

// Only what levels.csv needs: schema, rows (required), search and the analysis's levels.
LadderResult ladder_rows_from_json(const nlohmann::json& result);

}  // namespace proofload::result
