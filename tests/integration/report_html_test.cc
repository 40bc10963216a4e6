// report.html in a real browser: each kind of result directory the real binary writes (a run, a
// streaming run, a ladder, a rate search re-rendered from its recorded file, a soak, a probe, a
// comparison, a sizing) is opened in Debian's headless Chromium (tests/browser/inspect_page.mjs,
// playwright-core), which must log no error and make no request (the page is self-contained), and
// whose charts must hold the series and points the result holds. A screenshot of each is kept
// under the build tree's test-artifacts/ (looked at, not compared). Every load goes to 127.0.0.1
// and ends by itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

struct Inspected {
  json charts;  // [{id, series, points, canvases}]
  json page;    // the whole answer
};

std::string why_no_browser() {
  if (!std::filesystem::exists("/usr/bin/chromium")) return "no /usr/bin/chromium";
  if (!std::filesystem::exists(std::string(PL_BROWSER_DIR) + "/node_modules/playwright-core"))
    return "tests/browser/node_modules has no playwright-core (scripts/bootstrap installs it)";
  if (run_to_completion({"/bin/sh", "-c", "command -v node"}).exit_code != 0) return "no node";
  return "";
}

// Opens `url` and returns what the page drew; fails the test on any console error or request.
Inspected inspect(const std::string& url, const std::string& name,
                  std::vector<std::string> extra = {}) {
  std::filesystem::create_directories(PL_ARTIFACT_DIR);
  std::vector<std::string> args = {"/usr/bin/env", "node",
                                   std::string(PL_BROWSER_DIR) + "/inspect_page.mjs", url,
                                   std::string(PL_ARTIFACT_DIR) + "/" + name + ".png"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Completed done = run_to_completion(args, 60s);
  EXPECT_EQ(done.exit_code, 0) << done.err;
  const json page = json::parse(done.out, nullptr, false);
  if (page.is_discarded()) {
    ADD_FAILURE() << "inspect_page.mjs did not answer JSON: " << done.out << done.err;
    return {json::array(), json::object()};
  }
  EXPECT_EQ(page["errors"], json::array()) << name;
  EXPECT_EQ(page["requests"], json::array()) << name << ": the page must fetch nothing";
  return {page["charts"], page};
}

const json& chart(const Inspected& page, const std::string& id) {
  static const json none;
  for (const json& c : page.charts) {
    if (c["id"] == id) {
      EXPECT_EQ(c["canvases"], 1) << id;
      return c;
    }
  }
  ADD_FAILURE() << "no chart " << id << " in " << page.charts.dump();
  return none;
}

std::string file_url(const std::string& dir) { return "file://" + dir + "/report.html"; }

class ReportHtml : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string why = why_no_browser();
    if (!why.empty()) GTEST_SKIP() << "needs headless Chromium: " << why;
  }
};

