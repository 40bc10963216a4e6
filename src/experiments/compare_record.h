// A comparison's record on disk: each cell's figures read back from its run's result.json (the
// one reader for a comparison that ran and for directories recorded before), the re-judging of
// two recorded directories, and the comparison's own files (result.json, summary.md, cells.csv),
// each written atomically. Configuration and end time only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "analyze/compare_analysis.h"
#include "result/compare_result.h"
#include "result/run_record.h"

namespace proofload::experiments {

inline constexpr const char* kCompareCellsCsv = "cells.csv";

// What one run shows for one check: the metric (nullopt when it measured none), its requests and
// errors. `check` names a request of the run's scenario; a run without named requests is one
// check whatever its name. cpu_per_request is the server's CPU ms per request, from the observer
// its CPU came from (ObservedSummary's cpu_ms_per_request).
struct CellFigures {
  std::optional<double> value;
  int64_t requests = 0, errors = 0;
};
CellFigures cell_figures(const result::RunRecord& run, const std::string& check,
                         analyze::CompareMetric metric);

// Fills in a cell's value, requests, errors and status from its run directory (out_dir /
// run.directory); a directory without a readable result.json leaves no value and its status
// "not recorded".
void read_cell(const std::filesystem::path& out_dir, result::CompareRun& run,
               analyze::CompareMetric metric);

// Two recorded directories judged again, sending nothing: every run directory under each (a
// directory holding a run's result.json, at any depth) is a repeat; its scenario's named requests
// are the checks (a plain run is one check, named after its URL's path), and the path of its
// parent directory below a_dir or b_dir is the condition ("" at the top). A comparison's own
// a/ and b/ directories read back so. UsageError for a directory holding no run.
result::CompareResult rejudge_recorded(const std::filesystem::path& a_dir,
                                       const std::filesystem::path& b_dir,
                                       result::CompareResult initial);

// result.json, summary.md and cells.csv.
void write_compare_directory(const std::filesystem::path& out_dir,
                             const result::CompareResult& result);

}  // namespace proofload::experiments
