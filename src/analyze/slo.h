// A service-level objective for a ladder: a comma-separated list of bounds in the threshold
// grammar ("p95<1s,errors<=1%"), all of which a level must meet, and whether 429 answers count as
// errors or are reported apart. Pure; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyze/level_row.h"
#include "measure/threshold.h"

namespace proofload::analyze {

// Used when a ladder is given no --slo (and stated as the default in its report).
constexpr std::string_view kDefaultSlo = "p95<=1s,errors<=1%";

struct Slo {
  std::string text;                        // as given, whitespace trimmed: "p95<1s, errors<=1%"
  std::vector<measure::Threshold> bounds;  // in order
  bool count_429_as_error = true;  // false: `errors` excludes 429s, which are reported apart
  bool is_default = false;         // set by the caller that fell back to kDefaultSlo
};

// Splits `text` at commas outside parentheses ("rate(status_429, lookup) < 1%" stays whole) and
// parses each part with parse_threshold. Empty text or an empty part: UsageError (one line).
Slo parse_slo(std::string_view text, bool count_429_as_error = true);

// The value of `metric` for one row, in the threshold's unit: p50/p95/p99 from the fields,
// `errors` from error_rate (minus rate_429 when 429s are apart), rate(status_429) from rate_429,
// never_started, rps (achieved_rps), requests; anything else from extra_metrics by
// metric.text(). nullopt when the row does not hold it (never passes).
std::optional<double> row_metric(const LevelRow& row, const measure::MetricRef& metric,
                                 bool count_429_as_error);

// "p95 ≤ 1 s, errors ≤ 1%": the bounds for a report's prose.
std::string describe_slo(const Slo& slo);

}  // namespace proofload::analyze
