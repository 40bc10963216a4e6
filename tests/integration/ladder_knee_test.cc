// The ladder finds a knee where the server's cost says it must be: a route that burns 2 ms of CPU
// per request on a one-thread server can answer at most 500 requests/s, so an open-loop ladder of
// 100, 200, 300, 1,000 and 1,500/s is clean up to 300/s (60% busy), has its knee at 1,000/s (twice
// what it can do) and is saturated above. The server is observed: at the knee it uses its whole
// core. Timing: runs alone, and not under the sanitizers.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST(LadderKnee, ACpuBoundRouteBucklesWhereItsCostSaysItMust) {
  const std::string dir = make_temp_dir("ladder-knee");
  std::ofstream(dir + "/routes.yaml") << "routes:\n  - {name: heavy, path: /heavy, cpu: 2ms}\n";
  ServeProcess server({"--routes", dir + "/routes.yaml", "--threads", "1"});
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/heavy"), "--rates", "100,200,300,1000,1500",
       "--hold", "3s", "--warmup", "1s", "--slo", "p95<=200ms,errors<=1%", "--workers", "1",
       "--max-connections", "200", "--timeout", "2s", "--observe",
       "pid:" + std::to_string(server.process().pid()), "-q", "-o", dir + "/out"},
      120s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json result = json::parse(read_file(dir + "/out/result.json"));
  const json& analysis = result["analysis"];
  std::vector<std::string> verdicts;
  for (const json& level : analysis["levels"]) verdicts.push_back(level["verdict"]);
  EXPECT_EQ(verdicts, (std::vector<std::string>{"clean", "clean", "highest within SLO", "knee",
                                                "saturated"}))
      << analysis.dump(1);
  EXPECT_EQ(analysis["knee"]["level"], 1000);
  EXPECT_EQ(analysis["best_sustained"]["level"], 300);
  // What the knee achieves is what one core can: at most 1 / 2 ms, and most of it.
  const double at_knee = analysis["knee"]["achieved_rps"].get<double>();
  EXPECT_LE(at_knee, 500 * 1.02);
  EXPECT_GE(at_knee, 500 * 0.6);
  const json& knee_level = analysis["levels"][3];
  ASSERT_TRUE(knee_level["server_cores"].is_number()) << knee_level.dump();
  EXPECT_GT(knee_level["server_cores"].get<double>(), 0.8);
  // The server's CPU per request is its cost (2 ms of burn plus the server's own work).
  const json& clean = analysis["levels"][1];
  ASSERT_TRUE(clean["server_cpu_ms_per_request"].is_number());
  EXPECT_GT(clean["server_cpu_ms_per_request"].get<double>(), 1.9);
  EXPECT_LT(clean["server_cpu_ms_per_request"].get<double>(), 3.0);
  // The report names the knee.
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("knee"), std::string::npos);
  EXPECT_NE(summary.find("1,000"), std::string::npos);
}

