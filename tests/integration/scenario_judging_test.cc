// `proofload run FILE.yaml URL` end to end, how a scenario run is judged and bounded: thresholds
// (exit 99 and what was observed), bad files (one line with the location, nothing sent), and
// flags on the command line over the file's settings. Every run is bounded by -n or -d and a
// deadline on the child.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "process.h"
#include "scenario_support.h"

namespace proofload::testing {
namespace {

// ---- thresholds ---------------------------------------------------------------------------

const char* const kOneRequest = "requests:\n  ok: {path: /ok}\n";

TEST(Scenario, PassingThresholdsExitZero) {
  ServeProcess server;
  std::string dir = make_temp_dir("pass");
  std::string file =
      write_file(dir, "s.yaml", std::string(kOneRequest) + "thresholds: [errors < 1%]\n");
  auto r =
      run_scenario(file, server.url(), {"-n", "100", "--threshold", "p99(ok) < 5s"}, dir + "/out");
  EXPECT_EQ(r.run.exit_code, 0) << r.run.out << r.run.err;
  EXPECT_EQ(r.result["thresholds_passed"], true);
  ASSERT_EQ(r.result["thresholds"].size(), 2u);
  for (const json& t : r.result["thresholds"]) EXPECT_EQ(t["passed"], true) << t.dump();
}

TEST(Scenario, FailingThresholdExits99AndRecordsWhatWasObserved) {
  ServeProcess server;
  std::string dir = make_temp_dir("fail");
  std::string file =
      write_file(dir, "s.yaml", std::string(kOneRequest) + "thresholds: [errors < 1%]\n");
  std::vector<std::string> command = {proofload_binary(), "run", file, server.url(), "-n", "100"};
  for (std::string arg : {"--threshold", "p50 < 1us", "-o"}) command.push_back(arg);
  command.push_back(dir + "/out");
  auto run = run_to_completion(command, seconds(30));
  EXPECT_EQ(run.exit_code, 99) << run.out << run.err;
  EXPECT_NE(run.out.find("THRESHOLDS FAILED"), std::string::npos) << run.out;
  json result = json::parse(read_file(dir + "/out/result.json"));
  EXPECT_EQ(result["thresholds_passed"], false);
  ASSERT_EQ(result["thresholds"].size(), 2u);
  EXPECT_EQ(result["thresholds"][0]["expression"], "errors < 1%");
  EXPECT_EQ(result["thresholds"][0]["passed"], true);
  const json& failed = result["thresholds"][1];
  EXPECT_EQ(failed["expression"], "p50 < 1us");
  EXPECT_EQ(failed["passed"], false);
  EXPECT_GT(failed["observed"].get<double>(), 0.001);  // ms
  EXPECT_EQ(failed["observed_text"].get<std::string>().rfind("p50 = ", 0), 0u) << failed.dump();
}

TEST(Scenario, ThresholdOnARequestThatNeverRanIsNoDataAndFails) {
  ServeProcess server;
  std::string dir = make_temp_dir("nodata");
  // `spare` is defined but not in the mix: nothing is ever recorded under its name.
  std::string file = write_file(
      dir, "s.yaml", std::string(kOneRequest) + "  spare: {path: /spare}\nmix: {ok: 1}\n");
  auto r = run_scenario(file, server.url(), {"-n", "20", "--threshold", "p95(spare) < 1s"},
                        dir + "/out");
  EXPECT_EQ(r.run.exit_code, 99) << r.run.err;
  ASSERT_EQ(r.result["thresholds"].size(), 1u);
  EXPECT_EQ(r.result["thresholds"][0]["observed_text"], "no data");
  EXPECT_TRUE(r.result["thresholds"][0]["observed"].is_null());
  EXPECT_EQ(r.result["thresholds"][0]["passed"], false);
}

TEST(Scenario, ThresholdFlagOnAnUnknownNameIsRefusedBeforeTheRun) {
  std::string dir = make_temp_dir("unknown-threshold-flag");
  std::string file = write_file(dir, "s.yaml", kOneRequest);
  auto r = run_scenario(file, "http://127.0.0.1:1/",
                        {"-n", "20", "--threshold", "p95(nosuch) < 1s"}, dir + "/out");
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find("'nosuch' is no request or flow"), std::string::npos) << r.run.err;
}

TEST(Scenario, ThresholdOnAnUnknownNameInTheFileIsRefusedBeforeTheRun) {
  std::string dir = make_temp_dir("unknown-threshold");
  std::string file =
      write_file(dir, "s.yaml", std::string(kOneRequest) + "thresholds:\n  - p95(nosuch) < 1s\n");
  auto r = run_scenario(file, "http://127.0.0.1:1/", {"-n", "20"}, dir + "/out");
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_NE(r.run.err.find(file + ":4:5: "), std::string::npos) << r.run.err;
  EXPECT_NE(r.run.err.find("nosuch"), std::string::npos) << r.run.err;
}

// ---- bad files ----------------------------------------------------------------------------

TEST(Scenario, BadFileIsOneLineWithItsLocationAndNothingIsSent) {
  ServeProcess server({"--profile", "demo"});
  std::string dir = make_temp_dir("bad");
  struct Case {
    const char* name;
    const char* text;
    const char* location;  // "" when only its form is checked
    const char* mentions;
  };
  const Case cases[] = {
      {"yaml", "requests:\n  a:\n    path: /health\n    checks: [status: 200\n", "",
       "invalid YAML"},
      {"unknown-key", "requests:\n  a:\n    methd: GET\n    path: /health\n", ":3:5: ", "'method'"},
      {"undefined-variable", "requests:\n  a:\n    path: /health/${idd}\n", ":3:19: ", "'idd'"},
      {"bad-duration", "executor:\n  duration: ten\nrequests:\n  a: {path: /health}\n",
       ":2:13: ", "ten"},
  };
  const std::regex one_line_with_location("proofload: error: .*\\.yaml:[0-9]+:[0-9]+: [^\n]+\n");
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string file = write_file(dir, std::string(c.name) + ".yaml", c.text);
    auto r = run_scenario(file, server.url(), {"-n", "5"}, dir + "/out-" + c.name);
    EXPECT_EQ(r.run.exit_code, 2);
    EXPECT_TRUE(std::regex_match(r.run.err, one_line_with_location)) << r.run.err;
    EXPECT_NE(r.run.err.find(file + c.location), std::string::npos) << r.run.err;
    EXPECT_NE(r.run.err.find(c.mentions), std::string::npos) << r.run.err;
    EXPECT_TRUE(r.run.out.empty()) << r.run.out;
    EXPECT_TRUE(r.result.is_null());
  }
  EXPECT_EQ(requests_served(server.port()), 0);
  // The count does move when a good file runs.
  std::string good = write_file(dir, "good.yaml", "requests:\n  a: {path: /health}\n");
  auto r = run_scenario(good, server.url(), {"-n", "3", "-c", "1"}, dir + "/out-good");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(requests_served(server.port()), 3);
}

