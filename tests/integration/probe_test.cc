// `proofload probe` end to end with the real binary against `proofload serve` routes whose rate
// limit is keyed as each test says, so each knows the truth: keyed by address, three loopback
// sources each get their own allowance; keyed onto one shared allowance (an ingress that hid the
// callers' addresses), two sources split it and their per-second counts move against each
// other (at twice the expected rate: probe_sharing_test.cc); split over 40 instances, the first 429
// comes before the burst is spent; a trusted header lifts the limit and another does not. Bad
// sources are one line before anything is sent, and a probe killed outright leaves a directory
// `proofload report` renders. Every load goes to 127.0.0.1 from 127.0.0.x and ends by itself.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <thread>

#include "probe_support.h"
#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST(Probe, AllowancesKeyedByAddressAreSeparateAndEachMeetsItsRate) {
  const std::string dir = make_temp_dir("probe-separate");
  ServeProcess server({"--routes", limited_routes(dir, "{rate: 50, burst: 25, key: address}"),
                       "--exit-after", "60s"});
  std::string err;
  const int code =
      probe(server, dir + "/out",
            {"--sources", "3", "-d", "5s", "--settle", "1s", "--expect", "50/s,burst=25"}, &err);
  EXPECT_EQ(code, 0) << err;
  const json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["schema"], "proofload.probe/v1");
  EXPECT_EQ(result["status"], "complete");
  EXPECT_EQ(result["probe"]["verdict"], "separate allowances") << result["probe"]["reason"];
  for (const std::string address : {"127.0.0.2", "127.0.0.3", "127.0.0.4"}) {
    const json& s = source_of(result, address);
    EXPECT_NEAR(s["sustained_per_s"]["mean"].get<double>(), 50, 5) << address;
    // A fresh bucket gives its burst, and what it refills (50/s) while the burst is being sent:
    // none in a release build, two under TSan, which sends slower.
    EXPECT_GE(s["burst_before_first_429"].get<int64_t>(), 25) << address;
    EXPECT_LE(s["burst_before_first_429"].get<int64_t>(), 30) << address;
    EXPECT_GT(s["limited"].get<int64_t>(), 0) << address;
    EXPECT_EQ(s["expect_met"], true) << s["expect_reason"];
    EXPECT_GE(s["per_second"].size(), 5u);
    // The streamed CSV has a row per second, as result.json does.
    const std::string csv = read_file(dir + "/out/sources/" + address + ".csv");
    EXPECT_EQ(static_cast<size_t>(std::count(csv.begin(), csv.end(), '\n')),
              s["per_second"].size() + 1)
        << csv;
    bool saw_remaining = false;
    for (const json& h : s["headers"]) saw_remaining |= h["name"] == "RateLimit-Remaining";
    EXPECT_TRUE(saw_remaining) << s["headers"].dump();
  }
  ASSERT_EQ(result["probe"]["correlations"].size(), 3u);
  for (const json& c : result["probe"]["correlations"]) {
    if (!c["r"].is_null()) {
      EXPECT_GT(c["r"].get<double>(), -0.5) << c.dump();
    }
  }
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("| Does each address get its own allowance? | Separate allowances"),
            std::string::npos)
      << summary;
}

TEST(Probe, OneSharedAllowanceIsSplitAndTheSourcesMoveAgainstEachOther) {
  const std::string dir = make_temp_dir("probe-shared");
  ServeProcess server({"--routes", limited_routes(dir, "{rate: 100, burst: 50, key: shared:1}"),
                       "--exit-after", "60s"});
  std::string err;
  const int code = probe(server, dir + "/out",
                         {"--sources", "127.0.0.2,127.0.0.3", "-d", "6s", "--settle", "1s",
                          "--expect", "100/s,burst=50"},
                         &err);
  EXPECT_EQ(code, 99) << "the limit does not work per address: " << err;
  const json result = read_json(dir + "/out/result.json");
  EXPECT_EQ(result["probe"]["verdict"], "shared allowance") << result["probe"]["reason"];
  const double a = source_of(result, "127.0.0.2")["sustained_per_s"]["mean"].get<double>();
  const double b = source_of(result, "127.0.0.3")["sustained_per_s"]["mean"].get<double>();
  EXPECT_NEAR(a + b, 100, 10) << "together they get one allowance";
  ASSERT_EQ(result["probe"]["correlations"].size(), 1u);
  const json& pair = result["probe"]["correlations"][0];
  ASSERT_FALSE(pair["r"].is_null()) << "their shares vary from second to second";
  EXPECT_LT(pair["r"].get<double>(), -0.5) << "what one gains the other loses";
}

