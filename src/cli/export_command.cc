// `proofload export DIR --format openmetrics|csv [-o FILE]`: a recorded result in a form other
// tools read. openmetrics: a run's windows, each sample at its window's end on the wall clock
// (report/openmetrics_export.h), for `promtool tsdb create-blocks-from openmetrics`; a ladder's
// levels are runs of their own (levels/NN-LEVEL). csv: the table the directory already keeps
// (a run's or soak's windows.csv, a ladder's levels.csv, a comparison's cells.csv), so scripts
// need not know which. prom-remote-write-json is not offered: remote write is protobuf over
// HTTP, with no JSON form a receiver accepts; the OpenMetrics file and promtool's backfill put a
// run into Prometheus instead.
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "report/atomic_file.h"
#include "report/openmetrics_export.h"
#include "result/compare_result.h"
#include "result/ladder_result.h"
#include "result/run_record.h"
#include "result/soak_result.h"

namespace proofload::cli {
namespace {

struct ExportFlags {
  std::string directory;
  std::string format;
  std::string out;  // "" : stdout
};

std::string read_all(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read " + file.string() + ": no such file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string schema_of(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UsageError("cannot read " + file.string() + ": no such file");
  // Only the schema is kept: a long run's windows are read past, never held.
  const nlohmann::json::parser_callback_t schema_only =
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed != "schema");
      };
  const nlohmann::json head = nlohmann::json::parse(in, schema_only, false);
  if (head.is_discarded() || !head.is_object()) throw UsageError(file.string() + " is not JSON");
  return head.value("schema", "");
}

std::string export_text(const ExportFlags& f) {
  const std::filesystem::path dir(f.directory);
  const std::filesystem::path result = dir / "result.json";
  const std::string schema = schema_of(result);
  if (f.format == "openmetrics") {
    if (schema != result::kRunSchema) {
      throw UsageError("export --format openmetrics takes a run's directory (" + result.string() +
                       " is '" + schema +
                       "'); a ladder's levels are runs of their own: " + f.directory + "/levels/*");
    }
    const nlohmann::json run = nlohmann::json::parse(read_all(result), nullptr, false);
    if (run.is_discarded()) throw UsageError(result.string() + " is not JSON");
    try {
      return report::run_openmetrics(run);
    } catch (const std::runtime_error& e) {
      throw UsageError(result.string() + ": " + e.what());
    }
  }
  const char* table = schema == result::kRunSchema || schema == result::kSoakSchema ? "windows.csv"
                      : schema == result::kLadderSchema                             ? "levels.csv"
                      : schema == result::kCompareSchema                            ? "cells.csv"
                                                                                    : nullptr;
  if (table == nullptr) {
    throw UsageError("export --format csv: " + f.directory + " ('" + schema +
                     "') keeps no single table; its CSV files are in the directory");
  }
  return read_all(dir / table);
}

int run_export(const ExportFlags& f) {
  const std::string text = export_text(f);
  if (f.out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    report::write_file_atomically(f.out, text);
  }
  return kExitOk;
}

}  // namespace

Subcommand add_export_command(CLI::App& parent) {
  auto flags = std::make_shared<ExportFlags>();
  CLI::App* app = parent.add_subcommand(
      "export",
      "Write a recorded result for other tools: a run's windows as OpenMetrics (for promtool's "
      "backfill into Prometheus), or the directory's table as CSV");
  app->add_option("directory", flags->directory, "A result directory")->required();
  app->add_option("--format", flags->format, "openmetrics or csv")
      ->required()
      ->check(CLI::IsMember({"openmetrics", "csv"}));
  app->add_option("-o,--out", flags->out, "Write here (atomically) instead of to stdout");
  return {app, [flags] { return run_export(*flags); }};
}

}  // namespace proofload::cli
