// The experiments, registered once: for each kind, its command, the schema of its result.json, how
// `proofload report` renders its directory again, how `proofload merge` joins its segments (or
// that it has no merge), whether its command takes --segment, and the table `export --format csv`
// hands out. `report`, `merge`, `export` and `k8s job` look kinds up here instead of keeping lists
// of their own. Configuration time, one thread.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "report/run_report.h"
#include "result/segment_record.h"

namespace CLI {
class App;
}  // namespace CLI
namespace proofload::cli {
struct Subcommand;
}  // namespace proofload::cli

namespace proofload::registry {

// What merging a kind's segments made: its merge record, and whether the whole load met what the
// experiment exits 0 for (a run's thresholds, a ladder's CI bar, a soak's bar, a probe's verdict).
struct Merged {
  result::MergeRecord record;
  bool held = true;
};

struct ExperimentKind {
  const char* name;  // "run", "ladder", ...: its command's, as `merge` and `k8s job` say it
  // Its command (cli/experiment_commands.h, defined in cli/NAME_command.cc): registers its flags
  // on `parent`, given this entry, and returns what runs it. main adds every kind's.
  cli::Subcommand (*add_command)(CLI::App& parent, const ExperimentKind& kind);
  const char* schema;  // result.json's "schema"
  // The kind is known from the directory's files before (or without) its result.json: a run
  // segment's segment.jsonl, a soak's or probe's plan file, written as its load starts. Null: it
  // is known by its schema alone.
  bool (*owns_directory)(const std::filesystem::path& directory);
  // `report DIR`: renders the directory's report again and says so on stdout; returns the exit
  // code. `read` is its result.json as read for a report, null when the kind owned the directory
  // (then it reads what it needs). Throws UsageError.
  int (*rerender)(const std::string& directory, const report::RunForReport* read);
  // `merge`: the segments' directories into `out`; null for a kind that has no merge.
  Merged (*merge)(const std::vector<std::filesystem::path>& directories,
                  const std::filesystem::path& out);
  bool takes_segment;  // its command takes --segment I/N (and so `k8s job` can run it)
  const char* older_schema;  // an older schema of its result.json, still read; null: none
  const char* csv_table;     // the directory's one table (`export --format csv`); null: none
};

// Every kind, in the order a directory is tried: run, ladder, soak, probe, compare, sizing.
const std::vector<ExperimentKind>& experiment_kinds();

// The kind that owns `directory` (owns_directory), else nullptr.
const ExperimentKind* kind_owning(const std::filesystem::path& directory);
// The kind whose result.json has this schema (or its older one), else nullptr.
const ExperimentKind* kind_with_schema(const std::string& schema);

// "run, ladder, soak or probe": the names of the kinds `picked` holds, in order; with `schemas`,
// their schemas.
std::string kind_names(bool (*picked)(const ExperimentKind&), bool schemas = false);
inline bool any_kind(const ExperimentKind&) { return true; }
inline bool mergeable(const ExperimentKind& kind) { return kind.merge != nullptr; }
inline bool takes_segment(const ExperimentKind& kind) { return kind.takes_segment; }

// result.json read for a report, a run's windows thinned as its report.html draws them.
// Throws UsageError (no such file, not JSON, too deep).
report::RunForReport read_for_report(const std::filesystem::path& file);

}  // namespace proofload::registry
