// Parsing and watching of abort rules (see abort_rule.h). Parsing throws UsageError only;
// watching never throws.
#include "analyze/abort_rule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "common/text.h"
#include "common/units.h"
#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

constexpr std::string_view kForm = "write CONDITION for DURATION, like \"errors > 50% for 10s\"";

bool is_for(std::string_view word) {
  return word.size() == 3 && (word[0] | 0x20) == 'f' && (word[1] | 0x20) == 'o' &&
         (word[2] | 0x20) == 'r';
}

// Where the last "for" standing as a word between whitespace starts, or npos. It needs a
// character on each side, so it starts at 1 or later and ends before the last character.
size_t last_for(std::string_view text) {
  if (text.size() < 5) return std::string_view::npos;
  for (size_t i = text.size() - 4; i >= 1; --i) {
    if (is_blank(text[i - 1]) && is_for(text.substr(i, 3)) && is_blank(text[i + 3])) return i;
  }
  return std::string_view::npos;
}

// The most extreme of two values in the direction the condition points.
double more_extreme(measure::Comparison comparison, double held, double seen) {
  switch (comparison) {
    case measure::Comparison::kGreater:
    case measure::Comparison::kGreaterEqual:
      return std::max(held, seen);
    case measure::Comparison::kLess:
    case measure::Comparison::kLessEqual:
      return std::min(held, seen);
    case measure::Comparison::kEqual:
      return seen;
  }
  return seen;
}

}  // namespace

AbortRule parse_abort_rule(std::string_view text) {
  const std::string_view rule_text = trim(text);
  auto fail = [&](const std::string& why) {
    throw UsageError("invalid abort rule \"" + std::string(rule_text) + "\": " + why);
  };
  const size_t split = last_for(rule_text);
  if (split == std::string_view::npos)
    fail("missing \"for DURATION\" (" + std::string(kForm) + ")");
  const std::string_view condition_text = trim(rule_text.substr(0, split));
  const std::string_view duration_text = trim(rule_text.substr(split + 3));

  AbortRule rule;
  rule.text = std::string(rule_text);
  try {
    rule.condition = measure::parse_threshold(condition_text);
  } catch (const UsageError& e) {
    fail(e.what());
  }
  if (!rule.condition.metric.scope.empty()) {
    measure::MetricRef whole_run = rule.condition.metric;
    whole_run.scope.clear();
    fail("an abort condition reads the whole run: use " + whole_run.text() + ", not " +
         rule.condition.metric.text());
  }
  if (rule.condition.metric.needs_reconcile()) {
    fail(rule.condition.metric.text() +
         " is read off the server's counter once the run has ended, never window by window");
  }
  try {
    rule.for_ns = parse_duration_ns(duration_text);
  } catch (const UsageError& e) {
    fail(e.what());
  }
  if (rule.for_ns <= 0) fail("the duration after \"for\" must be above zero, like 10s");
  return rule;
}

AbortWatch::AbortWatch(AbortRule rule) : rule_(std::move(rule)) {}

bool AbortWatch::add_window(int64_t duration_ns, const measure::MetricLookup& lookup) {
  if (triggered_) return true;
  std::optional<double> value = lookup(rule_.condition.metric);
  if (!value || std::isnan(*value)) {
    streak_ns_ = 0;
    return false;
  }
  const auto results = measure::evaluate_thresholds(
      {rule_.condition}, [&](const measure::MetricRef&) { return value; });
  if (!results.front().passed) {
    streak_ns_ = 0;
    return false;
  }
  worst_ = streak_ns_ == 0 ? *value : more_extreme(rule_.condition.comparison, worst_, *value);
  streak_ns_ += std::max<int64_t>(duration_ns, 0);
  if (streak_ns_ < rule_.for_ns) return false;

  triggered_ = true;
  return true;
}

std::optional<double> AbortWatch::worst() const {
  return triggered_ ? std::optional<double>(worst_) : std::nullopt;
}

}  // namespace proofload::analyze
