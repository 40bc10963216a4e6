// The server's behaviour over its age, end to end: scheduled faults begin and end when the
// routes file says, a drifting delay grows, a canary's answer turns wrong, --exit-after stops
// the server (and the real binary) by itself. Time zero is set in the past where a test would
// otherwise wait for it, so each test takes at most about a second and a half.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <future>
#include <string>

#include "serve/routes/routes_yaml.h"
#include "serve/server_test_support.h"

namespace proofload::serve {
namespace {

using test_support::Client;
using test_support::Response;
using test_support::RunningServer;

ServerOptions routes_options(std::string_view yaml, int64_t start_ns) {
  ServerOptions options;
  options.routes = parse_routes_yaml(yaml, "test.yaml");
  options.start_ns = start_ns;
  return options;
}

// Requests /burst every 5 ms from 0.8 s to 2.2 s after time zero. A request is decided between
// its sending and its answer, so a 503 must overlap [1 s, 2 s) and a 200 must not lie inside.
TEST(ServerScheduleTest, AStatusFaultAnswersOnlyWithinItsWindow) {
  const int64_t zero_ns = monotonic_ns() - 800 * kNsPerMs;
  RunningServer s(
      routes_options("routes:\n  - path: /burst\n    body: \"ok\\n\"\n"
                     "    faults: [{at: 1s, for: 1s, status: 503}]\n",
                     zero_ns));
  Client c(s.port());
  ASSERT_TRUE(c.connected());
  std::string phases;  // "2" for a run of 200s, "5" for a run of 503s
  while (monotonic_ns() - zero_ns < 2200 * kNsPerMs && phases != "252") {
    int64_t sent_ns = monotonic_ns() - zero_ns;
    c.send("GET /burst HTTP/1.1\r\nHost: t\r\n\r\n");
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r);
    int64_t received_ns = r->received_ns - zero_ns;
    if (r->status == 503) {
      EXPECT_GE(received_ns, kNsPerS);
      EXPECT_LT(sent_ns, 2 * kNsPerS);
      EXPECT_EQ(r->body, "injected fault\n");
    } else {
      ASSERT_EQ(r->status, 200);
      // Wrong only if the whole exchange lay inside the window: one sent just before 2 s may
      // be decided just after it (TSan slows the server enough to see this).
      EXPECT_TRUE(sent_ns < kNsPerS || received_ns >= 2 * kNsPerS) << sent_ns << " " << received_ns;
      EXPECT_EQ(r->body, "ok\n");
    }
    char phase = r->status == 503 ? '5' : '2';
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    ASSERT_TRUE(c.silent_for(5)) << "nothing arrives unasked";
  }
  EXPECT_EQ(phases, "252") << "200 before, 503 within, 200 after";
}

TEST(ServerScheduleTest, ABodyFaultKeepsTheStatusAndReplacesTheBody) {
  const int64_t zero_ns = monotonic_ns();
  RunningServer s(routes_options(
      "routes:\n  - path: /canary\n    content_type: application/json\n"
      "    body: '{\"ok\":true}'\n"
      "    faults: [{at: 0s, for: 1h, body: '{\"ok\":false}'}, {at: 0s, for: 1h, status: 500}]\n",
      zero_ns));
  Client c(s.port());
  c.send("GET /canary HTTP/1.1\r\nHost: t\r\n\r\n");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << "of overlapping faults the first wins";
  EXPECT_EQ(r->body, "{\"ok\":false}");
  EXPECT_NE(r->head.find("Content-Type: application/json"), std::string::npos);
}

// 2.5 s after time zero, `delay: 10ms` with `drift: {add: 50ms, every: 1s}` is 110 ms.
TEST(ServerScheduleTest, ADriftingDelayHasGrownByItsAge) {
  const int64_t zero_ns = monotonic_ns() - 2500 * kNsPerMs;
  RunningServer s(routes_options(
      "routes:\n  - path: /slow\n    delay: 10ms\n    drift: {add: 50ms, every: 1s}\n"
      "  - path: /steady\n    delay: 10ms\n",
      zero_ns));
  Client c(s.port());
  int64_t sent_ns = monotonic_ns();
  c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_GE(r->received_ns - sent_ns, 110 * kNsPerMs);
  EXPECT_LT(r->received_ns - sent_ns, 160 * kNsPerMs) << "one step of drift at most, not two";
  sent_ns = monotonic_ns();
  c.send("GET /steady HTTP/1.1\r\nHost: t\r\n\r\n");
  r = c.next();
  ASSERT_TRUE(r);
  EXPECT_LT(r->received_ns - sent_ns, 60 * kNsPerMs) << "a route without drift stays steady";
}

TEST(ServerScheduleTest, ExitAfterStopsTheServerByItselfAndClosesConnections) {
  ServerOptions options;
  options.port = 0;
  options.exit_after_ns = 300 * kNsPerMs;
  Server server(options);
  const int64_t zero_ns = server.start_ns();
  std::future<void> running = std::async(std::launch::async, [&] { server.run(); });
  Client c(server.port());
  c.send(test_support::kGet);
  ASSERT_TRUE(c.next());
  ASSERT_EQ(running.wait_for(std::chrono::seconds(3)), std::future_status::ready);
  EXPECT_GE(monotonic_ns() - zero_ns, 300 * kNsPerMs);
  EXPECT_TRUE(server.exited_after_deadline());
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerScheduleTest, StopBeforeTheDeadlineIsNotAnExitAfterTheDeadline) {
  ServerOptions options;
  options.exit_after_ns = 60 * kNsPerS;
  RunningServer s(options);
  s.stop_and_join();  // returns at once: the exit timer is woken, not waited out
  EXPECT_FALSE(s.server().exited_after_deadline());
}

// The real binary, bounded by timeout(1): it exits 0 by itself and says why on stderr, after
// saying on stderr when its time zero was.
TEST(ServerScheduleTest, TheBinaryExitsByItselfWithCodeZero) {
  std::string command = std::string("timeout 10 ") + PROOFLOAD_BINARY +
                        " serve --port 0 --exit-after 1s 2>&1; echo \"exit=$?\"";
  int64_t started_ns = monotonic_ns();
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  while (size_t n = fread(chunk, 1, sizeof(chunk), pipe)) output.append(chunk, n);
  pclose(pipe);
  int64_t took_ns = monotonic_ns() - started_ns;
  EXPECT_NE(output.find("serve: time zero at unix ms "), std::string::npos) << output;
  EXPECT_NE(output.find("listening on 127.0.0.1:"), std::string::npos) << output;
  EXPECT_NE(output.find("serve: --exit-after 1s reached: closed gracefully, exit 0\n"),
            std::string::npos)
      << output;
  EXPECT_TRUE(output.ends_with("exit=0\n")) << output;
  EXPECT_GE(took_ns, kNsPerS);
  EXPECT_LT(took_ns, 5 * kNsPerS);
}

}  // namespace
}  // namespace proofload::serve
