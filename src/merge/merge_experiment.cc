// See merge_experiment.h.
#include "merge/merge_experiment.h"

#include <nlohmann/json.hpp>

#include "common/usage_error.h"
#include "registry/experiment_kinds.h"
#include "result/recorded_json.h"

namespace proofload::merge {

namespace fs = std::filesystem;

namespace {

// What a segment's directory holds: the kind that owns it (a run's segment.jsonl, a soak's or a
// probe's plan), else the kind of its result.json's schema (a ladder's); one with a merge.
const registry::ExperimentKind& kind_of(const fs::path& directory) {
  if (const registry::ExperimentKind* kind = registry::kind_owning(directory)) return *kind;
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
  const registry::ExperimentKind* kind = registry::kind_with_schema(schema);
  // A kind that owns its segments' directories (a run's segment.jsonl) is not one by schema alone.
  if (!kind || !kind->merge || kind->owns_directory) {
    throw UsageError("merge: " + directory.string() + " is not a segment's directory (" +
                     registry::kind_names(registry::mergeable) + " with --segment I/N)");
  }
  return *kind;
}

}  // namespace

MergeSummary merge_segments(const std::vector<fs::path>& directories, const fs::path& out) {
  if (directories.empty()) throw UsageError("merge needs the segments' directories");
  for (const fs::path& d : directories) {
    std::error_code ignored;
    if (fs::weakly_canonical(d, ignored) == fs::weakly_canonical(out, ignored))
      throw UsageError("merge: --out " + out.string() + " is a segment");
  }
  const registry::ExperimentKind& kind = kind_of(directories.front());
  for (const fs::path& d : directories) {
    if (const registry::ExperimentKind& other = kind_of(d); &other != &kind) {
      throw UsageError("merge: " + d.string() + " holds a " + other.name + ", " +
                       directories.front().string() + " a " + kind.name +
                       ": not one load's segments");
    }
  }
  const registry::Merged merged = kind.merge(directories, out);
  return {kind.name, merged.record, merged.held};
}

}  // namespace proofload::merge
