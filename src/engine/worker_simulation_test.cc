// The real Worker driven in simulated time (engine/worker_io.h, engine/simulated_io.h): its
// executors, its connection lifecycle and its recording, against a server whose answers are
// exact, so that outcomes and latencies are checked against arithmetic rather than a noisy
// machine. Runs of many simulated seconds take milliseconds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/clock.h"
#include "engine/simulated_io.h"
#include "engine/worker_simulation_support.h"
#include "measure/outcome.h"

namespace proofload::engine {
namespace {

using measure::Outcome;
using simulation::closed_loop;
using simulation::expect_latency_us;
using simulation::open_loop;
using simulation::Result;
using simulation::run_worker;

// The tests of what the worker does with its connections, whatever they carry, run over each
// protocol session: HTTP/1.1, and HTTP/2 with one stream a connection (the same pool, so the
// same arithmetic holds; several streams a connection: worker_simulation_h2_test.cc).
class SessionTest : public ::testing::TestWithParam<Protocol> {
 protected:
  Result run(LoadSpec spec, simulated::ServerModel model) const {
    spec.protocol = GetParam();
    model.http2 = GetParam() == Protocol::kHttp2;
    return run_worker(spec, model);
  }
};

std::string session_name(const ::testing::TestParamInfo<Protocol>& info) {
  return info.param == Protocol::kHttp2 ? "http2" : "http1";
}

using WorkerSimulation = SessionTest;
using WorkerSimulationSources = SessionTest;
using WorkerSimulationTargets = SessionTest;
using WorkerSimulationStreams = SessionTest;
const auto kSessions = ::testing::Values(Protocol::kHttp11, Protocol::kHttp2);
INSTANTIATE_TEST_SUITE_P(Sessions, WorkerSimulation, kSessions, session_name);
INSTANTIATE_TEST_SUITE_P(Sessions, WorkerSimulationSources, kSessions, session_name);
INSTANTIATE_TEST_SUITE_P(Sessions, WorkerSimulationTargets, kSessions, session_name);
INSTANTIATE_TEST_SUITE_P(Sessions, WorkerSimulationStreams, kSessions, session_name);

int64_t latency_us_at(const Result& r, double percentile) {
  return r.measured.latency_us.value_at_percentile(percentile);
}

TEST_P(WorkerSimulation, OpenLoopBelowCapacityAnswersEveryRequestInTheServiceTime) {
  simulated::ServerModel model;
  model.service_ns = 5 * kNsPerMs;
  Result r = run(open_loop(1000, 10 * kNsPerS, 10, 100), model);
  ASSERT_EQ(r.failure, "");

  EXPECT_EQ(r.measured.intended, 10'000);
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 10'000);
  EXPECT_EQ(r.measured.errors(), 0);
  EXPECT_EQ(r.server.requests, 10'000);
  // Five requests are in flight at a time: the ten connections opened before the start suffice.
  EXPECT_EQ(r.server.connects_attempted, 10);
  expect_latency_us(r.measured.latency_us.min(), 5'000);
  expect_latency_us(r.measured.latency_us.max(), 5'000);
  // A request belongs to the window it ended in: each full second ends a thousand of them.
  ASSERT_GE(r.windows.size(), 10u);
  int64_t ended = 0;
  for (const measure::WindowStats& w : r.windows) ended += w.count(Outcome::kSuccess);
  EXPECT_EQ(ended, 10'000);
  for (size_t w = 1; w < 10; ++w) EXPECT_EQ(r.windows[w].count(Outcome::kSuccess), 1'000) << w;
}

// The accuracy test's construction (tests/integration/accuracy_test.cc) where it holds exactly:
// 1,000 requests/s for 15 s, answered in 1 ms, but a stall of 1 s every 5 s. A fifth of the
// requests arrive in a stall and wait out the rest of it (2 ms to 1,001 ms, three of each), so
// p50 = 1 ms, p90 = 501 ms, p99 = 951 ms, p99.9 = 996 ms and the mean is 101.1 ms.
simulated::ServerModel stalling_server() {
  simulated::ServerModel model;
  model.service_ns = 1 * kNsPerMs;
  model.stall_length_ns = 1 * kNsPerS;
  model.stall_every_ns = 5 * kNsPerS;
  model.stall_first_ns = 2 * kNsPerS;
  return model;
}

TEST_P(WorkerSimulation, AKnownStallGivesTheKnownPercentilesFromTheIntendedStart) {
  // Enough connections that every request of a stall is at the server when it ends.
  Result r = run(open_loop(1000, 15 * kNsPerS, 1100, 1100), stalling_server());
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.intended, 15'000);
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 15'000);
  EXPECT_EQ(r.measured.count(Outcome::kNeverStarted), 0);
  expect_latency_us(latency_us_at(r, 50), 1'000);
  expect_latency_us(latency_us_at(r, 90), 501'000);
  expect_latency_us(latency_us_at(r, 99), 951'000);
  expect_latency_us(latency_us_at(r, 99.9), 996'000);
  EXPECT_NEAR(r.measured.latency_us.mean(), 101'100, 101'100 * 0.001);
  // Service time (from the write) hides the stall where the request was sent at once: it is
  // the wait at the server, the same as the latency here.
  expect_latency_us(r.measured.service_us.value_at_percentile(90), 501'000);
}

TEST_P(WorkerSimulation, RequestsQueuedForAConnectionCountTheirWaitInTheirLatency) {
  // 100 connections hold the first 100 requests of a stall; the other 900 wait in the
  // generator's queue and go out 100 at a time as answers come back, one service time a round.
  // The request at the stall's middle (the p90) goes out in the fifth round after it: 501 ms of
  // stall, then 5 rounds of 1 ms more. Its service time counts from its write, after the stall.
  Result r = run(open_loop(1000, 15 * kNsPerS, 100, 100), stalling_server());
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 15'000);
  EXPECT_EQ(r.measured.count(Outcome::kNeverStarted), 0);
  EXPECT_EQ(r.server.most_open, 100);
  expect_latency_us(latency_us_at(r, 90), 506'000);
  EXPECT_LT(r.measured.service_us.value_at_percentile(90), 20'000);
}

// Deterministic arrivals at `rate` for `duration`, c connections each serving 1 / service_s per
// second: the server carries at most c / service_s; what arrives beyond that and beyond the
// queue, which is served in the grace period after the schedule, is never started.
double analytic_never_started_share(double rate_per_s, int connections, int64_t service_ns,
                                    int64_t duration_ns, int64_t queue) {
  const double capacity_per_s = connections / (static_cast<double>(service_ns) / kNsPerS);
  const double offered = rate_per_s * seconds_of(duration_ns);
  const double served = capacity_per_s * seconds_of(duration_ns) + static_cast<double>(queue);
  return std::max(0.0, 1 - served / offered);
}

double never_started_share(const Result& r) {
  return static_cast<double>(r.measured.count(Outcome::kNeverStarted)) /
         static_cast<double>(r.measured.intended);
}

// Every intended request has exactly one outcome.
void expect_accounting(const Result& r, int64_t intended) {
  EXPECT_EQ(r.measured.intended, intended);
  EXPECT_EQ(r.measured.ended(), intended);
}

// The longest a request waited for a connection: its latency less the server's service time
// (within the histogram's precision, max_wait_precision_us).
int64_t max_wait_us(const Result& r, int64_t service_ns) {
  return r.measured.latency_us.max() - service_ns / kNsPerUs;
}
int64_t max_wait_precision_us(const Result& r) { return r.measured.latency_us.max() / 1000 + 1; }

TEST_P(WorkerSimulation, OverCapacityTheNeverStartedShareMatchesTheArithmetic) {
  // 20 ms answers: 10 connections carry 500/s of the 1,000/s offered. The queue holds 100; what
  // does not fit is never started, and nothing is lost from the count.
  simulated::ServerModel model;
  model.service_ns = 20 * kNsPerMs;
  LoadSpec spec = open_loop(1000, 10 * kNsPerS, 10, 10);
  spec.queue_capacity = 100;
  Result r = run(spec, model);
  ASSERT_EQ(r.failure, "");
  expect_accounting(r, 10'000);
  EXPECT_EQ(r.measured.errors(), 0);
  const double expected =
      analytic_never_started_share(1000, 10, model.service_ns, 10 * kNsPerS, 100);
  EXPECT_DOUBLE_EQ(expected, 0.49);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
  // A full queue of 100 drains at 500/s: queued requests wait about 200 ms, and that wait is part
  // of their latency.
  EXPECT_GE(max_wait_us(r, model.service_ns), 190'000);
  EXPECT_LE(max_wait_us(r, model.service_ns), 220'000);
  EXPECT_EQ(r.server.most_open, 10);
}

TEST_P(WorkerSimulation, ThePoolGrowsToMaxConnectionsOnlyWhenNeeded) {
  simulated::ServerModel model;
  LoadSpec spec = open_loop(1000, 10 * kNsPerS, 10, 50);
  spec.queue_capacity = 100;
  // 5 ms: the pool suffices, no growth at all.
  model.service_ns = 5 * kNsPerMs;
  Result r = run(spec, model);
  expect_accounting(r, 10'000);
  EXPECT_EQ(r.server.connects_attempted, 10);

  // 15 ms: 1,000/s needs 15 connections in use; the pool grows to about that and no further
  // (one more: a new connection's cycle lags by its connect time, so once an arrival finds the
  // 15th still busy), and the only wait is for the new connections to connect.
  model.service_ns = 15 * kNsPerMs;
  r = run(spec, model);
  expect_accounting(r, 10'000);
  EXPECT_GE(r.server.most_open, 15);
  EXPECT_LE(r.server.most_open, 16);
  EXPECT_EQ(r.measured.count(Outcome::kNeverStarted), 0);
  EXPECT_LE(max_wait_us(r, model.service_ns),
            model.connect_ns / kNsPerUs + max_wait_precision_us(r));

  // 50 ms with at most 30 connections: it grows to 30 and stops; the rest queues, and what 30
  // connections cannot carry (600/s of 1,000/s) is never started.
  model.service_ns = 50 * kNsPerMs;
  spec.max_connections = 30;
  r = run(spec, model);
  expect_accounting(r, 10'000);
  EXPECT_EQ(r.server.most_open, 30);
  EXPECT_EQ(r.server.connects_attempted, 30);
  const double expected =
      analytic_never_started_share(1000, 30, model.service_ns, 10 * kNsPerS, 100);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
}

TEST_P(WorkerSimulation, WaitsPastTheRequestTimeoutAreNeverStarted) {
  // A queue large enough never to fill, but at most 50 ms of waiting (the request timeout).
  simulated::ServerModel model;
  model.service_ns = 20 * kNsPerMs;
  LoadSpec spec = open_loop(1000, 10 * kNsPerS, 10, 10);
  spec.queue_capacity = 1000;
  spec.send.request_timeout_ns = 50 * kNsPerMs;
  Result r = run(spec, model);
  ASSERT_EQ(r.failure, "");
  expect_accounting(r, 10'000);
  EXPECT_EQ(r.measured.count(Outcome::kTimeout), 0);  // what started was answered in 20 ms
  // Nothing starts after waiting beyond the limit.
  EXPECT_LE(max_wait_us(r, model.service_ns), 50'000 + max_wait_precision_us(r));
  EXPECT_GE(max_wait_us(r, model.service_ns), 40'000);
  // The queue never fills: what waits past 50 ms is never started, so about as many as 500/s
  // (what 10 connections carry) leaves, and what waits at the end (50 ms of arrivals) is served.
  const double expected =
      analytic_never_started_share(1000, 10, model.service_ns, 10 * kNsPerS, 50);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
}

TEST_P(WorkerSimulation, LostConnectionsAndRefusedConnectsKeepTheAccounting) {
  // The server closes the connection after every 7th answer, and refuses every 3rd connect; the
  // pool is reopened, never past its limit. A refused connect fails the oldest queued request.
  simulated::ServerModel model;
  model.close_after_every_nth_answer = 7;
  model.refuse_every_nth_connect = 3;
  LoadSpec spec = open_loop(1000, 10 * kNsPerS, 10, 12);
  spec.queue_capacity = 100;
  spec.send.request_timeout_ns = kNsPerS;
  Result r = run(spec, model);
  ASSERT_EQ(r.failure, "");
  expect_accounting(r, 10'000);
  EXPECT_EQ(r.measured.count(Outcome::kNeverStarted), 0);  // reconnects keep up
  EXPECT_EQ(r.measured.count(Outcome::kSuccess) + r.measured.count(Outcome::kConnectError), 10'000);
  EXPECT_LE(r.measured.count(Outcome::kConnectError), r.server.connects_refused);
  EXPECT_LE(r.server.most_open, 12);
  // Each lost connection is replaced (a refused one after its backoff), but for those lost at
  // the very end, in the grace period or within a backoff of it; none is opened beyond that and
  // the growth to 12.
  const int64_t losses = r.server.closes + r.server.connects_refused;
  EXPECT_GE(r.server.connects_attempted, 10 + losses - 2);
  EXPECT_LE(r.server.connects_attempted, 12 + losses);
}

TEST_P(WorkerSimulation, ClosedLoopRunsAtUsersOverServiceTime) {
  simulated::ServerModel model;
  model.service_ns = 5 * kNsPerMs;
  Result r = run(closed_loop(10, 5 * kNsPerS), model);
  ASSERT_EQ(r.failure, "");
  // Each of 10 users sends one request every 5 ms for 5 s.
  EXPECT_NEAR(static_cast<double>(r.measured.count(Outcome::kSuccess)), 10'000, 10);
  EXPECT_EQ(r.measured.errors(), 0);
  EXPECT_EQ(r.server.connects_attempted, 10);
  expect_latency_us(r.measured.latency_us.max(), 5'000);
}

TEST_P(WorkerSimulation, ConnectionsTheServerClosesAreReopenedAndNoRequestIsLost) {
  simulated::ServerModel model;
  model.service_ns = 5 * kNsPerMs;
  model.close_after_every_nth_answer = 10;
  Result r = run(open_loop(500, 4 * kNsPerS, 10, 100), model);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 2'000);
  EXPECT_EQ(r.measured.errors(), 0);
  EXPECT_EQ(r.server.closes, 200);
  // Every close is followed by a new connection while there is work.
  EXPECT_GE(r.server.connects_attempted, 10 + 200 - 10);
}

TEST_P(WorkerSimulation, ARefusingServerCostsOneFailedRequestPerConnectAndTheConnectsBackOff) {
  // One user against a server that refuses every connect, for 3 s: the reconnects wait 10 ms,
  // doubling to 1 s (10, 30, 70, 150, 310, 630, 1,270 and 2,270 ms after the first), so a
  // refusing server is not hammered, and each attempt is the failure of the user's request.
  simulated::ServerModel model;
  model.refuse_every_nth_connect = 1;
  Result r = run(closed_loop(1, 3 * kNsPerS), model);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 0);
  EXPECT_EQ(r.server.connects_attempted, 9);
  EXPECT_EQ(r.measured.count(Outcome::kConnectError), r.server.connects_attempted);
  EXPECT_EQ(r.measured.intended, r.server.connects_attempted);
}

TEST_P(WorkerSimulation, UnansweredRequestsTimeOutAndTheOthersAreUntouched) {
  simulated::ServerModel model;
  model.service_ns = 5 * kNsPerMs;
  model.ignore_every_nth_request = 10;
  LoadSpec spec = open_loop(100, 3 * kNsPerS, 10, 100);
  spec.send.request_timeout_ns = 500 * kNsPerMs;
  Result r = run(spec, model);
  ASSERT_EQ(r.failure, "");
  EXPECT_EQ(r.measured.intended, 300);
  EXPECT_EQ(r.server.ignored, 30);
  EXPECT_EQ(r.measured.count(Outcome::kTimeout), 30);
  EXPECT_EQ(r.measured.count(Outcome::kSuccess), 270);
  // Timeouts are counted, not timed: every latency recorded is an answer's.
  EXPECT_EQ(r.measured.latency_us.total_count(), 270);
  expect_latency_us(r.measured.latency_us.max(), 5'000);
}

// A worker bound to a source counts, per window, what a rate limit did with its requests: 2xx
// let through, 429 limited, how many were let through before the first 429, and the first and
// last values of the rate-limit headers. The server lets 100 through, then refuses all.
TEST_P(WorkerSimulationSources, EachWindowCountsWhatTheLimitDidForTheSource) {
  LoadSpec spec = closed_loop(1, 3 * kNsPerS);
  spec.sources = {net::local_address("127.0.0.2")};
  spec.watch_limit_headers = true;
  simulated::ServerModel model;
  model.limited_from_answer = 101;
  const Result r = run(spec, model);
  ASSERT_EQ(r.failure, "");
  int64_t let_through = 0, limited = 0, other = 0;
  std::optional<int64_t> before_first;
  const measure::SourceWindow* last = nullptr;
  for (const measure::WindowStats& w : r.windows) {
    ASSERT_EQ(w.sources.size(), 1u);
    const measure::SourceWindow& s = w.sources[0];
    EXPECT_EQ(s.let_through, w.status[200]) << "window " << w.index;
    EXPECT_EQ(s.limited, w.status[429]) << "window " << w.index;
    let_through += s.let_through;
    limited += s.limited;
    other += s.other;
    if (s.let_through_before_first_429) {
      EXPECT_FALSE(before_first) << "only the window of the first 429 says it";
      before_first = s.let_through_before_first_429;
    }
    last = &s;
  }
  EXPECT_EQ(let_through, 100);
  EXPECT_EQ(limited, r.server.answers - 100);
  EXPECT_GT(limited, 300) << "1 user at 5 ms for 3 s";
  EXPECT_EQ(other, 0);
  EXPECT_EQ(before_first, 100);
  ASSERT_NE(last, nullptr);
  // Named as the wire spells them: HTTP/2 carries names in lower case.
  const bool h2 = GetParam() == Protocol::kHttp2;
  const std::vector<measure::LimitHeader> expected = {
      {h2 ? "ratelimit-remaining" : "RateLimit-Remaining", "99", "0"},
      {h2 ? "retry-after" : "Retry-After", "1", "1"}};
  EXPECT_EQ(last->headers, expected);
}

// Without sources, windows carry no per-source entries (the hot path's windows are unchanged).
TEST_P(WorkerSimulationSources, WithoutSourcesWindowsHaveNone) {
  const Result r = run(closed_loop(1, kNsPerS), simulated::ServerModel{});
  ASSERT_FALSE(r.windows.empty());
  for (const measure::WindowStats& w : r.windows) EXPECT_TRUE(w.sources.empty());
}

// --target repeated: connection i connects to target i mod n, once each on keep-alive.
TEST_P(WorkerSimulationTargets, ConnectionsGoRoundRobinOverTheTargets) {
  LoadSpec spec = closed_loop(5, kNsPerS);
  net::Address a, b;
  a.text = "127.0.0.1:8101";
  b.text = "127.0.0.1:8102";
  spec.targets = {a, b};
  const Result r = run(spec, simulated::ServerModel{});
  EXPECT_EQ(r.server.connects_to.at(a.text), 3);
  EXPECT_EQ(r.server.connects_to.at(b.text), 2);
  EXPECT_EQ(r.server.connects_to.count(""), 0u);  // none went to the single address
}

// --stream sse on the real worker in simulated time: every answer an event stream (two content
// events and the terminator, all at once after the service time), so each stream completes, its
// events and tokens are counted, and its times are exactly the service time from the intended
// start; a terminator that never comes cuts every stream short.
// Every answer two content events and the terminator, all at once after 5 ms.
simulated::ServerModel two_event_streams() {
  simulated::ServerModel model;
  model.service_ns = 5'000'000;
  model.body = "data: a\n\ndata: b\n\ndata: [DONE]\n\n";
  return model;
}

TEST_P(WorkerSimulationStreams, EachAnswerIsReadEventByEvent) {
  const simulated::ServerModel model = two_event_streams();
  LoadSpec spec = closed_loop(2, 2 * kNsPerS);
  spec.stream = std::make_shared<const workload::StreamRules>();
  const Result r = run(spec, model);
  const measure::StreamWindow& s = r.measured.streams;
  const int64_t answered = r.measured.count(measure::Outcome::kSuccess);
  ASSERT_GT(answered, 0);
  EXPECT_EQ(s.completed, answered);
  EXPECT_EQ(s.cut_short, 0);
  EXPECT_EQ(s.events, 3 * answered);
  EXPECT_EQ(s.tokens, 2 * answered);
  EXPECT_EQ(s.ttfce_us.total_count(), answered);
  EXPECT_NEAR(static_cast<double>(s.ttfce_us.value_at_percentile(50)), 5000, 50);
  EXPECT_EQ(s.inter_event_us.max(), 0) << "both content events came in one read";
  int64_t in_windows = 0;
  for (const measure::WindowStats& w : r.windows) in_windows += w.streams.completed;
  EXPECT_GE(in_windows, s.completed) << "each window counts the streams that ended in it";

  auto never_ends = std::make_shared<workload::StreamRules>();
  never_ends->terminator = "[NEVER]";
  spec.stream = never_ends;
  const Result cut = run(spec, model);
  EXPECT_EQ(cut.measured.streams.completed, 0);
  EXPECT_EQ(cut.measured.streams.cut_short, cut.measured.count(measure::Outcome::kSuccess));
}

// --goodput: a completed stream counts as goodput only when it meets every term; here every
// stream's first token is exactly the 5 ms service time from its intended start.
TEST_P(WorkerSimulationStreams, GoodputCountsTheStreamsThatMetTheSlo) {
  const simulated::ServerModel model = two_event_streams();
  LoadSpec spec = closed_loop(2, 2 * kNsPerS);
  spec.stream = std::make_shared<const workload::StreamRules>();
  spec.stream_goodput =
      std::make_shared<const workload::StreamSlo>(workload::StreamSlo::parse("ttft<6ms"));
  const Result met = run(spec, model);
  ASSERT_GT(met.measured.streams.completed, 0);
  EXPECT_EQ(met.measured.streams.goodput, met.measured.streams.completed);
  spec.stream_goodput =
      std::make_shared<const workload::StreamSlo>(workload::StreamSlo::parse("ttft<4ms"));
  const Result missed = run(spec, model);
  ASSERT_GT(missed.measured.streams.completed, 0);
  EXPECT_EQ(missed.measured.streams.goodput, 0);
}

}  // namespace
}  // namespace proofload::engine
