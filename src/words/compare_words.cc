// See compare_words.h.
#include "words/compare_words.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/text.h"
#include "words/numbers.h"

namespace proofload::words {
namespace {

using analyze::CompareMetric;
using analyze::CompareOptions;
using analyze::CompareVerdict;

std::string_view noise_source_text(analyze::NoiseSource source) {
  switch (source) {
    case analyze::NoiseSource::kMinimumEffect:
      return "minimum effect";
    case analyze::NoiseSource::kSpreadOfA:
      return "spread of A's repeats";
    case analyze::NoiseSource::kSpreadOfB:
      return "spread of B's repeats";
  }
  return "minimum effect";
}

std::string none_or(int64_t n) { return n == 0 ? std::string("none") : std::to_string(n); }

}  // namespace

std::string verdict_reason(const CompareVerdict& v, const CompareOptions& options) {
  switch (v.cause) {
    case analyze::VerdictCause::kTooFewRepeats:
      return fmt::format("{} repeats of A and {} of B: a verdict needs {} of each", v.a_repeats,
                         v.b_repeats, std::max(options.min_repeats, 1));
    case analyze::VerdictCause::kErrors: {
      const int64_t errors = v.errors_on_b ? v.b_errors : v.a_errors;
      const int64_t requests = v.errors_on_b ? v.b_requests : v.a_requests;
      return fmt::format(
          "{} had {} errors in {} requests ({}), above {}: its answers are not comparable",
          v.errors_on_b ? "B" : "A", errors, requests,
          percent_text(
              requests > 0 ? static_cast<double>(errors) / static_cast<double>(requests) : 0, 1),
          percent_text(options.max_error_share, 1));
    }
    case analyze::VerdictCause::kNoRatio:
      return "A's median is 0: no ratio to judge";
    case analyze::VerdictCause::kOutsideNoise:
    case analyze::VerdictCause::kInsideNoise: {
      const double change = v.ratio.value_or(1) - 1;
      return fmt::format("B {} {}, {} the noise of {} ({})", percent_text(std::abs(change), 1),
                         change < 0 ? "lower" : "higher",
                         v.cause == analyze::VerdictCause::kOutsideNoise ? "outside" : "inside",
                         percent_text(v.noise, 1), noise_source_text(v.noise_source));
    }
  }
  return "";
}

std::string counts_text(const analyze::CompareCounts& c) {
  std::string text =
      fmt::format("B faster on {} of {} check{}, level on {}, slower on {}", none_or(c.faster),
                  c.total, c.total == 1 ? "" : "s", none_or(c.level), none_or(c.slower));
  if (c.not_judged > 0) text += fmt::format(", not judged on {}", c.not_judged);
  return text;
}

std::string statistic_text(const CompareOptions& options) {
  return fmt::format(
      "the medians of the repeats, B/A; a difference is a finding only when it exceeds both the "
      "minimum effect ({}) and the spread between repeats on either side ((max - min) / median); "
      "fewer than {} repeats a side is not judged{}; {} is better {}",
      percent_text(options.min_effect, 1), std::max(options.min_repeats, 1),
      options.metric == CompareMetric::kThroughput
          ? ""
          : fmt::format(", nor a side with more than {} of its requests in error",
                        percent_text(options.max_error_share, 1)),
      analyze::compare_metric_name(options.metric),
      analyze::lower_is_better(options.metric) ? "lower" : "higher");
}

std::string cold_warning(std::span<const CompareVerdict> checks, const CompareOptions& options) {
  int64_t most = 0;
  for (const CompareVerdict& v : checks) {
    if (v.cold_diluted) most = std::max(most, v.requests_per_run);
  }
  const std::optional<int64_t> decided = analyze::first_request_decides_up_to(options.metric);
  if (most == 0 || !decided) return "";
  return fmt::format(
      "the cold {0} is of warm requests: a cold run sent up to {1} requests, and after the "
      "reset only its first is surely cold (a cache fills with it), while the slowest request of "
      "a run is its {0} only in a run of at most {2}. To measure the first request after a "
      "reset, give the matrix `run: {{cold_requests: 1}}` and more repeats (each repeat has its "
      "own reset)",
      analyze::compare_metric_name(options.metric), group_thousands(std::to_string(most)),
      *decided);
}

void describe_compare(analyze::CompareAnalysis& a) {
  for (CompareVerdict& v : a.checks) v.reason = verdict_reason(v, a.options);
  a.headline.text = counts_text(a.headline);
  for (auto& [condition, counts] : a.by_condition) counts.text = counts_text(counts);
  a.statistic = statistic_text(a.options);
  a.cold_warning = cold_warning(a.checks, a.options);
}

analyze::CompareAnalysis described_compare(std::span<const analyze::CompareCell> cells,
                                           const analyze::CompareOptions& options) {
  analyze::CompareAnalysis a = analyze::analyze_compare(cells, options);
  describe_compare(a);
  return a;
}

}  // namespace proofload::words
