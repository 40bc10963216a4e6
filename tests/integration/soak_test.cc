// `proofload soak` and `proofload mark` end to end with the real binary against `proofload serve`
// routes whose faults come at stated times (the server prints its time zero), so each test knows
// the truth: the windows that miss the bar are those with the faults, a mark in the outage fails
// and one in a quiet stretch passes, a mark from another process lands where it was sent, and a
// soak killed with SIGKILL leaves a directory `proofload report` renders (drift: soak_drift_test).
// Every load goes to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json read_json(const std::string& path) { return json::parse(read_file(path)); }

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The server's time zero (its stderr line "time zero at unix ms N"), in unix ms.
int64_t time_zero_ms(ServeProcess& server) {
  const std::string key = "time zero at unix ms ";
  for (int i = 0; i < 100 && server.process().err().find(key) == std::string::npos; ++i) {
    server.process().read_stdout_line(50ms);
  }
  const std::string& err = server.process().err();
  const size_t at = err.find(key);
  if (at == std::string::npos) throw std::runtime_error("serve printed no time zero: " + err);
  return std::stoll(err.substr(at + key.size()));
}

// Waits (bounded) until `path` holds at least `lines` lines.
bool await_lines(const std::string& path, size_t lines, std::chrono::milliseconds deadline) {
  const auto end = std::chrono::steady_clock::now() + deadline;
  while (std::chrono::steady_clock::now() < end) {
    const std::string text = read_file(path);
    if (static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) >= lines) return true;
    std::this_thread::sleep_for(20ms);  // polling a file another process appends to
  }
  return false;
}

constexpr const char* kFaultRoutes =
    "routes:\n"
    "  - {path: /work, delay: 2ms,\n"
    "     faults: [{at: 5s, for: 4s, status: 500}]}\n"
    "  - {path: /answer, body: '{\"status\":\"ok\"}', content_type: application/json,\n"
    "     faults: [{at: 11s, for: 2s, body: '{\"status\":\"wrong\"}'}]}\n"
    "  - {path: /health, builtin: health}\n";

constexpr const char* kSoakScenario =
    "requests:\n"
    "  work: {path: /work}\n"
    "canaries:\n"
    "  answer: {path: /answer, checks: [{status: 200}, {json: /status, equals: ok}]}\n";