// ---- flags over the file ------------------------------------------------------------------

// The file's target has no server: only the command line's URL can make these runs succeed.
const char* const kLongRun = R"(
target: http://127.0.0.1:1
executor: {connections: 2, duration: 30s}
requests:
  ok: {path: /ok}
)";

TEST(Scenario, RequestCountOnTheCommandLineEndsARunTheFileMadeLong) {
  ServeProcess server;
  std::string dir = make_temp_dir("override-n");
  std::string file = write_file(dir, "long.yaml", kLongRun);
  auto r = run_scenario(file, server.url(), {"-n", "200"}, dir + "/out", seconds(15));
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(n(r.result["summary"]["intended"]), 200);
  EXPECT_EQ(n(r.result["requests"]["ok"]["outcomes"]["success"]), 200);
  EXPECT_EQ(r.result["spec"]["target"], server.url());
  EXPECT_LT(r.result["summary"]["duration_s"].get<double>(), 10);
}

TEST(Scenario, DurationOnTheCommandLineReplacesTheFilesDuration) {
  ServeProcess server;
  std::string dir = make_temp_dir("override-d");
  std::string file = write_file(dir, "long.yaml", kLongRun);
  auto r = run_scenario(file, server.url(), {"-d", "1s"}, dir + "/out", seconds(15));
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.result["spec"]["duration_s"], 1.0);
  EXPECT_NEAR(r.result["summary"]["duration_s"].get<double>(), 1.0, 0.2);
  EXPECT_EQ(r.result["spec"]["connections"], 2);  // what the flags leave alone stays
}

TEST(Scenario, RateOnTheCommandLineReplacesTheFilesRate) {
  ServeProcess server;
  std::string dir = make_temp_dir("override-rate");
  std::string file = write_file(dir, "rate.yaml", R"(
executor: {rate: 20/s, duration: 30s}
requests:
  ok: {path: /ok}
)");
  auto r =
      run_scenario(file, server.url(), {"--rate", "400", "-d", "1s"}, dir + "/out", seconds(15));
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_EQ(r.result["spec"]["executor"], "open_loop");
  EXPECT_EQ(r.result["spec"]["rate_per_s"], 400.0);
  EXPECT_EQ(n(r.result["summary"]["intended"]), 400);
  EXPECT_EQ(n(r.result["requests"]["ok"]["requests"]), 400);
}

// -n counts picks of the mix in both executors; flows that began finish within the grace period
// (none is cut short, and every flow lands in exactly one bucket).
TEST(Scenario, ClosedLoopRequestLimitCountsPicksAndLetsBegunFlowsFinish) {
  ServeProcess server({"--profile", "demo"});
  std::string dir = make_temp_dir("closed-n");
  std::string file = write_file(dir, "closed.yaml", lifecycle_scenario("100ms"));
  auto r = run_scenario(file, server.url(), {"--executor", "closed", "-c", "4", "-n", "30"},
                        dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  expect_flow_accounting(r.result, "lifecycle", {"create", "assign", "resolve"});
  const json& flow = r.result["flows"]["lifecycle"];
  EXPECT_EQ(n(flow["started"]), 30);
  EXPECT_EQ(n(flow["abandoned"]), 0);
  // Every flow that reached resolve sent it: the successful ones, and those failing there.
  EXPECT_EQ(n(r.result["requests"]["resolve"]["requests"]),
            n(flow["succeeded"]) + n(r.result["requests"]["resolve"]["errors"]));
}

}  // namespace
}  // namespace proofload::testing
