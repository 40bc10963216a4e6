// A soak's summary.md, rendered from its result (result/soak_result.h) alone, and the run's
// record for the server side (observers) when the run finished its own result.json. The shape of
// ../shared/REPORTS.md: title and scope, the short version, the windows table (folded to the
// interesting windows; windows.csv has all), drift by blocks, marks, the server side, what this
// does not show, reproduce. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>

#include "result/run_record.h"
#include "result/soak_result.h"

namespace proofload::report {

// Windows shown in full before the table is folded to those that missed the bar, the first and
// last, and those around marks.
constexpr size_t kSoakWindowsShownInFull = 30;

std::string render_soak_summary(const result::SoakResult& soak,
                                const std::optional<result::RunRecord>& run);

namespace html {

// Its report.html, from its result and the summary.md rendered from it (html/soak_page.cc).
std::string render_soak_html(const result::SoakResult& soak, const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