TEST(Soak, WindowsMissTheBarExactlyWhereTheFaultsAreAndMarksAreJudgedAroundThem) {
  const std::string dir = make_temp_dir("soak-faults");
  write_file(dir + "/routes.yaml", kFaultRoutes);
  write_file(dir + "/soak.yaml", kSoakScenario);
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "40s"});
  const int64_t zero_ms = time_zero_ms(server);
  Process soak({proofload_binary(),
                "soak",
                dir + "/soak.yaml",
                server.url(),
                "--rate",
                "40",
                "--hold",
                "16s",
                "--window",
                "1s",
                "--canary-every",
                "1s",
                "--mark-window",
                "1s",
                "--mark-at",
                "1s:quiet stretch:true",
                "--workers",
                "1",
                "-q",
                "-o",
                dir + "/out"});
  // From another process, in the middle of the outage (server time 7 s).
  const int64_t send_at_ms = zero_ms + 7'000;
  while (unix_ms_now() < send_at_ms) std::this_thread::sleep_for(10ms);
  const int64_t sending_ms = unix_ms_now();
  Completed mark = run_to_completion({proofload_binary(), "mark", dir + "/out", "outage"}, 10s);
  ASSERT_EQ(mark.exit_code, 0) << mark.err;
  const int64_t sent_ms = unix_ms_now();
  const std::optional<int> code = soak.wait(60s);
  ASSERT_TRUE(code) << "soak did not end";
  EXPECT_EQ(*code, 99) << soak.err();  // windows missed the bar

  const json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "complete");
  const double hold_start_ms = result["hold_start_unix_ns"].get<double>() / 1e6;
  const auto& windows = result["soak"]["windows"];
  ASSERT_GE(windows.size(), 15u);
  int missed = 0, fully_in_outage = 0, fully_in_wrong_answer = 0;
  for (const json& w : windows) {
    // The window's span in the server's time, with 100 ms of slack for the clocks' reading.
    const double from = hold_start_ms + w["start_s"].get<double>() * 1000 - zero_ms;
    const double to = from + w["duration_s"].get<double>() * 1000;
    const bool in_outage = from >= 5'000 + 100 && to <= 9'000 - 100;
    const bool clear_of_outage = to <= 5'000 - 100 || from >= 9'000 + 100;
    const bool wrong_answer_canary = from >= 11'000 + 100 && from <= 13'000 - 200;
    const bool clear_of_wrong_answer = to <= 11'000 - 100 || from >= 13'000 + 100;
    if (!w["bar_met"].get<bool>()) ++missed;
    if (in_outage) {
      ++fully_in_outage;
      EXPECT_FALSE(w["bar_met"].get<bool>()) << w.dump();
      EXPECT_EQ(w["errors"], w["requests"]) << w.dump();
    }
    if (wrong_answer_canary) {
      ++fully_in_wrong_answer;
      EXPECT_FALSE(w["bar_met"].get<bool>()) << w.dump();
      EXPECT_GE(w["canaries_wrong"].get<int>(), 1) << w.dump();
    }
    if (clear_of_outage && clear_of_wrong_answer) {
      EXPECT_TRUE(w["bar_met"].get<bool>()) << w.dump();
    }
  }
  EXPECT_GE(fully_in_outage, 2);
  EXPECT_GE(fully_in_wrong_answer, 1);
  EXPECT_EQ(result["soak"]["windows_missed"], missed);
  EXPECT_GE(result["soak"]["canaries"]["total"].get<int>(), 14);
  EXPECT_GE(result["soak"]["canaries"]["retried"].get<int>(), 1);

  const auto& marks = result["soak"]["marks"];
  ASSERT_EQ(marks.size(), 2u) << marks.dump();
  EXPECT_EQ(marks[0]["label"], "quiet stretch");
  EXPECT_EQ(marks[0]["source"], "scheduled");
  EXPECT_EQ(marks[0]["exit_code"], 0);
  EXPECT_EQ(marks[0]["verdict"], "PASS") << marks[0].dump();
  EXPECT_EQ(marks[1]["label"], "outage");
  EXPECT_EQ(marks[1]["source"], "external");
  EXPECT_EQ(marks[1]["verdict"], "FAIL") << marks[1].dump();
  // The external mark lands at the moment it was sent: between starting `proofload mark` and its
  // return.
  const double at_s = marks[1]["at_s"].get<double>();
  EXPECT_GE(at_s, (sending_ms - hold_start_ms) / 1000 - 0.01);
  EXPECT_LE(at_s, (sent_ms - hold_start_ms) / 1000 + 0.01);

  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find(std::to_string(missed) + " of " + std::to_string(windows.size()) +
                         " windows missed the bar"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("FAIL outage"), std::string::npos) << summary;
  // The run itself is an ordinary run directory beside the soak's files.
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/run/latency.hlog"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/hooks/mark-01.log"));
  // Marks after the end are refused: there is nothing left to judge them.
  EXPECT_EQ(run_to_completion({proofload_binary(), "mark", dir + "/out", "late"}, 10s).exit_code,
            1);
}