TEST(Probe, AnAllowanceSplitOverFortyInstancesRefusesBeforeItsBurstIsSpent) {
  const std::string dir = make_temp_dir("probe-instances");
  ServeProcess server({"--routes", limited_routes(dir, "{rate: 200, burst: 400, instances: 40}"),
                       "--exit-after", "60s"});
  std::string err;
  probe(server, dir + "/out", {"--sources", "1", "-d", "4s", "--settle", "1s"}, &err);
  const json result = read_json(dir + "/out/result.json");
  ASSERT_EQ(result["status"], "complete") << err;
  const json& s = source_of(result, "127.0.0.2");
  ASSERT_TRUE(s["burst_before_first_429"].is_number()) << s.dump();
  ASSERT_TRUE(s["burst_from_totals"].is_number()) << s.dump();
  EXPECT_LT(s["burst_before_first_429"].get<double>(), s["burst_from_totals"].get<double>());
  EXPECT_EQ(s["burst_is_lower_bound"], true);
  EXPECT_NEAR(s["burst_from_totals"].get<double>(), 400, 80) << "the totals still show it";
}

TEST(Probe, ATrustedHeaderLiftsTheLimitAndAnotherDoesNot) {
  const std::string dir = make_temp_dir("probe-variant");
  ServeProcess server(
      {"--routes",
       limited_routes(dir, "{rate: 50, burst: 25, trusted_header: 'Origin: https://example.test'}"),
       "--exit-after", "60s"});
  std::string err;
  const int code = probe(
      server, dir + "/out",
      {"--sources", "1", "-d", "2s", "--settle", "1s", "--variant", "Origin: https://example.test",
       "--variant", "Origin: https://other.test", "--variant-duration", "2s"},
      &err);
  EXPECT_EQ(code, 99) << "a header lifts the limit: " << err;
  const json result = read_json(dir + "/out/result.json");
  const json& variants = result["probe"]["variants"];
  ASSERT_EQ(variants.size(), 2u) << result.dump();
  EXPECT_EQ(variants[0]["header"], "Origin: https://example.test");
  EXPECT_EQ(variants[0]["limited"], false) << variants[0]["reason"];
  EXPECT_EQ(variants[0]["status_429"], 0);
  EXPECT_GT(variants[0]["let_through"].get<int64_t>(), 200) << "far past 2 s of 50/s + 25";
  EXPECT_EQ(variants[1]["limited"], true) << variants[1]["reason"];
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("the header lifts the limit"), std::string::npos) << summary;
}

TEST(Probe, BadSourcesAreOneLineAndNothingIsSent) {
  const std::string dir = make_temp_dir("probe-bad");
  ServeProcess server(
      {"--routes", limited_routes(dir, "{rate: 50, burst: 25}"), "--exit-after", "60s"});
  struct Case {
    std::vector<std::string> flags;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--sources", "192.0.2.1"},
       "proofload: error: cannot connect from 192.0.2.1: it is not an address of this machine\n"},
      {{"--sources", "127.0.0.2,nowhere"},
       "proofload: error: 'nowhere' is not an IP address (a source is a local address, such as "
       "127.0.0.2)\n"},
      {{"--sources", "127.0.0.2,127.0.0.2"},
       "proofload: error: --sources: 127.0.0.2 is given twice\n"},
      {{"--settle", "60s"},
       "proofload: error: --settle 60s leaves no whole second of -d 60s to measure the sustained "
       "rate over\n"},
      {{"--expect", "100/s,burst=x"}, ""},  // the message is the analysis's (its own test)
      {{"--variant", "no colon"},
       "proofload: error: --variant 'no colon': expected 'Name: value', e.g. 'Origin: "
       "https://example.test'\n"},
  };
  for (const Case& c : cases) {
    std::string err;
    EXPECT_EQ(probe(server, dir + "/out", c.flags, &err), 2) << err;
    if (!c.message.empty()) {
      EXPECT_EQ(err, c.message);
    }
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  }
  // Nothing reached the limited route.
  const std::string metrics = http_get(server.port(), "/metrics");
  ASSERT_NE(metrics.find("proofload_requests_total"), std::string::npos) << metrics;
  EXPECT_EQ(metrics.find("route=\"GET /limited\""), std::string::npos) << metrics;
}

