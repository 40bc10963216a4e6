// The live dashboard in Debian's headless Chromium (tests/browser/dashboard_check.mjs,
// playwright-core): opened while a run against `proofload serve` goes, its windows count grows
// as the run sends them, with no console error and no request but to the dashboard itself, and
// it draws charts. The screenshot is kept under the build tree's test-artifacts/.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "process.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string why_no_browser() {
  if (!std::filesystem::exists("/usr/bin/chromium")) return "no /usr/bin/chromium";
  if (!std::filesystem::exists(std::string(PL_BROWSER_DIR) + "/node_modules/playwright-core")) {
    return "tests/browser/node_modules has no playwright-core (scripts/bootstrap installs it)";
  }
  if (run_to_completion({"/bin/sh", "-c", "command -v node"}).exit_code != 0) return "no node";
  return "";
}

TEST(LiveBrowser, TheDashboardUpdatesWhileTheRunGoes) {
  if (const std::string why = why_no_browser(); !why.empty()) {
    GTEST_SKIP() << "needs headless Chromium: " << why;
  }
  ServeProcess server({"--exit-after", "60s"});
  Process run({proofload_binary(), "run", server.url(), "--rate", "100", "-d", "5s", "--workers",
               "1", "-q", "--dashboard", "127.0.0.1:0"});
  const std::string prefix = "dashboard: ";
  ASSERT_TRUE(run.wait_for_err("/\n", 10s)) << run.err();
  const size_t at = run.err().find(prefix);
  ASSERT_NE(at, std::string::npos) << run.err();
  const std::string url =
      run.err().substr(at + prefix.size(), run.err().find('\n', at) - at - prefix.size());
  std::filesystem::create_directories(PL_ARTIFACT_DIR);
  const Completed check = run_to_completion(
      {"/usr/bin/env", "node", std::string(PL_BROWSER_DIR) + "/dashboard_check.mjs", url,
       std::string(PL_ARTIFACT_DIR) + "/live-dashboard.png"},
      60s);
  ASSERT_EQ(check.exit_code, 0) << check.err;
  const json page = json::parse(check.out, nullptr, false);
  ASSERT_FALSE(page.is_discarded()) << check.out << check.err;
  EXPECT_EQ(page["errors"], json::array()) << page.dump();
  EXPECT_EQ(page["foreign_requests"], json::array()) << page.dump();
  // Three values, each above the last: it grew twice while the page was open.
  ASSERT_EQ(page["counts"].size(), 3u) << page.dump();
  EXPECT_LT(page["counts"][0].get<int>(), page["counts"][1].get<int>());
  EXPECT_LT(page["counts"][1].get<int>(), page["counts"][2].get<int>());
  EXPECT_GT(page["charts"].get<int>(), 0) << page.dump();
  EXPECT_EQ(run.wait(20s), 0) << run.err();
}

}  // namespace
}  // namespace proofload::testing
