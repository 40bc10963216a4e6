// `proofload ladder`, `analyze` and `report` end to end with the real binary: hooks and the drain
// gate in order and on failure paths (restore always runs), the pre-check, --abort-when, Ctrl-C,
// --plan sending nothing, bad input, an analysis of the example table, and reports that
// re-render byte for byte. Every load goes to `proofload serve` on 127.0.0.1. Timing-free: the
// knee against a known cost is in ladder_knee_test.cc.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json read_json(const std::string& path) { return json::parse(read_file(path)); }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// A hook that appends its name (and level) to `log`.
std::string note(const std::string& log, const std::string& what) {
  return "echo " + what + " ${PROOFLOAD_LEVEL:-} >> " + log;
}

std::vector<std::string> ladder(const std::string& url, const std::string& out,
                                std::vector<std::string> extra) {
  std::vector<std::string> args = {proofload_binary(), "ladder", url, "-q", "-o", out,
                                   "--workers",        "1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

TEST(Ladder, HooksAndDrainGateRunInOrderAroundEachLevel) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-hooks");
  const std::string log = dir + "/order.log";
  Completed c =
      run_to_completion(ladder(server.url(), dir + "/out",
                               {"--concurrency", "1,2", "--hold", "1s", "--warmup", "0s", "--reset",
                                note(log, "reset"), "--drain-until", "echo drain >> " + log,
                                "--before-level", note(log, "before"), "--after-level",
                                note(log, "after"), "--restore", note(log, "restore")}),
                        60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(lines_of(read_file(log)),
            (std::vector<std::string>{"reset 1", "drain", "before 1", "after 1", "reset 2", "drain",
                                      "before 2", "after 2", "restore"}));
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "complete");
  ASSERT_EQ(result["rows"].size(), 2u);
  EXPECT_EQ(result["rows"][0]["directory"], "levels/01-1");
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/levels/01-1/windows.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/levels/02-2/result.json"));
  // Every hook and drain wait is recorded with how long it took and where its output is.
  int drains = 0;
  for (const json& e : result["events"]) {
    EXPECT_TRUE(e["ok"].get<bool>()) << e.dump();
    EXPECT_GE(e["duration_s"].get<double>(), 0);
    if (e["kind"] == "drain") ++drains;
  }
  EXPECT_EQ(drains, 2);
  EXPECT_EQ(result["events"].size(), 9u);
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("drain"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/levels.csv"));
}

TEST(Ladder, AScenarioFileWithItsOwnRunSettingsIsDrivenByTheLevels) {
  ServeProcess server({"--profile", "demo"});
  const std::string dir = make_temp_dir("ladder-scenario");
  // Its own rate, duration and request count are replaced by the ladder's levels and hold.
  std::ofstream(dir + "/mix.yaml") << "executor: {rate: 5000, duration: 1h, requests: 3}\n"
                                      "requests:\n"
                                      "  lookup: {path: /sic/62012, checks: [{status: 200}]}\n"
                                      "  hybrid: {path: /sic/hybrid, checks: [{status: 200}]}\n"
                                      "mix: {lookup: 1, hybrid: 1}\n";
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", dir + "/mix.yaml", server.url(), "--rates", "20,40", "--hold",
       "2s", "--warmup", "0s", "-q", "-o", dir + "/out", "--workers", "1"},
      60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["source"]["scenario_file"], dir + "/mix.yaml");
  EXPECT_EQ(result["source"]["scenario_sha256"].get<std::string>().size(), 64u);
  ASSERT_EQ(result["rows"].size(), 2u);
  EXPECT_NEAR(result["rows"][1]["achieved_rps"].get<double>(), 40, 8);
  EXPECT_GT(result["rows"][1]["requests"].get<int64_t>(), 3);
  json level = read_json(dir + "/out/levels/02-40/result.json");
  EXPECT_TRUE(level["requests"].contains("lookup"));
  EXPECT_TRUE(level["requests"].contains("hybrid"));
}

