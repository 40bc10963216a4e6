// See merge_experiment.h.
#include "merge/merge_experiment.h"

#include <nlohmann/json.hpp>

#include "common/usage_error.h"
#include "experiments/probe_record.h"
#include "experiments/segment_file.h"
#include "experiments/soak_record.h"
#include "merge/merge_experiments.h"
#include "merge/merge_ladder.h"
#include "merge/merge_run.h"
#include "result/ladder_result.h"
#include "result/recorded_json.h"

namespace proofload::merge {

namespace fs = std::filesystem;

namespace {

// What a segment's directory holds, from its files: a run's segment.jsonl, or the schema of an
// experiment's result.json.
std::string kind_of(const fs::path& directory) {
  if (fs::exists(directory / experiments::kSegmentFile)) return "run";
  // A soak and a probe write their plan when their load starts, their result.json at the end.
  if (experiments::is_soak_directory(directory)) return "soak";
  if (experiments::is_probe_directory(directory)) return "probe";
  if (!fs::exists(fs::symlink_status(directory / "result.json"))) {
    throw UsageError("merge: " + directory.string() +
                     " holds no segment.jsonl or result.json: not a segment's directory");
  }
  const nlohmann::json::parser_callback_t schema_only =
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed != "schema");
      };
  const nlohmann::json head =
      result::read_recorded_json((directory / "result.json").string(), schema_only);
  const std::string schema = head.is_object() ? head.value("schema", "") : "";
  if (schema == result::kLadderSchema) return "ladder";
  throw UsageError("merge: " + directory.string() + " is not a segment's directory (run, ladder, " +
                   "soak or probe with --segment I/N)");
}

result::LadderResult read_ladder_result(const fs::path& directory) {
  return result::ladder_from_json(result::read_recorded_json((directory / "result.json").string()));
}

}  // namespace

MergeSummary merge_segments(const std::vector<fs::path>& directories, const fs::path& out) {
  if (directories.empty()) throw UsageError("merge needs the segments' directories");
  for (const fs::path& d : directories) {
    std::error_code ignored;
    if (fs::weakly_canonical(d, ignored) == fs::weakly_canonical(out, ignored))
      throw UsageError("merge: --out " + out.string() + " is a segment");
  }
  const std::string kind = kind_of(directories.front());
  for (const fs::path& d : directories) {
    if (kind_of(d) != kind) {
      throw UsageError("merge: " + d.string() + " holds a " + kind_of(d) + ", " +
                       directories.front().string() + " a " + kind + ": not one load's segments");
    }
  }
  if (kind == "ladder") {
    const result::MergeRecord record = merge_ladders(directories, out);
    const result::LadderResult merged = read_ladder_result(out);
    return {kind, record, !merged.ci_bar || merged.ci_bar->passed.value_or(true)};
  }
  if (kind == "soak") {
    const result::MergeRecord record = merge_soaks(directories, out);
    return {kind, record, experiments::soak_held(experiments::read_or_rebuild_soak(out))};
  }
  if (kind == "probe") {
    const result::MergeRecord record = merge_probes(directories, out);
    return {kind, record, experiments::probe_held(experiments::read_or_rebuild_probe(out))};
  }
  const report::RunResult run = merge_runs(directories, out);
  return {kind, *run.merged, run.thresholds_passed()};
}

}  // namespace proofload::merge
