// Thresholds as a user writes them in a scenario file or on the command line: each form parses
// to the metric and bound the run will be judged on, each mistake is one clear line, and the
// verdict and its printed number agree at the boundary.
#include "measure/threshold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "common/usage_error.h"

namespace proofload::measure {
namespace {

using Kind = MetricRef::Kind;

// The message parse_threshold throws for `expression`, or "" if it parsed.
std::string error_of(std::string_view expression) {
  try {
    parse_threshold(expression);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

// Every error names the expression as written and stays on one line.
void expect_error(std::string_view expression, std::string_view mentions) {
  const std::string message = error_of(expression);
  ASSERT_FALSE(message.empty()) << expression << " parsed";
  EXPECT_NE(message.find("\"" + std::string(expression) + "\""), std::string::npos) << message;
  EXPECT_NE(message.find(mentions), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST(ParseThreshold, Percentiles) {
  Threshold t = parse_threshold("p95(lookup) < 200ms");
  EXPECT_EQ(t.expression, "p95(lookup) < 200ms");
  EXPECT_EQ(t.metric.kind, Kind::kPercentile);
  EXPECT_EQ(t.metric.percentile, 95);
  EXPECT_EQ(t.metric.scope, "lookup");
  EXPECT_EQ(t.comparison, Comparison::kLess);
  EXPECT_EQ(t.bound, 200);
  EXPECT_EQ(t.metric.text(), "p95(lookup)");

  t = parse_threshold("p99.9 <= 1.5s");
  EXPECT_EQ(t.metric.percentile, 99.9);
  EXPECT_EQ(t.metric.scope, "");
  EXPECT_EQ(t.bound, 1500);
  EXPECT_EQ(t.metric.text(), "p99.9");

  EXPECT_EQ(parse_threshold("p50 < 250us").bound, 0.25);
  EXPECT_EQ(parse_threshold("P99 < 1m30s").bound, 90000);
  EXPECT_EQ(parse_threshold("p95.0 < 1s").metric.text(), "p95");
}

TEST(ParseThreshold, LatencyBareNumberIsMilliseconds) {
  EXPECT_EQ(parse_threshold("p95 < 200").bound, 200);
  EXPECT_EQ(parse_threshold("mean < 2.5").bound, 2.5);
  EXPECT_EQ(parse_threshold("max < 200 ms").bound, 200);
}

TEST(ParseThreshold, MeanAvgAndMax) {
  Threshold t = parse_threshold("avg(search) < 50ms");
  EXPECT_EQ(t.metric.kind, Kind::kMean);
  EXPECT_EQ(t.metric.text(), "mean(search)");
  EXPECT_EQ(parse_threshold("mean(search) < 50ms").metric, t.metric);
  t = parse_threshold("max <= 2s");
  EXPECT_EQ(t.metric.kind, Kind::kMax);
  EXPECT_EQ(t.metric.text(), "max");
}

TEST(ParseThreshold, Shares) {
  Threshold t = parse_threshold("errors < 1%");
  EXPECT_EQ(t.metric.kind, Kind::kErrorRate);
  EXPECT_EQ(t.bound, 0.01);
  EXPECT_EQ(t.metric.text(), "errors");

  t = parse_threshold("error_rate(checkout) <= 0.005");
  EXPECT_EQ(t.metric.kind, Kind::kErrorRate);
  EXPECT_EQ(t.metric.scope, "checkout");
  EXPECT_EQ(t.bound, 0.005);
  EXPECT_EQ(t.metric.text(), "errors(checkout)");

  t = parse_threshold("never_started < 1%");
  EXPECT_EQ(t.metric.kind, Kind::kNeverStarted);
  EXPECT_EQ(t.metric.text(), "never_started");

  // A percentage becomes the same double as the share the caller computes from counts, so a
  // threshold exactly at the observed share compares as the user expects.
  EXPECT_EQ(parse_threshold("errors < 0.1%").bound, 1.0 / 1000);
  EXPECT_EQ(parse_threshold("errors < 7%").bound, 7.0 / 100);
  EXPECT_EQ(parse_threshold("errors < 100%").bound, 1);
  EXPECT_EQ(parse_threshold("errors < 1").bound, 1);
  EXPECT_EQ(parse_threshold("errors <= 0").bound, 0);
  EXPECT_EQ(parse_threshold("errors < 5 %").bound, 0.05);
}

TEST(ParseThreshold, OutcomeRates) {
  Threshold t = parse_threshold("rate(flow_success, lifecycle) > 99%");
  EXPECT_EQ(t.metric.kind, Kind::kOutcomeRate);
  EXPECT_EQ(t.metric.outcome, "flow_success");
  EXPECT_EQ(t.metric.scope, "lifecycle");
  EXPECT_EQ(t.comparison, Comparison::kGreater);
  EXPECT_EQ(t.bound, 0.99);
  EXPECT_EQ(t.metric.text(), "rate(flow_success, lifecycle)");

  t = parse_threshold("rate(status_429) < 5%");
  EXPECT_EQ(t.metric.outcome, "status_429");
  EXPECT_EQ(t.metric.scope, "");
  EXPECT_EQ(t.metric.text(), "rate(status_429)");

  EXPECT_EQ(parse_threshold("rate(check_failed, login) == 0").metric.outcome, "check_failed");
  EXPECT_EQ(parse_threshold("rate(SUCCESS) >= 0.99").metric.outcome, "success");
}

TEST(ParseThreshold, Counts) {
  Threshold t = parse_threshold("count(status_429, lookup) <= 10");
  EXPECT_EQ(t.metric.kind, Kind::kCount);
  EXPECT_EQ(t.metric.outcome, "status_429");
  EXPECT_EQ(t.metric.scope, "lookup");
  EXPECT_EQ(t.bound, 10);
  EXPECT_EQ(t.metric.text(), "count(status_429, lookup)");

  t = parse_threshold("requests >= 1000");
  EXPECT_EQ(t.metric.kind, Kind::kCount);
  EXPECT_EQ(t.metric.outcome, "requests");
  EXPECT_EQ(t.metric.text(), "requests");

  // Two spellings of the same metric read the same data.
  EXPECT_EQ(parse_threshold("count(requests, lookup) > 0").metric,
            parse_threshold("requests(lookup) > 0").metric);
  EXPECT_EQ(parse_threshold("requests(lookup) > 0").metric.text(), "requests(lookup)");
  EXPECT_EQ(parse_threshold("count(never_started) == 0").metric.outcome, "never_started");
}

TEST(ParseThreshold, Throughput) {
  Threshold t = parse_threshold("rps >= 500");
  EXPECT_EQ(t.metric.kind, Kind::kThroughput);
  EXPECT_EQ(t.bound, 500);
  EXPECT_EQ(t.metric.text(), "rps");
  t = parse_threshold("rps(lookup) > 99.5");
  EXPECT_EQ(t.metric.scope, "lookup");
  EXPECT_EQ(t.bound, 99.5);
  EXPECT_EQ(t.metric.text(), "rps(lookup)");
}

TEST(ParseThreshold, ScopesKeepHyphensUnderscoresDotsAndCase) {
  EXPECT_EQ(parse_threshold("p95(get-user) < 1s").metric.scope, "get-user");
  EXPECT_EQ(parse_threshold("p95(get_user) < 1s").metric.scope, "get_user");
  EXPECT_EQ(parse_threshold("p95(api.v2.Lookup) < 1s").metric.scope, "api.v2.Lookup");
  EXPECT_EQ(parse_threshold("rate(success, check-out.v1_b) > 0.9").metric.scope, "check-out.v1_b");
}

TEST(ParseThreshold, WhitespaceIsFree) {
  const MetricRef expected = parse_threshold("rate(flow_success, lifecycle) > 99%").metric;
  Threshold t = parse_threshold("  rate ( flow_success ,lifecycle )>99 %  ");
  EXPECT_EQ(t.metric, expected);
  EXPECT_EQ(t.bound, 0.99);
  EXPECT_EQ(t.expression, "rate ( flow_success ,lifecycle )>99 %");

  t = parse_threshold("p95(lookup)<200ms");
  EXPECT_EQ(t.metric.scope, "lookup");
  EXPECT_EQ(t.bound, 200);
  EXPECT_EQ(parse_threshold("\terrors\t<=\t1%").comparison, Comparison::kLessEqual);
}

TEST(ParseThreshold, EachComparison) {
  EXPECT_EQ(parse_threshold("errors < 1%").comparison, Comparison::kLess);
  EXPECT_EQ(parse_threshold("errors <= 1%").comparison, Comparison::kLessEqual);
  EXPECT_EQ(parse_threshold("errors > 1%").comparison, Comparison::kGreater);
  EXPECT_EQ(parse_threshold("errors >= 1%").comparison, Comparison::kGreaterEqual);
  EXPECT_EQ(parse_threshold("errors == 0").comparison, Comparison::kEqual);
  EXPECT_EQ(parse_threshold("errors = 0").comparison, Comparison::kEqual);
  EXPECT_EQ(comparison_text(Comparison::kLess), "<");
  EXPECT_EQ(comparison_text(Comparison::kLessEqual), "<=");
  EXPECT_EQ(comparison_text(Comparison::kGreater), ">");
  EXPECT_EQ(comparison_text(Comparison::kGreaterEqual), ">=");
  EXPECT_EQ(comparison_text(Comparison::kEqual), "==");
}

TEST(ParseThresholdErrors, UnitThatDoesNotFitTheMetric) {
  expect_error("p95 < 1%", "p95 is a latency");
  expect_error("mean(lookup) < 5%", "mean(lookup) is a latency");
  expect_error("errors < 200ms", "errors is a share");
  expect_error("errors < 200ms", "not a duration");
  expect_error("rate(success) > 1s", "not a duration");
  expect_error("never_started < 2x", "unknown unit \"x\"");
  expect_error("count(status_429) < 1%", "count(status_429) is a count");
  expect_error("requests > 10s", "not a duration");
  expect_error("rps > 50%", "rps is in requests per second");
  expect_error("rps > 5k", "unknown unit \"k\"");
}

TEST(ParseThresholdErrors, SharesOutOfRange) {
  // "errors < 5" almost surely meant 5%: say so rather than read it as 500%.
  expect_error("errors < 5", "write 5%");
  expect_error("errors < 101%", "at most 100%");
  expect_error("errors < -1%", "must not be negative");
}

TEST(ParseThresholdErrors, UnknownMetricNamesTheAllowedOnesAndTheNearest) {
  expect_error("eror < 1%", "unknown metric \"eror\"");
  expect_error("eror < 1%", "did you mean \"errors\"?");
  expect_error("eror < 1%", "p95, p99.9), mean, avg, max, errors, error_rate, never_started");
  expect_error("latency < 200ms", "unknown metric \"latency\"");
  // No suggestion that shares nothing with the word.
  EXPECT_EQ(error_of("latency < 200ms").find("did you mean"), std::string::npos);
  expect_error("p95x < 200ms", "did you mean \"p95\"?");
  expect_error("rates(success) > 1%", "did you mean \"rate\"?");
}

TEST(ParseThresholdErrors, UnknownOutcome) {
  expect_error("rate(sucess) > 99%", "unknown outcome \"sucess\"");
  expect_error("rate(sucess) > 99%", "did you mean \"success\"?");
  expect_error("rate(sucess) > 99%", "status_429");
  expect_error("count(flow_sucess, x) < 1", "did you mean \"flow_success\"?");
  expect_error("rate(never_started) < 1%", "use never_started");
  expect_error("rate(requests) < 1%", "unknown outcome \"requests\"");
  EXPECT_EQ(error_of("rate(x) < 1%").find("never_started"), std::string::npos);
  expect_error("count(x) < 1", "flow_success, requests)");
}

TEST(ParseThresholdErrors, BadPercentile) {
  expect_error("p0 < 1s", "bad percentile \"p0\"");
  expect_error("p100 < 1s", "bad percentile \"p100\"");
  expect_error("p-1 < 1s", "bad percentile \"p-1\"");
  expect_error("p99.9.9 < 1s", "bad percentile");
  expect_error("p100 < 1s", "above 0 and below 100");
}

TEST(ParseThresholdErrors, MissingPieces) {
  expect_error("p95", "missing comparison after p95");
  expect_error("p95(lookup) 200ms", "expected a comparison after p95(lookup)");
  expect_error("errors != 0", "!= cannot be used");
  expect_error("p95 <", "missing bound");
  EXPECT_NE(error_of("  p95 <   ").find("\"p95 <\": missing bound"), std::string::npos);
  expect_error("< 200ms", "missing metric");
  expect_error("rate > 1%", "rate needs an outcome");
  expect_error("p95(lookup < 200ms", "missing )");
  expect_error("p95() < 1s", "empty argument");
  expect_error("rate(success, a, b) > 1%", "too many arguments");
  expect_error("p95(a, b) < 1s", "at most one argument");
  expect_error("p95(get user) < 1s", "not a name");
  EXPECT_NE(error_of("   ").find("empty"), std::string::npos);
}

TEST(ParseThresholdErrors, BoundNotANumber) {
  expect_error("p95 < fast", "not a number");
  expect_error("p95 < 1.2.3ms", "not a number");
  expect_error("p95 < 1 2ms", "not a number");
  expect_error("errors < nan", "not a number");
  expect_error("p95 < 2xs", "invalid duration");
  expect_error("p95 < -5ms", "must not be negative");
}

// A lookup over fixed values, keyed by the metric's canonical text.
MetricLookup lookup_from(std::map<std::string, double> values) {
  return [values = std::move(values)](const MetricRef& m) -> std::optional<double> {
    const auto it = values.find(m.text());
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

ThresholdResult evaluate_one(std::string_view expression, std::optional<double> observed) {
  std::map<std::string, double> values;
  const Threshold t = parse_threshold(expression);
  if (observed) values[t.metric.text()] = *observed;
  const auto results = evaluate_thresholds({t}, lookup_from(values));
  EXPECT_EQ(results.size(), 1u);
  return results.at(0);
}

TEST(EvaluateThresholds, StrictAndNonStrictAtTheBoundary) {
  EXPECT_FALSE(evaluate_one("p95 < 200ms", 200).passed);
  EXPECT_TRUE(evaluate_one("p95 <= 200ms", 200).passed);
  EXPECT_TRUE(evaluate_one("p95 < 200ms", 199.999).passed);
  EXPECT_FALSE(evaluate_one("rps > 500", 500).passed);
  EXPECT_TRUE(evaluate_one("rps >= 500", 500).passed);
  EXPECT_TRUE(evaluate_one("count(status_429) == 0", 0).passed);
  EXPECT_FALSE(evaluate_one("count(status_429) == 0", 1).passed);
  // Shares from counts: 1 error in 100 is exactly 1%, 7 in 100 exactly 7%, 1 in 1000 0.1%.
  EXPECT_FALSE(evaluate_one("errors < 1%", 1.0 / 100).passed);
  EXPECT_TRUE(evaluate_one("errors <= 1%", 1.0 / 100).passed);
  EXPECT_TRUE(evaluate_one("errors <= 7%", 7.0 / 100).passed);
  EXPECT_TRUE(evaluate_one("errors <= 0.1%", 1.0 / 1000).passed);
  EXPECT_FALSE(evaluate_one("rate(success) > 99%", 99.0 / 100).passed);
  EXPECT_TRUE(evaluate_one("rate(success) >= 99%", 99.0 / 100).passed);
}

TEST(EvaluateThresholds, NoDataFails) {
  const ThresholdResult r = evaluate_one("p95(nothing) < 200ms", std::nullopt);
  EXPECT_FALSE(r.passed);
  EXPECT_FALSE(r.observed.has_value());
  EXPECT_EQ(r.observed_text, "no data");
  // Even a threshold any value would pass.
  EXPECT_FALSE(evaluate_one("errors >= 0", std::nullopt).passed);
  EXPECT_FALSE(evaluate_one("errors >= 0", std::nan("")).passed);
  EXPECT_EQ(evaluate_one("errors >= 0", std::nan("")).observed_text, "no data");
}

TEST(EvaluateThresholds, ResultsInOrderAndAllPassed) {
  const std::vector<Threshold> thresholds = {
      parse_threshold("p95(lookup) < 200ms"), parse_threshold("errors < 1%"),
      parse_threshold("rate(flow_success, lifecycle) > 99%")};
  const auto lookup = lookup_from(
      {{"p95(lookup)", 183.2}, {"errors", 0.0042}, {"rate(flow_success, lifecycle)", 0.995}});
  auto results = evaluate_thresholds(thresholds, lookup);
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].expression, "p95(lookup) < 200ms");
  EXPECT_EQ(results[0].observed, 183.2);
  EXPECT_EQ(results[1].expression, "errors < 1%");
  EXPECT_EQ(results[2].expression, "rate(flow_success, lifecycle) > 99%");
  EXPECT_TRUE(all_passed(results));

  results = evaluate_thresholds(thresholds, lookup_from({{"p95(lookup)", 183.2}, {"errors", 0}}));
  EXPECT_TRUE(results[0].passed);
  EXPECT_TRUE(results[1].passed);
  EXPECT_FALSE(results[2].passed);
  EXPECT_FALSE(all_passed(results));
  EXPECT_TRUE(all_passed({}));
}

TEST(EvaluateThresholds, LookupSeesTheParsedMetric) {
  std::vector<MetricRef> asked;
  evaluate_thresholds({parse_threshold("rate(status_429, lookup) < 5%")},
                      [&](const MetricRef& m) -> std::optional<double> {
                        asked.push_back(m);
                        return 0.0;
                      });
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0].kind, Kind::kOutcomeRate);
  EXPECT_EQ(asked[0].outcome, "status_429");
  EXPECT_EQ(asked[0].scope, "lookup");
}

TEST(ObservedText, EachUnit) {
  EXPECT_EQ(evaluate_one("p95(lookup) < 200ms", 183.24).observed_text, "p95(lookup) = 183.2 ms");
  EXPECT_EQ(evaluate_one("p95 < 200ms", 1200).observed_text, "p95 = 1,200.0 ms");
  EXPECT_EQ(evaluate_one("mean < 1ms", 0.25).observed_text, "mean = 0.250 ms");
  EXPECT_EQ(evaluate_one("errors < 1%", 0.0042).observed_text, "errors = 0.42%");
  EXPECT_EQ(evaluate_one("errors < 1%", 0.005).observed_text, "errors = 0.5%");
  EXPECT_EQ(evaluate_one("errors < 1%", 0).observed_text, "errors = 0%");
  EXPECT_EQ(evaluate_one("rate(success) > 99%", 0.99561).observed_text, "rate(success) = 99.56%");
  EXPECT_EQ(evaluate_one("never_started < 1%", 0.123456).observed_text, "never_started = 12.35%");
  EXPECT_EQ(evaluate_one("requests > 10", 1234).observed_text, "requests = 1,234");
  EXPECT_EQ(evaluate_one("p99 < 1s", 1234567.8).observed_text, "p99 = 1,234,567.8 ms");
  EXPECT_EQ(evaluate_one("rps(lookup) > 10", 512.34).observed_text, "rps(lookup) = 512.3 req/s");
}

TEST(ObservedText, NeverContradictsTheVerdict) {
  // 0.99996% would print as 1% beside a pass of "< 1%": print enough digits to show it is below.
  ThresholdResult r = evaluate_one("errors < 1%", 0.0099996);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.observed_text, "errors = 0.99996%");
  // 199.96 ms would print as 200.0 beside a pass of "< 200ms".
  r = evaluate_one("p95 < 200ms", 199.96);
  EXPECT_TRUE(r.passed);
  EXPECT_EQ(r.observed_text, "p95 = 199.96 ms");
  // A few errors in millions are not "0%" beside a fail of "== 0".
  r = evaluate_one("errors == 0", 0.00002);
  EXPECT_FALSE(r.passed);
  EXPECT_EQ(r.observed_text, "errors = 0.002%");
  // A share short of everything is not 100%, even where the verdict would agree.
  EXPECT_EQ(evaluate_one("rate(success) > 99%", 0.99999).observed_text, "rate(success) = 99.999%");
  EXPECT_EQ(evaluate_one("rate(success) > 99%", 1).observed_text, "rate(success) = 100%");
  // Exactly at the bound: the short form already agrees.
  EXPECT_EQ(evaluate_one("errors < 1%", 0.01).observed_text, "errors = 1%");
}

TEST(ParseThreshold, ReconcileIsExactOrNot) {
  for (std::string_view text : {"reconcile==exact", "reconcile = EXACT", "Reconcile == exact"}) {
    const Threshold t = parse_threshold(text);
    EXPECT_EQ(t.metric.kind, Kind::kReconcile) << text;
    EXPECT_EQ(t.metric.text(), "reconcile");
    EXPECT_EQ(t.comparison, Comparison::kEqual);
    EXPECT_EQ(t.bound, 0);
    EXPECT_TRUE(t.metric.needs_reconcile());
  }
  EXPECT_TRUE(evaluate_one("reconcile==exact", 0).passed);
  EXPECT_EQ(evaluate_one("reconcile==exact", 0).observed_text, "reconcile = exact");
  EXPECT_FALSE(evaluate_one("reconcile==exact", 433'859).passed);
  EXPECT_EQ(evaluate_one("reconcile==exact", 433'859).observed_text,
            "reconcile = mismatch (433,859 apart)");
  EXPECT_FALSE(evaluate_one("reconcile==exact", std::nullopt).passed);
}

TEST(ParseThreshold, DropsIsAShareOfTheClientsSuccesses) {
  const Threshold t = parse_threshold("drops<=0.1%");
  EXPECT_EQ(t.metric.kind, Kind::kDrops);
  EXPECT_EQ(t.metric.text(), "drops");
  EXPECT_DOUBLE_EQ(t.bound, 0.001);
  EXPECT_TRUE(t.metric.needs_reconcile());
  EXPECT_TRUE(evaluate_one("drops<=0.1%", 0.0005).passed);
  EXPECT_FALSE(evaluate_one("drops<=0.1%", 0.114).passed);
  EXPECT_EQ(evaluate_one("drops<=0.1%", 0.114).observed_text, "drops = 11.4%");
  // The server counted more than the client saw succeed: no drops.
  EXPECT_TRUE(evaluate_one("drops<=0.1%", -0.02).passed);
  EXPECT_FALSE(parse_threshold("errors<1%").metric.needs_reconcile());
}

TEST(ParseThresholdErrors, ReconcileForms) {
  expect_error("reconcile < exact", "reconcile == exact");
  expect_error("reconcile == 0", "one bound, exact");
  expect_error("reconcile == mismatch", "one bound, exact");
  expect_error("reconcile(lookup) == exact", "takes no scope");
  expect_error("drops <= 5ms", "drops is a share");
  expect_error("drops(lookup) <= 1%", "takes no scope");
  expect_error("reconcil == exact", "did you mean \"reconcile\"");
}

// The streams' metrics: their times, rates and the goodput share, whole or by request.
TEST(ParseThreshold, StreamMetrics) {
  const Threshold ttft = parse_threshold("ttft_p95(chat) < 500ms");
  EXPECT_EQ(ttft.metric.kind, Kind::kStreamPercentile);
  EXPECT_EQ(ttft.metric.figure, "ttft");
  EXPECT_EQ(ttft.metric.percentile, 95);
  EXPECT_EQ(ttft.metric.scope, "chat");
  EXPECT_EQ(ttft.metric.text(), "ttft_p95(chat)");
  EXPECT_DOUBLE_EQ(ttft.bound, 500);
  EXPECT_EQ(parse_threshold("itl_p99.9<100ms").metric.text(), "itl_p99.9");
  const Threshold tokens = parse_threshold("tokens_per_s >= 1000");
  EXPECT_EQ(tokens.metric.kind, Kind::kStreamRate);
  EXPECT_EQ(tokens.metric.text(), "tokens_per_s");
  const Threshold goodput = parse_threshold("stream_goodput>=90%");
  EXPECT_EQ(goodput.metric.kind, Kind::kStreamGoodput);
  EXPECT_DOUBLE_EQ(goodput.bound, 0.9);
  EXPECT_TRUE(evaluate_one("stream_goodput>=90%", 0.95).passed);
  EXPECT_FALSE(evaluate_one("stream_goodput>=90%", 0.5).passed);
}

TEST(ParseThresholdErrors, StreamForms) {
  expect_error("ttft_p95 < 1%", "ttft_p95");
  expect_error("ttft_p100 < 1s", "bad percentile");
  expect_error("stream_goodput >= 5ms", "stream_goodput");
  expect_error("tokens_per_sec > 5", "did you mean \"tokens_per_s\"");
}

}  // namespace
}  // namespace proofload::measure
