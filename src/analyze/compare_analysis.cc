// See compare_analysis.h.
#include "analyze/compare_analysis.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <tuple>

#include "analyze/median.h"
#include "common/text.h"
#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

struct MetricName {
  CompareMetric metric;
  std::string_view name;
};
constexpr std::array<MetricName, 5> kMetrics = {{{CompareMetric::kP50, "p50"},
                                                 {CompareMetric::kP95, "p95"},
                                                 {CompareMetric::kP99, "p99"},
                                                 {CompareMetric::kThroughput, "throughput"},
                                                 {CompareMetric::kCpuPerRequest,
                                                  "cpu_per_request"}}};

// (max - min) / median of the finite values; nullopt with fewer than two or a median of 0.
std::optional<double> spread_of(const std::vector<double>& values) {
  if (values.size() < 2) return std::nullopt;
  const std::optional<double> median = median_of(values);
  if (!median || *median <= 0) return std::nullopt;
  const auto [low, high] = std::minmax_element(values.begin(), values.end());
  return (*high - *low) / *median;
}

// Only finite values count: a repeat that measured nothing is not a zero.
std::vector<double> finite_values(const std::vector<double>& values) {
  std::vector<double> out;
  for (double v : values) {
    if (std::isfinite(v)) out.push_back(v);
  }
  return out;
}

}  // namespace

CompareMetric parse_compare_metric(std::string_view text) {
  for (const MetricName& m : kMetrics) {
    if (m.name == text) return m.metric;
  }
  throw UsageError(fmt::format(
      "metric '{}' is not one of p50, p95, p99, throughput, cpu_per_request", text));
}

std::string_view compare_metric_name(CompareMetric metric) {
  for (const MetricName& m : kMetrics) {
    if (m.metric == metric) return m.name;
  }
  return "?";
}

bool lower_is_better(CompareMetric metric) { return metric != CompareMetric::kThroughput; }

bool is_cold_condition(std::string_view condition) {
  return condition == "cold" || condition.starts_with("cold at ");
}

std::optional<int64_t> first_request_decides_up_to(CompareMetric metric) {
  switch (metric) {
    case CompareMetric::kP50:
      return 1;
    case CompareMetric::kP95:
      return 19;
    case CompareMetric::kP99:
      return 99;
    default:
      return std::nullopt;
  }
}

CompareVerdict judge_check(const CompareCell& cell, const CompareOptions& options) {
  CompareVerdict v;
  v.name = cell.name;
  v.condition = cell.condition;
  v.a_requests = cell.a_requests;
  v.b_requests = cell.b_requests;
  v.a_errors = cell.a_errors;
  v.b_errors = cell.b_errors;
  const std::vector<double> a = finite_values(cell.a), b = finite_values(cell.b);
  v.a = median_of(a);
  v.b = median_of(b);
  v.spread_a = spread_of(a);
  v.spread_b = spread_of(b);
  v.noise = std::max({options.min_effect, v.spread_a.value_or(0), v.spread_b.value_or(0)});
  if (v.a && v.b && *v.a > 0) v.ratio = *v.b / *v.a;
  const auto per_run = [](int64_t requests, size_t runs) {
    return runs == 0 ? int64_t{0}
                     : (requests + static_cast<int64_t>(runs) - 1) / static_cast<int64_t>(runs);
  };
  v.requests_per_run =
      std::max(per_run(cell.a_requests, a.size()), per_run(cell.b_requests, b.size()));
  const std::optional<int64_t> decided = first_request_decides_up_to(options.metric);
  v.cold_diluted = is_cold_condition(cell.condition) && decided && v.requests_per_run > *decided;

  v.a_repeats = a.size();
  v.b_repeats = b.size();
  const auto repeats = static_cast<size_t>(std::max(options.min_repeats, 1));
  if (a.size() < repeats || b.size() < repeats) {
    v.verdict = kNotJudged;
    v.cause = VerdictCause::kTooFewRepeats;
    return v;
  }
  if (options.metric != CompareMetric::kThroughput) {
    for (const auto& [on_b, errors, requests] : {std::tuple{false, v.a_errors, v.a_requests},
                                                 std::tuple{true, v.b_errors, v.b_requests}}) {
      if (requests > 0 &&
          static_cast<double>(errors) > options.max_error_share * static_cast<double>(requests)) {
        v.verdict = kNotJudged;
        v.cause = VerdictCause::kErrors;
        v.errors_on_b = on_b;
        return v;
      }
    }
  }
  if (!v.ratio || *v.b < 0) {
    v.verdict = kNotJudged;
    v.cause = VerdictCause::kNoRatio;
    return v;
  }
  if (v.noise > options.min_effect) {
    v.noise_source = v.spread_a.value_or(0) >= v.spread_b.value_or(0) ? NoiseSource::kSpreadOfA
                                                                      : NoiseSource::kSpreadOfB;
  }
  const double change = *v.ratio - 1;
  const bool b_better = lower_is_better(options.metric) ? change < 0 : change > 0;
  if (std::abs(change) > v.noise) {
    v.verdict = b_better ? kFaster : kSlower;
    v.cause = VerdictCause::kOutsideNoise;
  } else {
    v.verdict = kLevel;
    v.cause = VerdictCause::kInsideNoise;
  }
  return v;
}

CompareCounts count_verdicts(std::span<const CompareVerdict> checks) {
  CompareCounts c;
  for (const CompareVerdict& v : checks) {
    ++c.total;
    if (v.verdict == kFaster) ++c.faster;
    if (v.verdict == kLevel) ++c.level;
    if (v.verdict == kSlower) ++c.slower;
    if (v.verdict == kNotJudged) ++c.not_judged;
  }
  return c;
}

CompareAnalysis analyze_compare(std::span<const CompareCell> cells, const CompareOptions& options) {
  CompareAnalysis analysis;
  analysis.options = options;
  analysis.metric = std::string(compare_metric_name(options.metric));
  for (const CompareCell& cell : cells) analysis.checks.push_back(judge_check(cell, options));
  analysis.headline = count_verdicts(analysis.checks);
  std::vector<std::string> conditions;
  for (const CompareVerdict& v : analysis.checks) {
    if (!v.condition.empty() &&
        std::find(conditions.begin(), conditions.end(), v.condition) == conditions.end()) {
      conditions.push_back(v.condition);
    }
  }
  for (const std::string& condition : conditions) {
    std::vector<CompareVerdict> in;
    for (const CompareVerdict& v : analysis.checks) {
      if (v.condition == condition) in.push_back(v);
    }
    analysis.by_condition.emplace_back(condition, count_verdicts(in));
  }
  return analysis;
}

}  // namespace proofload::analyze