TEST(Probe, AProbeKilledOutrightLeavesADirectoryThatReportRenders) {
  const std::string dir = make_temp_dir("probe-killed");
  ServeProcess server(
      {"--routes", limited_routes(dir, "{rate: 50, burst: 25}"), "--exit-after", "60s"});
  const std::string out = dir + "/out";
  Process probe_process({proofload_binary(), "probe", server.url("/limited"), "--sources", "2",
                         "-d", "30s", "--settle", "1s", "--rate-per-source", "200", "-q", "-o",
                         out});
  // Until each source's CSV holds three seconds (header + 3 rows), polling the files it streams.
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  auto rows = [&](const std::string& address) {
    const std::string csv = read_file(out + "/sources/" + address + ".csv");
    return std::count(csv.begin(), csv.end(), '\n');
  };
  while ((rows("127.0.0.2") < 4 || rows("127.0.0.3") < 4) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_GE(rows("127.0.0.3"), 4) << "the probe streams a row per second per source";
  probe_process.signal(SIGKILL);
  ASSERT_TRUE(probe_process.wait(10s));
  EXPECT_FALSE(std::filesystem::exists(out + "/result.json"));

  Completed report = run_to_completion({proofload_binary(), "report", out}, 30s);
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["rebuilt"], true);
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_GE(source_of(result, "127.0.0.2")["per_second"].size(), 3u);
  EXPECT_NEAR(source_of(result, "127.0.0.2")["sustained_per_s"]["mean"].get<double>(), 50, 5);
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("rebuilt"), std::string::npos) << summary;
  // Rendering again gives the same bytes.
  ASSERT_EQ(run_to_completion({proofload_binary(), "report", out}, 30s).exit_code, 0);
  EXPECT_EQ(read_file(out + "/summary.md"), summary);
}

// A scenario file names the request (its method and a header holding a secret from a file);
// Ctrl-C ends the probe with a full report of the seconds so far, whose Reproduce command the
// probe's own parser accepts, and the secret is written nowhere.
TEST(Probe, AScenarioNamesTheRequestAndCtrlCEndsWithAFullReport) {
  const std::string dir = make_temp_dir("probe-scenario");
  ServeProcess server(
      {"--routes",
       limited_routes(dir, "{rate: 50, burst: 25, trusted_header: 'X-Other: never sent'}"),
       "--exit-after", "60s"});
  write_file(dir + "/token", "hunter2\n");
  write_file(dir + "/probe.yaml",
             "defaults:\n  headers: {Authorization: 'Bearer ${file:token}'}\n"
             "requests:\n  lookup: {method: GET, path: /limited}\n");
  const std::string out = dir + "/out";
  Process probe_process({proofload_binary(), "probe", dir + "/probe.yaml", server.url(),
                         "--sources", "2", "-d", "30s", "--settle", "1s", "--rate-per-source",
                         "200", "-q", "-o", out});
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  auto rows = [&] {
    const std::string csv = read_file(out + "/sources/127.0.0.3.csv");
    return std::count(csv.begin(), csv.end(), '\n');
  };
  while (rows() < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);  // polling a file another process appends to
  }
  ASSERT_GE(rows(), 4) << probe_process.err();
  probe_process.signal(SIGINT);
  const std::optional<int> code = probe_process.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 130) << probe_process.err();
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["status"], "interrupted");
  EXPECT_EQ(result["rebuilt"], false);
  EXPECT_EQ(result["settings"]["scenario_request"], "lookup");
  EXPECT_GE(source_of(result, "127.0.0.2")["per_second"].size(), 3u);
  EXPECT_NEAR(source_of(result, "127.0.0.2")["sustained_per_s"]["mean"].get<double>(), 50, 5);
  for (const char* file : {"/result.json", "/summary.md", "/run/result.json", "/probe-plan.json"}) {
    EXPECT_EQ(read_file(out + file).find("hunter2"), std::string::npos) << file;
  }
  // Reproduce: the command as given, which the probe's parser accepts again (as a shell reads it).
  const std::string summary = read_file(out + "/summary.md");
  const size_t block = summary.find("```\nproofload probe ");
  ASSERT_NE(block, std::string::npos) << summary;
  const size_t start = block + 4 + std::string("proofload").size();
  const std::string command = summary.substr(start, summary.find('\n', start) - start);
  Completed again =
      run_to_completion({"/bin/sh", "-c", proofload_binary() + command + " --plan"}, 10s);
  EXPECT_EQ(again.exit_code, 0) << again.err;
}

TEST(Probe, PlanSaysWhatWouldRunAndSendsNothing) {
  Completed plan = run_to_completion(
      {proofload_binary(), "probe", "http://127.0.0.1:9/x", "--sources", "2", "-c", "2", "-d",
       "30s", "--expect", "100/s,burst=600", "--variant", "Origin: https://a.test", "--variant",
       "Authorization: Bearer hunter2", "--plan"},
      10s);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("Probe: 2 sources at once (127.0.0.2, 127.0.0.3), 2 connections each, "
                          "flat out, for 30s."),
            std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("then from 127.0.0.2 with 'Origin: https://a.test'"), std::string::npos)
      << plan.out;
  EXPECT_NE(plan.out.find("then from 127.0.0.2 with 'Authorization: [redacted]'"),
            std::string::npos)
      << "a secret header's value is written nowhere: " << plan.out;
  EXPECT_EQ(plan.out.find("hunter2"), std::string::npos);
  EXPECT_NE(plan.out.find("Nothing was sent (--plan)."), std::string::npos);
}

}  // namespace
}  // namespace proofload::testing
