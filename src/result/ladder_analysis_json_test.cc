// A ladder's analysis read back from result.json is the analysis that was written: the recorded
// files of the report's golden tests go through from_json and to_json unchanged, a file from
// before goodput reads as its achieved figures, and a file that contradicts itself is refused
// with the key named.
#include "result/ladder_analysis_json.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "result/recorded_test_support.h"

namespace proofload::result {
namespace {

using nlohmann::json;
using testing::recorded;

std::string analysis_error_of(const json& analysis) {
  try {
    analysis_from_json(analysis);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(LadderAnalysisJson, EveryRecordedAnalysisReadsBackToTheSameJson) {
  for (const char* name : {"closed_knee.json", "open_repeats.json", "search.json"}) {
    const json analysis = recorded(name)["analysis"];
    ASSERT_TRUE(analysis.is_object()) << name;
    EXPECT_EQ(analysis_to_json(analysis_from_json(analysis)), analysis) << name;
  }
}

TEST(LadderAnalysisJson, ReferencesBecomeTheIndexOfTheirLevel) {
  const json analysis = recorded("closed_knee.json")["analysis"];
  const analyze::LadderAnalysis a = analysis_from_json(analysis);
  ASSERT_TRUE(a.knee && a.best_sustained && a.peak);
  EXPECT_EQ(a.levels[*a.knee].level, analysis["knee"]["level"].get<double>());
  EXPECT_EQ(a.levels[*a.knee].verdict, analyze::Verdict::kKnee);
  EXPECT_EQ(a.levels[*a.best_sustained].level, analysis["best_sustained"]["level"].get<double>());
  EXPECT_EQ(a.levels[*a.best_sustained].verdict, analyze::Verdict::kHighestWithinSlo);
  EXPECT_EQ(a.levels[*a.peak].level, analysis["peak"]["level"].get<double>());
}

TEST(LadderAnalysisJson, AFileFromBeforeGoodputReadsItsAchievedFigures) {
  json analysis = recorded("closed_knee.json")["analysis"];
  for (json& level : analysis["levels"]) level.erase("goodput_rps");
  const analyze::LadderAnalysis a = analysis_from_json(analysis);
  for (const analyze::LevelAnalysis& level : a.levels) {
    EXPECT_EQ(level.goodput_rps, level.achieved_rps);
  }
}

TEST(LadderAnalysisJson, AFileThatContradictsItselfIsRefusedNamingTheKey) {
  json knee_elsewhere = recorded("closed_knee.json")["analysis"];
  knee_elsewhere["knee"]["level"] = 12345;
  EXPECT_NE(analysis_error_of(knee_elsewhere).find("analysis.knee"), std::string::npos)
      << analysis_error_of(knee_elsewhere);
  json unknown_verdict = recorded("closed_knee.json")["analysis"];
  unknown_verdict["levels"][0]["verdict"] = "splendid";
  EXPECT_NE(analysis_error_of(unknown_verdict).find("verdict"), std::string::npos)
      << analysis_error_of(unknown_verdict);
  json no_levels = recorded("closed_knee.json")["analysis"];
  no_levels.erase("levels");
  EXPECT_NE(analysis_error_of(no_levels).find("levels"), std::string::npos)
      << analysis_error_of(no_levels);
  json no_achieved = recorded("closed_knee.json")["analysis"];
  no_achieved["levels"][1].erase("achieved_rps");
  EXPECT_NE(analysis_error_of(no_achieved).find("achieved_rps"), std::string::npos)
      << analysis_error_of(no_achieved);
}

}  // namespace
}  // namespace proofload::result
