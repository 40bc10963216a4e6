// A comparison's cold cell against a server whose cold answer is known: a cached route whose
// first request per query string costs 30 ms of CPU and every later one almost nothing, emptied by
// the --reset hook (POST /admin/reset). A cold cell of seconds of traffic is a cache hit at its
// p50, and the report says its figure is of warm requests; `run: {cold_requests: 1}` measures the
// first request after each reset, which is the 30 ms miss. Every load goes to 127.0.0.1 and ends
// by itself.
#include <gtest/gtest.h>

#include "compare_support.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

// The cached route and the reset that empties its cache.
std::string cached_routes(const std::string& dir) {
  const std::string path = dir + "/routes.yaml";
  write_file(path,
             "routes:\n"
             "  - {name: calc, path: /calc, body: \"ok\\n\", cpu: 30ms, cache: true}\n"
             "  - {name: admin.reset, method: POST, path: /admin/reset, builtin: admin.reset}\n");
  return path;
}

// The --reset hook: POST /admin/reset with Debian's Python (no client is assumed installed).
std::string reset_hook(const ServeProcess& server) {
  return "/usr/bin/python3 -c \"import urllib.request as u; u.urlopen(u.Request('" +
         server.url("/admin/reset") + "', method='POST'), timeout=10)\"";
}

const json& check_of(const json& result, const std::string& condition) {
  for (const json& c : result["compare"]["checks"]) {
    if (c["condition"] == condition) return c;
  }
  ADD_FAILURE() << condition << " not in " << result["compare"]["checks"].dump();
  static const json kNone;
  return kNone;
}

// Runs an A/A comparison of the cached route, cold and warm, with `run` as the matrix's run.
json compare_cached(const std::string& name, const std::string& run, std::string* summary) {
  const std::string dir = make_temp_dir(name);
  ServeProcess server({"--routes", cached_routes(dir), "--exit-after", "120s"});
  write_file(dir + "/compare.yaml",
             "checks:\n  calc: {path: \"/calc?q=1\"}\n"
             "conditions: [cold, warm]\nrun: " +
                 run + "\nrepeat: 3\n");
  const Completed done = compare({dir + "/compare.yaml", "--a", server.url(), "--b", server.url(),
                                  "--reset", reset_hook(server), "-q", "-o", dir + "/out"});
  // An A/A comparison: a verdict of `slower` (exit 99) on sub-millisecond hits is noise, not what
  // is tested here; anything else is a failure.
  EXPECT_TRUE(done.exit_code == 0 || done.exit_code == 99) << done.exit_code << ": " << done.err;
  *summary = read_file(dir + "/out/summary.md");
  return read_json(dir + "/out/result.json");
}

TEST(CompareCold, ASecondsLongColdCellIsSaidToBeOfWarmRequests) {
  std::string summary;
  const json result = compare_cached("compare-cold-long",
                                     "{connections: 1, duration: 500ms, warmup: 300ms}", &summary);
  const json& cold = check_of(result, "cold");
  // Only the first request after each reset missed: the cold p50 is a hit.
  EXPECT_LT(cold["a"].get<double>(), 10) << cold.dump();
  EXPECT_TRUE(cold["cold_diluted"].get<bool>()) << cold.dump();
  EXPECT_GT(cold["requests_per_run"].get<int64_t>(), 1);
  EXPECT_FALSE(check_of(result, "warm")["cold_diluted"].get<bool>());
  const std::string warning = result["compare"]["cold_warning"].get<std::string>();
  EXPECT_EQ(warning.rfind("the cold p50 is of warm requests", 0), 0u) << warning;
  EXPECT_NE(summary.find("| Were the cold checks cold? | No: the cold p50 is of warm requests"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("`run: {cold_requests: 1}`"), std::string::npos) << summary;
}

TEST(CompareCold, OneRequestACellMeasuresTheFirstAfterEachReset) {
  std::string summary;
  const json result =
      compare_cached("compare-cold-first",
                     "{connections: 1, cold_requests: 1, duration: 1s, warmup: 300ms}", &summary);
  EXPECT_EQ(result["settings"]["cold_requests"], 1);
  const json& cold = check_of(result, "cold");
  const json& warm = check_of(result, "warm");
  // Each cold run's one request is the miss: 30 ms of CPU; the warm one, after its warm-up, a hit.
  EXPECT_GE(cold["a"].get<double>(), 25) << cold.dump();
  EXPECT_GE(cold["b"].get<double>(), 25) << cold.dump();
  EXPECT_LT(warm["a"].get<double>(), 10) << warm.dump();
  EXPECT_FALSE(cold["cold_diluted"].get<bool>());
  EXPECT_TRUE(result["compare"]["cold_warning"].is_null());
  EXPECT_NE(summary.find("| Were the cold checks cold? | Yes: a cold run sent at most 1 request"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("; a cold cell its first 1 request after the reset"), std::string::npos)
      << summary;
}

}  // namespace
}  // namespace proofload::testing
