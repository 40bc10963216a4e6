// A ladder's SLO as a user writes it (--slo): the parts it splits into, the one-line errors, the
// value each bound reads from a recorded row, and the prose a report prints.
#include "analyze/slo.h"

#include <gtest/gtest.h>

#include "common/usage_error.h"

namespace proofload::analyze {
namespace {

using Kind = measure::MetricRef::Kind;

// The message parse_slo throws for `text`, or "" if it parsed.
std::string slo_error_of(std::string_view text) {
  try {
    parse_slo(text);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(ParseSlo, SplitsAtCommasIntoBoundsInOrder) {
  const Slo slo = parse_slo("  p95<1s, errors<=1%  ");
  EXPECT_EQ(slo.text, "p95<1s, errors<=1%");
  ASSERT_EQ(slo.bounds.size(), 2u);
  EXPECT_EQ(slo.bounds[0].expression, "p95<1s");
  EXPECT_EQ(slo.bounds[0].metric.kind, Kind::kPercentile);
  EXPECT_DOUBLE_EQ(slo.bounds[0].bound, 1000);
  EXPECT_EQ(slo.bounds[1].expression, "errors<=1%");
  EXPECT_EQ(slo.bounds[1].comparison, measure::Comparison::kLessEqual);
  EXPECT_TRUE(slo.count_429_as_error);
  EXPECT_FALSE(parse_slo("errors<1%", false).count_429_as_error);
}

TEST(ParseSlo, KeepsCommasInsideParenthesesWithTheirBound) {
  const Slo slo = parse_slo("rate(status_429, lookup) < 1%, p95(lookup) < 200ms");
  ASSERT_EQ(slo.bounds.size(), 2u);
  EXPECT_EQ(slo.bounds[0].metric.text(), "rate(status_429, lookup)");
  EXPECT_EQ(slo.bounds[0].metric.scope, "lookup");
  EXPECT_EQ(slo.bounds[1].metric.text(), "p95(lookup)");
}

TEST(ParseSlo, TheDefaultParses) {
  const Slo slo = parse_slo(kDefaultSlo);
  ASSERT_EQ(slo.bounds.size(), 2u);
  EXPECT_EQ(describe_slo(slo), "p95 ≤ 1 s, errors ≤ 1%");
}

TEST(ParseSlo, EmptyTextOrAnEmptyPartIsOneLineUsageError) {
  for (std::string_view text : {"", "   ", "p95<1s,,errors<1%", "p95<1s,", ",p95<1s", "p95<1s, "}) {
    const std::string message = slo_error_of(text);
    ASSERT_FALSE(message.empty()) << "\"" << text << "\" parsed";
    EXPECT_NE(message.find("empty"), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  EXPECT_NE(slo_error_of("p95<1s,,errors<1%").find("bound 2 of 3"), std::string::npos);
}

TEST(ParseSlo, ABadBoundIsOneLineNamingTheSloAndTheBound) {
  for (std::string_view text : {"p95<1%,errors<1%", "p95<1s,errors<200ms", "p95<1s,latency<2s",
                                "p95<1s,errors<-1%", "p95<1s,errors<"}) {
    const std::string message = slo_error_of(text);
    ASSERT_FALSE(message.empty()) << "\"" << text << "\" parsed";
    EXPECT_NE(message.find("SLO \"" + std::string(text) + "\""), std::string::npos) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
}

LevelRow recorded_row() {
  LevelRow row;
  row.level = 64;
  row.achieved_rps = 1930;
  row.p50_ms = 12.5;
  row.p95_ms = 184;
  row.p99_ms = 317;
  row.requests = 57'900;
  row.error_rate = 0.03;
  row.rate_429 = 0.025;
  row.never_started = 0.001;
  row.extra_metrics = {{"p99.9", 612}, {"p95(lookup)", 99}};
  return row;
}

std::optional<double> metric_of(std::string_view bound, bool count_429_as_error = true) {
  return row_metric(recorded_row(), measure::parse_threshold(bound).metric, count_429_as_error);
}

TEST(RowMetric, ReadsFieldsInTheBoundsUnit) {
  EXPECT_EQ(metric_of("p50<1s"), 12.5);
  EXPECT_EQ(metric_of("p95<1s"), 184);
  EXPECT_EQ(metric_of("p99<1s"), 317);
  EXPECT_EQ(metric_of("rps>100"), 1930);
  EXPECT_EQ(metric_of("requests>100"), 57'900);
  EXPECT_EQ(metric_of("never_started<1%"), 0.001);
  EXPECT_EQ(metric_of("rate(status_429)<1%"), 0.025);
}

TEST(RowMetric, ErrorsInclude429sUnlessTheyAreApart) {
  EXPECT_DOUBLE_EQ(*metric_of("errors<1%", true), 0.03);
  EXPECT_NEAR(*metric_of("errors<1%", false), 0.005, 1e-12);
  // Without a recorded 429 share nothing can be taken out: the whole error rate is judged.
  LevelRow row = recorded_row();
  row.rate_429.reset();
  EXPECT_DOUBLE_EQ(*row_metric(row, measure::parse_threshold("errors<1%").metric, false), 0.03);
}

TEST(RowMetric, OtherMetricsComeFromExtraMetricsElseNoData) {
  EXPECT_EQ(metric_of("p99.9<1s"), 612);
  EXPECT_EQ(metric_of("p95(lookup)<1s"), 99);
  EXPECT_EQ(metric_of("p95(other)<1s"), std::nullopt);
  EXPECT_EQ(metric_of("max<1s"), std::nullopt);
  LevelRow row = recorded_row();
  row.p95_ms.reset();
  EXPECT_EQ(row_metric(row, measure::parse_threshold("p95<1s").metric, true), std::nullopt);
}

TEST(DescribeSlo, SymbolsDurationsAndShares) {
  EXPECT_EQ(describe_slo(parse_slo("p99 < 250ms, p95<1.5s, errors<0.5%")),
            "p99 < 250 ms, p95 < 1.5 s, errors < 0.5%");
  EXPECT_EQ(describe_slo(parse_slo("rps>=500, requests>1000, rate(status_429)==0")),
            "rps ≥ 500/s, requests > 1,000, rate(status_429) = 0%");
  EXPECT_EQ(describe_slo(parse_slo("p99.9(lookup)<=250us")), "p99.9(lookup) ≤ 0.25 ms");
}

TEST(ParseSlo, ReconcileAndDropsAreBoundsOfALevel) {
  const Slo slo = parse_slo("p95<10ms,reconcile==exact");
  ASSERT_EQ(slo.bounds.size(), 2u);
  EXPECT_EQ(slo.bounds[1].metric.kind, Kind::kReconcile);
  EXPECT_EQ(describe_slo(slo), "p95 < 10 ms, reconcile = exact");
  EXPECT_EQ(describe_slo(parse_slo("drops<=0.1%")), "drops ≤ 0.1%");
}

TEST(RowMetric, ReconcileAndDropsComeFromTheLevelsRun) {
  LevelRow row = recorded_row();
  const measure::MetricRef reconcile = measure::parse_threshold("reconcile==exact").metric;
  const measure::MetricRef drops = measure::parse_threshold("drops<=0.1%").metric;
  // A level without a reconcile (or whose counter could not be read) has no data: it fails.
  EXPECT_EQ(row_metric(row, reconcile, true), std::nullopt);
  EXPECT_EQ(row_metric(row, drops, true), std::nullopt);
  row.extra_metrics.emplace_back("reconcile", 0);
  row.extra_metrics.emplace_back("drops", 0.0004);
  EXPECT_EQ(row_metric(row, reconcile, true), 0);
  EXPECT_EQ(row_metric(row, drops, true), 0.0004);
}

}  // namespace
}  // namespace proofload::analyze
