// `proofload merge` of runs: the segments of one load (each a run directory written with
// --segment, holding its segment.jsonl) into one ordinary run directory, as if one generator had
// sent the whole load (docs/distributed.md). Windows are matched by wall-clock window and merged
// without loss (every histogram's counts added: the merged percentiles are those of one histogram
// of all the samples); the totals, measured spans and named requests are added; each segment's
// observers are kept under their own labels ("self_s1") and the generators' CPU and memory summed
// as "self"; thresholds are judged again on the merge. What is missing (a segment not given, one
// killed before its end) is recorded in `merged` and said by the report. Not thread-safe.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "report/run_result.h"
#include "result/segment_record.h"

namespace proofload::merge {

// Merges `directories` (in any order) into `out` (created; its files replaced) and returns the
// merged run as written (its `merged` says what it holds). Throws UsageError for segments that
// are not one load's (a different N, spec or window, an index twice, none finished),
// std::runtime_error for unreadable files.
// `on_window`, when given, sees each merged window as it is written, with its observers' figures
// (a soak folds them into its own windows).
using MergedWindow =
    std::function<void(const measure::WindowStats&, const std::vector<report::ObservedFigures>&)>;
report::RunResult merge_runs(const std::vector<std::filesystem::path>& directories,
                             const std::filesystem::path& out, const MergedWindow& on_window = {});

// The run in `directory` wrote its end: its result.json is no longer "running" (a segment killed
// before its end is left out whole).
bool run_finished(const std::filesystem::path& directory);

// DIRECTORY/NAME for a NAME a result file gives (a ladder's level, a soak's run): UsageError when
// it is not a relative path that stays inside (a hostile file must not send the merge elsewhere).
std::filesystem::path within(const std::filesystem::path& directory, const std::string& name);

// What the given segments of an experiment are as a merge: their records (with where each was
// read from) and the indexes missing. Throws UsageError when they are not of one N, or an index
// is given twice.
result::MergeRecord segments_record(
    const std::vector<std::pair<std::filesystem::path, result::SegmentRecord>>& given);

// How far an experiment got, for the worst of its segments' statuses to be the merge's: complete
// 0, stopped 1, aborted 2, interrupted 3, anything else (failed, running: killed) 4.
int ending_severity(const std::string& status);

// The command that repeats a segment's experiment for the whole load: its own, with the index
// of `--segment I/N` as a variable ("--segment $I/3"), run once on each machine.
std::string merged_command(const std::string& segment_command, int count);

}  // namespace proofload::merge
