// Parsing, per-row reading and prose of a ladder's SLO (see slo.h). Stateless; parse_slo throws
// UsageError only.
#include "analyze/slo.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/text.h"
#include "common/usage_error.h"
#include "words/numbers.h"

namespace proofload::analyze {
namespace {

using Kind = measure::MetricRef::Kind;

// The parts of `text` between commas that are not inside parentheses, untrimmed.
std::vector<std::string_view> split_outside_parentheses(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(') {
      ++depth;
    } else if (text[i] == ')') {
      // An unmatched ")" is left for parse_threshold to name; it must not hide later commas.
      if (depth > 0) --depth;
    } else if (text[i] == ',' && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

std::optional<double> extra(const LevelRow& row, const measure::MetricRef& metric) {
  const std::string name = metric.text();
  for (const auto& [key, value] : row.extra_metrics) {
    if (key == name) return finite_or_none(value);
  }
  return std::nullopt;
}

// A named request's own figure, from its route (a level table's p99_ms(write) column), for a
// ladder's rows that did not record it among their extra metrics.
std::optional<double> route_figure(const LevelRow& row, const measure::MetricRef& metric) {
  for (const LevelRoute& route : row.routes) {
    if (route.name != metric.scope) continue;
    switch (metric.kind) {
      case Kind::kPercentile:
        if (metric.percentile == 50) return finite_or_none(route.p50_ms);
        if (metric.percentile == 95) return finite_or_none(route.p95_ms);
        if (metric.percentile == 99) return finite_or_none(route.p99_ms);
        return std::nullopt;
      case Kind::kErrorRate:
        return finite_or_none(route.error_rate);
      case Kind::kGoodput:
        return finite_or_none(route.goodput_rps);
      case Kind::kThroughput:
        return finite_or_none(route.achieved_rps);
      case Kind::kCount:
        if (metric.outcome == "requests" && route.requests) {
          return static_cast<double>(*route.requests);
        }
        return std::nullopt;
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

std::string describe_bound(const measure::Threshold& t) {
  switch (t.metric.kind) {
    case Kind::kPercentile:
    case Kind::kMean:
    case Kind::kMax:
    case Kind::kStreamPercentile:
      return t.bound >= 1000 ? words::given_text(t.bound / 1000) + " s"
                             : words::given_text(t.bound) + " ms";
    case Kind::kErrorRate:
    case Kind::kNeverStarted:
    case Kind::kOutcomeRate:
    case Kind::kDrops:
    case Kind::kStreamGoodput:
      return words::given_text(t.bound * 100) + "%";
    case Kind::kReconcile:
      return "exact";
    case Kind::kThroughput:
    case Kind::kGoodput:
    case Kind::kStreamRate:
      return words::given_text(t.bound) + "/s";
    case Kind::kCount:
      return words::given_text(t.bound);
  }
  return words::given_text(t.bound);
}

std::string_view comparison_symbol(measure::Comparison comparison) {
  switch (comparison) {
    case measure::Comparison::kLess:
      return "<";
    case measure::Comparison::kLessEqual:
      return "≤";
    case measure::Comparison::kGreater:
      return ">";
    case measure::Comparison::kGreaterEqual:
      return "≥";
    case measure::Comparison::kEqual:
      return "=";
  }
  return "?";
}

}  // namespace

Slo parse_slo(std::string_view text, bool count_429_as_error) {
  const std::string_view trimmed = trim(text);
  if (trimmed.empty()) {
    throw UsageError("empty SLO (write bounds separated by commas, like " +
                     std::string(kDefaultSlo) + ")");
  }
  Slo slo;
  slo.text = std::string(trimmed);
  slo.count_429_as_error = count_429_as_error;
  const std::vector<std::string_view> parts = split_outside_parentheses(trimmed);
  for (size_t i = 0; i < parts.size(); ++i) {
    if (trim(parts[i]).empty()) {
      throw UsageError(fmt::format(
          "invalid SLO \"{}\": bound {} of {} is empty (write bounds separated by commas, like {})",
          slo.text, i + 1, parts.size(), kDefaultSlo));
    }
    // parse_threshold's message already quotes the bound; the SLO around it says where it was.
    try {
      slo.bounds.push_back(measure::parse_threshold(parts[i]));
    } catch (const UsageError& e) {
      throw UsageError("invalid SLO \"" + slo.text + "\": " + e.what());
    }
  }
  return slo;
}

std::optional<double> row_metric(const LevelRow& row, const measure::MetricRef& metric,
                                 bool count_429_as_error) {
  // Scoped metrics are never row fields: the fields describe the whole level.
  if (!metric.scope.empty()) {
    if (const std::optional<double> value = extra(row, metric)) return value;
    return route_figure(row, metric);
  }
  std::optional<double> value;
  switch (metric.kind) {
    case Kind::kPercentile:
      if (metric.percentile == 50) value = row.p50_ms;
      if (metric.percentile == 95) value = row.p95_ms;
      if (metric.percentile == 99) value = row.p99_ms;
      break;
    case Kind::kErrorRate:
      value = finite_or_none(row.error_rate);
      // Without a 429 share to take out, the error rate is left whole: overstating errors errs on
      // the side of failing the SLO rather than passing it unproven.
      if (value && !count_429_as_error && finite_or_none(row.rate_429)) {
        value = std::max(0.0, *value - *row.rate_429);
      }
      break;
    case Kind::kOutcomeRate:
      if (metric.outcome == "status_429") value = row.rate_429;
      break;
    case Kind::kNeverStarted:
      value = row.never_started;
      break;
    case Kind::kThroughput:
      value = row.achieved_rps;
      break;
    case Kind::kGoodput:
      value = row.goodput();
      break;
    case Kind::kCount:
      if (metric.outcome == "requests" && row.requests) value = static_cast<double>(*row.requests);
      break;
    case Kind::kMean:
    case Kind::kMax:
    case Kind::kReconcile:  // a level's --reconcile, in extra_metrics
    case Kind::kDrops:
    case Kind::kStreamPercentile:  // a level's streams, likewise
    case Kind::kStreamRate:
    case Kind::kStreamGoodput:
      break;
  }
  value = finite_or_none(value);
  return value ? value : extra(row, metric);
}

std::string describe_slo(const Slo& slo) {
  std::string out;
  for (const measure::Threshold& t : slo.bounds) {
    if (!out.empty()) out += ", ";
    out += t.metric.text() + " " + std::string(comparison_symbol(t.comparison)) + " " +
           describe_bound(t);
  }
  return out;
}

}  // namespace proofload::analyze
