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

}  // namespace
}  // namespace proofload::measure