TEST_F(ReportHtml, ARunDrawsEveryWindowAndTheLatencySpectrum) {
  ServeProcess server({"--delay", "1ms", "--exit-after", "60s"});
  const std::string out = make_temp_dir("html-run") + "/out";
  const Completed run =
      run_to_completion({proofload_binary(), "run", server.url(), "--rate", "300", "-d", "3s",
                         "--warmup", "1s", "--observe", "self", "-q", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = json::parse(read_file(out + "/result.json"));
  const size_t windows = result["windows"].size();
  const size_t spectrum = result["summary"]["latency_spectrum"]["ms"].size();
  ASSERT_GE(windows, 4u);
  ASSERT_GE(spectrum, 20u) << "900 requests resolve about 50 steps";

  const Inspected page = inspect(file_url(out), "run");
  EXPECT_EQ(page.page["kind"], "run");
  EXPECT_EQ(chart(page, "run-throughput")["points"], windows);
  EXPECT_EQ(chart(page, "run-throughput")["series"], 2);
  EXPECT_EQ(chart(page, "run-latency")["series"], 4);  // p50, p90, p99, max
  EXPECT_EQ(chart(page, "run-latency")["points"], windows);
  EXPECT_EQ(chart(page, "run-outcomes")["points"], windows);
  EXPECT_EQ(chart(page, "run-never-started")["points"], windows);
  EXPECT_EQ(chart(page, "run-observed-cpu")["series"], 1);  // the generator
  EXPECT_EQ(chart(page, "run-spectrum")["points"], spectrum);

  // The same bytes again from result.json alone.
  const std::string html = read_file(out + "/report.html");
  ASSERT_EQ(run_to_completion({proofload_binary(), "report", out}).exit_code, 0);
  EXPECT_EQ(read_file(out + "/report.html"), html);
}

TEST_F(ReportHtml, AStreamingRunDrawsFirstTokenAndInterTokenLatency) {
  ServeProcess server(
      {"--routes", std::string(PL_EXAMPLES_DIR) + "/streaming/routes.yaml", "--exit-after", "60s"});
  const std::string out = make_temp_dir("html-stream") + "/out";
  const Completed run = run_to_completion(
      {proofload_binary(), "run", server.url("/v1/chat/completions"), "-m", "POST", "--body",
       "{\"stream\": true}", "--stream", "sse", "--stream-content", "/choices/0/delta/content",
       "-c", "8", "-d", "3s", "-q", "--out", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const size_t windows = json::parse(read_file(out + "/result.json"))["windows"].size();
  const Inspected page = inspect(file_url(out), "stream");
  EXPECT_EQ(chart(page, "run-streams")["series"], 3);  // first byte, first token, inter-token
  EXPECT_EQ(chart(page, "run-streams")["points"], windows);
}

TEST_F(ReportHtml, ALadderDrawsItsLevelsByVerdictAndASearchItsSteps) {
  ServeProcess server({"--delay", "1ms", "--exit-after", "60s"});
  const std::string dir = make_temp_dir("html-ladder");
  const Completed ladder = run_to_completion(
      {proofload_binary(), "ladder", server.url(), "--rates", "25,100,400", "--hold", "1s",
       "--warmup", "0s", "--slo", "p95<500ms", "-q", "--out", dir + "/ladder"});
  ASSERT_EQ(ladder.exit_code, 0) << ladder.err;
  const Inspected page = inspect(file_url(dir + "/ladder"), "ladder");
  EXPECT_EQ(page.page["kind"], "ladder");
  EXPECT_EQ(chart(page, "ladder-throughput")["points"], 3);
  EXPECT_EQ(chart(page, "ladder-throughput")["series"], 2);  // goodput, achieved
  EXPECT_EQ(chart(page, "ladder-latency-throughput")["points"], 3);
  EXPECT_EQ(chart(page, "ladder-latency-throughput")["series"], 3);  // p50, p95, p99
  EXPECT_EQ(chart(page, "ladder-slo-terms")["series"], 1);  // the SLO's own p95, per level
  EXPECT_EQ(chart(page, "ladder-slo-terms")["points"], 3);
  // Levels that grow by 4x from 25 to 400 are drawn on a logarithmic axis.
  EXPECT_NE(read_file(dir + "/ladder/report.html")
                .find("\"label\":\"level (target rate, /s), log scale\",\"labels\":[],\"log\":true"),
            std::string::npos);

  // A recorded rate search, rendered again by `proofload report`.
  const std::string search = dir + "/search";
  std::filesystem::create_directories(search);
  std::filesystem::copy_file(std::string(PL_REPORT_TESTDATA_DIR) + "/ladder/search.json",
                             search + "/result.json");
  ASSERT_EQ(run_to_completion({proofload_binary(), "report", search}).exit_code, 0);
  const json recorded = json::parse(read_file(search + "/result.json"));
  const Inspected steps = inspect(file_url(search), "search");
  EXPECT_EQ(chart(steps, "ladder-search")["points"], recorded["search"]["steps"].size());
}

TEST_F(ReportHtml, ASoakDrawsItsWindows) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = make_temp_dir("html-soak") + "/out";
  const Completed soak =
      run_to_completion({proofload_binary(), "soak", server.url(), "--rate", "50", "--hold", "4s",
                         "--window", "1s", "-q", "-o", out});
  ASSERT_EQ(soak.exit_code, 0) << soak.err;
  const json result = json::parse(read_file(out + "/result.json"));
  const size_t windows = result["soak"]["windows"].size() + result["soak"]["ramp"].size();
  const Inspected page = inspect(file_url(out), "soak");
  EXPECT_EQ(page.page["kind"], "soak");
  EXPECT_EQ(chart(page, "soak-latency")["points"], windows);
  EXPECT_EQ(chart(page, "soak-throughput")["points"], windows);
  EXPECT_EQ(chart(page, "soak-errors")["series"], 2);
}

TEST_F(ReportHtml, AProbeDrawsEachSourcePerSecond) {
  const std::string dir = make_temp_dir("html-probe");
  write_file(dir + "/routes.yaml",
             "routes:\n  - {path: /limited, body: \"ok\\n\", limit: {rate: 50, burst: 10, key: "
             "address}}\n");
  ServeProcess server({"--routes", dir + "/routes.yaml", "--exit-after", "60s"});
  const Completed probe =
      run_to_completion({proofload_binary(), "probe", server.url("/limited"), "--sources", "2",
                         "-d", "3s", "--settle", "1s", "-q", "-o", dir + "/out"});
  ASSERT_TRUE(probe.exit_code == 0 || probe.exit_code == 99) << probe.err;
  const Inspected page = inspect(file_url(dir + "/out"), "probe");
  EXPECT_EQ(page.page["kind"], "probe");
  EXPECT_EQ(chart(page, "probe-let-through")["series"], 2);
  EXPECT_EQ(chart(page, "probe-limited")["series"], 2);
  EXPECT_GE(chart(page, "probe-limited")["points"].get<int>(), 3);
}

TEST_F(ReportHtml, AComparisonDrawsEachCheckAgainstItsNoise) {
  const std::string dir = make_temp_dir("html-compare");
  write_file(dir + "/compare.yaml",
             "checks:\n  root: {path: /}\n  other: {path: /x}\n"
             "run: {connections: 1, duration: 300ms, warmup: 0s}\nrepeat: 2\n");
  ServeProcess a({"--exit-after", "60s"});
  ServeProcess b({"--delay", "2ms", "--exit-after", "60s"});
  const Completed compare =
      run_to_completion({proofload_binary(), "compare", dir + "/compare.yaml", "--a", a.url(),
                         "--b", b.url(), "--min-repeats", "2", "-q", "-o", dir + "/out"});
  ASSERT_TRUE(compare.exit_code == 0 || compare.exit_code == 99) << compare.err;
  const Inspected page = inspect(file_url(dir + "/out"), "compare");
  EXPECT_EQ(page.page["kind"], "compare");
  EXPECT_EQ(chart(page, "compare-ratios")["points"], 2);  // two checks
  EXPECT_EQ(chart(page, "compare-ratios")["series"], 3);  // the ratio and its noise band
}

TEST_F(ReportHtml, ASizingDrawsEachConfiguration) {
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = make_temp_dir("html-sizing") + "/out";
  const Completed sizing =
      run_to_completion({proofload_binary(), "sizing", server.url(), "--configs", "small,large",
                         "--apply", "true", "--restore", "true", "--rates", "100,200", "--hold",
                         "1s", "--warmup", "0s", "-q", "--out", out});
  ASSERT_EQ(sizing.exit_code, 0) << sizing.err;
  const Inspected page = inspect(file_url(out), "sizing");
  EXPECT_EQ(page.page["kind"], "sizing");
  EXPECT_EQ(chart(page, "sizing-configs")["points"], 2);
  EXPECT_EQ(chart(page, "sizing-configs")["series"], 3);  // best sustained, peak, per core
  // Each configuration's ladder has its own page, and each level's run its own.
  for (const auto& entry : std::filesystem::directory_iterator(out + "/configs")) {
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "report.html")) << entry.path();
    EXPECT_TRUE(std::filesystem::exists(entry.path() / "levels" / "01-100" / "report.html"))
        << entry.path();
  }
}

}  // namespace
}  // namespace proofload::testing
