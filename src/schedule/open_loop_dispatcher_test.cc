// Step-by-step tests of OpenLoopDispatcher's decisions and counts, with the invariants checked
// after every call (the simulation test drives it as a whole engine would).
#include "schedule/open_loop_dispatcher.h"

#include <gtest/gtest.h>

#include "common/clock.h"
#include "common/usage_error.h"

namespace proofload::schedule {
namespace {

using Action = OpenLoopDispatcher::Action;

// A dispatcher with `pool` connections opened and connected.
OpenLoopDispatcher connected(OpenLoopDispatcher::Limits limits) {
  OpenLoopDispatcher d(limits);
  for (int i = 0; i < limits.pool; ++i) d.on_connection_opening();
  for (int i = 0; i < limits.pool; ++i) EXPECT_EQ(d.on_connection_ready(0), std::nullopt);
  EXPECT_TRUE(d.invariants_hold());
  return d;
}

TEST(OpenLoopDispatcher, IdleConnectionsTakeArrivalsThenTheQueueFills) {
  OpenLoopDispatcher d =
      connected({.pool = 2, .max_connections = 2, .queue_capacity = 2, .max_wait_ns = kNsPerS});
  EXPECT_EQ(d.idle(), 2);
  EXPECT_EQ(d.on_arrival(1), Action::kSendNow);
  EXPECT_EQ(d.on_arrival(2), Action::kSendNow);
  EXPECT_EQ(d.idle(), 0);
  EXPECT_EQ(d.on_arrival(3), Action::kQueued);
  EXPECT_EQ(d.on_arrival(4), Action::kQueued);
  EXPECT_EQ(d.on_arrival(5), Action::kNeverStarted);
  EXPECT_TRUE(d.invariants_hold());
  EXPECT_EQ(d.intended(), 5);
  EXPECT_EQ(d.started(), 2);
  EXPECT_EQ(d.queued(), 2u);
  EXPECT_EQ(d.never_started(), 1);
  // A finished request hands its connection the oldest queued one, FIFO.
  EXPECT_EQ(d.on_connection_ready(10), 3);
  EXPECT_EQ(d.on_connection_ready(11), 4);
  EXPECT_EQ(d.on_connection_ready(12), std::nullopt);
  EXPECT_EQ(d.idle(), 1);
  EXPECT_EQ(d.started(), 4);
  EXPECT_TRUE(d.invariants_hold());
}

TEST(OpenLoopDispatcher, GrowsOnlyWhenNoConnectionIsIdleAndStopsAtTheMaximum) {
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 3, .queue_capacity = 10, .max_wait_ns = kNsPerS});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);  // idle available: no growth
  EXPECT_EQ(d.on_arrival(1), Action::kQueuedOpenNew);
  EXPECT_EQ(d.pending_growth(), 1);
  d.on_connection_opening();
  EXPECT_EQ(d.pending_growth(), 0);
  EXPECT_EQ(d.open_or_opening(), 2);
  // Even before the engine reports opening, the reserved room counts: no third request beyond
  // the maximum.
  EXPECT_EQ(d.on_arrival(2), Action::kQueuedOpenNew);
  EXPECT_EQ(d.on_arrival(3), Action::kQueued);
  EXPECT_TRUE(d.invariants_hold());
  d.on_connection_opening();
  EXPECT_EQ(d.open_or_opening(), 3);
  EXPECT_TRUE(d.invariants_hold());
  // The new connections take the queued arrivals in order.
  EXPECT_EQ(d.on_connection_ready(5), 1);
  EXPECT_EQ(d.on_connection_ready(6), 2);
  EXPECT_EQ(d.on_connection_ready(7), 3);
  EXPECT_EQ(d.on_connection_ready(8), std::nullopt);
  EXPECT_EQ(d.idle(), 1);
  EXPECT_TRUE(d.invariants_hold());
}

TEST(OpenLoopDispatcher, GrowthWaitsForItsConnectionEvenWithNoQueue) {
  // queue_capacity 0: no waiting beyond max_connections, but an arrival that opens a
  // connection is taken by it.
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 2, .queue_capacity = 0, .max_wait_ns = kNsPerS});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(d.on_arrival(1), Action::kQueuedOpenNew);
  d.on_connection_opening();
  EXPECT_EQ(d.on_arrival(2), Action::kNeverStarted);
  EXPECT_EQ(d.on_connection_ready(3), 1);
  EXPECT_TRUE(d.invariants_hold());
  EXPECT_EQ(d.started(), 2);
  EXPECT_EQ(d.never_started(), 1);
}

