// Abort rules as a user writes them, and the watch over windows: it triggers exactly when the
// condition has held for the stated time, any window that breaks the streak (or has no data)
// starts it over, and the reason names the rule and the value seen.
#include "analyze/abort_rule.h"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "common/usage_error.h"
#include "words/abort_words.h"

namespace proofload::analyze {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

// A window whose metric reads `value` (nullopt: no data).
measure::MetricLookup reading(std::optional<double> value) {
  return [value](const measure::MetricRef&) { return value; };
}

std::string abort_rule_error_of(std::string_view text) {
  try {
    parse_abort_rule(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

void expect_error(std::string_view text, std::string_view mentions) {
  const std::string message = abort_rule_error_of(text);
  ASSERT_FALSE(message.empty()) << text << " parsed";
  EXPECT_NE(message.find(mentions), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ParseAbortRule, ConditionAndDuration) {
  const AbortRule rule = parse_abort_rule("  errors > 50% for 10s ");
  EXPECT_EQ(rule.text, "errors > 50% for 10s");
  EXPECT_EQ(rule.condition.metric.kind, measure::MetricRef::Kind::kErrorRate);
  EXPECT_EQ(rule.condition.comparison, measure::Comparison::kGreater);
  EXPECT_EQ(rule.condition.bound, 0.5);
  EXPECT_EQ(rule.for_ns, 10 * kSecond);

  const AbortRule latency = parse_abort_rule("p99 >= 2s FOR 1m30s");
  EXPECT_EQ(latency.condition.metric.kind, measure::MetricRef::Kind::kPercentile);
  EXPECT_EQ(latency.condition.bound, 2000);
  EXPECT_EQ(latency.for_ns, 90 * kSecond);

  // Any metric the threshold grammar allows, as long as it reads the whole run.
  EXPECT_EQ(parse_abort_rule("rate(status_429) > 10% for 30s").condition.metric.outcome,
            "status_429");
  EXPECT_EQ(parse_abort_rule("rps < 5 for 20s").condition.metric.kind,
            measure::MetricRef::Kind::kThroughput);
}

TEST(ParseAbortRule, Errors) {
  expect_error("errors > 50%", "for DURATION");
  expect_error("errors > 50% for", "for DURATION");
  expect_error("errors > 50% during 10s", "CONDITION for DURATION");  // names the expected form
  expect_error("drops > 1% for 10s", "once the run has ended");  // --reconcile reads it then
  expect_error("errors > 50% for ten seconds", "ten seconds");
  expect_error("errors > 50% for 0s", "above zero");
  expect_error("errors > 5x for 10s", "errors > 5x");
  expect_error("latency > 1s for 10s", "unknown metric");
  expect_error("p95(lookup) > 1s for 10s", "use p95, not p95(lookup)");
  // Every message quotes the rule as written.
  EXPECT_NE(abort_rule_error_of("errors > 50%").find("\"errors > 50%\""), std::string::npos);
}

TEST(AbortWatch, TriggersExactlyWhenTheStreakReachesTheDuration) {
  AbortWatch watch(parse_abort_rule("errors > 50% for 10s"));
  EXPECT_FALSE(watch.add_window(4 * kSecond, reading(0.6)));
  EXPECT_FALSE(watch.add_window(4 * kSecond, reading(0.832)));
  EXPECT_EQ(words::abort_reason(watch), "");
  EXPECT_FALSE(watch.triggered());
  EXPECT_TRUE(watch.add_window(2 * kSecond, reading(0.7)));  // 10 s in all
  EXPECT_TRUE(watch.triggered());
  // The highest window of the streak, printed by the threshold's rules.
  EXPECT_EQ(words::abort_reason(watch), "errors > 50% for 10s: errors = 83.2% over the last 10 s");
  // Once triggered it stays so.
  EXPECT_TRUE(watch.add_window(kSecond, reading(0)));
}

TEST(AbortWatch, AWindowUnderTheBarResetsTheStreak) {
  AbortWatch watch(parse_abort_rule("errors > 50% for 10s"));
  EXPECT_FALSE(watch.add_window(5 * kSecond, reading(0.9)));
  EXPECT_FALSE(watch.add_window(5 * kSecond, reading(0.5)));  // not above 50%
  EXPECT_FALSE(watch.add_window(5 * kSecond, reading(0.6)));
  EXPECT_TRUE(watch.add_window(5 * kSecond, reading(0.6)));
  // The 90% before the reset is not part of the streak.
  EXPECT_EQ(words::abort_reason(watch), "errors > 50% for 10s: errors = 60% over the last 10 s");
}

TEST(AbortWatch, NoDataResetsTheStreak) {
  AbortWatch watch(parse_abort_rule("p95 > 1s for 2s"));
  EXPECT_FALSE(watch.add_window(kSecond, reading(1500)));
  EXPECT_FALSE(watch.add_window(kSecond, reading(std::nullopt)));
  EXPECT_FALSE(watch.add_window(kSecond, reading(NAN)));
  EXPECT_FALSE(watch.add_window(kSecond, reading(1200)));
  EXPECT_TRUE(watch.add_window(kSecond, reading(1100)));
  EXPECT_EQ(words::abort_reason(watch), "p95 > 1s for 2s: p95 = 1,200.0 ms over the last 2 s");
}

TEST(AbortWatch, LowerBoundConditionsReportTheLowestValue) {
  AbortWatch watch(parse_abort_rule("rps < 10 for 3s"));
  EXPECT_FALSE(watch.add_window(kSecond, reading(8)));
  EXPECT_FALSE(watch.add_window(kSecond, reading(2.5)));
  EXPECT_TRUE(watch.add_window(kSecond, reading(9)));
  EXPECT_EQ(words::abort_reason(watch), "rps < 10 for 3s: rps = 2.5 req/s over the last 3 s");
}

TEST(AbortWatch, EveryWindowItIsGivenCounts) {
  // No warm-up inside the watch: the caller leaves warm-up windows out. A window longer than
  // the duration triggers on its own.
  AbortWatch watch(parse_abort_rule("errors >= 100% for 10s"));
  EXPECT_TRUE(watch.add_window(15 * kSecond, reading(1)));
  EXPECT_EQ(words::abort_reason(watch), "errors >= 100% for 10s: errors = 100% over the last 15 s");
}

TEST(AbortWatch, AsksTheLookupForTheRulesMetric) {
  AbortWatch watch(parse_abort_rule("never_started > 5% for 1s"));
  std::optional<measure::MetricRef> asked;
  watch.add_window(kSecond, [&](const measure::MetricRef& metric) {
    asked = metric;
    return std::optional<double>(0.01);
  });
  ASSERT_TRUE(asked);
  EXPECT_EQ(asked->text(), "never_started");
}

}  // namespace
}  // namespace proofload::analyze
