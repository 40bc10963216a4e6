// `proofload run FILE.yaml URL` end to end: scenario files (mixes, flows, extraction, checks,
// secrets) run by the real binary against `proofload serve` on 127.0.0.1 (thresholds, bad files
// and flag overrides: scenario_judging_test.cc). Every run is bounded by -n or -d and a deadline
// on the child.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <tuple>

#include "process.h"
#include "scenario_support.h"

namespace proofload::testing {
namespace {

// ---- the mix ------------------------------------------------------------------------------

TEST(Scenario, WeightedMixSendsEachRequestInProportionToItsWeight) {
  ServeProcess server;
  std::string dir = make_temp_dir("mix");
  std::string file = write_file(dir, "mix.yaml", R"(
requests:
  four: {path: /four}
  three_a: {path: /three-a}
  three_b: {path: /three-b}
mix: {four: 4, three_a: 3, three_b: 3}
)");
  constexpr int64_t kTotal = 3000;
  auto r = run_scenario(file, server.url(),
                        {"-n", std::to_string(kTotal), "-c", "8", "--seed", "7"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  EXPECT_EQ(n(r.result["summary"]["intended"]), kTotal);
  int64_t sum = 0;
  for (const auto& [name, share] : {std::pair{"four", 0.4}, {"three_a", 0.3}, {"three_b", 0.3}}) {
    const json& stats = r.result["requests"][name];
    double sigma = std::sqrt(kTotal * share * (1 - share));
    EXPECT_NEAR(n(stats["requests"]), kTotal * share, 4 * sigma) << name;
    EXPECT_EQ(stats["outcomes"]["success"], stats["requests"]) << name;
    sum += n(stats["requests"]);
  }
  EXPECT_EQ(sum, kTotal);
}

// ---- flows and extraction -----------------------------------------------------------------

TEST(Scenario, FlowWithoutThinkTimeMeetsTheResolveRaceAndCountsEveryFlow) {
  // The resolve follows its assign at once, before the server has committed it (2 ms later):
  // 409 INVALID ACTION, a failed flow.
  ServeProcess server({"--profile", "demo"});
  std::string dir = make_temp_dir("race");
  std::string file = write_file(dir, "race.yaml", lifecycle_scenario("0s"));
  auto r =
      run_scenario(file, server.url(), {"--rate", "400", "-d", "1s", "--seed", "1"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  expect_flow_accounting(r.result, "lifecycle", {"create", "assign", "resolve"});
  const json& requests = r.result["requests"];
  const json& flow = r.result["flows"]["lifecycle"];
  std::cout << "[ race     ] flows " << flow.dump() << "\n[ race     ] resolve "
            << requests["resolve"]["outcomes"].dump() << "\n";
  EXPECT_EQ(n(flow["started"]), 400);
  EXPECT_EQ(requests["create"]["outcomes"]["success"], requests["create"]["requests"]);
  EXPECT_EQ(requests["assign"]["outcomes"]["success"], requests["assign"]["requests"]);
  // Every failure is a resolve answered 409, counted as another 4xx (not a check failure).
  EXPECT_GT(n(flow["failed"]), 0);
  EXPECT_EQ(n(requests["resolve"]["outcomes"]["other_4xx"]), n(flow["failed"]));
  EXPECT_EQ(n(r.result["summary"]["status"].value("409", json(0))), n(flow["failed"]));
  EXPECT_EQ(n(requests["resolve"]["outcomes"]["check_failed"]), 0);
}

TEST(Scenario, NeverStartedFlowsAreAShareOfTheFlowsOffered) {
  // A known capacity: 20 connections and a four-step flow of 125 ms steps carry 40 flows/s; the
  // schedule offers 80/s for 3 s with no queue, so about half the 240 flows never start. The
  // share is per arrival: unstarted flows over flows offered, never over started requests plus
  // unstarted flows (which read about 20% here).
  ServeProcess server({"--delay", "125ms"});
  std::string dir = make_temp_dir("flows_offered");
  std::string file = write_file(dir, "visit.yaml", R"(
requests:
  health: {path: /health}
flows:
  visit: {steps: [{request: health}, {request: health}, {request: health}, {request: health}]}
)");
  auto r = run_scenario(file, server.url(),
                        {"--rate", "80", "-d", "3s", "-c", "20", "--max-connections", "20",
                         "--queue", "0", "--threshold", "never_started<40%"},
                        dir + "/out");
  ASSERT_FALSE(r.result.is_null()) << r.run.err;
  const json& summary = r.result["summary"];
  const int64_t never = n(summary["never_started"]);
  const int64_t offered = n(summary["arrivals"]);
  EXPECT_EQ(offered, 240);  // the schedule's arrivals, each a whole flow
  EXPECT_EQ(n(r.result["flows"]["visit"]["started"]) + never, offered);
  EXPECT_GT(n(summary["intended"]), offered);  // the started flows' later steps
  EXPECT_DOUBLE_EQ(summary["never_started_share"].get<double>(),
                   static_cast<double>(never) / static_cast<double>(offered));
  EXPECT_GT(summary["never_started_share"].get<double>(), 0.4);
  EXPECT_LT(summary["never_started_share"].get<double>(), 0.65);
  // The threshold judges the same share: about half never started, over its 40% bound.
  EXPECT_EQ(r.run.exit_code, 99) << r.run.err;
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("of flows offered never started (" + std::to_string(never) + " of 240)"),
            std::string::npos)
      << report;
}

TEST(Scenario, FlowWithThinkTimeAfterTheAssignAlwaysSucceeds) {
  ServeProcess server({"--profile", "demo"});
  std::string dir = make_temp_dir("think");
  std::string file = write_file(dir, "think.yaml", lifecycle_scenario("50ms"));
  auto r =
      run_scenario(file, server.url(), {"--rate", "100", "-d", "1s", "--seed", "1"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  expect_flow_accounting(r.result, "lifecycle", {"create", "assign", "resolve"});
  const json& flow = r.result["flows"]["lifecycle"];
  EXPECT_EQ(n(flow["started"]), 100);
  EXPECT_EQ(n(flow["failed"]), 0) << r.result["requests"]["resolve"].dump();
  EXPECT_GE(n(flow["succeeded"]), 80);  // the rest were thinking when the run ended
  EXPECT_EQ(flow["success_rate"], 1.0);
  EXPECT_GE(flow["duration_ms"]["p50"].get<double>(), 50);  // the think time is inside the flow
  EXPECT_EQ(n(r.result["summary"]["errors"]), 0);
}

TEST(Scenario, AThinkOnTheLastStepPausesTheUserAtTheEndOfEachIteration) {
  // k6's sleep at the end of an iteration: one user, one quick request, 200 ms pause, 1.1 s.
  ServeProcess server({"--profile", "demo"});
  std::string dir = make_temp_dir("pause");
  std::string file = write_file(dir, "pause.yaml", R"(
requests:
  health: {path: /health, checks: [{status: 200}]}
flows:
  visit: {steps: [{request: health, think: 200ms}]}
)");
  auto r =
      run_scenario(file, server.url(), {"-c", "1", "-d", "1100ms", "--workers", "1"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const json& flow = r.result["flows"]["visit"];
  // Iterations at 0, 0.2, ..., 1.0 s: six, where without the pause there would be thousands.
  EXPECT_GE(n(flow["succeeded"]), 5);
  EXPECT_LE(n(flow["started"]), 6);
  EXPECT_EQ(n(flow["failed"]), 0);
  // The pause is the user's, not the next request's wait: latency stays that of /health.
  EXPECT_LT(r.result["summary"]["latency_ms"]["max"].get<double>(), 100);
}

TEST(Scenario, ExtractsFromAHeaderAndWithARegexAndFailsAFlowWhenNothingIsFound) {
  // The built-in server sends no custom headers, but any Content-Type: this one is the path the
  // next step must ask for. The regex takes a token from the body the same way.
  std::string dir = make_temp_dir("extract");
  std::string routes = write_file(dir, "routes.yaml", R"(
routes:
  - {path: /hdr, content_type: /landing/from-header, body: "see the header\n"}
  - {path: /landing/from-header, body: "landed\n"}
  - {path: /tok, body: "session token=abc123XYZ; expires soon\n"}
  - {path: /tokens/abc123XYZ, body: "token ok\n"}
)");
  ServeProcess server({"--routes", routes});
  std::string file = write_file(dir, "extract.yaml", R"(
requests:
  hdr:
    path: /hdr
    extract:
      next: {header: content-type}
  landing:
    path: ${next}
    checks: [{status: 200}]
  tok:
    path: /tok
    extract:
      token: {regex: 'token=(\w+);', group: 1}
  tokened:
    path: /tokens/${token}
    checks: [{status: 200}]
  no_header:
    path: /tok
    extract:
      absent: {header: X-Not-Sent}
  never_sent:
    path: /tokens/${absent}
flows:
  by_header: [hdr, landing]
  by_regex: [tok, tokened]
  missing: [no_header, never_sent]
)");
  auto r =
      run_scenario(file, server.url(), {"--rate", "300", "-n", "300", "--seed", "3"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  const json& requests = r.result["requests"];
  const json& flows = r.result["flows"];
  for (const auto& [flow, first, second] :
       {std::tuple{"by_header", "hdr", "landing"}, {"by_regex", "tok", "tokened"}}) {
    expect_flow_accounting(r.result, flow, {first, second});
    EXPECT_GT(n(flows[flow]["succeeded"]), 50) << flow;
    EXPECT_EQ(n(flows[flow]["failed"]), 0) << flow;
    // A wrong value would have asked for a path with no route: 404, a check failure.
    EXPECT_EQ(requests[second]["outcomes"]["success"], requests[second]["requests"]) << second;
  }
  // An extraction that finds nothing fails its step, and the flow goes no further.
  expect_flow_accounting(r.result, "missing", {"no_header", "never_sent"});
  EXPECT_GT(n(flows["missing"]["failed"]), 50);
  EXPECT_EQ(n(requests["never_sent"]["requests"]), 0);
  EXPECT_EQ(requests["no_header"]["outcomes"]["check_failed"], requests["no_header"]["requests"]);
}

// ---- checks -------------------------------------------------------------------------------

TEST(Scenario, FailedCheckCountsAsCheckFailedAndAnExpected404AsSuccess) {
  std::string dir = make_temp_dir("checks");
  std::string routes = write_file(dir, "routes.yaml", R"(
routes:
  - {path: /text, body: "hello world\n"}
  - {path: /gone, status: 404, body: "not here\n"}
)");
  ServeProcess server({"--routes", routes});
  std::string file = write_file(dir, "checks.yaml", R"(
requests:
  wrong_body:
    path: /text
    checks: [{body_contains: absent}]
  right_body:
    path: /text
    checks: [{status: 200}, {body_contains: hello}]
  expected_404:
    path: /gone
    checks: [{status: 404}]
  unexpected_404:
    path: /gone
    checks: [{status: 200}]
)");
  auto r = run_scenario(file, server.url(), {"-n", "400", "-c", "4", "--seed", "5"}, dir + "/out");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  expect_totals_add_up(r.result);
  const json& requests = r.result["requests"];
  for (const char* name : {"wrong_body", "right_body", "expected_404", "unexpected_404"}) {
    EXPECT_GT(n(requests[name]["requests"]), 50) << name;
  }
  EXPECT_EQ(requests["wrong_body"]["outcomes"]["check_failed"], requests["wrong_body"]["requests"]);
  EXPECT_EQ(n(requests["wrong_body"]["outcomes"]["success"]), 0);
  EXPECT_EQ(requests["wrong_body"]["errors"], requests["wrong_body"]["requests"]);
  EXPECT_EQ(requests["right_body"]["outcomes"]["success"], requests["right_body"]["requests"]);
  EXPECT_EQ(requests["expected_404"]["outcomes"]["success"], requests["expected_404"]["requests"]);
  EXPECT_EQ(n(requests["expected_404"]["errors"]), 0);
  // A 404 nobody expected is a client error, as it would be without checks.
  EXPECT_EQ(requests["unexpected_404"]["outcomes"]["other_4xx"],
            requests["unexpected_404"]["requests"]);
}

// ---- secrets ------------------------------------------------------------------------------

constexpr const char* kEnvSecret = "env-secret-9fWq2Lx";
constexpr const char* kFileSecret = "file-secret-Q7zK4Rm";

TEST(Scenario, SecretsAreSentButNeverWrittenToAnyOutput) {
  std::string dir = make_temp_dir("secrets");
  // The limit lets through only requests carrying the secret header: every success proves it
  // was sent with the right value.
  std::string routes = write_file(dir, "routes.yaml",
                                  substitute(R"(
routes:
  - name: guarded
    method: POST
    path: /guarded
    limit: {rate: 1/s, burst: 1, trusted_header: "X-Token: @SECRET@"}
    body: "ok\n"
)",
                                             "SECRET", kEnvSecret));
  ServeProcess server({"--routes", routes});
  std::string secret_file = write_file(dir, "secret.txt", std::string(kFileSecret) + "\n");
  std::string file = write_file(dir, "secrets.yaml",
                                substitute(R"(
requests:
  guarded:
    method: POST
    path: /guarded
    headers: {X-Token: "${env:PL_TEST_SECRET}"}
    body: "${file:@FILE@}"
    checks: [{status: 200}]
  denied:
    path: /denied/${env:PL_TEST_SECRET}
    body: "${file:@FILE@}"
    checks: [{status: 200}]
)",
                                           "FILE", secret_file));
  ASSERT_EQ(setenv("PL_TEST_SECRET", kEnvSecret, 1), 0);  // inherited by the child
  std::string out = dir + "/out";
  auto r = run_scenario(file, server.url(), {"-n", "60", "-c", "2", "--seed", "1"}, out);
  unsetenv("PL_TEST_SECRET");
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const json& requests = r.result["requests"];
  ASSERT_GT(n(requests["guarded"]["requests"]), 10);
  EXPECT_EQ(requests["guarded"]["outcomes"]["success"], requests["guarded"]["requests"]);
  EXPECT_EQ(requests["denied"]["outcomes"]["other_4xx"], requests["denied"]["requests"]);
  EXPECT_GE(n(r.result["summary"]["bytes_out"]), 60 * static_cast<int64_t>(strlen(kFileSecret)));

  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(out)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    std::string content = read_file(entry.path().string());
    EXPECT_EQ(content.find(kEnvSecret), std::string::npos) << entry.path();
    EXPECT_EQ(content.find(kFileSecret), std::string::npos) << entry.path();
  }
  EXPECT_GE(files, 3);  // result.json, windows.csv, latency.hlog
  for (const std::string* text : {&r.run.out, &r.run.err}) {
    EXPECT_EQ(text->find(kEnvSecret), std::string::npos) << *text;
    EXPECT_EQ(text->find(kFileSecret), std::string::npos) << *text;
  }
}

TEST(Scenario, MissingSecretIsAUsageErrorThatNamesTheVariableAndSendsNothing) {
  std::string dir = make_temp_dir("nosecret");
  std::string secret_file = write_file(dir, "secret.txt", kFileSecret);
  std::string file = write_file(dir, "secrets.yaml",
                                substitute(R"(
requests:
  guarded:
    method: POST
    path: /guarded
    headers: {X-Token: "${env:PL_TEST_SECRET_UNSET}"}
    body: "${file:@FILE@}"
)",
                                           "FILE", secret_file));
  ServeProcess server({"--profile", "demo"});
  unsetenv("PL_TEST_SECRET_UNSET");
  auto r = run_scenario(file, server.url(), {"-n", "5"}, dir + "/out");
  EXPECT_EQ(r.run.exit_code, 2);
  EXPECT_EQ(std::count(r.run.err.begin(), r.run.err.end(), '\n'), 1) << r.run.err;
  EXPECT_NE(r.run.err.find("PL_TEST_SECRET_UNSET"), std::string::npos) << r.run.err;
  EXPECT_EQ(r.run.err.find(kFileSecret), std::string::npos) << r.run.err;
  EXPECT_TRUE(r.result.is_null());
  EXPECT_EQ(requests_served(server.port()), 0);
}

}  // namespace
}  // namespace proofload::testing
