// Tests for reading threshold metrics out of a finished run: each metric, each scope (the run,
// a named request, a flow), and "no data" where nothing can be shown.
#include "experiments/thresholds.h"

#include <gtest/gtest.h>

namespace proofload::experiments {
namespace {

using measure::Outcome;

void add(std::array<int64_t, measure::kOutcomeCount>& outcomes, Outcome o, int64_t n) {
  outcomes[static_cast<int>(o)] += n;
}

// 100 intended: 90 success, 5 status_429, 3 check_failed, 2 never started, of 40 arrivals (the
// rest a flow's later steps); 10 s measured.
// Named: "lookup" (80 requests, 1..80 ms) and "create" (18); flow "lifecycle": 10 started,
// 7 succeeded, 2 failed, 1 abandoned.
report::RunResult make_result() {
  report::RunResult r;
  r.measured_duration_s = 10;
  r.span.duration_ns = 10'000'000'000;
  r.span.counts.responses = 98;
  r.span.counts.successes = 90;
  r.total.intended = 100;
  r.total.arrivals = 40;  // the flow's later steps are the other 60 intended requests
  add(r.total.outcomes, Outcome::kSuccess, 90);
  add(r.total.outcomes, Outcome::kStatus429, 5);
  add(r.total.outcomes, Outcome::kCheckFailed, 3);
  add(r.total.outcomes, Outcome::kNeverStarted, 2);
  for (int i = 1; i <= 98; ++i) r.total.latency_us.record(i * 1000);

  r.request_names = {"lookup", "create"};
  r.flow_names = {"lifecycle"};
  r.named_total.resize(2, 1);
  auto& lookup = r.named_total.requests[0];
  add(lookup.outcomes, Outcome::kSuccess, 76);
  add(lookup.outcomes, Outcome::kStatus429, 4);
  for (int i = 1; i <= 80; ++i) lookup.latency_us.record(i * 1000);
  lookup.span_responses = 80;
  auto& create = r.named_total.requests[1];
  add(create.outcomes, Outcome::kSuccess, 14);
  add(create.outcomes, Outcome::kCheckFailed, 3);
  add(create.outcomes, Outcome::kStatus429, 1);
  auto& flow = r.named_total.flows[0];
  flow.started = 10;
  flow.succeeded = 7;
  flow.failed = 2;
  flow.abandoned = 1;
  for (int i = 0; i < 7; ++i) flow.duration_us.record(250'000);
  return r;
}

double observed(const report::RunResult& r, std::string_view expression) {
  auto value = observed_metric(r, measure::parse_threshold(expression).metric);
  EXPECT_TRUE(value.has_value()) << expression;
  return value.value_or(-1);
}

TEST(ThresholdMetrics, WholeRunSharesUseStartedRequestsAndArrivalsForNeverStarted) {
  const report::RunResult r = make_result();
  EXPECT_DOUBLE_EQ(observed(r, "errors < 1%"), 8.0 / 98.0);
  // Per arrival: 2 of the 40 offered, not of the 100 requests intended.
  EXPECT_DOUBLE_EQ(observed(r, "never_started < 1%"), 2.0 / 40.0);
  EXPECT_DOUBLE_EQ(observed(r, "rate(status_429) < 1%"), 5.0 / 98.0);
  EXPECT_DOUBLE_EQ(observed(r, "count(check_failed) < 1"), 3.0);
  EXPECT_DOUBLE_EQ(observed(r, "rps > 1"), 98.0 / 10.0);
  EXPECT_DOUBLE_EQ(observed(r, "goodput > 1"), 90.0 / 10.0);
  EXPECT_NEAR(observed(r, "p50 < 1s"), 49.0, 0.05);
}

TEST(ThresholdMetrics, ScopeNamesARequestOrAFlow) {
  const report::RunResult r = make_result();
  EXPECT_NEAR(observed(r, "p95(lookup) < 200ms"), 76.0, 0.1);
  EXPECT_DOUBLE_EQ(observed(r, "errors(create) < 1%"), 4.0 / 18.0);
  EXPECT_DOUBLE_EQ(observed(r, "rate(check_failed, create) < 1%"), 3.0 / 18.0);
  EXPECT_DOUBLE_EQ(observed(r, "rps(lookup) > 1"), 8.0);
  // A flow: success over finished flows (the abandoned one is in neither).
  EXPECT_DOUBLE_EQ(observed(r, "rate(flow_success, lifecycle) > 99%"), 7.0 / 9.0);
  EXPECT_DOUBLE_EQ(observed(r, "rate(flow_success) > 99%"), 7.0 / 9.0);
  EXPECT_NEAR(observed(r, "p50(lifecycle) < 1s"), 250.0, 0.5);
}

TEST(ThresholdMetrics, UnknownScopeOrEmptyRunIsNoDataAndFails) {
  report::RunResult empty;
  auto verdicts = evaluate_thresholds(make_result(), {measure::parse_threshold("p95(lokup) < 1s")});
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_FALSE(verdicts[0].passed);
  EXPECT_FALSE(verdicts[0].observed.has_value());
  verdicts = evaluate_thresholds(
      empty, {measure::parse_threshold("errors < 1%"), measure::parse_threshold("p99 < 1s")});
  EXPECT_FALSE(verdicts[0].passed);
  EXPECT_FALSE(verdicts[1].passed);
}

TEST(ThresholdMetrics, VerdictsFollowTheBound) {
  const report::RunResult r = make_result();
  auto verdicts = evaluate_thresholds(r, {measure::parse_threshold("p95(lookup) < 200ms"),
                                          measure::parse_threshold("errors < 1%")});
  ASSERT_EQ(verdicts.size(), 2u);
  EXPECT_TRUE(verdicts[0].passed);
  EXPECT_FALSE(verdicts[1].passed);
  report::RunResult with = r;
  with.thresholds = verdicts;
  EXPECT_FALSE(with.thresholds_passed());
}

}  // namespace
}  // namespace proofload::experiments
