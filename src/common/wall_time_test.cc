// Wall-clock text, the clock's status and the wait for a moment.
#include "common/wall_time.h"

#include <gtest/gtest.h>

#include "common/clock.h"

namespace proofload {
namespace {

TEST(WallTime, ParsesRfc3339) {
  EXPECT_EQ(*parse_rfc3339_unix_ns("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(*parse_rfc3339_unix_ns("2024-05-01T10:00:30Z"), 1714557630 * kNsPerS);
  EXPECT_EQ(*parse_rfc3339_unix_ns("2024-05-01T12:00:30.25+02:00"),
            1714557630 * kNsPerS + 250 * kNsPerMs);
  for (const char* bad : {"", "2024-05-01", "2024-05-01T10:00:30", "2024-13-01T10:00:30Z",
                          "2024-05-01T10:00:30Zjunk"}) {
    EXPECT_FALSE(parse_rfc3339_unix_ns(bad)) << bad;
  }
}

TEST(WallTime, FormatsWhatItParses) {
  const int64_t at = 1714557630 * kNsPerS + 250 * kNsPerMs;
  EXPECT_EQ(format_rfc3339_utc(at), "2024-05-01T10:00:30.250Z");
  EXPECT_EQ(format_rfc3339_utc(at, true), "2024-05-01T10:00:30Z");
  EXPECT_EQ(*parse_rfc3339_unix_ns(format_rfc3339_utc(at)), at);
  EXPECT_EQ(format_rfc3339_utc(-1), "1969-12-31T23:59:59.999Z");  // floored, before 1970 too
}

TEST(WallTime, ClockStatusIsStatedEitherWay) {
  const ClockStatus status = read_clock_status();
  EXPECT_FALSE(status.description.empty());
  // An estimate exists exactly when the clock is synchronized: never a number for an unknown.
  EXPECT_EQ(status.offset_ms.has_value(), status.synchronized);
}

TEST(WallTime, SleepsUntilTheMomentAndNoLonger) {
  const std::atomic<bool> stop{false};
  const int64_t at = wall_clock_ns() + 120 * kNsPerMs;
  EXPECT_TRUE(sleep_until_wall_ns(at, stop));
  EXPECT_GE(wall_clock_ns(), at);
  EXPECT_TRUE(sleep_until_wall_ns(wall_clock_ns() - kNsPerS, stop));  // past: at once
}

TEST(WallTime, AStopEndsTheWait) {
  const std::atomic<bool> stop{true};
  EXPECT_FALSE(sleep_until_wall_ns(wall_clock_ns() + 3600 * kNsPerS, stop));
}

}  // namespace
}  // namespace proofload
