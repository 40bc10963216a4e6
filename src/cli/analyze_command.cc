// `proofload analyze FILE.csv [--slo ...] [--out DIR]`: the ladder's analysis and report on a
// table from any tool (k6, wrk, a spreadsheet): one row per level and repeat. Prints the report;
// with --out also writes result.json, summary.md and levels.csv there.
#include <cstdio>

#include "analyze/ladder_analysis.h"
#include "analyze/level_table.h"
#include "cli/command_line.h"
#include "cli/ladder_flags.h"
#include "cli/subcommand.h"
#include "common/usage_error.h"
#include "experiments/ladder_record.h"
#include "report/ladder_report.h"

namespace proofload::cli {
namespace {

struct AnalyzeFlags {
  std::string table;
  std::optional<std::string> out;
  std::optional<std::string> loop;
  JudgementFlags judgement;
};

int run_analyze(const AnalyzeFlags& f) {
  analyze::LevelTable table = analyze::read_level_table(f.table);
  for (const std::string& column : table.ignored_columns) {
    std::fprintf(stderr, "analyze: column '%s' is not one proofload reads; ignored\n",
                 column.c_str());
  }
  std::string loop = f.loop.value_or(table.has_targets ? "open" : "closed");
  if (loop != "open" && loop != "closed") {
    throw UsageError("--loop must be 'open' or 'closed', got '" + loop + "'");
  }
  Judgement judgement = parse_judgement(f.judgement);
  analyze::require_slo_columns(table, judgement.slo, f.table);
  result::LadderResult result;
  result.kind = "analyze";
  result.status = "complete";
  result.end_reason = "the table was analysed";
  result.proofload_version = PROOFLOAD_VERSION;
  result.command_line = command_line();
  result.source.table_file = f.table;
  result.source.table_sha256 = experiments::file_sha256(f.table);
  record_judgement(judgement, result.settings);
  result.settings.loop = loop;
  for (const analyze::LevelRow& row : table.rows) result.rows.push_back({row, "", "complete"});
  if (f.out) {
    experiments::write_ladder_directory(*f.out, result);
  } else {
    result.analysis = experiments::analysis_of(result);
  }
  std::fputs(report::render_ladder_summary(result).c_str(), stdout);
  if (f.out) std::fprintf(stderr, "analyze: report in %s/summary.md\n", f.out->c_str());
  return kExitOk;
}

}  // namespace

Subcommand add_analyze_command(CLI::App& parent) {
  auto f = std::make_shared<AnalyzeFlags>();
  CLI::App* app = parent.add_subcommand(
      "analyze",
      "Judge a table of levels from any tool (CSV: level, achieved_rps, error_rate, and "
      "the SLO's metrics, such as p95_ms) the way a ladder is judged, and write the "
      "report");
  app->add_option("table", f->table, "CSV file, one row per level (and repeat)")->required();
  app->add_option("-o,--out", f->out, "Write result.json, summary.md and levels.csv here");
  app->add_option("--loop", f->loop,
                  "open or closed (default: open when the table has target_rps, else closed)");
  add_judgement_flags(app, f->judgement);
  return {app, [f] { return run_analyze(*f); }};
}

}  // namespace proofload::cli
