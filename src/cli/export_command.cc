// `proofload export DIR --format openmetrics|csv [-o FILE]`: a recorded result in a form other
// tools read. openmetrics: a run's windows, each sample at its window's end on the wall clock
// (report/openmetrics_export.h), for `promtool tsdb create-blocks-from openmetrics`; a ladder's
// levels are runs of their own (levels/NN-LEVEL). csv: the table the directory already keeps
// (a run's or soak's windows.csv, a ladder's levels.csv, a comparison's cells.csv), so scripts
// need not know which. prom-remote-write-json is not offered: remote write is protobuf over
// HTTP, with no JSON form a receiver accepts; the OpenMetrics file and promtool's backfill put a
// run into Prometheus instead.
#include <cstdio>
#include <sstream>

#include "cli/subcommand.h"
#include "common/recorded_file.h"
#include "common/usage_error.h"
#include "registry/experiment_kinds.h"
#include "report/atomic_file.h"
#include "report/openmetrics_export.h"
#include "result/recorded_json.h"
#include "result/run_record.h"

namespace proofload::cli {
namespace {

struct ExportFlags {
  std::string directory;
  std::string format;
  std::string out;  // "" : stdout
};

std::string read_all(const std::filesystem::path& file) {
  RecordedFileStream in(file);
  if (!in) throw UsageError("cannot read " + file.string() + ": no such file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string schema_of(const std::filesystem::path& file) {
  // Only the schema is kept: a long run's windows are read past, never held.
  const nlohmann::json::parser_callback_t schema_only =
      [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        return !(depth == 1 && event == nlohmann::json::parse_event_t::key && parsed != "schema");
      };
  const nlohmann::json head = result::read_recorded_json(file.string(), schema_only);
  if (!head.is_object()) throw UsageError(file.string() + " is not a result");
  return head.value("schema", "");
}

// Writes the export through `out`, a piece at a time.
void export_to(const ExportFlags& f, const report::OpenMetricsSink& out) {
  const std::filesystem::path dir(f.directory);
  const std::filesystem::path result = dir / "result.json";
  const std::string schema = schema_of(result);
  if (f.format == "openmetrics") {
    if (!result::is_run_schema(schema)) {
      throw UsageError("export --format openmetrics takes a run's directory (" + result.string() +
                       " is '" + schema +
                       "'); a ladder's levels are runs of their own: " + f.directory + "/levels/*");
    }
    RecordedFileStream in(result);
    try {
      report::write_run_openmetrics(in, out);
    } catch (const nlohmann::json::exception&) {
      throw UsageError(result.string() + " is not JSON");
    } catch (const std::runtime_error& e) {
      throw UsageError(result.string() + ": " + e.what());
    }
    return;
  }
  const registry::ExperimentKind* kind = registry::kind_with_schema(schema);
  const char* table = kind != nullptr ? kind->csv_table : nullptr;
  if (table == nullptr) {
    throw UsageError("export --format csv: " + f.directory + " ('" + schema +
                     "') keeps no single table; its CSV files are in the directory");
  }
  out(read_all(dir / table));
}

int run_export(const ExportFlags& f) {
  if (f.out.empty()) {
    export_to(f, [](std::string_view text) { std::fwrite(text.data(), 1, text.size(), stdout); });
  } else {
    // Nothing of a failed export is left at -o: the file appears whole or not at all.
    report::AtomicFileWriter file(f.out);
    export_to(f, [&file](std::string_view text) { file.write(text); });
    file.commit();
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