TEST(Ladder, InterleavedRepeatsRunTheWholeLadderAgainAndMeasureTheNoiseFloor) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-repeat");
  Completed c = run_to_completion(ladder(server.url(), dir + "/out",
                                         {"--concurrency", "1,2", "--hold", "1s", "--warmup", "0s",
                                          "--repeat", "2", "--repeat-order", "interleaved"}),
                                  60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json result = read_json(dir + "/out/result.json");
  std::vector<std::string> order;
  for (const json& row : result["rows"]) order.push_back(row["directory"]);
  EXPECT_EQ(order, (std::vector<std::string>{"levels/01-1-r1", "levels/02-2-r1", "levels/03-1-r2",
                                             "levels/04-2-r2"}));
  const json& analysis = result["analysis"];
  EXPECT_EQ(analysis["noise_floor"]["source"], "measured");
  ASSERT_EQ(analysis["levels"].size(), 2u);
  EXPECT_EQ(analysis["levels"][0]["repeats"], 2);
  EXPECT_TRUE(analysis["levels"][0]["achieved_cv"].is_number());
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("interleaved"), std::string::npos);
  EXPECT_EQ(summary.find("One run per level"), std::string::npos);
}

TEST(Ladder, AFailingHookEndsTheLadderAndRestoreStillRuns) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-hook-fails");
  const std::string log = dir + "/order.log";
  Completed c = run_to_completion(
      ladder(server.url(), dir + "/out",
             {"--concurrency", "1,2", "--hold", "1s", "--warmup", "0s", "--before-level",
              "test ${PROOFLOAD_LEVEL} = 1 || exit 3", "--after-level", note(log, "after"),
              "--restore", note(log, "restore")}),
      60s);
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_EQ(lines_of(read_file(log)), (std::vector<std::string>{"after 1", "restore"}));
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "failed");
  EXPECT_NE(result["end_reason"].get<std::string>().find("before-level"), std::string::npos);
  EXPECT_NE(result["end_reason"].get<std::string>().find("exit 3"), std::string::npos);
  EXPECT_EQ(result["rows"].size(), 1u);  // level 2 never ran
  EXPECT_FALSE(result["analysis"].is_null());
}

TEST(Ladder, ADrainGateThatNeverOpensEndsTheLadderWithTheWaitReported) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-drain");
  const std::string log = dir + "/order.log";
  Completed c = run_to_completion(
      ladder(server.url(), dir + "/out",
             {"--concurrency", "1", "--hold", "1s", "--warmup", "0s", "--drain-until", "false",
              "--drain-timeout", "1s", "--restore", note(log, "restore")}),
      60s);
  EXPECT_EQ(c.exit_code, 1) << c.err;
  EXPECT_EQ(lines_of(read_file(log)), (std::vector<std::string>{"restore"}));
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "failed");
  EXPECT_TRUE(result["rows"].empty());
  ASSERT_FALSE(result["events"].empty());
  const json& drain = result["events"][0];
  EXPECT_EQ(drain["kind"], "drain");
  EXPECT_FALSE(drain["ok"].get<bool>());
  EXPECT_GE(drain["duration_s"].get<double>(), 0.9);
}

TEST(Ladder, APreCheckThatFailsSendsNothing) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-precheck");
  const std::string log = dir + "/order.log";
  const std::string dead = "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/health";
  Completed c = run_to_completion(
      ladder(server.url(), dir + "/out",
             {"--concurrency", "1", "--hold", "1s", "--precheck", dead, "--before-level",
              note(log, "before"), "--restore", note(log, "restore")}),
      60s);
  EXPECT_EQ(c.exit_code, 1) << c.err;
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "failed");
  EXPECT_NE(result["end_reason"].get<std::string>().find("pre-check"), std::string::npos);
  EXPECT_TRUE(result["rows"].empty());
  EXPECT_EQ(lines_of(read_file(log)), (std::vector<std::string>{"restore"}));
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/levels"));
}