TEST(OpenLoopDispatcher, ExpiredWaitsAreNeverStarted) {
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 1, .queue_capacity = 10, .max_wait_ns = 100});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(d.on_arrival(10), Action::kQueued);
  EXPECT_EQ(d.on_arrival(50), Action::kQueued);
  EXPECT_EQ(d.on_arrival(90), Action::kQueued);
  // At 110 the first waited exactly 100: still allowed. At 151 the second waited 101.
  d.expire(110);
  EXPECT_EQ(d.queued(), 3u);
  EXPECT_EQ(d.on_connection_ready(151), 90);
  EXPECT_EQ(d.never_started(), 2);
  EXPECT_TRUE(d.invariants_hold());
  // A periodic sweep drops what no connection came for.
  EXPECT_EQ(d.on_arrival(200), Action::kQueued);
  d.expire(301);
  EXPECT_EQ(d.queued(), 0u);
  EXPECT_EQ(d.never_started(), 3);
  // An arrival also sweeps: a full queue of stale requests does not turn away a fresh one.
  OpenLoopDispatcher e =
      connected({.pool = 1, .max_connections = 1, .queue_capacity = 1, .max_wait_ns = 100});
  EXPECT_EQ(e.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(e.on_arrival(1), Action::kQueued);
  EXPECT_EQ(e.on_arrival(500), Action::kQueued);
  EXPECT_EQ(e.never_started(), 1);
  EXPECT_TRUE(e.invariants_hold());
}

TEST(OpenLoopDispatcher, LostConnectionsKeepTheCountsRight) {
  OpenLoopDispatcher d =
      connected({.pool = 3, .max_connections = 3, .queue_capacity = 5, .max_wait_ns = kNsPerS});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);  // busy 1, idle 2
  d.on_connection_lost(/*was_idle=*/true);       // an idle one closed by the peer
  EXPECT_EQ(d.idle(), 1);
  EXPECT_EQ(d.open_or_opening(), 2);
  EXPECT_TRUE(d.should_open_connection());  // below the pool: reopen
  d.on_connection_opening();
  d.on_connection_lost(/*was_idle=*/false);  // the reopen failed to connect
  EXPECT_EQ(d.idle(), 1);
  EXPECT_EQ(d.open_or_opening(), 2);
  d.on_connection_lost(/*was_idle=*/false);  // the busy one was reset mid-request
  EXPECT_EQ(d.open_or_opening(), 1);
  EXPECT_TRUE(d.invariants_hold());
  EXPECT_EQ(d.on_arrival(1), Action::kSendNow);
  // No idle connection left, room below max: this arrival asks for a connection.
  EXPECT_EQ(d.on_arrival(2), Action::kQueuedOpenNew);
  EXPECT_TRUE(d.invariants_hold());
  d.on_connection_lost(/*was_idle=*/false);
  EXPECT_EQ(d.open_or_opening(), 0);
  d.on_connection_opening();  // the pending one
  EXPECT_TRUE(d.should_open_connection());
  d.on_connection_opening();
  d.on_connection_opening();
  EXPECT_FALSE(d.should_open_connection());
  EXPECT_EQ(d.on_connection_ready(3), 2);
  EXPECT_EQ(d.started(), 3);
  EXPECT_TRUE(d.invariants_hold());
}

TEST(OpenLoopDispatcher, ShouldOpenWhenWorkWaitsAndThereIsRoom) {
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 2, .queue_capacity = 5, .max_wait_ns = kNsPerS});
  EXPECT_FALSE(d.should_open_connection());  // pool full, nothing waiting
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(d.on_arrival(1), Action::kQueuedOpenNew);
  d.on_connection_opening();
  d.on_connection_lost(/*was_idle=*/false);  // the new one failed to connect
  EXPECT_TRUE(d.should_open_connection());   // work waits for it: reopen
  d.on_connection_opening();
  EXPECT_FALSE(d.should_open_connection());
}

TEST(OpenLoopDispatcher, AbandonQueueAtTheEnd) {
  OpenLoopDispatcher d =
      connected({.pool = 0, .max_connections = 1, .queue_capacity = 3, .max_wait_ns = kNsPerS});
  EXPECT_EQ(d.on_arrival(0), Action::kQueuedOpenNew);  // pool 0: everything on demand
  EXPECT_EQ(d.on_arrival(1), Action::kQueued);
  EXPECT_EQ(d.on_arrival(2), Action::kQueued);
  d.abandon_queue();
  EXPECT_EQ(d.queued(), 0u);
  EXPECT_EQ(d.never_started(), 3);
  EXPECT_EQ(d.intended(), d.started() + d.never_started());
  EXPECT_TRUE(d.invariants_hold());
}

TEST(OpenLoopDispatcher, RingBufferWrapsAround) {
  OpenLoopDispatcher d = connected(
      {.pool = 1, .max_connections = 1, .queue_capacity = 3, .max_wait_ns = INT64_MAX / 2});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  int64_t next_in = 1;
  int64_t next_out = 1;
  for (int round = 0; round < 10; ++round) {
    while (d.queued() < 3) ASSERT_EQ(d.on_arrival(next_in++), Action::kQueued);
    ASSERT_EQ(d.on_arrival(next_in++), Action::kNeverStarted);
    for (int i = 0; i < 2; ++i) {
      auto sent = d.on_connection_ready(next_in);
      ASSERT_TRUE(sent);
      ASSERT_GE(*sent, next_out);  // FIFO, skipping only the never-started ones
      next_out = *sent + 1;
    }
    ASSERT_TRUE(d.invariants_hold());
  }
}

