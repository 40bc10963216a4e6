// A ladder's result.json read back is the result that was written: the recorded files of the
// report's golden tests keep every value through ladder_from_json and ladder_to_json, what a file
// left out reads as not recorded (never as a default presented as found), and a missing required
// key is refused with its path named.
#include "result/ladder_result.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "result/recorded_test_support.h"

namespace proofload::result {
namespace {

using nlohmann::json;
using testing::recorded;

std::string ladder_error_of(const json& result) {
  try {
    ladder_from_json(result);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(LadderResultJson, EveryRecordedValueSurvivesTheRoundTrip) {
  // The golden files were written by hand in the shape of older versions (fewer row keys, whole
  // numbers without a fraction): reading and writing them keeps every value they hold, and what
  // is written once reads back to exactly itself.
  for (const char* name :
       {"closed_knee.json", "open_repeats.json", "search.json", "table_none.json"}) {
    const json file = recorded(name);
    const json written = ladder_to_json(ladder_from_json(file));
    EXPECT_EQ(ladder_to_json(ladder_from_json(written)), written) << name;
    const json before = file.flatten();
    const json after = written.flatten();
    for (const auto& [path, value] : before.items()) {
      if (value.is_null()) continue;
      // A table's analysis records how it was judged, not how it was run.
      if (file["kind"] == "analyze" && path.starts_with("/settings/") && !after.contains(path)) {
        continue;
      }
      ASSERT_TRUE(after.contains(path)) << name << " " << path;
      EXPECT_EQ(after[path], value) << name << " " << path;
    }
  }
}

TEST(LadderResultJson, RowsEventsAndSearchStepsAreTyped) {
  const LadderResult search = ladder_from_json(recorded("search.json"));
  ASSERT_TRUE(search.search.has_value());
  ASSERT_FALSE(search.search->steps.empty());
  const SearchStep& last = search.search->steps.back();
  ASSERT_TRUE(last.row.has_value());
  EXPECT_EQ(search.rows[*last.row].figures.level, last.rate_rps);
  // The confirming run is the one row the analysis leaves out.
  const std::vector<bool> confirming = search.confirming_rows();
  EXPECT_EQ(std::count(confirming.begin(), confirming.end(), true),
            std::count_if(search.search->steps.begin(), search.search->steps.end(),
                          [](const SearchStep& s) { return s.phase == "confirm"; }));
  const LadderResult ladder = ladder_from_json(recorded("closed_knee.json"));
  ASSERT_TRUE(ladder.analysis.has_value());
  for (const analyze::LevelAnalysis& level : ladder.analysis->levels) {
    EXPECT_EQ(ladder.level(level.level), &level);
  }
  EXPECT_EQ(ladder.level(-1), nullptr);
}

TEST(LadderResultJson, WhatAFileLeftOutReadsAsNotRecorded) {
  json file = recorded("closed_knee.json");
  file["events"] = json::array({{{"kind", "hook"}, {"name", "before-level"}}});
  file["analysis"]["levels"][0].erase("verdict");
  file["analysis"]["noise_floor"].erase("value");
  file["analysis"]["daily_capacity"].erase("significant_digits");
  const LadderResult r = ladder_from_json(file);
  EXPECT_FALSE(r.events[0].ok.has_value());  // never read as a pass
  EXPECT_FALSE(r.events[0].duration_s.has_value());
  ASSERT_FALSE(r.recorded.verdicts.empty());
  EXPECT_FALSE(r.recorded.verdicts[0]);
  EXPECT_TRUE(r.recorded.verdicts[1]);
  EXPECT_FALSE(r.recorded.noise_floor);
  EXPECT_FALSE(r.recorded.daily_significant_digits);
  EXPECT_TRUE(r.recorded.loop);

  const LadderResult whole = ladder_from_json(recorded("closed_knee.json"));
  EXPECT_TRUE(whole.recorded.noise_floor);
  EXPECT_TRUE(whole.recorded.daily_significant_digits);
}

TEST(LadderResultJson, AMissingRequiredKeyIsRefusedWithItsPath) {
  json no_level = recorded("closed_knee.json");
  no_level["rows"][2].erase("level");
  EXPECT_NE(ladder_error_of(no_level).find("'rows[2].level'"), std::string::npos)
      << ladder_error_of(no_level);
  json bad_kind = recorded("closed_knee.json");
  bad_kind["kind"] = "soak";
  EXPECT_NE(ladder_error_of(bad_kind).find("soak"), std::string::npos) << ladder_error_of(bad_kind);
  json bad_step = recorded("search.json");
  bad_step["search"]["steps"][0].erase("rate_rps");
  EXPECT_NE(ladder_error_of(bad_step).find("search.steps[0].rate_rps"), std::string::npos)
      << ladder_error_of(bad_step);
  json fraction = recorded("closed_knee.json");
  fraction["rows"][0]["requests"] = 12.5;
  EXPECT_NE(ladder_error_of(fraction).find("'rows[0].requests'"), std::string::npos)
      << ladder_error_of(fraction);
}

}  // namespace
}  // namespace proofload::result
