// See probe_words.h.
#include "words/probe_words.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <vector>

#include "words/numbers.h"

namespace proofload::words {
namespace {

using analyze::PairReading;
using analyze::ProbeAnalysis;
using analyze::ProbeCause;
using analyze::ProbeMissKind;
using analyze::ProbeSourceFigures;
using analyze::VariantCause;

// "one allowance", "two allowances": as many as `implied` rounds to, at least one; "an
// allowance" when how many is not known (no --expect to divide by).
std::string allowances_words(std::optional<double> implied) {
  if (!implied) return "an allowance";
  static constexpr const char* kNames[] = {"one", "two",   "three", "four", "five",
                                           "six", "seven", "eight", "nine", "ten"};
  const double n = std::max(1.0, std::round(*implied));
  const std::string count = n <= 10 ? kNames[static_cast<size_t>(n) - 1] : count_text(n);
  return count + (n == 1 ? " allowance" : " allowances");
}

// "together they got 199/s, against 2 × 100/s expected: 1.99 allowances of 100/s" for the
// sources sharing the allowance.
std::string together_words(const ProbeAnalysis& a) {
  std::string out = "together they got " + rate_text(a.shared_sum);
  if (a.expect && a.allowances_implied) {
    const std::string implied = fixed(*a.allowances_implied, 2);
    const std::string rate = given_rate_text(a.expect->rate_per_s);
    out += fmt::format(", against {} × {} expected: {} allowance{} of {}", a.shared_by.size(), rate,
                       implied, implied == "1.00" ? "" : "s", rate);
  }
  return out;
}

// "(r from −0.12 to 0.08)", or why there is no r.
std::string correlations_words(const ProbeAnalysis& a) {
  std::optional<double> low, high;
  for (const analyze::ProbeCorrelation& c : a.correlations) {
    if (!c.r) continue;
    low = low ? std::min(*low, *c.r) : *c.r;
    high = high ? std::max(*high, *c.r) : *c.r;
  }
  if (!low) return "(their per-second counts did not vary: no r to compute)";
  if (*low == *high) return fmt::format("(r = {})", correlation_text(*low));
  return fmt::format("(r from {} to {})", correlation_text(*low), correlation_text(*high));
}

std::vector<std::string> failed_addresses(const ProbeAnalysis& a) {
  std::vector<std::string> out;
  for (const ProbeSourceFigures& f : a.sources) {
    if (f.failed) out.push_back(f.address);
  }
  return out;
}

double sustained_mean(const ProbeSourceFigures& f) { return f.sustained ? f.sustained->mean : 0; }

// "127.0.0.4 sustained 61.0/s against 100/s expected", for one source that missed.
std::string miss_words(const ProbeAnalysis& a, const analyze::ProbeMiss& miss) {
  if (miss.source >= a.sources.size()) return "";
  const ProbeSourceFigures& f = a.sources[miss.source];
  switch (miss.kind) {
    case ProbeMissKind::kNotJudged:
      return f.address + " was not judged against --expect";
    case ProbeMissKind::kRate:
      return fmt::format("{} sustained {} against {} expected", f.address,
                         rate_text(sustained_mean(f)),
                         given_rate_text(a.expect ? a.expect->rate_per_s : 0));
    case ProbeMissKind::kBurst:
      return fmt::format(
          "{}'s burst from the totals was {} against {} expected", f.address,
          count_text(std::round(f.burst_from_totals.value_or(0))),
          count_text(static_cast<double>(a.expect ? a.expect->burst.value_or(0) : 0)));
    case ProbeMissKind::kFarFromMedian:
      return fmt::format("{} sustained {} against the sources' median {} (more than {} apart)",
                         f.address, rate_text(sustained_mean(f)),
                         rate_text(a.median_sustained.value_or(0)),
                         given_percent_text(a.tolerance));
  }
  return "";
}

}  // namespace

std::string correlation_text(double r) {
  std::string text = fixed_with_thousands(r, 2);
  if (text.starts_with("-")) {
    text = std::strtod(text.c_str(), nullptr) == 0 ? text.substr(1) : "−" + text.substr(1);
  }
  return text;
}

std::string probe_reason(const ProbeAnalysis& a) {
  const std::vector<std::string> failed = failed_addresses(a);
  const std::string failed_words =
      failed.empty() ? "" : fmt::format(" ({} failed)", list_text(failed));
  const size_t answered = a.sources.size() - failed.size();
  const std::string sources_words =
      fmt::format("the {} sources{}", answered, failed.empty() ? "" : " that answered");
  const std::string no_opposed_pair = "no pair shows sharing " + correlations_words(a);
  switch (a.cause) {
    case ProbeCause::kNone:
      return "";
    case ProbeCause::kNoAnswer:
      return "no source got an answer" + failed_words + ": nothing to compare";
    case ProbeCause::kOneSource:
      return failed.empty() ? "one source: nothing to compare"
                            : "one source answered" + failed_words + ": nothing to compare";
    case ProbeCause::kNoCountedSecond:
      return fmt::format(
          "no whole second after the settle time ({} s) in the {} s probe: nothing to compare",
          given_text(a.settle_s), given_text(a.duration_s));
    case ProbeCause::kNo429:
      return fmt::format("no 429 in {} s: no limit was seen at this load",
                         given_text(a.duration_s));
    case ProbeCause::kSharedGroup:
      return fmt::format(
          "{} share {}: the sum of their per-second counts varies far less than they do "
          "(variance {} against {} summed) and {}",
          list_text(a.shared_by), allowances_words(a.allowances_implied),
          fixed(a.variance_of_sum, 0), fixed(a.sum_of_variances, 0), together_words(a));
    case ProbeCause::kSharedPair: {
      std::string reason = fmt::format(
          "{} and {} share {}: their per-second counts correlate at r = {} and {}",
          a.shared_by.size() > 0 ? a.shared_by[0] : "",
          a.shared_by.size() > 1 ? a.shared_by[1] : "", allowances_words(a.allowances_implied),
          correlation_text(a.shared_r), together_words(a));
      if (a.other_opposed_pairs > 0) {
        reason += fmt::format(" ({} other pair{} at r ≤ −0.5 too)", a.other_opposed_pairs,
                              a.other_opposed_pairs > 1 ? "s" : "");
      }
      return reason;
    }
    case ProbeCause::kSharedTooLittle:
      return fmt::format(
          "{} share {}: {}, though no pair's per-second counts show it (none at r ≤ −0.5)",
          list_text(a.shared_by), allowances_words(a.allowances_implied), together_words(a));
    case ProbeCause::kEachMetExpect:
      return fmt::format("each of {} met {} on its own (sustained {} to {}, together {}) and {}",
                         sources_words, a.expect ? a.expect->text : "",
                         rate_text(a.lowest_sustained), rate_text(a.highest_sustained),
                         rate_text(a.sustained_sum), no_opposed_pair);
    case ProbeCause::kNearMedian:
      return fmt::format("{} each sustained {} to {}, within {} of their median {}, and {}",
                         sources_words, rate_text(a.lowest_sustained),
                         rate_text(a.highest_sustained), given_percent_text(a.tolerance),
                         rate_text(a.median_sustained.value_or(0)), no_opposed_pair);
    case ProbeCause::kMisses: {
      std::string reason;
      for (const analyze::ProbeMiss& miss : a.misses) {
        reason += (reason.empty() ? "" : "; ") + miss_words(a, miss);
      }
      return reason + ", with no sign of sharing";
    }
  }
  return "";
}

std::string pair_meaning(const analyze::ProbeCorrelation& c) {
  switch (c.reading) {
    case PairReading::kIndependent:
      return "independent: each has its own allowance";
    case PairReading::kShare:
      return "share " + allowances_words(c.allowances) + ": what one gains, the other loses";
    case PairReading::kWeaklyOpposed:
      return "weakly opposed: perhaps a shared allowance, perhaps noise";
    case PairReading::kMoveTogether:
      return "move together: something common to both (the server), not the allowance";
    case PairReading::kShareInGroup:
      return fmt::format("share {} with {}: the group's per-second sum is steady",
                         allowances_words(c.allowances), list_text(c.shared_with));
  }
  return "";
}

std::string expect_reason(const ProbeAnalysis& a, const ProbeSourceFigures& f) {
  if (!a.expect || f.failed) return "";
  if (!f.expect_check || !f.sustained) return "not judged: no whole second after the settle time";
  const analyze::ProbeExpectation& e = *a.expect;
  const analyze::ProbeExpectCheck& c = *f.expect_check;
  std::string out = fmt::format("sustained {}, {}within {} of {}", rate_text(f.sustained->mean),
                                c.rate_met ? "" : "not ", given_percent_text(e.tolerance),
                                given_rate_text(e.rate_per_s));
  if (e.burst) {
    out += fmt::format("; burst from the totals {}, {}within {} of {}",
                       count_text(std::round(f.burst_from_totals.value_or(0))),
                       c.burst_met ? "" : "not ", count_text(std::round(c.burst_slack)),
                       count_text(static_cast<double>(*e.burst)));
  }
  return out;
}

void describe_probe(ProbeAnalysis& a) {
  a.reason = probe_reason(a);
  for (analyze::ProbeCorrelation& c : a.correlations) c.meaning = pair_meaning(c);
  for (ProbeSourceFigures& f : a.sources) f.expect_reason = expect_reason(a, f);
}

ProbeAnalysis described_probe(std::span<const analyze::ProbeSourceSeries> sources,
                              double duration_s, double settle_s,
                              const std::optional<analyze::ProbeExpectation>& expect,
                              double tolerance) {
  ProbeAnalysis a = analyze::analyze_probe(sources, duration_s, settle_s, expect, tolerance);
  describe_probe(a);
  return a;
}

std::string variant_reason(const analyze::ProbeVariantVerdict& v) {
  const analyze::ProbeVariantRun& run = v.run;
  const double total = static_cast<double>(run.let_through + run.limited + run.other);
  const double let_through = static_cast<double>(run.let_through);
  // "in 5 s (100/s + burst 600)"
  const auto allowance = [&] {
    return fmt::format("in {} s ({}{})", given_text(run.duration_s),
                       rate_text(v.allowance_per_s.value_or(0)),
                       v.burst ? " + burst " + count_text(std::round(*v.burst)) : "");
  };
  switch (v.cause) {
    case VariantCause::kHeld:
      return fmt::format("{} of {} let through, {} limited: the limit holds with the header",
                         count_text(let_through), count_text(total),
                         count_text(static_cast<double>(run.limited)));
    case VariantCause::kNothingLetThrough:
      return fmt::format("nothing let through and no 429 ({} other of {}): cannot tell",
                         count_text(static_cast<double>(run.other)), count_text(total));
    case VariantCause::kNoAllowance:
      return fmt::format(
          "no 429 and {} let through, but no allowance is known to set it against: cannot tell",
          count_text(let_through));
    case VariantCause::kBeyondAllowance:
      return fmt::format(
          "{} of {} let through and no 429, more than the allowance allows {}: the header lifts "
          "the limit",
          count_text(let_through), count_text(total), allowance());
    case VariantCause::kWithinAllowance:
      return fmt::format(
          "no 429 and {} let through, within what the allowance allows {}: sent too little to "
          "tell",
          count_text(let_through), allowance());
  }
  return "";
}

analyze::ProbeVariantVerdict described_variant(const analyze::ProbeVariantRun& run,
                                               std::optional<double> allowance_per_s,
                                               std::optional<double> burst) {
  analyze::ProbeVariantVerdict v = analyze::judge_variant(run, allowance_per_s, burst);
  v.reason = variant_reason(v);
  return v;
}

}  // namespace proofload::words
