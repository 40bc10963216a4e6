// `proofload compare` end to end, apart from its verdicts (compare_verdicts_test.cc): the hooks
// run in the order the plan states (a setting applied before its cells and restored after, each
// side switched once per repeat, the reset before each cold cell, restore at the end), warm cells
// warm up and cold ones do not, Ctrl-C in the middle still restores and leaves a directory that
// reads, and bad input is one line before anything is sent. Every load goes to 127.0.0.1 and
// ends by itself.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <thread>

#include "compare_support.h"

namespace proofload::testing {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

// A hook that appends its name and what it is told to `log`.
std::string logging_hook(const std::string& log, const std::string& what) {
  return "echo \"" + what + "\" >> " + log;
}

TEST(Compare, HooksRunInTheOrderThePlanStates) {
  const std::string dir = make_temp_dir("compare-hooks");
  const std::string log = dir + "/hooks.log";
  write_file(dir + "/compare.yaml",
             "checks:\n"
             "  lookup: {path: /lookup}\n"
             "conditions: [cold, warm]\n"
             "settings:\n"
             "  small: {apply: '" + logging_hook(log, "apply-setting $PROOFLOAD_SETTING") +
                 "', restore: '" + logging_hook(log, "restore-setting $PROOFLOAD_SETTING") +
                 "'}\n"
             "run: {connections: 1, duration: 200ms, warmup: 1s}\n"
             "repeat: 2\n");
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = dir + "/out";
  const std::vector<std::string> args = {
      dir + "/compare.yaml", "--a", server.url(), "--b", server.url(),
      "--a-apply", logging_hook(log, "apply-a"), "--b-apply", logging_hook(log, "apply-b"),
      "--reset", logging_hook(log, "reset $PROOFLOAD_CONDITION $PROOFLOAD_SIDE"),
      "--restore", logging_hook(log, "restore"), "--min-repeats", "2", "-q", "-o", out};
  std::vector<std::string> plan_args = args;
  plan_args.push_back("--plan");
  const Completed plan = compare(plan_args);
  ASSERT_EQ(plan.exit_code, 0) << plan.err;
  EXPECT_NE(plan.out.find("Nothing was sent"), std::string::npos) << plan.out;
  EXPECT_FALSE(std::filesystem::exists(log)) << "--plan runs no hook";

  const Completed run = compare(args);
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 99) << run.err;
  const std::vector<std::string> expected = {
      "apply-setting small", "apply-a", "reset cold a", "apply-b", "reset cold b",
      "apply-a",             "reset cold a", "apply-b", "reset cold b",
      "restore-setting small", "restore"};
  EXPECT_EQ(lines_of(read_file(log)), expected);

  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["status"], "complete");
  EXPECT_EQ(result["settings"]["mode"], "hooks");
  ASSERT_EQ(result["compare"]["checks"].size(), 2u);
  EXPECT_EQ(result["compare"]["checks"][0]["condition"], "cold at small");
  EXPECT_EQ(result["compare"]["checks"][1]["condition"], "warm at small");
  // A warm cell measured after its warm-up pass; a cold one from its first request.
  const json warm = read_json(out + "/a/warm at small/lookup-r1/result.json");
  const json cold = read_json(out + "/a/cold at small/lookup-r1/result.json");
  EXPECT_GT(warm["warmup"]["requests"].get<int64_t>(), 0);
  EXPECT_EQ(cold["warmup"]["requests"].get<int64_t>(), 0);
  EXPECT_EQ(result["compare"]["by_condition"].size(), 2u);
}

