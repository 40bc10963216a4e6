// The exposition's exact text for a small input, label escaping, and totals kept across windows
// and steps (a counter never goes back within the process).
#include "live/metrics_exposition.h"

#include <gtest/gtest.h>

namespace proofload::live {
namespace {

using measure::Outcome;

measure::WindowStats window_with(std::initializer_list<int64_t> latencies_us) {
  measure::WindowStats w;
  w.duration_ns = 1'000'000'000;
  for (int64_t us : latencies_us) {
    w.latency_us.record(us);
    ++w.outcomes[static_cast<int>(Outcome::kSuccess)];
    w.add_status(200);
  }
  w.intended = static_cast<int64_t>(latencies_us.size());
  return w;
}

TEST(MetricsExposition, RendersTheTextFormatForASmallWindow) {
  MetricsExposition metrics;
  metrics.begin_step("level 1 of 2 (100/s)");
  measure::WindowStats w = window_with({800, 3'000, 2'000'000});
  ++w.outcomes[static_cast<int>(Outcome::kNeverStarted)];
  ++w.outcomes[static_cast<int>(Outcome::kStatus503)];
  w.add_status(503);
  w.latency_us.record(20'000);
  w.intended = 5;
  w.bytes_in = 1000;
  w.bytes_out = 200;
  w.connects = 2;
  w.in_flight_end = 7;
  w.queued_end = 1;
  metrics.add_window(w);
  const std::string text = metrics.render();
  const std::string expected_part =
      "# HELP proofload_requests_total Requests ended, by outcome (never_started: due but no "
      "connection was free in time).\n"
      "# TYPE proofload_requests_total counter\n"
      "proofload_requests_total{outcome=\"success\"} 3\n"
      "proofload_requests_total{outcome=\"status_429\"} 0\n"
      "proofload_requests_total{outcome=\"status_503\"} 1\n";
  EXPECT_EQ(text.substr(0, expected_part.size()), expected_part) << text;
  for (const char* line : {
           "proofload_requests_total{outcome=\"never_started\"} 1\n",
           "# TYPE proofload_responses_total counter\n",
           "proofload_responses_total{code=\"200\"} 3\nproofload_responses_total{code=\"503\"} 1\n",
           "# TYPE proofload_latency_seconds histogram\n",
           "proofload_latency_seconds_bucket{le=\"0.001\"} 1\n"
           "proofload_latency_seconds_bucket{le=\"0.0025\"} 1\n"
           "proofload_latency_seconds_bucket{le=\"0.005\"} 2\n"
           "proofload_latency_seconds_bucket{le=\"0.01\"} 2\n"
           "proofload_latency_seconds_bucket{le=\"0.025\"} 3\n",
           "proofload_latency_seconds_bucket{le=\"1\"} 3\n"
           "proofload_latency_seconds_bucket{le=\"2.5\"} 4\n",
           "proofload_latency_seconds_bucket{le=\"+Inf\"} 4\n",
           "proofload_latency_seconds_count 4\n",
           "proofload_never_started_total 1\n",
           "proofload_intended_total 5\n",
           "proofload_received_bytes_total 1000\n",
           "proofload_sent_bytes_total 200\n",
           "proofload_connections_opened_total 2\n",
           "# TYPE proofload_in_flight gauge\nproofload_in_flight 7\n",
           "proofload_queued 1\n",
           "proofload_step 1\n",
           "proofload_step_info{label=\"level 1 of 2 (100/s)\"} 1\n",
       }) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\nin\n" << text;
  }
  // The sum is of the recorded values (bucket resolution aside): 2.0238 s.
  const size_t sum = text.find("proofload_latency_seconds_sum ");
  ASSERT_NE(sum, std::string::npos);
  EXPECT_NEAR(std::stod(text.substr(sum + 30)), 2.0238, 0.002);
  EXPECT_EQ(text.back(), '\n');
}

TEST(MetricsExposition, EscapesLabelValues) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  MetricsExposition metrics;
  metrics.begin_step("cell \"x\"\\y\nz");
  EXPECT_NE(metrics.render().find("proofload_step_info{label=\"cell \\\"x\\\"\\\\y\\nz\"} 1\n"),
            std::string::npos)
      << metrics.render();
}

TEST(MetricsExposition, KeepsTotalsAcrossWindowsAndSteps) {
  MetricsExposition metrics;
  metrics.begin_step("level 1 of 2");
  metrics.add_window(window_with({1'000, 1'000}));
  metrics.begin_step("level 2 of 2");
  measure::WindowStats second = window_with({30'000});
  second.in_flight_end = 3;
  metrics.add_window(second);
  const std::string text = metrics.render();
  EXPECT_NE(text.find("proofload_requests_total{outcome=\"success\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("proofload_latency_seconds_bucket{le=\"0.001\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("proofload_latency_seconds_bucket{le=\"0.05\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("proofload_windows_total 2\n"), std::string::npos);
  EXPECT_NE(text.find("proofload_in_flight 3\n"), std::string::npos);  // a gauge: the last
  EXPECT_NE(text.find("proofload_step 2\n"), std::string::npos);
  EXPECT_NE(text.find("proofload_step_info{label=\"level 2 of 2\"} 1\n"), std::string::npos);
}

TEST(MetricsExposition, CountsAScenariosRequestsByNameAcrossSteps) {
  MetricsExposition metrics;
  EXPECT_EQ(metrics.render().find("proofload_named_requests_total"), std::string::npos)
      << "no scenario: no family";
  metrics.begin_step("cell 1", {"lookup", "odd \"name\""});
  measure::WindowStats w = window_with({1'000, 2'000, 3'000});
  w.request_outcomes.resize(2);
  w.request_outcomes[0][static_cast<int>(Outcome::kSuccess)] = 2;
  w.request_outcomes[1][static_cast<int>(Outcome::kSuccess)] = 1;
  w.request_outcomes[1][static_cast<int>(Outcome::kTimeout)] = 4;
  metrics.add_window(w);
  // The next step's scenario has its requests in another order: each count goes to its name.
  metrics.begin_step("cell 2", {"search", "lookup"});
  measure::WindowStats next = window_with({1'000});
  next.request_outcomes.resize(2);
  next.request_outcomes[1][static_cast<int>(Outcome::kSuccess)] = 5;
  metrics.add_window(next);
  const std::string text = metrics.render();
  EXPECT_NE(text.find("# TYPE proofload_named_requests_total counter\n"
                      "proofload_named_requests_total{request=\"lookup\",outcome=\"success\"} 7\n"
                      "proofload_named_requests_total{request=\"odd \\\"name\\\"\","
                      "outcome=\"success\"} 1\n"
                      "proofload_named_requests_total{request=\"odd \\\"name\\\"\","
                      "outcome=\"timeout\"} 4\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("request=\"search\""), std::string::npos)
      << "an outcome that never occurred has no series";
  EXPECT_NE(text.find("proofload_named_requests_total{request=\"odd \\\"name\\\"\","
                      "outcome=\"timeout\"} 4\n# HELP proofload_responses_total"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace proofload::live
