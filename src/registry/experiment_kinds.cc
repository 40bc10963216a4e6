// See experiment_kinds.h.
#include "registry/experiment_kinds.h"

#include <cstdio>
#include <fstream>

#include "cli/experiment_commands.h"
#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "experiments/compare_record.h"
#include "experiments/ladder_record.h"
#include "experiments/probe_record.h"
#include "experiments/segment_file.h"
#include "experiments/sizing_record.h"
#include "experiments/soak_record.h"
#include "merge/merge_experiments.h"
#include "merge/merge_ladder.h"
#include "merge/merge_run.h"
#include "report/atomic_file.h"
#include "report/result_directory.h"
#include "report/run_report.h"
#include "result/recorded_json.h"

namespace proofload::registry {

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

namespace {

namespace fs = std::filesystem;

fs::path result_file(const std::string& directory) { return fs::path(directory) / "result.json"; }

// result.json's head as read for a report (a run's windows left out: only a run reads them).
nlohmann::json head_of(const fs::path& file, const report::RunForReport* read) {
  nlohmann::json head = read ? read->result : read_for_report(file).result;
  if (head.is_object()) head.erase("windows");
  return head;
}

// A run's summary.md, rendered as ResultDirectory::finish rendered it, from the same data.
int rerender_run(const std::string& directory, const report::RunForReport* read) {
  const std::filesystem::path file = result_file(directory);
  const report::RunForReport run = read ? report::RunForReport{} : read_for_report(file);
  const report::RunForReport& recorded = read ? *read : run;
  const nlohmann::json& result = recorded.result;
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
      report::write_run_reports(directory, recorded);
    }
  } catch (const std::runtime_error& e) {
    throw UsageError(file.string() + " does not hold a run's recorded data: " + e.what());
  }
  std::printf("report: rewrote summary.md and report.html in %s\n", directory.c_str());
  return kExitOk;
}

// A soak's report: from its result.json, or rebuilt from what it streamed when it was killed
// before writing one.
int soak_report(const std::string& directory, const report::RunForReport*) {
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
int probe_report(const std::string& directory, const report::RunForReport*) {
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
int compare_report(const std::string& directory, const report::RunForReport* read) {
  const std::filesystem::path file = result_file(directory);
  const nlohmann::json recorded = head_of(file, read);
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
int sizing_report(const std::string& directory, const report::RunForReport* read) {
  const std::filesystem::path file = result_file(directory);
  const nlohmann::json recorded = head_of(file, read);
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

// A ladder's (or a search's, or an analysis's) report: the analysis recomputed from its rows and
// settings (its result.json as `report` read it: a ladder's has no windows to leave out).
int ladder_report(const std::string& directory, const report::RunForReport* read) {
  const std::filesystem::path file = result_file(directory);
  const nlohmann::json recorded = head_of(file, read);
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

bool owns_run(const fs::path& directory) {
  // A run written with --segment: its segment.jsonl, before (or instead of) a result.json.
  return fs::exists(directory / experiments::kSegmentFile);
}

Merged merge_run(const std::vector<fs::path>& directories, const fs::path& out) {
  const report::RunResult run = merge::merge_runs(directories, out);
  return {*run.merged, run.thresholds_passed()};
}

Merged merge_ladder(const std::vector<fs::path>& directories, const fs::path& out) {
  const result::MergeRecord record = merge::merge_ladders(directories, out);
  const result::LadderResult merged =
      result::ladder_from_json(result::read_recorded_json((out / "result.json").string()));
  return {record, !merged.ci_bar || merged.ci_bar->passed.value_or(true)};
}

Merged merge_soak(const std::vector<fs::path>& directories, const fs::path& out) {
  const result::MergeRecord record = merge::merge_soaks(directories, out);
  return {record, experiments::soak_held(experiments::read_or_rebuild_soak(out))};
}

Merged merge_probe(const std::vector<fs::path>& directories, const fs::path& out) {
  const result::MergeRecord record = merge::merge_probes(directories, out);
  return {record, experiments::probe_held(experiments::read_or_rebuild_probe(out))};
}

}  // namespace

const std::vector<ExperimentKind>& experiment_kinds() {
  static const std::vector<ExperimentKind> kinds = {
      {"run", cli::add_run_command, report::kResultSchema, owns_run, rerender_run, merge_run, true,
       result::kRunSchemaV1, "windows.csv"},
      {"ladder", cli::add_ladder_command, result::kLadderSchema, nullptr, ladder_report,
       merge_ladder, true, nullptr, "levels.csv"},
      {"soak", cli::add_soak_command, result::kSoakSchema, experiments::is_soak_directory,
       soak_report, merge_soak, true, result::kSoakSchemaV1, "windows.csv"},
      {"probe", cli::add_probe_command, result::kProbeSchema, experiments::is_probe_directory,
       probe_report, merge_probe, true, nullptr, nullptr},
      {"compare", cli::add_compare_command, result::kCompareSchema, nullptr, compare_report,
       nullptr, false, nullptr, "cells.csv"},
      {"sizing", cli::add_sizing_command, result::kSizingSchema, nullptr, sizing_report, nullptr,
       false, nullptr, nullptr},
  };
  return kinds;
}

const ExperimentKind* kind_owning(const fs::path& directory) {
  for (const ExperimentKind& kind : experiment_kinds()) {
    if (kind.owns_directory && kind.owns_directory(directory)) return &kind;
  }
  return nullptr;
}

const ExperimentKind* kind_with_schema(const std::string& schema) {
  for (const ExperimentKind& kind : experiment_kinds()) {
    if (schema == kind.schema || (kind.older_schema != nullptr && schema == kind.older_schema)) {
      return &kind;
    }
  }
  return nullptr;
}

std::string kind_names(bool (*picked)(const ExperimentKind&), bool schemas) {
  std::vector<const char*> names;
  for (const ExperimentKind& kind : experiment_kinds()) {
    if (picked(kind)) names.push_back(schemas ? kind.schema : kind.name);
  }
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += i == 0 ? "" : i + 1 == names.size() ? " or " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace proofload::registry