TEST(Soak, ASoakKilledOutrightLeavesADirectoryThatReportRenders) {
  ServeProcess server;
  const std::string dir = make_temp_dir("soak-kill");
  Process soak({proofload_binary(), "soak", server.url(), "--rate", "50", "--hold", "60s",
                "--window", "1s", "--workers", "1", "-q", "-o", dir + "/out"});
  ASSERT_TRUE(await_lines(dir + "/out/windows.csv", 4, 20s)) << soak.err();  // header + 3
  soak.signal(SIGKILL);
  ASSERT_TRUE(soak.wait(10s));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/result.json"));
  Completed report = run_to_completion({proofload_binary(), "report", dir + "/out"}, 30s);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json result = read_json(dir + "/out/result.json");
  EXPECT_TRUE(result["rebuilt"].get<bool>());
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_GE(result["soak"]["windows"].size(), 3u);
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("rebuilt from the files the soak streamed"), std::string::npos);
  EXPECT_NE(summary.find("## Windows"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/run/latency.hlog"));
  // Rendered again: the same bytes.
  ASSERT_EQ(run_to_completion({proofload_binary(), "report", dir + "/out"}, 30s).exit_code, 0);
  EXPECT_EQ(read_file(dir + "/out/summary.md"), summary);
}

TEST(Soak, CtrlCEndsWithAFullReportOfTheWindowsSoFar) {
  ServeProcess server;
  const std::string dir = make_temp_dir("soak-int");
  const std::string pid = "pid:" + std::to_string(server.process().pid());
  Process soak({proofload_binary(), "soak", server.url(), "--rate", "50", "--hold", "60s",
                "--window", "1s", "--workers", "1", "--observe", pid, "-q", "-o", dir + "/out"});
  ASSERT_TRUE(await_lines(dir + "/out/windows.csv", 3, 20s)) << soak.err();
  soak.signal(SIGINT);
  const std::optional<int> code = soak.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 130) << soak.err();
  const json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_FALSE(result["rebuilt"].get<bool>());
  EXPECT_GE(result["soak"]["windows"].size(), 2u);
  EXPECT_NE(read_file(dir + "/out/summary.md").find("The short version"), std::string::npos);
  // The server's memory over the soak: first, last and peak of its resident set.
  ASSERT_EQ(result["soak"]["server"].size(), 1u) << result["soak"]["server"].dump();
  const json& memory = result["soak"]["server"][0];
  EXPECT_EQ(memory["source"], pid);
  EXPECT_EQ(memory["figure"], "rss_bytes");
  EXPECT_GT(memory["first_bytes"].get<double>(), 1e6);
  EXPECT_GE(memory["peak_bytes"].get<double>(), memory["last_bytes"].get<double>());
}

TEST(Soak, BadInputIsRefusedBeforeAnythingIsSent) {
  const std::string dir = make_temp_dir("soak-bad");
  const int port = unused_loopback_port();
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/";
  write_file(dir + "/vars.yaml",
             "data: {id: {values: [1, 2]}}\n"
             "requests: {a: {path: /a}}\n"
             "canaries: {c: {path: '/item/${id}'}}\n");
  // Each with the start of its one-line error.
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1500ms"},
       "--window must be whole seconds"},
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1m"},
       "--window is longer than the hold (-d)"},
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1s", "--bar", "p90<1s"},
       "--bar part 'p90<1s'"},
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1s", "--mark-at", "20s:late"},
       "--mark-at late: after the end of the hold"},
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1s", "--mark-at", "nonsense"},
       "--mark-at 'nonsense'"},
      {{"soak", url, "--hold", "10s", "--window", "1s"}, "soak needs --rate"},
      {{"soak", dir + "/vars.yaml", url, "--rate", "10", "--hold", "10s", "--window", "1s"},
       "canary 'c' uses ${id}"},
      {{"soak", url, "--rate", "10", "--hold", "10s", "--window", "1s"}, "cannot connect"},
      {{"mark", dir, "a label"}, "is not a soak's directory"},
  };
  for (auto [args, expected] : cases) {
    args.insert(args.begin(), proofload_binary());
    Completed c = run_to_completion(args, 20s);
    EXPECT_EQ(c.exit_code, 2) << args[2] << " " << c.err;
    EXPECT_NE(c.err.find(expected), std::string::npos) << expected << " in " << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
  }
}

TEST(Soak, PlanSaysWhatWouldRunAndSendsNothing) {
  const int port = unused_loopback_port();
  Completed c = run_to_completion(
      {proofload_binary(), "soak", "http://127.0.0.1:" + std::to_string(port) + "/", "--rate", "60",
       "--hold", "24h", "--ramp", "10m", "--mark-at", "15m:rollback:kubectl rollout undo",
       "--plan"},
      20s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("Soak: open loop at 60.0/s for 24 h after a ramp of 10 min in 5 steps"),
            std::string::npos)
      << c.out;
  EXPECT_NE(c.out.find("mark 'rollback' at 15 min into the hold: runs kubectl rollout undo"),
            std::string::npos)
      << c.out;
  EXPECT_FALSE(loopback_accepts(port));
}

}  // namespace
}  // namespace proofload::testing
