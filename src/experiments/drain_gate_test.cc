// Tests of the drain gate with commands and with a URL served on 127.0.0.1.
#include "experiments/drain_gate.h"

#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "common/clock.h"
#include "common/usage_error.h"
#include "experiments/hooks_test_support.h"

namespace proofload::experiments {
namespace {

using testing::eventually;
using testing::LoopbackSocket;
using testing::read_text;
using testing::response_with_status;
using testing::ScratchDir;
using testing::ScriptedServer;

bool matches(const std::string& text, const std::string& pattern) {
  return std::regex_match(text, std::regex(pattern));
}

// A command that fails until it has run `n` times (counted in a file).
std::string succeeds_on_try(int n, const std::filesystem::path& counter) {
  const std::string file = "'" + counter.string() + "'";
  return "n=$(cat " + file + " 2>/dev/null || echo 0); n=$((n+1)); echo $n > " + file +
         "; echo \"count $n\"; [ \"$n\" -ge " + std::to_string(n) + " ]";
}

TEST(DrainGate, ACommandThatSucceedsOnItsThirdTryDrains) {
  ScratchDir dir;
  const auto log = dir / "hooks" / "02-200-drain.log";
  const DrainResult result =
      wait_until_drained(succeeds_on_try(3, dir / "counter"), 5000 * kNsPerMs, 20 * kNsPerMs, log);
  EXPECT_TRUE(result.drained);
  EXPECT_FALSE(result.cancelled);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.last_answer, "exit 0");
  EXPECT_TRUE(matches(result.describe(), R"(drained after [0-9.]+ s \(3 attempts\))"))
      << result.describe();
  EXPECT_GE(result.waited_s, 0.04);  // two waits of 20 ms between the tries
  const std::string text = read_text(log);
  EXPECT_EQ(text.rfind("count 1\ntry 1 at 0 s: exit 1\ncount 2\ntry 2 at ", 0), 0u) << text;
  EXPECT_NE(text.find("count 3\ntry 3 at "), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("s: exit 0\n")) << text;
}

TEST(DrainGate, ACommandThatNeverSucceedsTimesOutAndSaysWhatItLastAnswered) {
  ScratchDir dir;
  const DrainResult result =
      wait_until_drained("exit 1", 300 * kNsPerMs, 100 * kNsPerMs, dir / "d.log");
  EXPECT_FALSE(result.drained);
  EXPECT_FALSE(result.cancelled);
  // Tries at 0, 0.1, 0.2 s and one last at the deadline (fewer only if a try overran).
  EXPECT_GE(result.attempts, 3);
  EXPECT_LE(result.attempts, 4);
  EXPECT_GE(result.waited_s, 0.3);
  EXPECT_LT(result.waited_s, 1.0);
  EXPECT_EQ(result.last_answer, "exit 1");
  EXPECT_TRUE(matches(result.describe(),
                      R"(not drained after 0\.[3-9]\d? s \([34] attempts; last: exit 1\))"))
      << result.describe();
}

TEST(DrainGate, ACommandThatHangsIsStoppedWithinItsShareOfTime) {
  ScratchDir dir;
  const DrainResult result =
      wait_until_drained("sleep 30", 200 * kNsPerMs, 50 * kNsPerMs, dir / "h.log");
  EXPECT_FALSE(result.drained);
  EXPECT_EQ(result.attempts, 1);
  EXPECT_EQ(result.last_answer, "timed out after 1 s (killed)");  // the least a try is given
  EXPECT_LT(result.waited_s, 3.0);
}

TEST(DrainGate, AUrlDrainsWhenItAnswers2xx) {
  ScratchDir dir;
  ScriptedServer server(
      {response_with_status(503), response_with_status(503), response_with_status(200)});
  const auto log = dir / "drain.log";
  const DrainResult result =
      wait_until_drained(server.url("/health"), 5000 * kNsPerMs, 20 * kNsPerMs, log);
  EXPECT_TRUE(result.drained);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(server.connections(), 3);
  EXPECT_EQ(result.last_answer, "HTTP 200");
  EXPECT_TRUE(matches(result.describe(), R"(drained after [0-9.]+ s \(3 attempts\))"))
      << result.describe();
  const std::string text = read_text(log);
  EXPECT_EQ(text.rfind("try 1 at 0 s: HTTP 503\ntry 2 at ", 0), 0u) << text;
  EXPECT_TRUE(text.ends_with("s: HTTP 200\n")) << text;
}

std::string json_answer(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

TEST(DrainGate, AUrlWithAJsonConditionWaitsUntilItsValueHolds) {
  // 200 every time, as /admin/backlog does: the status alone would pass at once.
  ScratchDir dir;
  ScriptedServer server({json_answer(R"({"backlog":8682,"in_progress":4})"),
                         json_answer(R"({"backlog":12,"in_progress":1})"),
                         json_answer(R"({"backlog":0,"in_progress":0})")});
  const auto log = dir / "drain.log";
  const DrainResult result = wait_until_drained(server.url("/admin/backlog#/backlog==0"),
                                                5000 * kNsPerMs, 20 * kNsPerMs, log);
  EXPECT_TRUE(result.drained);
  EXPECT_EQ(result.attempts, 3);
  EXPECT_EQ(result.last_answer, "HTTP 200, /backlog = 0");
  // The fragment is a condition, never sent.
  EXPECT_EQ(server.first_request().rfind("GET /admin/backlog HTTP/1.1\r\n", 0), 0u);
  const std::string text = read_text(log);
  EXPECT_NE(text.find("try 1 at 0 s: HTTP 200, /backlog = 8682 (waiting for /backlog==0)\n"),
            std::string::npos)
      << text;
}

TEST(DrainGate, JsonConditionsCompareNumbersStringsAndBooleans) {
  auto holds = [](const std::string& condition, const std::string& body) {
    std::string seen;
    return parse_drain_url("http://h/x#" + condition).condition->holds(body, seen);
  };
  EXPECT_TRUE(holds("/backlog<=3", R"({"backlog": 2.5})"));
  EXPECT_FALSE(holds("/backlog<3", R"({"backlog": 3})"));
  EXPECT_TRUE(holds("/q/0/size>=10", R"({"q": [{"size": 10}]})"));
  EXPECT_TRUE(holds("/state==idle", R"({"state": "idle"})"));
  EXPECT_TRUE(holds("/state==\"idle\"", R"({"state": "idle"})"));
  EXPECT_TRUE(holds("/ready==true", R"({"ready": true})"));
  EXPECT_TRUE(holds("/backlog!=0", R"({"backlog": 1})"));
  EXPECT_TRUE(holds("/backlog==0", R"({"backlog": 0.0})"));
  EXPECT_FALSE(holds("/backlog==0", R"({"other": 0})"));  // missing: not drained
  EXPECT_FALSE(holds("/backlog==0", "not json"));
  EXPECT_FALSE(holds("/backlog<5", R"({"backlog": "3"})"));  // a string is no number
  EXPECT_FALSE(parse_drain_url("http://h/admin/ready").condition);
  for (const char* bad : {"http://h/x#backlog==0", "http://h/x#/backlog",
                          "http://h/x#/b==", "http://h/x#/b<idle", "http://h/x#/a~2==1"}) {
    EXPECT_THROW(parse_drain_url(bad), UsageError) << bad;
  }
}

TEST(DrainGate, ARefusedUrlIsNotDrained) {
  ScratchDir dir;
  LoopbackSocket closed_port(false);
  const DrainResult result =
      wait_until_drained(closed_port.url("/health"), 200 * kNsPerMs, 50 * kNsPerMs, dir / "r.log");
  EXPECT_FALSE(result.drained);
  EXPECT_GE(result.attempts, 2);
  EXPECT_EQ(result.last_answer, "connection refused");
  EXPECT_TRUE(
      matches(result.describe(),
              R"(not drained after 0\.[2-9]\d? s \(\d attempts; last: connection refused\))"))
      << result.describe();
}

TEST(DrainGate, CancelStopsTheWaitBetweenTries) {
  ScratchDir dir;
  const auto log = dir / "c.log";
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    eventually([&] { return read_text(log).find("try 2 ") != std::string::npos; });
    cancel = true;
  });
  const DrainResult result =
      wait_until_drained("exit 1", 20'000 * kNsPerMs, 50 * kNsPerMs, log, &cancel);
  canceller.join();
  EXPECT_TRUE(result.cancelled);
  EXPECT_FALSE(result.drained);
  EXPECT_GE(result.attempts, 2);
  EXPECT_LT(result.waited_s, 5.0);
  EXPECT_TRUE(
      matches(result.describe(), R"(cancelled after [0-9.]+ s \(\d+ attempts; last: exit 1\))"))
      << result.describe();
}

TEST(DrainGate, CancelledBeforeTheFirstTryRunsNothing) {
  ScratchDir dir;
  std::atomic<bool> cancel{true};
  const DrainResult result =
      wait_until_drained("touch '" + (dir / "ran").string() + "'", 5000 * kNsPerMs, 50 * kNsPerMs,
                         dir / "n.log", &cancel);
  EXPECT_TRUE(result.cancelled);
  EXPECT_EQ(result.attempts, 0);
  EXPECT_FALSE(std::filesystem::exists(dir / "ran"));
  EXPECT_EQ(result.describe(), "cancelled after 0 s (0 attempts)");
}

}  // namespace
}  // namespace proofload::experiments
