// See probe_analysis.h: the judgement of a header variant (--variant) against the allowance.
#include <cmath>

#include "analyze/probe_analysis.h"

namespace proofload::analyze {

ProbeVariantVerdict judge_variant(const ProbeVariantRun& run, std::optional<double> allowance_per_s,
                                  std::optional<double> burst) {
  ProbeVariantVerdict v;
  v.run = run;
  v.allowance_per_s = allowance_per_s;
  v.burst = burst;
  const auto judged = [&](VariantCause cause, std::string_view verdict,
                          std::optional<bool> limited) {
    v.cause = cause;
    v.verdict = std::string(verdict);
    v.limited = limited;
    return v;
  };
  if (run.limited > 0) return judged(VariantCause::kHeld, "held", true);
  if (run.let_through == 0)
    return judged(VariantCause::kNothingLetThrough, "unclear", std::nullopt);
  if (!allowance_per_s) return judged(VariantCause::kNoAllowance, "unclear", std::nullopt);
  const double allowed = *allowance_per_s * run.duration_s + burst.value_or(0);
  if (static_cast<double>(run.let_through) > allowed) {
    return judged(VariantCause::kBeyondAllowance, "lifted", false);
  }
  return judged(VariantCause::kWithinAllowance, "unclear", std::nullopt);
}

VariantAllowance variant_allowance(const ProbeAnalysis& a, const std::string& address,
                                   const std::optional<ProbeExpectation>& expect) {
  if (expect) {
    return {expect->rate_per_s, expect->burst
                                    ? std::optional<double>(static_cast<double>(*expect->burst))
                                    : std::nullopt};
  }
  for (const ProbeSourceFigures& s : a.sources) {
    if (s.address != address || s.failed || !s.sustained) continue;
    return {s.sustained->mean, s.burst_from_totals};
  }
  return {};
}

}  // namespace proofload::analyze
