// `proofload compare` end to end, judged on servers whose costs the test knows: two built-in
// servers where B answers one route twice as slowly, one as fast, one twice as fast give exactly
// slower, level and faster; a server against another just like it is level everywhere; and the
// recorded runs judge again, by `proofload report` and by `compare --a DIR --b DIR`, to the same
// verdicts. Timing: the verdicts rest on latencies, so these run alone and not under sanitizers.
// Every load goes to 127.0.0.1 and ends by itself.
#include <gtest/gtest.h>

#include "compare_support.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

constexpr const char* kMatrix =
    "checks:\n"
    "  slower_on_b: {path: /one}\n"
    "  same: {path: /two}\n"
    "  faster_on_b: {path: /three}\n"
    "metric: p50\n"
    "run: {connections: 2, duration: 500ms}\n"
    "repeat: 3\n";

TEST(CompareVerdicts, KnownCostsGiveSlowerLevelAndFasterAndJudgeAgainTheSame) {
  const std::string dir = make_temp_dir("compare-known");
  write_file(dir + "/compare.yaml", kMatrix);
  ServeProcess a({"--routes",
                  delayed_routes(dir + "/a.yaml", {{"/one", "5ms"}, {"/two", "5ms"}, {"/three", "10ms"}}),
                  "--exit-after", "120s"});
  ServeProcess b({"--routes",
                  delayed_routes(dir + "/b.yaml", {{"/one", "10ms"}, {"/two", "5ms"}, {"/three", "5ms"}}),
                  "--exit-after", "120s"});
  const std::string out = dir + "/out";
  const Completed run = compare({dir + "/compare.yaml", "--a", a.url(), "--b", b.url(), "-q", "-o", out});
  EXPECT_EQ(run.exit_code, 99) << "B slower on a check: " << run.err;
  const json result = read_json(out + "/result.json");
  EXPECT_EQ(result["schema"], "proofload.compare/v1");
  EXPECT_EQ(result["status"], "complete");
  const std::map<std::string, std::string> expected = {
      {"slower_on_b|", "slower"}, {"same|", "level"}, {"faster_on_b|", "faster"}};
  EXPECT_EQ(verdicts(result), expected) << result["compare"]["checks"].dump(2);
  const json& headline = result["compare"]["headline"];
  EXPECT_EQ(headline["faster"], 1);
  EXPECT_EQ(headline["level"], 1);
  EXPECT_EQ(headline["slower"], 1);
  EXPECT_EQ(headline["not_judged"], 0);
  EXPECT_EQ(headline["total"], 3);
  for (const json& c : result["compare"]["checks"]) {
    EXPECT_EQ(c["metric"], "p50");
    if (c["name"] == "slower_on_b") {
      EXPECT_NEAR(c["ratio"].get<double>(), 2.0, 0.3) << c.dump();
    }
    if (c["name"] == "faster_on_b") {
      EXPECT_NEAR(c["ratio"].get<double>(), 0.5, 0.1) << c.dump();
    }
    EXPECT_GE(c["noise"].get<double>(), 0.05) << "never below the minimum effect";
  }
  // 3 checks x 3 repeats x 2 sides, A and B alternating cell by cell.
  ASSERT_EQ(result["compare"]["runs"].size(), 18u);
  for (size_t i = 0; i < 18; ++i) {
    EXPECT_EQ(result["compare"]["runs"][i]["side"], i % 2 == 0 ? "a" : "b") << i;
  }
  const std::string summary = read_file(out + "/summary.md");
  EXPECT_NE(summary.find("B faster on 1 of 3 checks, level on 1, slower on 1"), std::string::npos)
      << summary;
  const std::string csv = read_file(out + "/cells.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 19) << csv;

  // Judged again from what was recorded: the same verdicts, nothing sent.
  const Completed report = run_to_completion({proofload_binary(), "report", out}, std::chrono::seconds(30));
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(verdicts(read_json(out + "/result.json")), expected);
  const Completed rejudged = compare({"--a", out + "/a", "--b", out + "/b", "-q", "-o", dir + "/again"});
  EXPECT_EQ(rejudged.exit_code, 99) << rejudged.err;
  const json again = read_json(dir + "/again/result.json");
  EXPECT_EQ(again["settings"]["mode"], "recorded");
  EXPECT_EQ(verdicts(again), expected);
}

TEST(CompareVerdicts, AServerAgainstItsTwinIsLevelOnEveryCheck) {
  const std::string dir = make_temp_dir("compare-twin");
  write_file(dir + "/compare.yaml", kMatrix);
  const std::string routes =
      delayed_routes(dir + "/routes.yaml", {{"/one", "5ms"}, {"/two", "5ms"}, {"/three", "10ms"}});
  ServeProcess a({"--routes", routes, "--exit-after", "120s"});
  ServeProcess twin({"--routes", routes, "--exit-after", "120s"});
  const std::string out = dir + "/out";
  const Completed run =
      compare({dir + "/compare.yaml", "--a", a.url(), "--b", twin.url(), "-q", "-o", out});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  const json result = read_json(out + "/result.json");
  const std::map<std::string, std::string> expected = {
      {"slower_on_b|", "level"}, {"same|", "level"}, {"faster_on_b|", "level"}};
  EXPECT_EQ(verdicts(result), expected) << result["compare"]["checks"].dump(2);
  EXPECT_EQ(result["compare"]["headline"]["level"], 3);
}

}  // namespace
}  // namespace proofload::testing
