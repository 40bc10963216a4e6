// The figures a report leads with, against servers whose answer is known: what a warm-up
// excluded is still said (run and ladder), and what stdout, summary.md and result.json state it
// with. Every run is bounded by -d and a deadline on the child; all load goes to 127.0.0.1.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

json read_json(const std::string& path) { return json::parse(read_file(path)); }

// The server's own count of requests answered `status` on `route` (its /metrics).
int64_t served(const ServeProcess& server, const std::string& route, int status) {
  const std::string metrics = http_get(server.port(), "/metrics");
  const std::regex line("proofload_requests_total\\{route=\"" + route + "\",status=\"" +
                        std::to_string(status) + "\"\\} ([0-9]+)");
  std::smatch m;
  return std::regex_search(metrics, m, line) ? std::stoll(m[1].str()) : 0;
}

// "37,900", as the reports write a count.
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n);
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(at, ",");
  return digits;
}

// A route that answers 500 for the first 1.5 s after the server starts, then 200 after 10 ms: a
// run or level started at once with a 3 s warm-up meets every failure inside its warm-up.
std::string failing_first_routes(const std::string& dir) {
  const std::string path = dir + "/routes.yaml";
  std::ofstream(path) << "routes:\n"
                         "  - name: work\n"
                         "    path: /work\n"
                         "    delay: 10ms\n"
                         "    faults: [{at: 0s, for: 1500ms, status: 500}]\n"
                         "  - {name: metrics, path: /metrics, builtin: metrics}\n";
  return path;
}

TEST(Figures, FailuresInsideAWarmUpAreSaidWithTheirCount) {
  const std::string dir = make_temp_dir("warmup-errors");
  ServeProcess server({"--routes", failing_first_routes(dir)});
  Completed c = run_to_completion({proofload_binary(), "run", server.url("/work"), "-c", "2",
                                   "--warmup", "3s", "-d", "1s", "--workers", "1", "-o",
                                   dir + "/out"},
                                  30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = read_json(dir + "/out/result.json");
  const int64_t failed = result["warmup"]["outcomes"]["other_5xx"].get<int64_t>();
  EXPECT_GT(failed, 0);
  EXPECT_EQ(failed, served(server, "work", 500));  // every one the server refused
  EXPECT_EQ(result["summary"]["errors"], 0);       // the measured part is clean
  const std::string count = thousands(failed);
  EXPECT_NE(c.out.find("WARM-UP ERRORS: " + count + " of "), std::string::npos) << c.out;
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("and " + count + " of the warm-up's "), std::string::npos) << report;
  EXPECT_NE(report.find("The warm-up's " + count + " failed requests (other 5xx: " + count +
                        ") are in no figure here"),
            std::string::npos)
      << report;
}