// --search on the same route: grows from 100/s, bisects between the last pass and the first
// failure to within 1%, confirms; the rate found is near the route's capacity of 500/s (a short
// step just above capacity may still pass: its queue has had little time to grow; the longer
// confirming run then breaks the SLO and the search steps down 5%).
TEST(LadderKnee, TheSearchFindsTheCapacityOfACpuBoundRoute) {
  const std::string dir = make_temp_dir("ladder-search");
  std::ofstream(dir + "/routes.yaml") << "routes:\n  - {name: heavy, path: /heavy, cpu: 2ms}\n";
  ServeProcess server({"--routes", dir + "/routes.yaml", "--threads", "1"});
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/heavy"), "--search", "--start-rate", "100",
       "--step-hold", "2s", "--hold", "3s", "--warmup", "1s", "--slo", "p95<=100ms,errors<=1%",
       "--workers", "1", "--max-connections", "200", "--timeout", "2s", "-q", "-o", dir + "/out"},
      170s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json result = json::parse(read_file(dir + "/out/result.json"));
  const json& search = result["search"];
  ASSERT_TRUE(search["found_rps"].is_number()) << search.dump(1);
  const double found = search["found_rps"].get<double>();
  EXPECT_GE(found, 300);
  EXPECT_LE(found, 500 * 1.05);
  const json& steps = search["steps"];
  EXPECT_LE(steps.size(), 16u);
  EXPECT_EQ(steps.back()["phase"], "confirm");
  if (search["confirmed"].get<bool>()) {
    EXPECT_EQ(steps.back()["rate_rps"], search["found_rps"]);
  }
  EXPECT_EQ(steps[0]["rate_rps"], 100);
  EXPECT_TRUE(steps[0]["passed"].get<bool>());
  // The search steps end with the last pass and the first failure within 1%; a confirming run
  // that broke the SLO steps the rate found down from there.
  double highest_pass = 0;
  double lowest_fail = 1e18;
  for (const json& step : steps) {
    if (step["phase"] == "confirm") continue;
    const double rate = step["rate_rps"].get<double>();
    if (step["passed"].get<bool>()) highest_pass = std::max(highest_pass, rate);
    if (!step["passed"].get<bool>()) lowest_fail = std::min(lowest_fail, rate);
  }
  EXPECT_LE((lowest_fail - highest_pass) / highest_pass, 0.01 + 1e-9);
  EXPECT_LE(found, highest_pass);
  EXPECT_NE(read_file(dir + "/out/summary.md").find("## Search steps"), std::string::npos);
}

// A flat ceiling on a server that slows with time (issue 33): eight connections to a route of
// 20 ms that grows 0.4 ms every second carry 8 / delay, about 380/s falling to 200/s, whatever
// rate is asked (500 to 700/s, all beyond it). Each level's three repeats run back to back, so
// their spread sees two runs of that drift while a step, mean against mean, sees three: a floor
// from the spread alone called every step a fall "beyond the noise floor". The measured floor
// covers the drift between levels, and every step is flat. Every level is far past what the
// server carries, so each run ends with a full queue: --grace 500ms drains it in half a second
// instead of the default 5 s (57 s for the test became 32).
TEST(LadderKnee, AFlatCeilingOnADriftingServerHasOnlyFlatSteps) {
  const std::string dir = make_temp_dir("ladder-drift");
  std::ofstream(dir + "/routes.yaml")
      << "routes:\n  - {path: /slowing, delay: 20ms, drift: {add: 400us, every: 1s}}\n";
  ServeProcess server({"--routes", dir + "/routes.yaml", "--threads", "1"});
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/slowing"), "--rates", "500,600,700", "--repeat",
       "3", "--hold", "2s", "--warmup", "500ms", "-c", "8", "--max-connections", "8", "--workers",
       "1", "--timeout", "5s", "--grace", "500ms", "--slo", "errors<=100%", "-q", "-o",
       dir + "/out"},
      120s);
  ASSERT_TRUE(c.exit_code == 0) << c.exit_code << c.err;
  const json analysis = json::parse(read_file(dir + "/out/result.json"))["analysis"];
  const json& floor = analysis["noise_floor"];
  ASSERT_EQ(floor["source"], "measured") << floor.dump();
  ASSERT_TRUE(floor["drift"].is_number()) << floor.dump();
  EXPECT_GT(floor["drift"].get<double>(), 0.02) << floor.dump();
  const json& levels = analysis["levels"];
  ASSERT_EQ(levels.size(), 3u);
  for (size_t i = 1; i < levels.size(); ++i) {
    // Each step loses what three runs of drift take (about a fifth), and no more.
    EXPECT_LT(levels[i]["gain"].get<double>(), 0) << levels[i].dump();
    EXPECT_LT(std::abs(levels[i]["gain"].get<double>()), floor["value"].get<double>())
        << levels[i]["gain_text"] << " against " << floor["text"];
    EXPECT_NE(levels[i]["gain_text"].get<std::string>().find(": flat, inside the"),
              std::string::npos)
        << levels[i]["gain_text"];
  }
  EXPECT_EQ(analysis["plateau"]["from_level"], 500) << analysis["plateau"].dump();
}

