// Each named request of a mix judged on its own, against a server whose answer is known: a mix
// whose writes are held at a limit while its reads still grow. The mix's total gains at every
// step; the writes are flat from the level where their share of the load passes the limit. The
// ladder's summary.md, levels.csv and result.json say so per request, and `analyze` reads the
// same back from levels.csv. Every load is bounded by its levels and hold; all of it goes to
// 127.0.0.1.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The analysis's figures of one named request at one level.
const json& route_level(const json& analysis, const std::string& name, double level) {
  for (const json& route : analysis["routes"]) {
    if (route["name"] != name) continue;
    for (const json& l : route["levels"]) {
      if (l["level"].get<double>() == level) return l;
    }
  }
  ADD_FAILURE() << name << " at level " << level << " not in " << analysis["routes"].dump();
  static const json kNone;
  return kNone;
}

const json& plateau_of(const json& analysis, const std::string& name) {
  for (const json& route : analysis["routes"]) {
    if (route["name"] == name) return route["plateau"]["from_level"];
  }
  ADD_FAILURE() << name << " not in " << analysis["routes"].dump();
  static const json kNone;
  return kNone;
}

// Writes limited to 30/s (429 beyond, after a burst of 5), reads never.
std::string limited_write_routes(const std::string& dir) {
  const std::string routes = dir + "/routes.yaml";
  std::ofstream(routes) << "routes:\n"
                           "  - {name: read, path: /read}\n"
                           "  - {name: write, path: /write, limit: {rate: 30, burst: 5}}\n";
  return routes;
}

// Half the arrivals read, half write.
std::string half_write_mix(const std::string& dir) {
  const std::string scenario = dir + "/mix.yaml";
  std::ofstream(scenario) << "requests:\n"
                             "  read: {path: /read}\n"
                             "  write: {path: /write}\n"
                             "mix: {read: 1, write: 1}\n";
  return scenario;
}

// A run states each request's goodput, and a threshold can name it (before, goodput(write) had
// no data and failed whatever the server did).
TEST(RouteLevels, ARunStatesEachRequestsGoodput) {
  const std::string dir = make_temp_dir("route-goodput");
  ServeProcess server({"--routes", limited_write_routes(dir)});
  Completed c = run_to_completion(
      {proofload_binary(), "run", half_write_mix(dir), server.url(), "--rate", "100", "-d", "3s",
       "--workers", "1", "-q", "--threshold", "goodput(write)<=36", "--threshold",
       "goodput(read)>=40", "-o", dir + "/out"},
      60s);
  EXPECT_EQ(c.exit_code, 0) << c.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  EXPECT_NEAR(result["requests"]["write"]["goodput_rps"].get<double>(), 30, 4);
  EXPECT_GT(result["requests"]["write"]["throughput_rps"].get<double>(), 40);  // 429s included
  EXPECT_NEAR(result["requests"]["read"]["goodput_rps"].get<double>(), 50, 10);
}

// At 40 arrivals/s the writes (20/s) pass; at 80/s and 160/s they are held at ~30/s, while reads
// grow 20, 40, 80/s.
TEST(RouteLevels, AWriteHeldAtItsLimitIsFlatWhileTheMixStillGains) {
  const std::string dir = make_temp_dir("route-levels");
  ServeProcess server({"--routes", limited_write_routes(dir)});
  const std::string scenario = half_write_mix(dir);
  Completed c = run_to_completion(
      {proofload_binary(), "ladder", scenario, server.url(), "-q", "-o", dir + "/out", "--workers",
       "1", "--rates", "40,80,160", "--warmup", "0s", "--hold", "3s", "--slo", "p99(write)<=1s"},
      90s);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const json result = json::parse(read_file(dir + "/out/result.json"));
  const json& analysis = result["analysis"];

  // The mix gains at every step: no plateau for it.
  EXPECT_TRUE(analysis["plateau"]["from_level"].is_null()) << analysis["levels"].dump();
  // The writes: ~20/s, then held at the limit (30/s, and the 5 of the burst over the hold).
  EXPECT_NEAR(route_level(analysis, "write", 40)["goodput_rps"].get<double>(), 20, 5);
  for (double level : {80.0, 160.0}) {
    const json& write = route_level(analysis, "write", level);
    EXPECT_NEAR(write["goodput_rps"].get<double>(), 30, 4) << write.dump();
    EXPECT_GT(write["error_rate"].get<double>(), 0.1) << write.dump();  // the 429s beyond it
  }
  EXPECT_EQ(plateau_of(analysis, "write"), 80) << analysis["routes"].dump();
  // The reads are never limited: they grow with every level.
  EXPECT_NEAR(route_level(analysis, "read", 160)["goodput_rps"].get<double>(), 80, 16);
  EXPECT_TRUE(plateau_of(analysis, "read").is_null()) << analysis["routes"].dump();
  // Each row keeps its requests' own figures.
  ASSERT_EQ(result["rows"].size(), 3u);
  EXPECT_EQ(result["rows"][2]["routes"][1]["name"], "write");
  EXPECT_TRUE(result["rows"][2]["routes"][1]["p99_ms"].is_number());

  const std::string report = read_file(dir + "/out/summary.md");
  EXPECT_NE(report.find("No plateau: the last step still gains"), std::string::npos) << report;
  EXPECT_NE(report.find("By request: `read` still gains "), std::string::npos) << report;
  EXPECT_NE(report.find("`write` is flat from level 80."), std::string::npos) << report;
  EXPECT_NE(report.find("## Each request by level"), std::string::npos) << report;
  EXPECT_NE(report.find("| 160 | `write` | "), std::string::npos) << report;

  // report.html draws each request's goodput by level.
  const std::string html = read_file(dir + "/out/report.html");
  const size_t chart = html.find("\"id\":\"ladder-routes\"");
  ASSERT_NE(chart, std::string::npos);
  EXPECT_NE(html.find("\"series\":[{\"label\":\"read\",\"values\":[", chart), std::string::npos);

  const std::string csv = read_file(dir + "/out/levels.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find(",goodput_rps(read),"), std::string::npos) << header;
  EXPECT_NE(header.find(",p99_ms(write),"), std::string::npos) << header;

  // `analyze` reads each request's columns back: the same plateaus, and the SLO's own term.
  Completed a = run_to_completion({proofload_binary(), "analyze", dir + "/out/levels.csv", "--slo",
                                   "p99(write)<=1s", "--out", dir + "/analyzed"},
                                  30s);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const json analyzed = json::parse(read_file(dir + "/analyzed/result.json"));
  EXPECT_EQ(plateau_of(analyzed["analysis"], "write"), 80) << analyzed["analysis"].dump();
  EXPECT_TRUE(plateau_of(analyzed["analysis"], "read").is_null());
  for (const json& level : analyzed["analysis"]["levels"]) {
    EXPECT_TRUE(level["slo"][0]["passed"].get<bool>()) << level.dump();
  }
}

}  // namespace
}  // namespace proofload::testing
