// `proofload report DIR`: re-renders a ladder's (or an analysis's) files from its recorded data:
// the analysis is recomputed from result.json's rows and settings, then result.json, summary.md
// and levels.csv are rewritten. The same data always gives the same bytes.
#include <cstdio>
#include <fstream>

#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "experiments/ladder_result.h"

namespace proofload::cli {
namespace {

int run_report(const std::string& directory) {
  const std::filesystem::path file = std::filesystem::path(directory) / "result.json";
  std::ifstream in(file);
  if (!in) throw UsageError("cannot read " + file.string() + ": no such file");
  nlohmann::json result = nlohmann::json::parse(in, nullptr, false);
  if (result.is_discarded()) throw UsageError(file.string() + " is not JSON");
  const std::string schema = result.value("schema", "");
  if (schema == "proofload.result/v1") {
    throw UsageError(directory + " holds a single run; `proofload report` re-renders ladder and "
                     "analyze directories (a run's summary is printed by `proofload run`)");
  }
  if (schema != experiments::kLadderSchema) {
    throw UsageError(file.string() + " has schema '" + schema + "', not " +
                     experiments::kLadderSchema);
  }
  try {
    experiments::write_ladder_directory(directory, result);
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(file.string() + " does not hold a ladder's recorded data: " + e.what());
  }
  std::printf("report: rewrote result.json, summary.md and levels.csv in %s\n", directory.c_str());
  return kExitOk;
}

}  // namespace

Subcommand add_report_command(CLI::App& parent) {
  auto directory = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "report", "Re-render a ladder's report (summary.md, levels.csv, the analysis) from its data");
  app->add_option("directory", *directory, "The ladder's or analysis's result directory")->required();
  return {app, [directory] { return run_report(*directory); }};
}

}  // namespace proofload::cli
