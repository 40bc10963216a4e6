// A sizing's summary.md, rendered from its result (result/sizing_result.h) alone, so that
// `proofload report DIR` renders the same bytes again. The shape of ../shared/REPORTS.md: title
// and scope; the short version ("which shape carries most, in total and per core?", with the
// noise floor beside it); a row per configuration; findings; what this does not show; reproduce.
// Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "result/sizing_result.h"

namespace proofload::report {

// Which configuration carries most by one measure (best sustained in total, or per core), and
// whether its lead over the next is a finding: beyond the larger noise floor of the two.
struct SizingLead {
  std::optional<size_t> first;   // index into configs; none: no configuration has the figure
  std::optional<size_t> second;  // the next best
  std::optional<double> gain;    // first / second - 1
  double noise_floor = 0;        // what the gain is judged against
  bool beyond_noise = false;     // gain > noise_floor: a finding
};
SizingLead sizing_lead(const std::vector<result::SizingConfigRecord>& configs, bool per_core);

std::string render_sizing_summary(const result::SizingResult& sizing);

namespace html {

// Its report.html, from its result and the summary.md rendered from it (html/sizing_page.cc).
std::string render_sizing_html(const result::SizingResult& sizing, const std::string& summary_md);

}  // namespace html

}  // namespace proofload::report
