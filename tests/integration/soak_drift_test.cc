// `proofload soak` finds drift on a route whose delay grows (the built-in server's `drift:`) and
// none on a steady one, slow or fast: a judgement against measured noise, so it needs the cores to itself
// (timing). Every load goes to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

TEST(Soak, DriftIsFoundOnAGrowingDelayAndNotOnASteadyOne) {
  const std::string dir = make_temp_dir("soak-drift");
  write_file(dir + "/routes.yaml",
             "routes:\n"
             "  - {path: /steady, delay: 20ms}\n"
             "  - {path: /fast, delay: 5ms}\n"
             "  - {path: /growing, delay: 20ms, drift: {add: 4ms, every: 1s}}\n");
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "60s"});
  // `fast` is the report's steady 5 ms server: its p95 moves by a few tenths of a millisecond
  // between quarters, above its floor share but below the absolute floor, so no drift.
  // The floor share is 15%, not the default 5%: with three 1 s windows a quarter, timer jitter
  // alone moved the steady 20 ms route's quarter medians by up to 1.6 ms (8%) on a 2-core VM,
  // where the growing route's rise is 48 ms. 200 requests a window, not 40: a window's p95 of
  // 40 requests is its second slowest, and that alone moved the fast route's last quarter 1.5 ms
  // below its first (7.5 to 6.0 ms), past both floors.
  for (const std::string route : {"steady", "fast", "growing"}) {
    Completed c = run_to_completion({proofload_binary(), "soak", server.url("/" + route), "--rate",
                                     "200", "-d", "12s", "--window", "1s", "--drift-floor-share",
                                     "15%", "--workers", "1", "-q", "-o", dir + "/" + route},
                                    60s);
    const json drift = json::parse(read_file(dir + "/" + route + "/result.json"))["soak"]["drift"];
    if (route != "growing") {
      EXPECT_EQ(c.exit_code, 0) << c.err;
      EXPECT_EQ(drift["verdict"], "no drift") << drift.dump();
    } else {
      EXPECT_EQ(c.exit_code, 99) << c.err;
      EXPECT_EQ(drift["verdict"], "drift") << drift.dump();
      EXPECT_GT(drift["last_quarter_p95_ms"].get<double>(),
                drift["first_quarter_p95_ms"].get<double>() + 20);
      EXPECT_EQ(drift["blocks"].size(), 4u);
    }
  }
}

// Latency that falls is reported, not failed: one stall of 1 s, 2.5 s after the server starts,
// makes the first of eight 4 s windows slow (a quarter of its requests wait out the stall), so the
// first quarter's median p95 is hundreds of milliseconds above the last's. The soak held.
TEST(Soak, ALatencyThatFellIsReportedNotFailed) {
  const std::string dir = make_temp_dir("soak-fall");
  ServeProcess server({"--delay", "2ms", "--stall", "1s", "--stall-first", "2500ms",
                       "--stall-every", "1h", "--exit-after", "90s"});
  Completed c = run_to_completion(
      {proofload_binary(), "soak", server.url("/"), "--rate", "40", "--hold", "32s", "--window",
       "4s", "--workers", "1", "-q", "-o", dir + "/out"},
      90s);
  const json drift = json::parse(read_file(dir + "/out/result.json"))["soak"]["drift"];
  EXPECT_EQ(c.exit_code, 0) << c.err << drift.dump();
  EXPECT_EQ(drift["verdict"], "drift") << drift.dump();
  EXPECT_EQ(drift["direction"], "fell") << drift.dump();
  EXPECT_EQ(drift["fails"], false) << drift.dump();
  EXPECT_GT(drift["first_quarter_p95_ms"].get<double>(),
            drift["last_quarter_p95_ms"].get<double>() + 100)
      << drift.dump();
  const std::string summary = read_file(dir + "/out/summary.md");
  EXPECT_NE(summary.find("a fall is reported, not failed"), std::string::npos) << summary;
}

}  // namespace
}  // namespace proofload::testing
