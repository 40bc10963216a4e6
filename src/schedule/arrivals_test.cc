// Tests of the rate profile, open-loop arrival times, sharding and closed-loop shares, all on
// simulated time: the times are compared with the integral of the rate they must follow.
#include "schedule/arrivals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "common/clock.h"
#include "common/units.h"
#include "common/usage_error.h"
#include "schedule/rate_profile.h"
#include "schedule/stages.h"

namespace proofload::schedule {
namespace {

std::vector<int64_t> all_arrivals(ArrivalSchedule schedule) {
  std::vector<int64_t> times;
  while (auto t = schedule.peek()) {
    times.push_back(*t);
    schedule.advance();
  }
  return times;
}

TEST(Profile, ConstantHoldsItsTargetForItsDuration) {
  const Profile p = Profile::constant(250, 10 * kNsPerS);
  EXPECT_EQ(p.duration_ns(), 10 * kNsPerS);
  EXPECT_EQ(p.target_at(0), 250);
  EXPECT_EQ(p.target_at(10 * kNsPerS - 1), 250);
  EXPECT_EQ(p.target_at(10 * kNsPerS), 0);  // past the end
  EXPECT_EQ(p.target_at(-1), 0);
  EXPECT_DOUBLE_EQ(static_cast<double>(p.integral_until(4 * kNsPerS)), 1000);
}

TEST(Profile, StagesRampLinearlyFromThePreviousTarget) {
  const Profile p = Profile::staged(parse_stages("10s:100,30s:1000,10s:0"));
  EXPECT_EQ(p.duration_ns(), 50 * kNsPerS);
  EXPECT_DOUBLE_EQ(p.target_at(0), 0);  // k6: the first stage starts from 0
  EXPECT_DOUBLE_EQ(p.target_at(5 * kNsPerS), 50);
  EXPECT_DOUBLE_EQ(p.target_at(10 * kNsPerS), 100);
  EXPECT_DOUBLE_EQ(p.target_at(25 * kNsPerS), 550);
  EXPECT_DOUBLE_EQ(p.target_at(45 * kNsPerS), 500);
  EXPECT_EQ(p.target_at(50 * kNsPerS), 0);
  // 0.5*10*100 + 0.5*30*(100+1000) + 0.5*10*1000
  EXPECT_DOUBLE_EQ(static_cast<double>(p.total_integral()), 500 + 16500 + 5000);

  const Profile from_initial = Profile::staged({{10 * kNsPerS, 100}}, 50);
  EXPECT_DOUBLE_EQ(from_initial.target_at(0), 50);
  EXPECT_DOUBLE_EQ(from_initial.target_at(5 * kNsPerS), 75);

  // A zero-length stage is a jump.
  const Profile jump = Profile::staged(parse_stages("0s:100,10s:100"));
  EXPECT_DOUBLE_EQ(jump.target_at(0), 100);
}

TEST(Profile, RejectsInvalidTargetsAndDurations) {
  EXPECT_THROW(Profile::constant(-1, kNsPerS), UsageError);
  EXPECT_THROW(Profile::constant(NAN, kNsPerS), UsageError);
  EXPECT_THROW(Profile::constant(10, -1), UsageError);
  EXPECT_THROW(Profile::staged({{kNsPerS, -5}}), UsageError);
  EXPECT_THROW(Profile::staged({{kNsPerS, 5}}, -1), UsageError);
  EXPECT_THROW(Profile::staged({{INT64_MAX, 5}, {1, 5}}), UsageError);
}

TEST(Arrivals, ConstantRateTimesAreExact) {
  const std::vector<int64_t> times =
      all_arrivals(ArrivalSchedule(Profile::constant(1000, 10 * kNsPerS)));
  ASSERT_EQ(times.size(), 10'000u);
  for (size_t k = 0; k < times.size(); ++k) {
    ASSERT_EQ(times[k], static_cast<int64_t>(k) * kNsPerMs) << "arrival " << k;
  }
  // Long runs do not drift: arrival k is computed from k, not by adding up steps.
  const Profile day = Profile::constant(3, 86'400 * kNsPerS);
  EXPECT_EQ(arrival_time_ns(day, 3 * 86'000), 86'000 * kNsPerS);
  EXPECT_EQ(arrival_time_ns(day, 3 * 86'000 + 1), 86'000 * kNsPerS + 333'333'333);
  EXPECT_EQ(arrival_time_ns(day, 3 * 86'400), std::nullopt);
}

TEST(Arrivals, RampFromZeroFollowsTheIntegral) {
  // 0 -> 100/s over 10 s: integral(t) = 5 t^2, so arrival k is at sqrt(k / 5) s; 500 in all.
  const Profile p = Profile::staged({{10 * kNsPerS, 100}});
  const std::vector<int64_t> times = all_arrivals(ArrivalSchedule(p));
  ASSERT_EQ(times.size(), 500u);
  for (size_t k = 0; k < times.size(); ++k) {
    const double expected_ns = std::sqrt(static_cast<double>(k) / 5) * 1e9;
    ASSERT_NEAR(static_cast<double>(times[k]), expected_ns, 1.0) << "arrival " << k;
    ASSERT_NEAR(static_cast<double>(p.integral_until(times[k])), static_cast<double>(k), 1e-6);
  }
  EXPECT_EQ(times[0], 0);
  EXPECT_EQ(times[5], kNsPerS);
  EXPECT_EQ(times[125], 5 * kNsPerS);
}

TEST(Arrivals, StagesWithARampDownToZeroEnd) {
  // Up 0 -> 100/s in 10 s (500), down to 0 in 10 s (500): exactly 1000 arrivals, the last
  // before the end, none at the end where the integral only touches 1000.
  const Profile p = Profile::staged(parse_stages("10s:100,10s:0"));
  const std::vector<int64_t> times = all_arrivals(ArrivalSchedule(p));
  ASSERT_EQ(times.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(times.begin(), times.end()));
  EXPECT_LT(times.back(), 20 * kNsPerS);
  // Down the ramp, 1000 - k arrivals remain at time t with 5 (20 - t)^2 = 1000 - k.
  for (size_t k = 500; k < 1000; ++k) {
    const double expected_s = 20 - std::sqrt((1000.0 - static_cast<double>(k)) / 5);
    ASSERT_NEAR(static_cast<double>(times[k]), expected_s * 1e9, 1.0) << "arrival " << k;
  }

  // A pause at rate 0 holds the next arrival until the rate resumes.
  const Profile paused = Profile::staged(parse_stages("0s:10,1s:10,0s:0,5s:0,0s:10,1s:10"));
  const std::vector<int64_t> paused_times = all_arrivals(ArrivalSchedule(paused));
  ASSERT_EQ(paused_times.size(), 20u);
  EXPECT_EQ(paused_times[9], 900 * kNsPerMs);
  EXPECT_EQ(paused_times[10], 6 * kNsPerS);
  EXPECT_EQ(paused_times[19], 6900 * kNsPerMs);

  // A profile that is 0 throughout has no arrivals at all.
  EXPECT_TRUE(all_arrivals(ArrivalSchedule(Profile::constant(0, 10 * kNsPerS))).empty());
}

TEST(Arrivals, ShardsTogetherEqualTheUnshardedScheduleExactly) {
  const Profile p = Profile::staged(parse_stages("3s:700,4s:1300,0s:50,2s:50,3s:0"), 20);
  const std::vector<int64_t> whole = all_arrivals(ArrivalSchedule(p));
  ASSERT_GT(whole.size(), 5000u);
  for (int shards : {1, 2, 3, 7}) {
    std::vector<int64_t> merged(whole.size(), -1);
    size_t total = 0;
    for (int shard = 0; shard < shards; ++shard) {
      ArrivalSchedule s(p, shard, shards);
      while (auto t = s.peek()) {
        const auto k = static_cast<size_t>(s.next_index());
        ASSERT_EQ(k % static_cast<size_t>(shards), static_cast<size_t>(shard));
        ASSERT_LT(k, merged.size());
        merged[k] = *t;
        ++total;
        s.advance();
      }
    }
    EXPECT_EQ(total, whole.size()) << shards << " shards";
    EXPECT_EQ(merged, whole) << shards << " shards";
  }
}

TEST(Arrivals, MaxCountCapsAllShardsTogether) {
  const Profile p = Profile::constant(1000, 10 * kNsPerS);
  for (int shards : {1, 3, 4}) {
    std::vector<int64_t> times;
    for (int shard = 0; shard < shards; ++shard) {
      const std::vector<int64_t> mine = all_arrivals(ArrivalSchedule(p, shard, shards, 1000));
      EXPECT_EQ(static_cast<int64_t>(mine.size()), share_of(1000, shard, shards));
      times.insert(times.end(), mine.begin(), mine.end());
    }
    std::sort(times.begin(), times.end());
    ASSERT_EQ(times.size(), 1000u) << shards << " shards";
    EXPECT_EQ(times.back(), 999 * kNsPerMs);  // the first 1000 of the schedule
  }
  // A cap above what the profile holds changes nothing.
  EXPECT_EQ(all_arrivals(ArrivalSchedule(p, 0, 1, 1'000'000)).size(), 10'000u);
}

TEST(Arrivals, TotalArrivalsUntilAgreesWithTheTimesHandedOut) {
  const Profile p = Profile::staged(parse_stages("10s:100,5s:100,10s:0"), 0);
  const std::vector<int64_t> times = all_arrivals(ArrivalSchedule(p));
  const ArrivalSchedule schedule(p);
  for (int64_t t : {int64_t{0}, int64_t{1}, kNsPerS, kNsPerS + 1, 7 * kNsPerS + 123, times[321],
                    times[321] + 1, 12 * kNsPerS, 24'999'999'999, 25 * kNsPerS, 100 * kNsPerS}) {
    const auto expected = std::lower_bound(times.begin(), times.end(), t) - times.begin();
    EXPECT_EQ(schedule.total_arrivals_until(t), expected) << "t = " << t;
  }
  EXPECT_EQ(schedule.total_arrivals_until(100 * kNsPerS), 1500);
  const ArrivalSchedule capped(p, 1, 3, 100);
  EXPECT_EQ(capped.total_arrivals_until(100 * kNsPerS), 100);
  // Constant rate: exactly t / period, with arrival k at k periods.
  const ArrivalSchedule constant(Profile::constant(1000, 10 * kNsPerS));
  EXPECT_EQ(constant.total_arrivals_until(kNsPerMs), 1);
  EXPECT_EQ(constant.total_arrivals_until(kNsPerMs + 1), 2);
}

TEST(Arrivals, RejectsBadShards) {
  const Profile p = Profile::constant(10, kNsPerS);
  EXPECT_THROW(ArrivalSchedule(p, 2, 2), std::invalid_argument);
  EXPECT_THROW(ArrivalSchedule(p, -1, 2), std::invalid_argument);
  EXPECT_THROW(ArrivalSchedule(p, 0, 0), std::invalid_argument);
  EXPECT_THROW(ArrivalSchedule(p, 0, 1, -1), std::invalid_argument);
}

TEST(ClosedLoop, ConnectionsForShardsOverARamp) {
  // 0 -> 10 connections over 10 s, then hold 10 for 5 s, dealt round-robin to 3 shards.
  const Profile p = Profile::staged(parse_stages("10s:10,5s:10"));
  for (int64_t t = 0; t < 15 * kNsPerS; t += 250 * kNsPerMs) {
    const int n = static_cast<int>(std::floor(p.target_at(t) + 1e-12));
    int sum = 0;
    for (int shard = 0; shard < 3; ++shard) {
      const int mine = connections_for_shard_at(p, t, shard, 3);
      int expected = 0;  // connections i < n with i % 3 == shard
      for (int i = shard; i < n; i += 3) ++expected;
      EXPECT_EQ(mine, expected) << "t = " << t << " shard " << shard;
      sum += mine;
    }
    EXPECT_EQ(sum, n) << "t = " << t;
  }
  EXPECT_EQ(connections_for_shard_at(p, 3 * kNsPerS, 0, 1), 3);  // exactly 3 at t = 3 s
  EXPECT_EQ(connections_for_shard_at(p, 3 * kNsPerS - 1, 0, 1), 2);
  EXPECT_EQ(connections_for_shard_at(p, 12 * kNsPerS, 0, 3), 4);
  EXPECT_EQ(connections_for_shard_at(p, 12 * kNsPerS, 1, 3), 3);
  EXPECT_EQ(connections_for_shard_at(p, 15 * kNsPerS, 0, 3), 0);  // past the end
}

TEST(ShareOf, SharesSumToTheTotal) {
  for (int64_t total : {0, 1, 2, 7, 100, 1001, 999'999'999}) {
    for (int shards : {1, 2, 3, 8, 13}) {
      int64_t sum = 0;
      for (int shard = 0; shard < shards; ++shard) {
        const int64_t share = share_of(total, shard, shards);
        EXPECT_GE(share, total / shards);
        EXPECT_LE(share, total / shards + 1);
        sum += share;
      }
      EXPECT_EQ(sum, total) << total << " over " << shards;
    }
  }
  EXPECT_EQ(share_of(10, 0, 3), 4);
  EXPECT_EQ(share_of(10, 1, 3), 3);
  EXPECT_EQ(share_of(10, 2, 3), 3);
}

}  // namespace
}  // namespace proofload::schedule

namespace proofload::schedule {
namespace {

TEST(Arrivals, SkippingThroughATimeCountsExactlyTheArrivalsDueByThen) {
  // 1,000/s over 10 s in 3 shards; the split (a warm-up) at 2 s.
  const Profile p = Profile::constant(1000, 10 * kNsPerS);
  for (int shard = 0; shard < 3; ++shard) {
    ArrivalSchedule skipping(p, shard, 3);
    ArrivalSchedule walking(p, shard, 3);
    int64_t before_split = 0;
    const int64_t skipped = skipping.skip_through(5 * kNsPerS, 2 * kNsPerS, before_split);
    int64_t walked = 0;
    int64_t walked_before_split = 0;
    while (walking.peek() && *walking.peek() <= 5 * kNsPerS) {
      if (*walking.peek() < 2 * kNsPerS) ++walked_before_split;
      walking.advance();
      ++walked;
    }
    EXPECT_EQ(skipped, walked) << shard;
    EXPECT_EQ(before_split, walked_before_split) << shard;
    EXPECT_EQ(skipping.peek(), walking.peek()) << shard;  // both go on from the same arrival
  }
  ArrivalSchedule capped(p, 0, 1, 250);  // -n 250: only those are due
  int64_t before = 0;
  EXPECT_EQ(capped.skip_through(9 * kNsPerS, 0, before), 250);
  EXPECT_FALSE(capped.peek());
  EXPECT_EQ(capped.skip_through(9 * kNsPerS, 0, before), 0);
}

}  // namespace
}  // namespace proofload::schedule
