// A comparison's result.json (schema proofload.compare/v1, kind "compare"; docs/result-schema.md
// "Compare") as one typed value, CompareResult, with its paired to_json and from_json:
// `proofload compare` writes it after every cell, `proofload report` reads it. Every cell's run
// is kept (compare.runs[]: side, check, condition, repeat, the metric's value, its requests and
// errors, and where its run directory is), so the judgement (compare.checks[], the headline)
// is made again from them whenever the file is read: re-judged, never trusted as written.
//
// Reading follows ladder_result.h: a missing or null optional key is "not recorded"; a missing
// required key or a value of the wrong type throws std::runtime_error naming the key. Pure.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "analyze/compare_analysis.h"
#include "result/experiment_record.h"

namespace proofload::result {

constexpr const char* kCompareSchema = "proofload.compare/v1";

// settings: what was compared, how each cell ran and how it was judged.
struct CompareSettings {
  std::string matrix_file;  // "" when re-judging recorded directories
  std::string metric = "p50";
  int64_t repeat = 3;
  double min_effect = 0.05;
  int64_t min_repeats = 3;
  std::vector<std::string> conditions;  // "cold", "warm"
  std::vector<std::string> settings;    // the settings' names
  std::string a, b;  // what each side is: a URL, "the target after --a-apply", a directory
  // "targets" (two URLs), "hooks" (one target switched by --a-apply / --b-apply), "recorded"
  std::string mode = "targets";
  // A/A: both sides are one target (no hooks, or the same hook), or one recorded directory, so
  // every difference found is the matrix's noise; how a matrix's noise is measured.
  bool a_a = false;
  std::string order;  // the order the cells ran, in words
  std::optional<int64_t> connections;
  std::optional<double> rate_per_s;
  double duration_s = 0;
  double warmup_s = 0;  // a warm cell's warm-up pass
  std::optional<int64_t> cold_requests;  // run.cold_requests: a cold cell's requests
};

// One cell's run: one check, under one condition, on one side, one repeat.
struct CompareRun {
  std::string side;  // "a" or "b"
  std::string check, condition;
  int64_t repeat = 1;
  std::string directory;  // the run's result directory, relative to the comparison's
  std::string status;     // the run's: "complete", "interrupted", "failed", ...
  std::optional<double> value;  // the metric; nullopt: it measured nothing
  int64_t requests = 0, errors = 0;
};

struct CompareResult : ExperimentRecord {
  CompareSettings settings;
  std::vector<CompareRun> runs;     // in the order they ran
  analyze::CompareAnalysis analysis;  // judge_compare over `runs`
};

// The cells of `runs` (a check under a condition, in the order first run, each side's values in
// the order run; a run without a value adds its errors only), and their judgement under
// `settings`' metric, minimum effect and repeats.
std::vector<analyze::CompareCell> compare_cells(const std::vector<CompareRun>& runs);
void judge_compare(CompareResult& result);

nlohmann::json compare_to_json(const CompareResult& result);
// Reads the file and judges its runs again (judge_compare).
CompareResult compare_from_json(const nlohmann::json& result);

}  // namespace proofload::result
