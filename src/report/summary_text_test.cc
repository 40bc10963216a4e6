// The terminal summary and live line: exact text (golden), and the plain statements a user must
// not miss (interrupted, errors, never started).
#include "report/summary_text.h"

#include <gtest/gtest.h>

#include "report/numbers.h"
#include "report/test_fixtures.h"

namespace proofload::report {
namespace {

using measure::Outcome;
using measure::WindowStats;
using testing_support::make_synthetic_result;

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(SummaryText, MatchesGolden) {
  testing_support::expect_matches_golden("summary.txt", format_summary(make_synthetic_result()));
}

TEST(SummaryText, AnHttpsRunSaysItsTlsVersionResumptionAndFirstFailure) {
  RunResult result = make_synthetic_result();
  EXPECT_NE(format_summary(result).find("connections     2 opened\n"), std::string::npos);
  result::SpecTls tls;
  tls.version = "TLSv1.3";
  result.spec.tls = tls;
  result.total.connection.handshakes = 2;
  result.total.connection.resumed = 1;
  result.first_tls_failure = "certificate verify failed: hostname mismatch";
  const std::string text = format_summary(result);
  EXPECT_NE(text.find("connections     2 opened over TLSv1.3; 2 handshakes, 1 resumed\n"
                      "first TLS error certificate verify failed: hostname mismatch\n"),
            std::string::npos)
      << text;
}

TEST(SummaryText, AnHttp2RunSaysItsStreamsTheServersLimitAndGoaways) {
  RunResult result = make_synthetic_result();
  result.spec.protocol = "h2";
  result.spec.executor = "closed_loop";
  result.spec.connections = 64;
  result.spec.h2_streams = 8;
  result.h2_server_max_streams = 1;
  result.total.connection.goaways = 3;
  const std::string text = format_summary(result);
  EXPECT_NE(
      text.find("mode          closed loop, 64 connections × 8 streams (512 virtual users)\n"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find("\n                HTTP/2, 8 streams each (the server allows 1); 3 GOAWAY\n"),
            std::string::npos)
      << text;
}

TEST(SummaryText, InterruptedRunSaysSoOnTheFirstLine) {
  RunResult result = make_synthetic_result();
  result.interrupted = true;
  EXPECT_TRUE(first_line(format_summary(result)).starts_with("INTERRUPTED"))
      << first_line(format_summary(result));
}

TEST(SummaryText, StatesErrorsAndNeverStartedPlainly) {
  const std::string text = format_summary(make_synthetic_result());
  EXPECT_NE(text.find("ERRORS: 7 of 1,997 started requests failed (0.35%)."), std::string::npos)
      << text;
  EXPECT_NE(text.find("NEVER STARTED: 3 of 2,000 requests offered (0.15%)"), std::string::npos)
      << text;
}

TEST(SummaryText, CleanRunRaisesNoAlarm) {
  RunResult result = make_synthetic_result();
  // Keep only the clean window 2 in the totals.
  result.total = WindowStats();
  result.total.merge(testing_support::make_synthetic_windows()[2]);
  const std::string text = format_summary(result);
  EXPECT_EQ(text.find("ERRORS"), std::string::npos) << text;
  EXPECT_EQ(text.find("NEVER STARTED"), std::string::npos) << text;
  EXPECT_TRUE(first_line(text).starts_with("Run complete")) << text;
}

TEST(SummaryText, ClosedLoopModeNamesConnections) {
  RunResult result = make_synthetic_result();
  result.spec = {};
  result.spec.executor = "closed_loop";
  result.spec.connections = 1500;
  EXPECT_NE(format_summary(result).find("mode          closed loop, 1,500 connections\n"),
            std::string::npos);
}

TEST(SummaryText, NoResponsesShowsDashesNotZeros) {
  RunResult result;
  result.end_reason = "duration";
  const std::string text = format_summary(result);
  EXPECT_NE(text.find("  p99                   -               -\n"), std::string::npos) << text;
  EXPECT_NE(text.find("no responses: no latency was measured"), std::string::npos) << text;
}

TEST(SummaryText, MarksPercentilesWithTooFewSamples) {
  RunResult result;
  result.total.latency_us.record_n(1000, 50);  // enough for p50 (20), not for p90 (100)
  result.total.service_us.record_n(900, 50);
  const std::string text = format_summary(result);
  EXPECT_NE(text.find("  p50               1.000           0.900\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  p90               1.000*          0.900*\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  p99               1.000*          0.900*\n"), std::string::npos) << text;
  EXPECT_NE(text.find("* too few samples for this percentile"), std::string::npos) << text;
}

LiveContext at(double elapsed_s) {
  LiveContext where;
  where.elapsed_s = elapsed_s;
  return where;
}

TEST(LiveLine, ReadsLikeTheExample) {
  WindowStats w;
  w.duration_ns = 1'000'000'000;
  w.latency_us.record_n(1020, 9000);
  w.latency_us.record_n(3400, 981);
  w.outcomes[static_cast<int>(Outcome::kSuccess)] = 9981;
  w.in_flight_end = 12;
  // 3400 lies in the bucket [3400, 3401]: 3.401 ms, shown with 2 decimals.
  EXPECT_EQ(format_live_line(w, at(12.0)),
            "  12s  9,981 req/s  p50 1.02ms  p99 3.40ms  errors 0  in flight 12");
}

TEST(LiveLine, SaysWhereTheRunIsWhatItAsksAndWhatWaits) {
  WindowStats w;
  w.duration_ns = 1'000'000'000;
  w.outcomes[static_cast<int>(Outcome::kSuccess)] = 1024;
  w.in_flight_end = 500;
  w.queued_end = 1855;
  const LiveContext ramp{.elapsed_s = 12.0,
                         .planned_s = 40.0,
                         .target = 2500.0,
                         .target_is_rate = true,
                         .label = "level 3 of 5 (2,500/s)",
                         .generator_cpu_cores = std::nullopt};
  EXPECT_EQ(format_live_line(w, ramp),
            "level 3 of 5 (2,500/s)    12s of 40s (28s left)  target 2,500/s  1,024 req/s  p50 -  "
            "p99 -  errors 0  in flight 500  queued 1,855");
  const LiveContext users{
      .elapsed_s = 5.0,
      .planned_s = 50.0,
      .target = 40.0,
      .target_is_rate = false,
      .label = "",
      .generator_cpu_cores = 0.456};
  EXPECT_EQ(format_live_line(w, users),
            "   5s of 50s (45s left)  users 40  1,024 req/s  p50 -  p99 -  errors 0  in flight 500"
            "  queued 1,855  generator CPU 46%");
  // The schedule's last window, a hair before its end: the seconds shown, none left.
  const LiveContext last{.elapsed_s = 9.9996,
                         .planned_s = 10.0,
                         .target = 40.0,
                         .target_is_rate = false,
                         .label = "",
                         .generator_cpu_cores = std::nullopt};
  EXPECT_EQ(format_live_panel(w, last)[0], "run  10s of 10s (0s left)");
  // Past the schedule, waiting for the last answers: finishing, never "11s of 10s (0s left)".
  w.drain = true;
  const LiveContext over{.elapsed_s = 11.0,
                         .planned_s = 10.0,
                         .target = 40.0,
                         .target_is_rate = false,
                         .label = "",
                         .generator_cpu_cores = std::nullopt};
  EXPECT_EQ(format_live_line(w, over),
            "  11s of 10s (finishing: draining what is in flight)  users 40  1,024 req/s  p50 -  "
            "p99 -  errors 0  in flight 500  queued 1,855");
  EXPECT_EQ(format_live_panel(w, over)[0], "run  11s of 10s (finishing: draining what is in flight)");
  // The schedule's time up before its drain window is recorded reads the same.
  w.drain = false;
  EXPECT_EQ(format_live_panel(w, over)[0], "run  11s of 10s (finishing: draining what is in flight)");
  w.drain = true;
  const LiveContext unplanned{.elapsed_s = 3.0,
                              .planned_s = std::nullopt,
                              .target = std::nullopt,
                              .target_is_rate = true,
                              .label = "",
                              .generator_cpu_cores = std::nullopt};
  EXPECT_NE(format_live_line(w, unplanned).find("(finishing)"), std::string::npos);
}

TEST(LivePanel, ShowsRateAgainstTargetLatencyErrorsAndTheGenerator) {
  WindowStats w;
  w.duration_ns = 1'000'000'000;
  w.latency_us.record_n(1020, 900);
  w.latency_us.record_n(3400, 100);
  w.outcomes[static_cast<int>(Outcome::kSuccess)] = 990;
  w.outcomes[static_cast<int>(Outcome::kTimeout)] = 10;
  w.outcomes[static_cast<int>(Outcome::kNeverStarted)] = 5;
  w.in_flight_end = 12;
  w.queued_end = 3;
  LiveContext where{.elapsed_s = 12.0,
                    .planned_s = 40.0,
                    .target = 2000.0,
                    .target_is_rate = true,
                    .label = "level 3 of 5 (2,000/s)",
                    .generator_cpu_cores = 1.25};
  EXPECT_EQ(format_live_panel(w, where),
            (std::vector<std::string>{
                "level 3 of 5 (2,000/s)  12s of 40s (28s left)",
                "  rate     990/s of 2,000/s target (50%)  in flight 12  queued 3",
                "  latency  p50 1.02ms  p99 3.40ms  (last 1s)",
                "  errors   10  never started 5  generator CPU 125%"}));
  where = LiveContext{.elapsed_s = 3.0,
                      .planned_s = std::nullopt,
                      .target = std::nullopt,
                      .target_is_rate = true,
                      .label = "",
                      .generator_cpu_cores = std::nullopt};
  w.warmup = true;
  const std::vector<std::string> lines = format_live_panel(w, where);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "run  3s  (warm-up)");
  EXPECT_EQ(lines[1], "  rate     990/s  in flight 12  queued 3");
}

TEST(LiveLine, NeverWiderThanTheTerminal) {
  // A ladder's line is long; one that wraps leaves its first part on screen at every refresh.
  const std::string line(130, 'x');
  EXPECT_EQ(fit_to_terminal(line, 80).size(), 79u);
  EXPECT_EQ(fit_to_terminal(line, 200), line);
  EXPECT_EQ(fit_to_terminal(line, 0), line);  // not a terminal: nothing is refreshed
}

TEST(LiveLine, EmptyWindowWarmupAndNeverStarted) {
  WindowStats w;
  w.duration_ns = 1'000'000'000;
  w.warmup = true;
  w.outcomes[static_cast<int>(Outcome::kNeverStarted)] = 1200;
  w.outcomes[static_cast<int>(Outcome::kTimeout)] = 3;
  w.in_flight_end = 1024;
  EXPECT_EQ(format_live_line(w, at(3.0)),
            "   3s  0 req/s  p50 -  p99 -  errors 3  in flight 1,024  never started 1,200"
            "  (warm-up)");
}

TEST(Numbers, Iso8601Utc) {
  EXPECT_EQ(iso8601_utc(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(iso8601_utc(1'714'564'800'123'456'789), "2024-05-01T12:00:00.123Z");
}

}  // namespace
}  // namespace proofload::report