TEST(Compare, CtrlCInTheMiddleRestoresAndLeavesAReadableDirectory) {
  const std::string dir = make_temp_dir("compare-interrupt");
  const std::string log = dir + "/hooks.log";
  write_file(dir + "/compare.yaml",
             "checks:\n"
             "  lookup: {path: /lookup}\n"
             "settings:\n"
             "  small: {apply: '" + logging_hook(log, "apply-setting") + "', restore: '" +
                 logging_hook(log, "restore-setting") + "'}\n"
             "run: {connections: 1, duration: 20s}\n"
             "repeat: 3\n");
  ServeProcess a({"--exit-after", "60s"});
  ServeProcess b({"--exit-after", "60s"});
  const std::string out = dir + "/out";
  Process process({proofload_binary(), "compare", dir + "/compare.yaml", "--a", a.url(), "--b",
                   b.url(), "--restore", logging_hook(log, "restore"), "-q", "-o", out});
  // Wait until the first cell's run is under way (its run directory holds its result.json).
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!std::filesystem::exists(out + "/a/small/lookup-r1/result.json") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);  // polling a file another process writes
  }
  ASSERT_TRUE(std::filesystem::exists(out + "/a/small/lookup-r1/result.json")) << process.err();
  process.signal(SIGINT);
  const std::optional<int> code = process.wait(30s);
  ASSERT_TRUE(code);
  EXPECT_EQ(*code, 130) << process.err();
  const std::vector<std::string> expected = {"apply-setting", "restore-setting", "restore"};
  EXPECT_EQ(lines_of(read_file(log)), expected);
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["status"], "interrupted");
  ASSERT_EQ(result["compare"]["runs"].size(), 1u);
  EXPECT_TRUE(result["compare"]["runs"][0]["value"].is_null()) << "a run cut short is no repeat";
  EXPECT_EQ(result["compare"]["checks"][0]["verdict"], "not judged");
  const Completed report = run_to_completion({proofload_binary(), "report", out}, 30s);
  EXPECT_EQ(report.exit_code, 0) << report.err;
}

// CPU per request comes from each side's own server: --a-observe and --b-observe.
TEST(Compare, CpuPerRequestComesFromEachSidesObserver) {
  const std::string dir = make_temp_dir("compare-cpu");
  write_file(dir + "/compare.yaml",
             "checks:\n  lookup: {path: /lookup}\nmetric: cpu_per_request\n"
             "run: {connections: 2, duration: 1s}\nrepeat: 3\n");
  ServeProcess a({"--exit-after", "60s"});
  ServeProcess b({"--exit-after", "60s"});
  const std::string out = dir + "/out";
  const Completed run = compare(
      {dir + "/compare.yaml", "--a", a.url(), "--b", b.url(), "--a-observe",
       "pid:" + std::to_string(a.process().pid()), "--b-observe",
       "pid:" + std::to_string(b.process().pid()), "--observe-every", "250ms", "-q", "-o", out});
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 99) << run.err;
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["settings"]["metric"], "cpu_per_request");
  ASSERT_EQ(result["compare"]["runs"].size(), 6u);
  for (const json& r : result["compare"]["runs"]) {
    ASSERT_TRUE(r["value"].is_number()) << r.dump();
    EXPECT_GT(r["value"].get<double>(), 0) << r.dump();
  }
  EXPECT_NE(result["compare"]["checks"][0]["verdict"], "not judged")
      << result["compare"]["checks"][0].dump();
  const json a_run = read_json(out + "/a/lookup-r1/result.json");
  const json b_run = read_json(out + "/b/lookup-r1/result.json");
  EXPECT_EQ(a_run["spec"]["observe"], json::array({"pid:" + std::to_string(a.process().pid())}));
  EXPECT_EQ(b_run["spec"]["observe"], json::array({"pid:" + std::to_string(b.process().pid())}));
}

