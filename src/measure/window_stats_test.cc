// WindowStats: merging workers' windows adds counts and histograms; derived counts.
#include "measure/window_stats.h"

#include <gtest/gtest.h>

namespace proofload::measure {
namespace {

TEST(WindowStats, MergeAddsCountsHistogramsAndGauges) {
  WindowStats a, b;
  a.outcomes[static_cast<int>(Outcome::kSuccess)] = 10;
  a.outcomes[static_cast<int>(Outcome::kTimeout)] = 1;
  a.add_status(200);
  a.add_status(200);
  a.add_status(999);
  a.latency_us.record(1000);
  a.intended = 12;
  a.bytes_in = 100;
  a.in_flight_end = 3;
  b.outcomes[static_cast<int>(Outcome::kSuccess)] = 5;
  b.outcomes[static_cast<int>(Outcome::kStatus503)] = 2;
  b.outcomes[static_cast<int>(Outcome::kNeverStarted)] = 4;
  b.add_status(503);
  b.add_status(-1);
  b.latency_us.record(5000);
  b.ttfb_us.record(70);
  b.intended = 11;
  b.bytes_in = 50;
  b.in_flight_end = 2;

  a.merge(b);
  EXPECT_EQ(a.count(Outcome::kSuccess), 15);
  EXPECT_EQ(a.count(Outcome::kStatus503), 2);
  EXPECT_EQ(a.ended(), 22);
  EXPECT_EQ(a.responses(), 17);
  EXPECT_EQ(a.errors(), 3);  // timeout + 2 x 503; never-started is not an error
  EXPECT_EQ(a.status[200], 2);
  EXPECT_EQ(a.status[503], 1);
  EXPECT_EQ(a.status[kStatusOther], 2);
  EXPECT_EQ(a.latency_us.total_count(), 2);
  EXPECT_EQ(a.latency_us.max(), b.latency_us.max());
  EXPECT_EQ(a.ttfb_us.total_count(), 1);
  EXPECT_EQ(a.intended, 23);
  EXPECT_EQ(a.bytes_in, 150);
  EXPECT_EQ(a.in_flight_end, 5);
}

TEST(WindowStats, ClearKeepsNothing) {
  WindowStats w;
  w.outcomes[0] = 3;
  w.add_status(404);
  w.service_us.record(10);
  w.connects = 2;
  w.clear();
  EXPECT_EQ(w.ended(), 0);
  EXPECT_EQ(w.status[404], 0);
  EXPECT_EQ(w.service_us.total_count(), 0);
  EXPECT_EQ(w.connects, 0);
}

// Two workers' streams: the ends add up, and so do the completed streams' figures and times.
TEST(WindowStats, StreamsMergeAndClear) {
  WindowStats a, b;
  a.streams.completed = 3;
  a.streams.tokens = 300;
  a.streams.ttfce_us.record(200'000);
  a.streams.inter_event_us.record(20'000);
  b.streams.completed = 1;
  b.streams.cut_short = 2;
  b.streams.idle_timeout = 1;
  b.streams.tokens = 50;
  b.streams.ttfce_us.record(900'000);
  a.merge(b);
  EXPECT_EQ(a.streams.completed, 4);
  EXPECT_EQ(a.streams.ended(), 7);
  EXPECT_EQ(a.streams.tokens, 350);
  EXPECT_EQ(a.streams.ttfce_us.total_count(), 2);
  EXPECT_GE(a.streams.ttfce_us.max(), 900'000);
  EXPECT_EQ(a.streams.inter_event_us.total_count(), 1);
  a.clear();
  EXPECT_EQ(a.streams.ended(), 0);
  EXPECT_EQ(a.streams.tokens, 0);
  EXPECT_EQ(a.streams.ttfce_us.total_count(), 0);
}

}  // namespace
// A probe's sources: merging the workers' windows puts each worker's source in its place.
TEST(SourceWindowTest, MergingPutsEachWorkersSourceSideBySide) {
  WindowStats a, b;
  a.sources.resize(2);
  b.sources.resize(2);
  a.sources[0] = {100, 20, 1, 100, {{"Retry-After", "1", "2"}}};
  b.sources[1] = {98, 30, 0, std::nullopt, {}};
  a.merge(b);
  EXPECT_EQ(a.sources[0].let_through, 100);
  EXPECT_EQ(a.sources[0].let_through_before_first_429, 100);
  EXPECT_EQ(a.sources[1].let_through, 98);
  EXPECT_EQ(a.sources[1].limited, 30);
  EXPECT_FALSE(a.sources[1].let_through_before_first_429);
  a.clear();
  ASSERT_EQ(a.sources.size(), 2u) << "clear keeps the sources, with nothing counted";
  EXPECT_EQ(a.sources[0].let_through, 0);
  EXPECT_TRUE(a.sources[0].headers.empty());
}

// Rate-limit headers are kept first and last, any case; a hostile server cannot grow them.
TEST(SourceWindowTest, LimitHeadersAreKeptFirstAndLastAndBounded) {
  std::vector<LimitHeader> seen;
  note_limit_headers(
      "Content-Type: text/plain\r\nretry-after: 3\r\nRateLimit-Remaining:  9 \r\n"
      "X-RateLimit-Reset: 60\r\nRateLimiting: no\r\n",
      seen);
  note_limit_headers("RATELIMIT-REMAINING: 0\r\nRetry-After: 1\r\n", seen);
  const std::vector<LimitHeader> expected = {{"retry-after", "3", "1"},
                                             {"RateLimit-Remaining", "9", "0"},
                                             {"X-RateLimit-Reset", "60", "60"},
                                             {"RateLimiting", "no", "no"}};
  EXPECT_EQ(seen, expected) << "a name beginning RateLimit is kept (the drafts' prefix)";
  std::string flood;
  for (int i = 0; i < 100; ++i) {
    flood += "RateLimit-" + std::to_string(i) + ": " + std::string(5000, 'x') + "\r\n";
  }
  note_limit_headers(flood, seen);
  EXPECT_EQ(seen.size(), kMaxLimitHeaders);
  for (const LimitHeader& h : seen) EXPECT_LE(h.last.size(), kMaxLimitHeaderValueBytes);
}

}  // namespace proofload::measure