// A flat ceiling on a flat server (issue 33): a route whose 5 ms of CPU runs one request at a time
// (`serial`) answers 200/s however many connections wait for it, so every level from 2 on carries
// the same, and the ladder says so: each step flat inside its measured floor, the plateau from
// the first level, whatever the repeats' spread (the report's case said "No plateau: the last
// step still gains +2.0%" of a flat ceiling).
TEST(LadderKnee, AFlatServerPlateausFromItsFirstSaturatedLevel) {
  const std::string dir = make_temp_dir("ladder-flat");
  std::ofstream(dir + "/routes.yaml")
      << "routes:\n  - {path: /one, cpu: 5ms, serial: true}\n";
  ServeProcess server({"--routes", dir + "/routes.yaml", "--threads", "2"});
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/one"), "--concurrency", "2,4,8,16", "--repeat",
       "3", "--hold", "2s", "--warmup", "500ms", "--workers", "1", "--timeout", "5s", "--slo",
       "errors<=1%", "-q", "-o", dir + "/out"},
      120s);
  ASSERT_TRUE(c.exit_code == 0) << c.exit_code << c.err;
  const json analysis = json::parse(read_file(dir + "/out/result.json"))["analysis"];
  const json& levels = analysis["levels"];
  ASSERT_EQ(levels.size(), 4u);
  for (size_t i = 0; i < levels.size(); ++i) {
    // At most 1 / 5 ms, less the little each answer waits for the next request to arrive.
    EXPECT_GT(levels[i]["goodput_rps"].get<double>(), 150) << levels[i].dump();
    EXPECT_LT(levels[i]["goodput_rps"].get<double>(), 205) << levels[i].dump();
  }
  // Past 4 connections every step is flat (from 2 to 4 a busy machine's wake-ups may still
  // show, which is the server's, not noise): the plateau is found, from 2 or 4.
  for (size_t i = 2; i < levels.size(); ++i) {
    EXPECT_NE(levels[i]["gain_text"].get<std::string>().find(": flat, inside the"),
              std::string::npos)
        << levels[i]["gain_text"];
  }
  ASSERT_TRUE(analysis["plateau"]["from_level"].is_number()) << analysis["plateau"].dump();
  EXPECT_LE(analysis["plateau"]["from_level"].get<int>(), 4) << analysis["plateau"].dump();
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_EQ(summary.find("No plateau"), std::string::npos) << summary;
}

// `make demo`: the demo's ladder (about a minute) reaches past the built-in server's capacity on
// one core, so its report names a knee, with the server's CPU beside it.
TEST(LadderKnee, TheDemoReportNamesTheKnee) {
  const std::string out = make_temp_dir("demo-knee");
  Completed c = run_to_completion({proofload_binary(), "demo", "--out", out}, 180s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  json analysis = json::parse(read_file(out + "/result.json"))["analysis"];
  ASSERT_FALSE(analysis["knee"].is_null()) << analysis.dump(1);
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("**The knee is level "), std::string::npos) << summary;
  EXPECT_TRUE(analysis["levels"].back()["server_cores"].is_number());
  // The demo pins its one-threaded server to one CPU: at the knee that core is its limit, and the
  // report says so with the figure rather than "whether CPU was the limit is not shown".
  json knee;
  for (const json& level : analysis["levels"]) {
    if (level["level"] == analysis["knee"]["level"]) knee = level;
  }
  EXPECT_EQ(knee["server_cpu_limit_cores"], 1) << knee.dump();
  EXPECT_NE(summary.find("The ceiling is the server's CPU (measured)"), std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("whether CPU was the limit is not shown"), std::string::npos);
}

}  // namespace
}  // namespace proofload::testing
