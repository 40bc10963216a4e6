// `proofload report DIR`: re-renders a directory's report from its recorded data. A ladder's (or
// an analysis's): the analysis is recomputed from result.json's rows and settings, then
// result.json, summary.md and levels.csv are rewritten. A single run's: summary.md is rendered
// again from result.json, which is left as it is. A soak's: from its result.json, or rebuilt from
// windows.csv, canaries.csv and marks.log when it was killed before writing it; a probe's alike,
// from its per-second CSVs. A comparison's: judged again from the runs its result.json records.
// A sizing's: each configuration's figures read again from its ladder's directory.
// The same data always gives the same bytes.
#include <cstdio>
#include <fstream>

#include "cli/subcommand.h"
#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "experiments/compare_record.h"
#include "experiments/ladder_record.h"
#include "experiments/probe_record.h"
#include "experiments/sizing_record.h"
#include "experiments/soak_record.h"
#include "report/atomic_file.h"
#include "report/result_directory.h"
#include "report/run_report.h"
#include "result/recorded_json.h"

namespace proofload::cli {
namespace {

// result.json with a run's windows thinned as its report.html draws them (a long run's are
// many): read once, both to learn what the directory holds and to render a run's report.
report::RunForReport read_for_report(const std::filesystem::path& file) {
  RecordedFileStream in(file);
  if (!in) throw UsageError("cannot read " + file.string() + ": no such file");
  try {
    return report::parse_result_for_report(in);
  } catch (const nlohmann::json::exception&) {
    throw UsageError(file.string() + " is not JSON");
  } catch (const result::RecordedJsonTooDeep& e) {
    throw UsageError(file.string() + ": " + e.what());
  }
}

// A run's summary.md, rendered as ResultDirectory::finish rendered it, from the same data.
int rerender_run(const std::string& directory, const std::filesystem::path& file,
                 const report::RunForReport& run) {
  const nlohmann::json& result = run.result;
  if (result.value("status", "") == "running") {
    throw UsageError(file.string() +
                     " holds a run that never finished (status running): it has no summary to "
                     "render");
  }
  // A run that finished on a full disk left its windows in the journal: put them in now.
  const bool completed =
      result.contains("pending_windows") && report::complete_pending_windows(directory);
  if (completed) {
    std::printf("report: put the pending windows into result.json in %s\n", directory.c_str());
  }
  try {
    if (completed) {
      report::write_run_reports(directory);
    } else {
      report::write_run_reports(directory, run);
    }
  } catch (const std::runtime_error& e) {
    throw UsageError(file.string() + " does not hold a run's recorded data: " + e.what());
  }
  std::printf("report: rewrote summary.md and report.html in %s\n", directory.c_str());
  return kExitOk;
}

// A soak's report: from its result.json, or rebuilt from what it streamed when it was killed
// before writing one.
int soak_report(const std::string& directory) {
  result::SoakResult soak;
  try {
    soak = experiments::read_or_rebuild_soak(directory);
  } catch (const std::exception& e) {
    throw UsageError(directory + " does not hold a soak's recorded data: " + e.what());
  }
  experiments::write_soak_directory(directory, soak);
  std::printf("report: %s result.json, summary.md and windows.csv in %s\n",
              soak.rebuilt ? "rebuilt" : "rewrote", directory.c_str());
  return kExitOk;
}

// A probe's report: from its result.json, or rebuilt from its per-second CSVs.
int probe_report(const std::string& directory) {
  result::ProbeResult probe;
  try {
    probe = experiments::read_or_rebuild_probe(directory);
  } catch (const std::exception& e) {
    throw UsageError(directory + " does not hold a probe's recorded data: " + e.what());
  }
  experiments::write_probe_directory(directory, probe);
  std::printf("report: %s result.json, summary.md and the sources' CSVs in %s\n",
              probe.rebuilt ? "rebuilt" : "rewrote", directory.c_str());
  return kExitOk;
}

// A comparison's report: judged again from the runs it recorded.
int compare_report(const std::string& directory, const std::filesystem::path& file,
                   const nlohmann::json& recorded) {
  result::CompareResult compare;
  try {
    compare = result::compare_from_json(recorded);
  } catch (const std::runtime_error& e) {
    throw UsageError(file.string() + " does not hold a comparison's recorded data: " + e.what());
  }
  experiments::write_compare_directory(directory, compare);
  std::printf("report: judged again; rewrote result.json, summary.md and cells.csv in %s\n",
              directory.c_str());
  return kExitOk;
}

// A sizing's report: each configuration's figures read again from its ladder's directory.
int sizing_report(const std::string& directory, const std::filesystem::path& file,
                  const nlohmann::json& recorded) {
  result::SizingResult sizing;
  try {
    sizing = result::sizing_from_json(recorded);
  } catch (const std::runtime_error& e) {
    throw UsageError(file.string() + " does not hold a sizing's recorded data: " + e.what());
  }
  experiments::refresh_config_figures(directory, sizing);
  experiments::write_sizing_directory(directory, sizing);
  std::printf("report: rewrote result.json and summary.md in %s\n", directory.c_str());
  return kExitOk;
}

int run_report(const std::string& directory) {
  if (experiments::is_soak_directory(directory)) return soak_report(directory);
  if (experiments::is_probe_directory(directory)) return probe_report(directory);
  const std::filesystem::path file = std::filesystem::path(directory) / "result.json";
  report::RunForReport read = read_for_report(file);
  const std::string schema = read.result.is_object() ? read.result.value("schema", "") : "";
  if (schema == report::kResultSchema) return rerender_run(directory, file, read);
  nlohmann::json head = std::move(read.result);
  if (head.is_object()) head.erase("windows");  // only a run's are read
  if (schema == result::kCompareSchema) return compare_report(directory, file, head);
  if (schema == result::kSizingSchema) return sizing_report(directory, file, head);
  if (schema != result::kLadderSchema) {
    throw UsageError(file.string() + " has schema '" + schema + "', not " + result::kLadderSchema +
                     " or " + report::kResultSchema);
  }
  const nlohmann::json recorded = result::read_recorded_json(file.string());
  result::LadderResult ladder;
  try {
    ladder = result::ladder_from_json(recorded);
  } catch (const std::runtime_error& e) {
    throw UsageError(file.string() + " does not hold a ladder's recorded data: " + e.what());
  }
  experiments::write_ladder_directory(directory, ladder);
  std::printf("report: rewrote result.json, summary.md and levels.csv in %s\n", directory.c_str());
  return kExitOk;
}

}  // namespace

Subcommand add_report_command(CLI::App& parent) {
  auto directory = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "report",
      "Re-render a directory's report from its data: a run's summary.md, a ladder's summary.md, "
      "levels.csv and analysis, or a soak's or probe's (rebuilt from its streamed files if it was "
      "killed), or a comparison's (judged again from its runs)");
  app->add_option("directory", *directory,
                  "The result directory of a run, ladder, analysis, soak, probe or comparison")
      ->required();
  return {app, [directory] { return run_report(*directory); }};
}

}  // namespace proofload::cli
