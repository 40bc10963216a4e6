// StallSchedule on simulated time: where stalls begin and end.
#include "serve/stall_schedule.h"

#include <gtest/gtest.h>

namespace proofload::serve {
namespace {

TEST(StallScheduleTest, DisabledNeverStalls) {
  StallSchedule none;
  EXPECT_FALSE(none.enabled());
  EXPECT_EQ(none.stall_end_ns(0), 0);
  EXPECT_EQ(none.stall_end_ns(1'000'000'000), 0);
}

TEST(StallScheduleTest, FirstStallBeginsAtStartPlusFirstThenEveryPeriod) {
  // Start at 1000, first stall at +200 for 30, then every 100: [1200,1230), [1300,1330), ...
  StallSchedule s(1000, 200, 100, 30);
  EXPECT_EQ(s.stall_end_ns(1000), 0);
  EXPECT_EQ(s.stall_end_ns(1199), 0);
  EXPECT_EQ(s.stall_end_ns(1200), 1230);
  EXPECT_EQ(s.stall_end_ns(1229), 1230);
  EXPECT_EQ(s.stall_end_ns(1230), 0);
  EXPECT_EQ(s.stall_end_ns(1299), 0);
  EXPECT_EQ(s.stall_end_ns(1300), 1330);
  EXPECT_EQ(s.stall_end_ns(1000 + 200 + 100 * 1000 + 5), 1000 + 200 + 100 * 1000 + 30);
}

TEST(StallScheduleTest, BeforeTheFirstStallNothingStallsEvenOnThePeriod) {
  // first (250) longer than every (100): no stalls at +100 or +200.
  StallSchedule s(0, 250, 100, 10);
  EXPECT_EQ(s.stall_end_ns(100), 0);
  EXPECT_EQ(s.stall_end_ns(205), 0);
  EXPECT_EQ(s.stall_end_ns(255), 260);
  EXPECT_EQ(s.stall_end_ns(355), 360);
}

}  // namespace
}  // namespace proofload::serve