TEST(Ladder, ASignalDuringThePreCheckStopsTheLadderAtOnce) {
  ServeProcess server;
  // A pre-check URL whose server never accepts: the kernel completes the connection, the GET
  // waits for an answer that never comes (its timeout is 10 s).
  int silent_port = 0;
  const int silent = listen_on_loopback("silent pre-check", silent_port);
  const std::string dir = make_temp_dir("ladder-precheck-signal");
  Process p(ladder(server.url(), dir + "/out",
                   {"--concurrency", "1", "--hold", "1s", "--precheck",
                    "http://127.0.0.1:" + std::to_string(silent_port) + "/health"}));
  // Under way once its connection waits in the silent socket's queue.
  pollfd queued{silent, POLLIN, 0};
  ASSERT_EQ(::poll(&queued, 1, 10'000), 1) << "the pre-check never connected";
  const auto sent = std::chrono::steady_clock::now();
  p.signal(SIGTERM);
  const std::optional<int> code = p.wait(20s);
  ::close(silent);
  ASSERT_TRUE(code.has_value());
  // Before: the pre-check ran out its 10 s, then the ladder ended `failed` with exit 1.
  EXPECT_EQ(*code, 130) << p.err();
  EXPECT_LT(std::chrono::steady_clock::now() - sent, 3s);
  const json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_TRUE(result["rows"].empty());
}

TEST(Ladder, AbortWhenEndsTheLevelAndTheLadderWithExit99) {
  const std::string routes = make_temp_dir("ladder-abort") + "/routes.yaml";
  std::ofstream(routes) << "routes:\n  - {name: broken, path: /broken, status: 500}\n";
  ServeProcess server({"--routes", routes});
  const std::string dir = make_temp_dir("ladder-abort-out");
  const std::string log = dir + "/order.log";
  const auto start = std::chrono::steady_clock::now();
  Completed c = run_to_completion(ladder(server.url("/broken"), dir + "/out",
                                         {"--rates", "50,100", "--hold", "30s", "--warmup", "0s",
                                          "--abort-when", "errors > 50% for 2s", "--after-level",
                                          note(log, "after"), "--restore", note(log, "restore")}),
                                  60s);
  EXPECT_EQ(c.exit_code, 99) << c.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, 20s);  // not the 30 s hold
  EXPECT_EQ(lines_of(read_file(log)), (std::vector<std::string>{"after 50", "restore"}));
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "aborted");
  EXPECT_NE(result["end_reason"].get<std::string>().find("errors > 50% for 2s"), std::string::npos);
  ASSERT_EQ(result["rows"].size(), 1u);
  EXPECT_EQ(result["rows"][0]["status"], "aborted");
  EXPECT_EQ(read_json(dir + "/out/levels/01-50/result.json")["status"], "aborted");
}

TEST(Ladder, StopOnFailEndsAtTheFirstLevelThatBreaksTheSlo) {
  const std::string routes = make_temp_dir("ladder-stop") + "/routes.yaml";
  std::ofstream(routes) << "routes:\n  - {name: broken, path: /broken, status: 503}\n";
  ServeProcess server({"--routes", routes});
  const std::string dir = make_temp_dir("ladder-stop-out");
  Completed c = run_to_completion(
      ladder(server.url("/broken"), dir + "/out",
             {"--concurrency", "1,2,4", "--hold", "1s", "--warmup", "0s", "--stop-on-fail"}),
      60s);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "stopped");
  EXPECT_NE(result["end_reason"].get<std::string>().find("stopped at level 1"), std::string::npos);
  ASSERT_EQ(result["rows"].size(), 1u);
  EXPECT_EQ(result["analysis"]["knee"]["level"], 1);
  EXPECT_TRUE(result["analysis"]["best_sustained"].is_null());
}

TEST(Ladder, FailIfNoneGivesCiANonZeroExitWhenNoLevelMeetsTheSlo) {
  const std::string routes = make_temp_dir("ladder-none") + "/routes.yaml";
  std::ofstream(routes) << "routes:\n  - {name: broken, path: /broken, status: 503}\n"
                           "  - {name: ok, path: /ok}\n";
  ServeProcess server({"--routes", routes});
  const std::string dir = make_temp_dir("ladder-none-out");
  auto run = [&](const std::string& path, const std::string& out, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--concurrency", "1,2", "--hold", "1s", "--warmup", "0s"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_to_completion(ladder(server.url(path), dir + "/" + out, args), 60s);
  };
  // Every level fails: without the flag the ladder ran as asked (exit 0), with it CI is told.
  EXPECT_EQ(run("/broken", "plain", {}).exit_code, 0);
  Completed failed = run("/broken", "bar", {"--fail-if-none"});
  EXPECT_EQ(failed.exit_code, 99) << failed.err;
  EXPECT_NE(failed.err.find("FAILED the CI bar: no level met the SLO"), std::string::npos)
      << failed.err;
  json result = read_json(dir + "/bar/result.json");
  EXPECT_EQ(result["ci_bar"]["passed"], false);
  EXPECT_EQ(result["ci_bar"]["reason"], "no level met the SLO");
  EXPECT_NE(read_file(dir + "/bar/summary.md").find("| Did it pass the CI bar? | No: no level met"),
            std::string::npos);
  // A healthy route passes the bar, and a --fail-below above what it carries does not.
  EXPECT_EQ(run("/ok", "healthy", {"--fail-if-none"}).exit_code, 0);
  Completed below = run("/ok", "below", {"--fail-below", "1e8"});
  EXPECT_EQ(below.exit_code, 99) << below.err;
  EXPECT_NE(read_json(dir + "/below/result.json")["ci_bar"]["reason"].get<std::string>().find(
                "is below --fail-below 100,000,000.0/s"),
            std::string::npos);
}

