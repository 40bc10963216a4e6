// `--expect RATE[,burst=N]` read into an analyze::ProbeExpectation: the flag's value as the
// probe's command gives it, and result.json's settings.expect as the record and the report read
// it again. It lives beside the probe's record rather than in analyze/ (which judges an
// expectation, never reads one) so that the command, the record, the report and result.json's
// reader share one reading of it, below all of them. Pure; thread-safe.
#pragma once

#include <optional>
#include <string_view>

#include "analyze/probe_analysis.h"

namespace proofload::result {

struct ProbeSettings;

// "RATE[,burst=N]" with RATE as units.h reads a rate ("100/s", "6000/m", "1.5k/s"). Throws
// UsageError naming the part and the expected form, or a tolerance that is not a share.
analyze::ProbeExpectation parse_probe_expectation(std::string_view text, double tolerance);

// The expectation a probe's settings record (settings.expect with settings.tolerance); nullopt
// without one. Throws UsageError as parse_probe_expectation.
std::optional<analyze::ProbeExpectation> probe_expectation(const ProbeSettings& settings);

}  // namespace proofload::result
