// Tests of a comparison's result.json: what is written reads back, and the verdicts are judged
// again from the recorded runs, never taken as written.
#include "result/compare_result.h"

#include <gtest/gtest.h>

namespace proofload::result {
namespace {

CompareRun run(const std::string& side, const std::string& check, const std::string& condition,
               int64_t repeat, std::optional<double> value, int64_t errors = 0) {
  CompareRun r;
  r.side = side;
  r.check = check;
  r.condition = condition;
  r.repeat = repeat;
  r.directory = side + "/" + check + "-r" + std::to_string(repeat);
  r.status = "complete";
  r.value = value;
  r.requests = 1000;
  r.errors = errors;
  return r;
}

CompareResult compare_sample() {
  CompareResult r;
  r.status = "complete";
  r.proofload_version = "1.0";
  r.settings.a = "http://127.0.0.1:1/";
  r.settings.b = "http://127.0.0.1:2/";
  r.settings.conditions = {"cold"};
  r.settings.connections = 4;
  r.settings.duration_s = 2;
  for (int64_t i = 1; i <= 3; ++i) {
    r.runs.push_back(run("a", "lookup", "cold", i, 10.0 + static_cast<double>(i) * 0.1));
    r.runs.push_back(run("b", "lookup", "cold", i, 5.0, i == 2 ? 3 : 0));
    r.runs.push_back(run("a", "search", "cold", i, 20.0));
    r.runs.push_back(run("b", "search", "cold", i, 20.2));
  }
  r.runs.push_back(run("a", "gone", "cold", 1, std::nullopt, 1000));
  judge_compare(r);
  return r;
}

TEST(CompareResult, CellsGatherEachChecksRepeatsPerSide) {
  const std::vector<analyze::CompareCell> cells = compare_cells(compare_sample().runs);
  ASSERT_EQ(cells.size(), 3u);
  EXPECT_EQ(cells[0].name, "lookup");
  EXPECT_EQ(cells[0].a, (std::vector<double>{10.1, 10.2, 10.3}));
  EXPECT_EQ(cells[0].b, (std::vector<double>{5, 5, 5}));
  EXPECT_EQ(cells[0].b_errors, 3);
  EXPECT_EQ(cells[0].b_requests, 3000);
  EXPECT_TRUE(cells[2].a.empty()) << "a run without a value is no repeat";
  EXPECT_EQ(cells[2].a_errors, 1000);
}

TEST(CompareResult, WrittenKeysAreTheOnesScriptsRead) {
  const nlohmann::json j = compare_to_json(compare_sample());
  EXPECT_EQ(j["schema"], kCompareSchema);
  EXPECT_EQ(j["kind"], "compare");
  const nlohmann::json& headline = j["compare"]["headline"];
  EXPECT_EQ(headline["faster"], 1);
  EXPECT_EQ(headline["level"], 1);
  EXPECT_EQ(headline["slower"], 0);
  EXPECT_EQ(headline["not_judged"], 1);
  EXPECT_EQ(headline["total"], 3);
  const nlohmann::json& check = j["compare"]["checks"][0];
  for (const char* key : {"name", "condition", "metric", "a", "b", "ratio", "noise", "verdict"}) {
    EXPECT_TRUE(check.contains(key)) << key;
  }
  EXPECT_EQ(check["verdict"], "faster");
  EXPECT_DOUBLE_EQ(check["a"].get<double>(), 10.2);
  EXPECT_DOUBLE_EQ(check["ratio"].get<double>(), 5.0 / 10.2);
  EXPECT_EQ(j["compare"]["checks"][2]["verdict"], "not judged");
  EXPECT_EQ(j["compare"]["by_condition"][0]["condition"], "cold");
}

TEST(CompareResult, ReadsBackAndJudgesAgainFromTheRuns) {
  const CompareResult written = compare_sample();
  nlohmann::json j = compare_to_json(written);
  CompareResult read = compare_from_json(j);
  EXPECT_EQ(compare_to_json(read), j);
  // A verdict edited by hand is not trusted: the runs decide.
  j["compare"]["checks"][0]["verdict"] = "slower";
  read = compare_from_json(j);
  EXPECT_EQ(read.analysis.checks[0].verdict, "faster");
  // Another minimum effect, as --min-effect gives when judging again.
  j["settings"]["min_effect"] = 0.9;
  read = compare_from_json(j);
  EXPECT_EQ(read.analysis.checks[0].verdict, "level");
}

TEST(CompareResult, AWrongValueNamesItsKey) {
  nlohmann::json j = compare_to_json(compare_sample());
  j["compare"]["runs"][0]["side"] = "c";
  EXPECT_THROW(compare_from_json(j), std::runtime_error);
  j = compare_to_json(compare_sample());
  j["settings"]["metric"] = "p42";
  try {
    compare_from_json(j);
    FAIL() << "an unknown metric must not be judged";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("settings.metric"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace proofload::result
