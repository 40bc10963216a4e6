// `proofload report DIR`: re-renders a directory's report from its recorded data. A ladder's (or
// an analysis's): the analysis is recomputed from result.json's rows and settings, then
// result.json, summary.md and levels.csv are rewritten. A single run's: summary.md is rendered
// again from result.json, which is left as it is. A soak's: from its result.json, or rebuilt from
// windows.csv, canaries.csv and marks.log when it was killed before writing it; a probe's alike,
// from its per-second CSVs. A comparison's: judged again from the runs its result.json records.
// A sizing's: each configuration's figures read again from its ladder's directory.
// The same data always gives the same bytes. Which kind a directory holds, and how each is
// rendered, is the registry's (registry/experiment_kinds.h).
#include <filesystem>

#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "registry/experiment_kinds.h"

namespace proofload::cli {
namespace {

int run_report(const std::string& directory) {
  if (const registry::ExperimentKind* kind = registry::kind_owning(directory)) {
    return kind->rerender(directory, nullptr);
  }
  const std::filesystem::path file = std::filesystem::path(directory) / "result.json";
  // Read once, both to learn what the directory holds and to render a run's report.
  const report::RunForReport read = registry::read_for_report(file);
  const std::string schema = read.result.is_object() ? read.result.value("schema", "") : "";
  const registry::ExperimentKind* kind = registry::kind_with_schema(schema);
  if (!kind) {
    throw UsageError(file.string() + " has schema '" + schema + "', not " +
                     registry::kind_names(registry::any_kind, true));
  }
  return kind->rerender(directory, &read);
}

}  // namespace

Subcommand add_report_command(CLI::App& parent) {
  auto directory = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "report",
      "Re-render a directory's report from its data: a run's summary.md, a ladder's summary.md, "
      "levels.csv and analysis, or a soak's or probe's (rebuilt from its streamed files if it was "
      "killed), or a comparison's (judged again from its runs), or a sizing's (each "
      "configuration's figures read again)");
  app->add_option("directory", *directory,
                  "The result directory of a run, ladder, analysis, soak, probe, comparison or "
                  "sizing")
      ->required();
  return {app, [directory] { return run_report(*directory); }};
}

}  // namespace proofload::cli
