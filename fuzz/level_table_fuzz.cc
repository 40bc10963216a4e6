// A CSV level table as `proofload analyze` takes it from another tool: read, checked against an
// SLO, analysed (verdicts, knee, noise floor, operating target), written as the ladder's
// result.json, read back and rendered. A bad table is one UsageError naming the row; numbers that
// overflow must not reach the report as inf/nan; what is written reads back to the same file, and
// its summary.md and levels.csv render without an error.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "analyze/ladder_analysis.h"
#include "analyze/level_table.h"
#include "analyze/slo.h"
#include "common/usage_error.h"
#include "report/ladder_report.h"
#include "result/ladder_result.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const proofload::analyze::Slo slo = proofload::analyze::parse_slo("p95<=1s,errors<=1%");
  try {
    const proofload::analyze::LevelTable table =
        proofload::analyze::parse_level_table(text, "fuzz.csv");
    proofload::analyze::require_slo_columns(table, slo, "fuzz.csv");
    proofload::analyze::AnalysisOptions options;
    options.loop =
        table.has_targets ? proofload::analyze::Loop::kOpen : proofload::analyze::Loop::kClosed;
    proofload::result::LadderResult result;
    result.kind = "analyze";
    result.status = "complete";
    result.settings.loop = table.has_targets ? "open" : "closed";
    result.settings.slo = slo.text;
    for (const proofload::analyze::LevelRow& row : table.rows) {
      result.rows.push_back({row, "", "complete"});
    }
    result.analysis = proofload::analyze::analyze_ladder(table.rows, slo, options);
    const nlohmann::json written = proofload::result::ladder_to_json(result);
    const nlohmann::json reread = nlohmann::json::parse(written.dump());
    const proofload::result::LadderResult back = proofload::result::ladder_from_json(reread);
    if (proofload::result::ladder_to_json(back) != written) std::abort();  // not its own inverse
    proofload::report::render_ladder_summary(back);
    proofload::report::render_levels_csv(back);
  } catch (const proofload::UsageError&) {
    // the one way a table may be refused
  }
  return 0;
}