TEST(OpenLoopDispatcher, RejectsBadLimits) {
  using L = OpenLoopDispatcher::Limits;
  EXPECT_THROW(OpenLoopDispatcher(L{-1, 1, 1, 0}), UsageError);
  EXPECT_THROW(OpenLoopDispatcher(L{10, 5, 1, 0}), UsageError);
  EXPECT_THROW(OpenLoopDispatcher(L{0, 0, 1, 0}), UsageError);
  EXPECT_THROW(OpenLoopDispatcher(L{1, 1, OpenLoopDispatcher::kMaxQueueCapacity + 1, 0}),
               UsageError);
  EXPECT_THROW(OpenLoopDispatcher(L{1, 1, 1, -1}), UsageError);
}


TEST(OpenLoopDispatcher, AFailedConnectFailsTheOldestQueuedRequest) {
  OpenLoopDispatcher d({.pool = 1, .max_connections = 1, .queue_capacity = 4,
                        .max_wait_ns = kNsPerS});
  d.on_connection_opening();
  EXPECT_EQ(d.on_arrival(1), Action::kQueued);
  EXPECT_EQ(d.on_arrival(2), Action::kQueued);
  d.on_connection_lost(false);  // the pool's connect failed
  EXPECT_EQ(d.fail_oldest_queued(), 1);
  EXPECT_EQ(d.queued(), 1u);
  EXPECT_EQ(d.started(), 1);
  EXPECT_TRUE(d.invariants_hold());
  EXPECT_EQ(d.fail_oldest_queued(), 2);
  EXPECT_EQ(d.fail_oldest_queued(), std::nullopt);
  EXPECT_EQ(d.intended(), d.started() + d.never_started() + static_cast<int64_t>(d.queued()));
}


TEST(OpenLoopDispatcher, NeverStartedIsSplitByIntendedTime) {
  OpenLoopDispatcher d({.pool = 1, .max_connections = 1, .queue_capacity = 1,
                        .max_wait_ns = 100});
  d.set_split(1000);
  d.on_connection_opening();
  EXPECT_EQ(d.on_connection_ready(0), std::nullopt);
  EXPECT_EQ(d.on_arrival(900), Action::kSendNow);
  EXPECT_EQ(d.on_arrival(950), Action::kQueued);
  EXPECT_EQ(d.on_arrival(960), Action::kNeverStarted);  // before the split: queue full
  // Expired at 1,100, but intended at 950: before the split.
  EXPECT_EQ(d.on_arrival(1100), Action::kQueued);
  EXPECT_EQ(d.never_started(), 2);
  EXPECT_EQ(d.never_started_before_split(), 2);
  d.abandon_queue();  // the request intended at 1,100 is after the split
  EXPECT_EQ(d.never_started(), 3);
  EXPECT_EQ(d.never_started_before_split(), 2);
}

}  // namespace
}  // namespace proofload::schedule

namespace proofload::schedule {
namespace {

TEST(OpenLoopDispatcher, SaturatedUntilTheOldestQueuedRequestExpiresThenArrivalsCountInBulk) {
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 1, .queue_capacity = 2, .max_wait_ns = 100});
  EXPECT_EQ(d.saturated_until(0), std::nullopt);  // an idle connection takes the next one
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(d.saturated_until(5), std::nullopt);  // the queue has room
  EXPECT_EQ(d.on_arrival(5), Action::kQueued);
  EXPECT_EQ(d.on_arrival(7), Action::kQueued);
  // Full, no idle connection, no growth: until the head (5) is 100 ns old.
  EXPECT_EQ(d.saturated_until(8), 105);
  // One by one, every arrival up to 105 would be never started; in bulk, the same counts.
  d.never_start(1000, 400);
  EXPECT_EQ(d.intended(), 1003);
  EXPECT_EQ(d.never_started(), 1000);
  EXPECT_TRUE(d.invariants_hold());
  EXPECT_EQ(d.saturated_until(106), std::nullopt);  // the head expired: a place is free
  EXPECT_EQ(d.never_started(), 1001);
}

TEST(OpenLoopDispatcher, WithNoQueueAtAllItStaysSaturatedUntilAConnectionIsReady) {
  OpenLoopDispatcher d =
      connected({.pool = 1, .max_connections = 1, .queue_capacity = 0, .max_wait_ns = 100});
  EXPECT_EQ(d.on_arrival(0), Action::kSendNow);
  EXPECT_EQ(d.saturated_until(1), INT64_MAX);
  EXPECT_EQ(d.on_connection_ready(50), std::nullopt);
  EXPECT_EQ(d.saturated_until(51), std::nullopt);
}

}  // namespace
}  // namespace proofload::schedule