TEST(Ladder, CtrlCEndsTheLevelRunsRestoreAndKeepsTheReport) {
  ServeProcess server;
  const std::string dir = make_temp_dir("ladder-sigint");
  const std::string log = dir + "/order.log";
  Process p(ladder(server.url(), dir + "/out",
                   {"--concurrency", "1,2", "--hold", "60s", "--warmup", "0s", "--after-level",
                    note(log, "after"), "--restore", note(log, "restore")}));
  // The first level has begun once its run directory holds result.json.
  const std::string level_result = dir + "/out/levels/01-1/result.json";
  for (int i = 0; i < 200 && !std::filesystem::exists(level_result); ++i) {
    if (p.wait(50ms).has_value()) break;  // ended early: the assertion below says so
  }
  ASSERT_TRUE(std::filesystem::exists(level_result));
  p.signal(SIGINT);
  std::optional<int> code = p.wait(30s);
  ASSERT_TRUE(code.has_value());
  EXPECT_EQ(*code, 130) << p.err();
  EXPECT_EQ(lines_of(read_file(log)), (std::vector<std::string>{"after 1", "restore"}));
  json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["status"], "interrupted");
  ASSERT_EQ(result["rows"].size(), 1u);
  EXPECT_EQ(result["rows"][0]["status"], "interrupted");
  EXPECT_NE(read_file(dir + "/out/summary.md").find("interrupted"), std::string::npos);
}

