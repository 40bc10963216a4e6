// Tests of stage parsing: what users type, and the one-line errors they get.
#include "schedule/stages.h"

#include <gtest/gtest.h>

#include <string>

#include "common/clock.h"
#include "common/usage_error_test_support.h"

namespace proofload::schedule {
namespace {

using testing::usage_error_of;

TEST(ParseStages, ReadsDurationTargetPairs) {
  const std::vector<Stage> stages = parse_stages("10s:100,30s:1k, 10s:0");
  const std::vector<Stage> expected = {
      {10 * kNsPerS, 100}, {30 * kNsPerS, 1000}, {10 * kNsPerS, 0}};
  EXPECT_EQ(stages, expected);
  EXPECT_EQ(parse_stages("1m30s:2.5"), (std::vector<Stage>{{90 * kNsPerS, 2.5}}));
  EXPECT_EQ(parse_stages("0s:100,10s:100"), (std::vector<Stage>{{0, 100}, {10 * kNsPerS, 100}}));
}

TEST(ParseStages, RejectsBadInputNamingTheStage) {
  for (const char* bad :
       {"", "10s", "10s:", ":100", "10s:100,", ",10s:100", "10s:100,,5s:1", "10s:-5", "10s:abc",
        "abc:10", "-1s:10", "0s:100", "10s:100;5s:0", "10s:100:5", "10s:nan"}) {
    const std::string message = usage_error_of([&] { parse_stages(bad); });
    EXPECT_NE(message, "") << "accepted \"" << bad << "\"";
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  }
  const std::string message = usage_error_of([] { parse_stages("10s:100,30s:x,5s:0"); });
  EXPECT_NE(message.find("stage 2"), std::string::npos) << message;
  EXPECT_NE(message.find("30s:x"), std::string::npos) << message;
}

}  // namespace
}  // namespace proofload::schedule