TEST(Figures, ALadderSaysWhichLevelsWarmUpsFailedWhereTheirHoldsWereClean) {
  const std::string dir = make_temp_dir("warmup-errors-ladder");
  ServeProcess server({"--routes", failing_first_routes(dir)});
  Completed c = run_to_completion({proofload_binary(), "ladder", server.url("/work"), "-q", "-o",
                                   dir + "/out", "--workers", "1", "--concurrency", "2,4",
                                   "--warmup", "3s", "--hold", "1s"},
                                  60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = read_json(dir + "/out/result.json");
  ASSERT_EQ(result["rows"].size(), 2u);
  const json& first = result["rows"][0];
  const int64_t failed = first["warmup_errors"].get<int64_t>();
  EXPECT_EQ(failed, served(server, "work", 500));  // all in level 1's warm-up
  EXPECT_EQ(first["error_rate"], 0.0);
  EXPECT_EQ(result["rows"][1]["warmup_errors"], 0);
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("**Warm-ups failed where the table does not show it.**"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("level 2: " + thousands(failed) + " of " +
                        thousands(first["warmup_requests"].get<int64_t>()) +
                        " warm-up requests failed, where its hold had no error"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("in the warm-ups of level 2 are in no error rate"), std::string::npos)
      << report;
  // `proofload report` renders the same words from the directory alone.
  Completed again = run_to_completion({proofload_binary(), "report", dir + "/out"}, 30s);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(read_file(dir + "/out/summary.md"), report);
}

TEST(Figures, ALadderOnASaturatedHostSaysTheHostMayHaveBeenTheLimit) {
  // The server's two threads each burn 5 ms of CPU a request and 32 users keep them busy, with
  // the generator on the same two cores: the host is saturated by construction (whatever else
  // runs beside this test only adds to it). The kernel spreads the connections over the threads
  // by a hash: with eight, all went to one thread about once in 128 runs (one core busy, not two);
  // with 32, once in two billion.
  const std::string dir = make_temp_dir("host-saturated");
  const std::string routes = dir + "/routes.yaml";
  std::ofstream(routes) << "routes:\n  - {name: burn, path: /burn, cpu: 5ms}\n";
  ServeProcess server({"--routes", routes, "--threads", "2"});
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", server.url("/burn"), "-q", "-o", dir + "/out", "--workers",
       "1", "--concurrency", "32", "--warmup", "0s", "--hold", "2s", "--observe", "host"},
      60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = read_json(dir + "/out/result.json");
  ASSERT_EQ(result["rows"].size(), 1u);
  EXPECT_GE(result["rows"][0]["host_cpu_busy"].get<double>(), 0.9) << result["rows"][0].dump();
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("the host's CPU was saturated (90% or more of all its cores busy) at "
                        "level 32: there the host, shared by the generator and any server on it, "
                        "may have been the limit"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("| host load | host busy |"), std::string::npos) << report;
  EXPECT_NE(report.find("% (saturated) |"), std::string::npos) << report;
}

TEST(Figures, ALadderShowsEachSloTermOfARequestInItsLevelsTable) {
  // Two routes of known latency: the SLO bounds the slow one's p99, which the table must show
  // per level beside the whole mix's percentiles.
  const std::string dir = make_temp_dir("slo-columns");
  const std::string routes = dir + "/routes.yaml";
  std::ofstream(routes) << "routes:\n"
                           "  - {name: read, path: /read}\n"
                           "  - {name: write, path: /write, delay: 20ms}\n";
  ServeProcess server({"--routes", routes});
  const std::string scenario = dir + "/mix.yaml";
  std::ofstream(scenario) << "requests:\n"
                             "  read: {path: /read}\n"
                             "  write: {path: /write}\n"
                             "mix: {read: 3, write: 1}\n";
  Completed c = run_to_completion({proofload_binary(), "ladder", scenario, server.url(), "-q",
                                   "-o", dir + "/out", "--workers", "1", "--concurrency", "2,4",
                                   "--warmup", "0s", "--hold", "1s", "--slo",
                                   "p95<=1s,p99(write)<=500ms"},
                                  60s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = read_json(dir + "/out/result.json");
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("| gain | p99(write) | verdict |"), std::string::npos) << report;
  for (const json& level : result["analysis"]["levels"]) {
    const std::string text = level["slo"][1]["observed_text"].get<std::string>();
    ASSERT_EQ(text.rfind("p99(write) = ", 0), 0u) << text;
    const double ms = level["slo"][1]["observed"].get<double>();
    EXPECT_GE(ms, 20) << text;  // the route's own delay
    EXPECT_NE(report.find(" | " + text.substr(13) + " | "), std::string::npos) << report;
  }
  EXPECT_NE(report.find("p99(write): the SLO's term as judged at each level"), std::string::npos)
      << report;
}

TEST(Figures, AnalyzeKeepsAFlowTableFlowsWithoutArrivalsAndSaysFlowsADay) {
  // A lifecycle report's table from another tool: flows per second and flow success, no
  // arrivals column. Level 2 is best sustained at 12.99 flows/s: 1,120,000 flows a day.
  const std::string dir = make_temp_dir("analyze-flows");
  std::ofstream(dir + "/table.csv") << "level,achieved_rps,p95_ms,error_rate,flows_per_s,"
                                       "flow_success_rate\n"
                                       "1,26.0,120,0,6.50,1.0\n"
                                       "2,51.96,180,0,12.99,0.997\n"
                                       "3,52.1,2400,0.02,13.02,0.91\n";
  Completed c = run_to_completion({proofload_binary(), "analyze", dir + "/table.csv", "--slo",
                                   "p95<=1s,errors<=1%", "--out", dir + "/out"},
                                  30s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("| flows/s | flow success |"), std::string::npos) << report;
  EXPECT_EQ(report.find("| arrivals/s |"), std::string::npos) << report;
  EXPECT_NE(report.find("| 13.0 | 99.7% |"), std::string::npos) << report;
  EXPECT_NE(report.find("1,120,000 flows/day at best sustained (13.0 flows/s)"),
            std::string::npos)
      << report;
}

}  // namespace
}  // namespace proofload::testing