TEST(Compare, BadInputIsOneLineAndSendsNothing) {
  const std::string dir = make_temp_dir("compare-bad");
  write_file(dir + "/typo.yaml", "checks:\n  lookup: {path: /lookup}\nrepeats: 3\n");
  Completed typo = compare({dir + "/typo.yaml", "--a", "http://127.0.0.1:1/", "--b",
                            "http://127.0.0.1:2/", "-o", dir + "/out"});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("typo.yaml:3:1: unknown key 'repeats'"), std::string::npos) << typo.err;
  EXPECT_NE(typo.err.find("did you mean 'repeat'?"), std::string::npos) << typo.err;
  EXPECT_EQ(std::count(typo.err.begin(), typo.err.end(), '\n'), 1) << typo.err;

  write_file(dir + "/cold.yaml", "checks:\n  lookup: {path: /lookup}\nconditions: [cold]\n");
  Completed cold = compare({dir + "/cold.yaml", "--a", "http://127.0.0.1:1/", "--b",
                            "http://127.0.0.1:2/", "-o", dir + "/out"});
  EXPECT_EQ(cold.exit_code, 2);
  EXPECT_NE(cold.err.find("--reset"), std::string::npos) << cold.err;

  // An unreachable target: one line at pre-flight, before any cell.
  write_file(dir + "/ok.yaml", "checks:\n  lookup: {path: /lookup}\nrun: {duration: 1s}\n");
  const int closed = unused_loopback_port();
  ServeProcess b({"--exit-after", "30s"});
  Completed unreachable = compare({dir + "/ok.yaml", "--a",
                                   "http://127.0.0.1:" + std::to_string(closed) + "/", "--b",
                                   b.url(), "-o", dir + "/out"});
  EXPECT_EQ(unreachable.exit_code, 2) << unreachable.err;
  EXPECT_NE(unreachable.err.find("cannot connect"), std::string::npos) << unreachable.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/result.json"));

  // The recorded directory that is not there is named, whichever side it is.
  Completed missing = compare({"--a", dir + "/nowhere", "--b", dir, "-o", dir + "/out2"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("--a " + dir + "/nowhere: no such directory"), std::string::npos)
      << missing.err;
  Completed missing_b = compare({"--a", dir, "--b", dir + "/elsewhere", "-o", dir + "/out2"});
  EXPECT_EQ(missing_b.exit_code, 2) << missing_b.err;
  EXPECT_NE(missing_b.err.find("--b " + dir + "/elsewhere: no such directory"), std::string::npos)
      << missing_b.err;
  EXPECT_EQ(std::count(missing_b.err.begin(), missing_b.err.end(), '\n'), 1) << missing_b.err;

  // No --b and no hooks: B has no target (an A/A comparison names the same target twice).
  Completed no_b = compare({dir + "/ok.yaml", "--a", b.url(), "--plan"});
  EXPECT_EQ(no_b.exit_code, 2) << no_b.err;
  EXPECT_NE(no_b.err.find("no target for B"), std::string::npos) << no_b.err;
}

// A against itself is how a matrix's noise is measured: it runs, and the report says it is A/A
// (run, and judged again from its recorded directory).
TEST(Compare, AAgainstItselfRunsAndSaysItIsAnAAComparison) {
  const std::string dir = make_temp_dir("compare-aa");
  write_file(dir + "/aa.yaml",
             "checks:\n  ok: {path: /ok}\nrun: {connections: 1, duration: 200ms}\nrepeat: 3\n");
  ServeProcess server({"--exit-after", "60s"});
  const std::string out = dir + "/out";
  const Completed run = compare({dir + "/aa.yaml", "--a", server.url(), "--b", server.url(), "-q",
                                 "-o", out});
  ASSERT_NE(run.exit_code, 2) << run.err;
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["status"], "complete") << run.err;
  EXPECT_EQ(result["settings"]["a_a"], true);
  EXPECT_NE(read_file(out + "/summary.md").find("An A/A comparison"), std::string::npos);

  const std::string again = dir + "/again";
  const Completed rejudged = compare({"--a", out + "/a", "--b", out + "/a", "-q", "-o", again});
  ASSERT_NE(rejudged.exit_code, 2) << rejudged.err;
  EXPECT_EQ(read_json(again + "/result.json")["settings"]["a_a"], true);
  EXPECT_NE(read_file(again + "/summary.md").find("An A/A comparison"), std::string::npos);

  // Two different targets are not A/A.
  ServeProcess other({"--exit-after", "60s"});
  const Completed ab = compare({dir + "/aa.yaml", "--a", server.url(), "--b", other.url(), "-q",
                                "-o", dir + "/ab"});
  ASSERT_NE(ab.exit_code, 2) << ab.err;
  EXPECT_EQ(read_json(dir + "/ab/result.json")["settings"]["a_a"], false);
  EXPECT_EQ(read_file(dir + "/ab/summary.md").find("A/A"), std::string::npos);
}

}  // namespace
}  // namespace proofload::testing
