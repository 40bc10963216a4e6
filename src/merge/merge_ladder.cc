// See merge_ladder.h.
#include "merge/merge_ladder.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/usage_error.h"
#include "experiments/ladder.h"
#include "experiments/ladder_record.h"
#include "experiments/segment_file.h"
#include "merge/merge_run.h"
#include "result/recorded_json.h"

namespace proofload::merge {
namespace {

namespace fs = std::filesystem;

struct SegmentLadder {
  fs::path directory;
  result::LadderResult ladder;
};

result::LadderResult read_ladder(const fs::path& directory) {
  const nlohmann::json parsed = result::read_recorded_json((directory / "result.json").string());
  try {
    return result::ladder_from_json(parsed);
  } catch (const std::runtime_error& e) {
    throw UsageError((directory / "result.json").string() + ": " + e.what());
  }
}

}  // namespace

result::MergeRecord merge_ladders(const std::vector<fs::path>& directories, const fs::path& out) {
  std::vector<SegmentLadder> segments;
  for (const fs::path& d : directories) {
    SegmentLadder s{d, read_ladder(d)};
    if (s.ladder.kind != "ladder" || !s.ladder.segment) {
      throw UsageError(d.string() + " is not a segment's ladder (run with --segment I/N)");
    }
    segments.push_back(std::move(s));
  }
  std::sort(segments.begin(), segments.end(), [](const SegmentLadder& a, const SegmentLadder& b) {
    return a.ladder.segment->index < b.ladder.segment->index;
  });
  const result::LadderResult& first = segments.front().ladder;
  std::vector<std::pair<fs::path, result::SegmentRecord>> given;
  for (const SegmentLadder& s : segments) {
    const result::LadderResult& l = s.ladder;
    if (l.settings.levels != first.settings.levels || l.settings.loop != first.settings.loop ||
        l.settings.slo != first.settings.slo || l.source.target != first.source.target) {
      throw UsageError(s.directory.string() + " is a segment of another ladder than " +
                       segments.front().directory.string() + " (its levels, SLO or target differ)");
    }
    given.emplace_back(s.directory, *l.segment);
  }
  const result::MergeRecord record = segments_record(given);

  // Each level's runs, by their directory in every segment (the same plan names them alike).
  std::vector<std::string> level_directories;
  std::map<std::string, const result::LadderRow*> level_row;
  for (const SegmentLadder& s : segments) {
    for (const result::LadderRow& row : s.ladder.rows) {
      if (level_row.emplace(row.directory, &row).second) level_directories.push_back(row.directory);
    }
  }
  std::sort(level_directories.begin(), level_directories.end());

  result::LadderResult merged = first;
  merged.rows.clear();
  merged.segment.reset();
  merged.command_line = merged_command(first.command_line, record.count);
  const analyze::Slo slo = experiments::slo_of(first.settings);
  const bool open = first.settings.loop == "open";
  for (const std::string& name : level_directories) {
    std::vector<fs::path> runs;
    bool any_finished = false;
    for (const SegmentLadder& s : segments) {
      const fs::path run = within(s.directory, name);
      if (fs::exists(run / experiments::kSegmentFile)) {
        runs.push_back(run);
        any_finished = any_finished || run_finished(run);
      }
    }
    // A level no segment finished (each was killed in it) has nothing whole to merge.
    if (!any_finished) continue;
    const report::RunResult run = merge_runs(runs, within(out, name));
    const result::LadderRow& any = *level_row.at(name);
    const analyze::LevelRow row =
        experiments::row_from_run(run, any.figures.level, any.figures.repeat, open, slo);
    merged.rows.push_back({row, name,
                           run.aborted       ? "aborted"
                           : run.interrupted ? "interrupted"
                                             : "complete"});
  }
  // The merge ran as far as its least finished segment.
  const SegmentLadder* worst = &segments.front();
  for (const SegmentLadder& s : segments) {
    if (ending_severity(s.ladder.status) > ending_severity(worst->ladder.status)) worst = &s;
  }
  merged.status = worst->ladder.status == "running" ? "interrupted" : worst->ladder.status;
  merged.end_reason =
      worst->ladder.status == "running"
          ? fmt::format("segment {} stopped before its end (killed)", worst->ladder.segment->index)
      : worst->ladder.status == "complete"
          ? worst->ladder.end_reason
          : fmt::format("segment {}: {}", worst->ladder.segment->index, worst->ladder.end_reason);
  merged.merged = record;
  experiments::write_ladder_directory(out, merged);
  // --fail-if-none and --fail-below judged again, on the whole load's analysis.
  if (merged.settings.fail_if_none || merged.settings.fail_below_rps) {
    experiments::LadderPlan bar;
    bar.fail_if_none = merged.settings.fail_if_none;
    bar.fail_below_rps = merged.settings.fail_below_rps;
    const std::string failure = experiments::ci_bar_failure(bar, merged);
    merged.ci_bar = result::CiBar{bar.fail_if_none, bar.fail_below_rps, failure.empty(), failure};
    experiments::write_ladder_directory(out, merged);
  }
  return record;
}

}  // namespace proofload::merge