TEST(Ladder, PlanPrintsTheLevelsAndTimeAndSendsNothing) {
  // Nothing listens there: a plan that connected would fail.
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/";
  const std::string dir = make_temp_dir("ladder-plan");
  Completed c =
      run_to_completion(ladder(url, dir + "/out",
                               {"--rates", "100,200,400", "--hold", "1m", "--warmup", "10s",
                                "--repeat", "2", "--before-level", "./prepare.sh", "--plan"}),
                        30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_NE(c.out.find("6 level runs"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("level 400/s (repeat 2)"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("./prepare.sh"), std::string::npos);
  EXPECT_NE(c.out.find("7 min of load"), std::string::npos) << c.out;  // 6 x (10 s + 60 s)
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(Ladder, BadInputIsOneLineAndExit2) {
  const std::string url = "http://127.0.0.1:" + std::to_string(unused_loopback_port()) + "/";
  const std::vector<std::vector<std::string>> cases = {
      {"--rates", "100,200", "--concurrency", "1,2"},
      {"--hold", "10s"},
      {"--rates", "200,100"},
      {"--concurrency", "1.5,2"},
      {"--rates", "100,9000", "--max-rate", "5000"},
      {"--concurrency", "10,500", "--max-concurrency", "100"},
      {"--rates", "100", "--slo", "p95<1%"},
      {"--rates", "100", "--abort-when", "errors > 50%"},
      {"--rates", "100", "--noise-floor", "150%"},
      {"--rates", "100", "--precheck", "not-a-url"},
      {"--rates", "100", "--repeat-order", "random"},
      {"--rates", "100", "--429", "maybe"},
      {"--concurrency", "1,2000000"},  // above the connection cap run has
  };
  for (const auto& extra : cases) {
    std::vector<std::string> args = {proofload_binary(), "ladder", url, "--plan"};
    args.insert(args.end(), extra.begin(), extra.end());
    Completed c = run_to_completion(args, 30s);
    EXPECT_EQ(c.exit_code, 2) << extra[0] << " " << extra[1] << ": " << c.err;
    EXPECT_EQ(std::count(c.err.begin(), c.err.end(), '\n'), 1) << c.err;
    EXPECT_EQ(c.err.find("proofload: error:"), 0u) << c.err;
  }
  // One row per level and repeat, at most what `analyze` reads back (it planned 100,000 runs).
  std::string levels;
  for (int i = 1; i <= 1000; ++i) levels += (i > 1 ? "," : "") + std::to_string(i);
  Completed many = run_to_completion(
      {proofload_binary(), "ladder", url, "--plan", "--rates", levels, "--repeat", "11"}, 30s);
  EXPECT_EQ(many.exit_code, 2) << many.err;
  EXPECT_NE(many.err.find("1000 levels repeated 11 times is 11000 runs; a ladder has at most "
                          "10000"),
            std::string::npos)
      << many.err;
  Completed too_many = run_to_completion(
      {proofload_binary(), "ladder", url, "--plan", "--rates", levels + ",1001"}, 30s);
  EXPECT_NE(too_many.err.find("--rates has more than 1000 levels"), std::string::npos)
      << too_many.err;
}

// Docs that drifted once: what they say about flags must be what --help says.
TEST(Docs, TheFlagsAndDefaultsTheDocsNameAreTheCommands) {
  const std::string serve_md = read_file(PL_DOCS_DIR "/serve.md");
  const std::string demo_help = run_to_completion({proofload_binary(), "demo", "--help"}).out;
  const size_t demo = serve_md.find("`proofload demo`");
  ASSERT_NE(demo, std::string::npos);
  // Every `--flag` of the demo's paragraph exists (it once named -d and --rate, refused).
  const std::string paragraph = serve_md.substr(demo, serve_md.find("\n\n", demo) - demo);
  for (size_t at = paragraph.find("`-"); at != std::string::npos; at = paragraph.find("`-", at + 1)) {
    std::string flag = paragraph.substr(at + 1, paragraph.find_first_of("` ", at + 1) - at - 1);
    EXPECT_NE(demo_help.find(flag), std::string::npos) << flag << " is not a demo flag";
  }
  // The ladder's pool default, in its help and in ladder.md.
  const std::string ladder_help = run_to_completion({proofload_binary(), "ladder", "--help"}).out;
  EXPECT_NE(ladder_help.find("default 1000"), std::string::npos) << ladder_help;
  EXPECT_NE(read_file(PL_DOCS_DIR "/ladder.md").find("in a ladder the default is 1,000"),
            std::string::npos);
  // README's drain gate is a route of the demo profile (it once answered 404).
  const std::string readme = read_file(PL_DOCS_DIR "/../README.md");
  EXPECT_NE(readme.find("--drain-until http://127.0.0.1:8080/admin/ready"), std::string::npos);
  ServeProcess server({"--profile", "demo"});
  EXPECT_NE(http_get(server.port(), "/admin/ready").find("\"backlog\":0"), std::string::npos);
}

// docs/cli.md: one concept, one flag in every command's help; the older spelling is still taken
// (scripts use it) but not listed, and the table names it.
TEST(Docs, EachConceptShowsOneFlagAndItsOlderSpellingIsTakenUnlisted) {
  const std::string cli_md = read_file(PL_DOCS_DIR "/cli.md");
  struct Spelling {
    const char* command;
    const char* shown;
    const char* alias;
  };
  for (const Spelling& s :
       {Spelling{"ladder", "-d,--duration", "--hold"}, Spelling{"soak", "-d,--duration", "--hold"},
        Spelling{"demo", "-d,--duration", "--hold"}, Spelling{"ladder", "--count-429", "--429"},
        Spelling{"soak", "--drift-floor-share", "--noise-floor"},
        Spelling{"serve", "--workers", "--threads"},
        Spelling{"serve", "--timeout", "--request-timeout"},
        Spelling{"observe", "--observe-every", "--every"},
        Spelling{"run", "--no-connection-reuse", "--disable-keepalive"}}) {
    const std::string help = run_to_completion({proofload_binary(), s.command, "--help"}).out;
    EXPECT_NE(help.find(std::string("  ") + s.shown + " "), std::string::npos)
        << s.command << " does not list " << s.shown;
    for (const std::string& listed :
         {std::string("\n  ") + s.alias + " ", "," + std::string(s.alias) + " "}) {
      EXPECT_EQ(help.find(listed), std::string::npos) << s.command << " lists " << s.alias;
    }
    EXPECT_NE(cli_md.find(std::string("`") + s.alias + "`"), std::string::npos) << s.alias;
  }
  // Taken: the old spelling plans what the new one does.
  const std::string url = "http://127.0.0.1:1/";
  // One directory for both: a default one is named by the second the plan was made in.
  const std::string out = make_temp_dir("spellings");
  auto plan_of = [&](std::vector<std::string> args) {
    args.insert(args.begin(), proofload_binary());
    args.insert(args.end(), {"-o", out, "--plan"});
    const Completed c = run_to_completion(args);
    EXPECT_EQ(c.exit_code, 0) << c.err;
    return c.out;
  };
  EXPECT_EQ(plan_of({"ladder", url, "--rates", "10,20", "-d", "2s", "--count-429", "apart"}),
            plan_of({"ladder", url, "--rates", "10,20", "--hold", "2s", "--429", "apart"}));
  EXPECT_EQ(plan_of({"soak", url, "--rate", "10", "-d", "10s", "--window", "5s",
                     "--drift-floor-share", "7%"}),
            plan_of({"soak", url, "--rate", "10", "--hold", "10s", "--window", "5s",
                     "--noise-floor", "7%"}));
  // A flag a command lists, it honours: compare's targets are --a and --b.
  EXPECT_EQ(run_to_completion({proofload_binary(), "compare", "--help"}).out.find("--target"),
            std::string::npos);
}

TEST(Analyze, TheExampleTableHasItsKneeWhereTheSloBreaks) {
  const std::string dir = make_temp_dir("analyze-example");
  Completed c =
      run_to_completion({proofload_binary(), "analyze", PL_EXAMPLES_DIR "/ladder-table.csv",
                         "--slo", "p95<=1s,errors<=1%", "--noise-floor", "6.7%", "--out", dir},
                        30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json analysis = read_json(dir + "/result.json")["analysis"];
  EXPECT_EQ(analysis["knee"]["level"], 6);
  EXPECT_EQ(analysis["best_sustained"]["level"], 5);
  EXPECT_DOUBLE_EQ(analysis["best_sustained"]["achieved_rps"].get<double>(), 1930.4);
  // The table has no goodput column: achieved less its errors.
  EXPECT_NEAR(analysis["best_sustained"]["goodput_rps"].get<double>(), 1930.4 * (1 - 0.0009), 1e-9);
  // Level 7 carried a little more, but its errors (2.1%) break the SLO: it is not the peak.
  EXPECT_EQ(analysis["peak"]["level"], 6);
  EXPECT_NEAR(analysis["operating_target_rps"].get<double>(), 0.5 * 2066.0 * (1 - 0.0031), 1e-6);
  std::vector<std::string> verdicts;
  for (const json& l : analysis["levels"]) verdicts.push_back(l["verdict"]);
  EXPECT_EQ(verdicts,
            (std::vector<std::string>{"clean", "clean", "clean", "clean", "highest within SLO",
                                      "knee", "saturated", "saturated"}));
  EXPECT_NE(c.out.find("knee"), std::string::npos);  // the report is printed too
  EXPECT_EQ(read_file(dir + "/summary.md"), c.out);
}

TEST(Report, ReRendersTheSameBytesAndRecomputesTheAnalysis) {
  const std::string dir = make_temp_dir("report-rerender");
  ASSERT_EQ(run_to_completion({proofload_binary(), "analyze", PL_EXAMPLES_DIR "/ladder-table.csv",
                               "--noise-floor", "6.7%", "--out", dir},
                              30s)
                .exit_code,
            0);
  const std::string summary = read_file(dir + "/summary.md");
  const std::string result = read_file(dir + "/result.json");
  const std::string csv = read_file(dir + "/levels.csv");
  // Deleting the derived files changes nothing: they come back from the recorded rows.
  std::filesystem::remove(dir + "/summary.md");
  std::filesystem::remove(dir + "/levels.csv");
  json edited = json::parse(result);
  edited["analysis"] = nullptr;
  std::ofstream(dir + "/result.json") << edited.dump(2) << "\n";
  Completed c = run_to_completion({proofload_binary(), "report", dir}, 30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(read_file(dir + "/summary.md"), summary);
  EXPECT_EQ(read_file(dir + "/result.json"), result);
  EXPECT_EQ(read_file(dir + "/levels.csv"), csv);
  // levels.csv is itself a table `analyze` reads, with the same verdicts.
  const std::string again = make_temp_dir("report-reanalyze");
  ASSERT_EQ(run_to_completion({proofload_binary(), "analyze", dir + "/levels.csv", "--noise-floor",
                               "6.7%", "--out", again},
                              30s)
                .exit_code,
            0);
  EXPECT_EQ(read_json(again + "/result.json")["analysis"]["levels"],
            json::parse(result)["analysis"]["levels"]);
}

TEST(Report, RefusesWhatIsNotALadderDirectory) {
  const std::string dir = make_temp_dir("report-bad");
  Completed missing = run_to_completion({proofload_binary(), "report", dir}, 30s);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("result.json"), std::string::npos);
  std::ofstream(dir + "/result.json") << "{\"schema\": \"something/v9\"}";
  Completed other = run_to_completion({proofload_binary(), "report", dir}, 30s);
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("something/v9"), std::string::npos);
}

}  // namespace
}  // namespace proofload::testing
