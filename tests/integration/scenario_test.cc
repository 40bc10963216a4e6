// `proofload run FILE.yaml URL` end to end: scenario files (mixes, flows, extraction, checks,
// secrets, thresholds, bad files, flag overrides) run by the real binary against
// `proofload serve` on 127.0.0.1. Every run is bounded by -n or -d and a deadline on the child.
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

namespace proofload::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

std::string write_file(const std::string& dir, const std::string& name, const std::string& text) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// `text` with every `@KEY@` replaced by `value`.
std::string substitute(std::string text, const std::string& key, const std::string& value) {
  const std::string marker = "@" + key + "@";
  for (size_t at; (at = text.find(marker)) != std::string::npos;)
    text.replace(at, marker.size(), value);
  return text;
}

int64_t n(const json& value) { return value.get<int64_t>(); }

// `proofload run FILE URL ARGS... -q -o OUT`, and its result.json (null when none was written).
struct ScenarioRun {
  Completed run;
  json result;
};

ScenarioRun run_scenario(const std::string& file, const std::string& url,
                         const std::vector<std::string>& args, const std::string& out,
                         seconds deadline = seconds(30)) {
  std::vector<std::string> command = {proofload_binary(), "run", file, url};
  command.insert(command.end(), args.begin(), args.end());
  for (const char* flag : {"-q", "-o"}) command.push_back(flag);
  command.push_back(out);
  ScenarioRun r{run_to_completion(command, deadline), nullptr};
  std::string text = read_file(out + "/result.json");
  if (!text.empty()) r.result = json::parse(text);
  return r;
}

// The totals every scenario result must satisfy: each intended request ends in one outcome and
// is counted under exactly one request name.
void expect_totals_add_up(const json& result) {
  const json& summary = result["summary"];
  int64_t outcomes = 0;
  for (const auto& [name, count] : summary["outcomes"].items()) outcomes += n(count);
  EXPECT_EQ(outcomes, n(summary["intended"])) << summary.dump(2);
  int64_t by_name = 0;
  for (const auto& [name, stats] : result["requests"].items()) {
    int64_t request_outcomes = 0;
    for (const auto& [o, count] : stats["outcomes"].items()) request_outcomes += n(count);
    EXPECT_EQ(request_outcomes, n(stats["requests"])) << name;
    by_name += n(stats["requests"]);
  }
  EXPECT_EQ(by_name, n(summary["intended"])) << result["requests"].dump(2);
}

// A flow's accounting against its steps' requests (which no other flow or mix entry uses):
// every flow started sent its first step; it then succeeded, failed or was cut short by the end
// of the run; a failed flow ended at exactly one failed request; no step is sent more often
// than the one before it.
void expect_flow_accounting(const json& result, const std::string& flow,
                            const std::vector<std::string>& steps) {
  SCOPED_TRACE("flow " + flow);
  const json& f = result["flows"][flow];
  const json& requests = result["requests"];
  EXPECT_EQ(n(f["started"]), n(f["succeeded"]) + n(f["failed"]) + n(f["abandoned"])) << f.dump();
  EXPECT_EQ(n(requests[steps[0]]["requests"]), n(f["started"]));
  int64_t failed_requests = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    failed_requests += n(requests[steps[i]]["errors"]);
    if (i > 0) {
      EXPECT_LE(n(requests[steps[i]]["requests"]), n(requests[steps[i - 1]]["requests"]))
          << steps[i - 1] << " -> " << steps[i];
    }
  }
  EXPECT_EQ(failed_requests, n(f["failed"])) << requests.dump(2);
}

// Requests the server answered on every route but /metrics itself (from its /metrics page).
int64_t requests_served(int port) {
  std::istringstream page(http_get(port, "/metrics"));
  int64_t total = 0;
  for (std::string line; std::getline(page, line);) {
    if (line.rfind("proofload_requests_total{", 0) != 0) continue;
    if (line.find("route=\"metrics\"") != std::string::npos) continue;
    total += std::stoll(line.substr(line.rfind(' ') + 1));
  }
  return total;
}

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

// create -> assign -> resolve on the demo server's lifecycle API; `think` is the pause between
// assign and resolve, in which the server commits the assign.
std::string lifecycle_scenario(const std::string& think) {
  return substitute(R"(
executor: {connections: 20, max_connections: 200}
data:
  title: {word: {}}
requests:
  create:
    method: POST
    path: /items
    body: "${title}"
    checks: [{status: 201}]
    extract:
      id: {json: /id}
  assign:
    method: POST
    path: /items/${id}/assign
    body: ana
    checks: [{status: 2xx}]
  resolve:
    method: POST
    path: /items/${id}/resolve
    checks: [{status: 2xx}]
flows:
  lifecycle:
    - create
    - {request: assign, think: @THINK@}
    - resolve
)",
                    "THINK", think);
}

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
