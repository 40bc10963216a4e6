// A CSV level table as `proofload analyze` takes it from another tool: read, checked against an
// SLO, analysed (verdicts, knee, noise floor, operating target) and written as JSON. A bad table
// is one UsageError naming the row; numbers that overflow must not reach the report as inf/nan.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "analyze/ladder_analysis.h"
#include "analyze/level_table.h"
#include "analyze/slo.h"
#include "common/usage_error.h"
#include "result/ladder_analysis_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const proofload::analyze::Slo slo = proofload::analyze::parse_slo("p95<=1s,errors<=1%");
  try {
    const proofload::analyze::LevelTable table =
        proofload::analyze::parse_level_table(text, "fuzz.csv");
    proofload::analyze::require_slo_columns(table, slo, "fuzz.csv");
    proofload::analyze::AnalysisOptions options;
    options.loop = table.has_targets ? proofload::analyze::Loop::kOpen
                                     : proofload::analyze::Loop::kClosed;
    const proofload::analyze::LadderAnalysis analysis =
        proofload::analyze::analyze_ladder(table.rows, slo, options);
    proofload::result::analysis_to_json(analysis).dump();
  } catch (const proofload::UsageError&) {
    // the one way a table may be refused
  }
  return 0;
}
