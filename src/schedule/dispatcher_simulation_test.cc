// Discrete-event simulation of the open-loop dispatcher alone: ArrivalSchedule and
// OpenLoopDispatcher driven by a minimal engine against a simulated server with a fixed service
// time. Checks the dispatcher's bookkeeping against the simulated sockets after every event, and
// the outcomes against queueing arithmetic. The real engine Worker runs the same scenarios in
// src/engine/worker_simulation_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "common/clock.h"
#include "schedule/arrivals.h"
#include "schedule/open_loop_dispatcher.h"
#include "schedule/rate_profile.h"

namespace proofload::schedule {
namespace {

using Action = OpenLoopDispatcher::Action;

struct SimConfig {
  double rate_per_s = 1000;
  int64_t duration_ns = 10 * kNsPerS;
  int64_t service_ns = 5 * kNsPerMs;    // the server answers every request in exactly this
  int64_t connect_ns = 100 * kNsPerUs;  // time for a connection to be established
  OpenLoopDispatcher::Limits limits{10, 10, 100, kNsPerS};
  int64_t sweep_every_ns = 10 * kNsPerMs;  // the engine's periodic expire()
  int close_after_every_nth_response = 0;  // fault: the server closes the connection (0 = never)
  int fail_every_nth_connect = 0;          // fault: the connect fails (0 = never)
};

struct SimResult {
  int64_t intended = 0;
  int64_t started = 0;
  int64_t never_started = 0;
  int64_t turned_away_full = 0;  // kNeverStarted from on_arrival (the rest expired/abandoned)
  int64_t growth_requests = 0;   // kQueuedOpenNew
  int64_t max_wait_ns = 0;       // start minus intended time, over started requests
  int max_open = 0;              // most connections open or opening at once
  int open_at_end = 0;
  int64_t schedule_arrivals = 0;  // what the ArrivalSchedule says the run holds
};

class Simulation {
 public:
  explicit Simulation(SimConfig config) : config_(config), dispatcher_(config.limits) {}

  SimResult run() {
    ArrivalSchedule schedule(Profile::constant(config_.rate_per_s, config_.duration_ns));
    // The pool opens before the schedule starts, as an engine would.
    const int64_t start_ns = kNsPerMs;
    const int64_t end_ns = start_ns + config_.duration_ns;
    for (int i = 0; i < config_.limits.pool; ++i) open_connection(0);
    push(start_ns, Kind::kSweep, -1);
    while (true) {
      const auto arrival = schedule.peek();
      const bool have_event = !events_.empty() && events_.top().t_ns < end_ns;
      if (!arrival && !have_event) break;
      // On a tie a connection that frees up serves the arrival due at the same instant.
      if (have_event && (!arrival || events_.top().t_ns <= start_ns + *arrival)) {
        const Event e = events_.top();
        events_.pop();
        handle(e, end_ns);
      } else {
        on_arrival(start_ns + *arrival);
        schedule.advance();
      }
      check_bookkeeping();
      if (::testing::Test::HasFatalFailure()) return result_;
    }
    dispatcher_.abandon_queue();
    check_bookkeeping();
    result_.schedule_arrivals = schedule.total_arrivals_until(config_.duration_ns);
    result_.intended = dispatcher_.intended();
    result_.started = dispatcher_.started();
    result_.never_started = dispatcher_.never_started();
    result_.open_at_end = dispatcher_.open_or_opening();
    return result_;
  }

 private:
  enum class Kind { kConnectDone, kResponseDone, kSweep };
  enum class State { kOpening, kIdle, kBusy, kClosed };
  struct Event {
    int64_t t_ns;
    int64_t seq;  // ties in insertion order: deterministic
    Kind kind;
    int connection;
    bool operator>(const Event& o) const { return t_ns != o.t_ns ? t_ns > o.t_ns : seq > o.seq; }
  };

  void push(int64_t t_ns, Kind kind, int connection) {
    events_.push({t_ns, next_seq_++, kind, connection});
  }

  void open_connection(int64_t now_ns) {
    states_.push_back(State::kOpening);
    dispatcher_.on_connection_opening();
    push(now_ns + config_.connect_ns, Kind::kConnectDone, static_cast<int>(states_.size()) - 1);
  }

  void start_request(int connection, int64_t now_ns, int64_t intended_ns) {
    ASSERT_GE(now_ns, intended_ns);
    result_.max_wait_ns = std::max(result_.max_wait_ns, now_ns - intended_ns);
    states_[connection] = State::kBusy;
    push(now_ns + config_.service_ns, Kind::kResponseDone, connection);
  }

  void connection_ready(int connection, int64_t now_ns) {
    if (auto intended = dispatcher_.on_connection_ready(now_ns)) {
      start_request(connection, now_ns, *intended);
    } else {
      states_[connection] = State::kIdle;
      idle_.push_back(connection);
    }
  }

  void lose(int connection, int64_t now_ns) {
    const bool was_idle = states_[connection] == State::kIdle;
    ASSERT_FALSE(was_idle);  // the simulated server only closes after a response
    states_[connection] = State::kClosed;
    dispatcher_.on_connection_lost(was_idle);
    if (dispatcher_.should_open_connection()) open_connection(now_ns);
  }

  void handle(const Event& e, int64_t end_ns) {
    switch (e.kind) {
      case Kind::kConnectDone:
        ++connects_;
        if (config_.fail_every_nth_connect > 0 && connects_ % config_.fail_every_nth_connect == 0) {
          lose(e.connection, e.t_ns);
        } else {
          connection_ready(e.connection, e.t_ns);
        }
        break;
      case Kind::kResponseDone:
        ++responses_;
        if (config_.close_after_every_nth_response > 0 &&
            responses_ % config_.close_after_every_nth_response == 0) {
          lose(e.connection, e.t_ns);
        } else {
          connection_ready(e.connection, e.t_ns);
        }
        break;
      case Kind::kSweep:
        dispatcher_.expire(e.t_ns);
        if (e.t_ns + config_.sweep_every_ns < end_ns) {
          push(e.t_ns + config_.sweep_every_ns, Kind::kSweep, -1);
        }
        break;
    }
  }

  void on_arrival(int64_t now_ns) {
    switch (dispatcher_.on_arrival(now_ns)) {
      case Action::kSendNow: {
        ASSERT_FALSE(idle_.empty()) << "kSendNow with no idle connection";
        const int connection = idle_.back();
        idle_.pop_back();
        start_request(connection, now_ns, now_ns);
        break;
      }
      case Action::kQueuedOpenNew:
        ++result_.growth_requests;
        open_connection(now_ns);
        break;
      case Action::kQueued:
        break;
      case Action::kNeverStarted:
        ++result_.turned_away_full;
        break;
    }
  }

  // The dispatcher's counts must match the simulated sockets after every event.
  void check_bookkeeping() {
    ASSERT_TRUE(dispatcher_.invariants_hold());
    ASSERT_EQ(dispatcher_.idle(), static_cast<int>(idle_.size()));
    const auto open =
        std::count_if(states_.begin(), states_.end(), [](State s) { return s != State::kClosed; });
    ASSERT_EQ(dispatcher_.open_or_opening(), open);
    ASSERT_EQ(dispatcher_.intended(), dispatcher_.started() + dispatcher_.never_started() +
                                          static_cast<int64_t>(dispatcher_.queued()));
    result_.max_open = std::max(result_.max_open, dispatcher_.open_or_opening());
  }

  SimConfig config_;
  OpenLoopDispatcher dispatcher_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  int64_t next_seq_ = 0;
  std::vector<State> states_;
  std::vector<int> idle_;
  int64_t connects_ = 0;
  int64_t responses_ = 0;
  SimResult result_;
};

// Deterministic arrivals at `rate`, c connections each serving 1 / service_s per second: the
// server carries at most c / service_s; the rest of the offered load is never started.
double analytic_never_started_share(double rate_per_s, int connections, int64_t service_ns) {
  const double capacity_per_s = connections / (static_cast<double>(service_ns) / kNsPerS);
  return std::max(0.0, 1 - capacity_per_s / rate_per_s);
}

double never_started_share(const SimResult& r) {
  return static_cast<double>(r.never_started) / static_cast<double>(r.intended);
}

void expect_accounting(const SimResult& r) {
  EXPECT_EQ(r.intended, r.schedule_arrivals);
  EXPECT_EQ(r.intended, r.started + r.never_started);
}

TEST(DispatcherSimulation, UnderCapacityEverythingStartsOnTime) {
  // 1000/s, 10 connections, 5 ms: the server could carry 2000/s.
  const SimResult r = Simulation({}).run();
  expect_accounting(r);
  EXPECT_EQ(r.intended, 10'000);
  EXPECT_EQ(r.started, 10'000);
  EXPECT_EQ(r.never_started, 0);
  EXPECT_EQ(r.max_wait_ns, 0);
  EXPECT_EQ(r.max_open, 10);
}

TEST(DispatcherSimulation, OverCapacityNeverStartedShareMatchesTheArithmetic) {
  // 20 ms service: 10 connections carry 500/s of the 1000/s offered.
  SimConfig config;
  config.service_ns = 20 * kNsPerMs;
  config.limits = {
      .pool = 10, .max_connections = 10, .queue_capacity = 100, .max_wait_ns = 10 * kNsPerS};
  const SimResult r = Simulation(config).run();
  expect_accounting(r);
  const double expected = analytic_never_started_share(1000, 10, config.service_ns);
  EXPECT_DOUBLE_EQ(expected, 0.5);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
  // A full queue of 100 drains at 500/s: queued requests wait about 200 ms, and that wait is
  // part of their latency.
  EXPECT_GE(r.max_wait_ns, 190 * kNsPerMs);
  EXPECT_LE(r.max_wait_ns, 220 * kNsPerMs);
  EXPECT_EQ(r.max_open, 10);
}

TEST(DispatcherSimulation, GrowsToMaxConnectionsOnlyWhenNeeded) {
  SimConfig config;
  config.limits = {
      .pool = 10, .max_connections = 50, .queue_capacity = 100, .max_wait_ns = 10 * kNsPerS};
  // 5 ms: the pool suffices, no growth at all.
  SimResult r = Simulation(config).run();
  expect_accounting(r);
  EXPECT_EQ(r.growth_requests, 0);
  EXPECT_EQ(r.max_open, 10);

  // 15 ms: 1000/s needs 15 connections in use; the pool grows to about that and no further
  // (one more: a new connection's cycle lags by its connect time, so once an arrival finds the
  // 15th still busy), and the only wait is for the new connections to connect.
  config.service_ns = 15 * kNsPerMs;
  r = Simulation(config).run();
  expect_accounting(r);
  EXPECT_GE(r.max_open, 15);
  EXPECT_LE(r.max_open, 16);
  EXPECT_EQ(r.never_started, 0);
  EXPECT_LE(r.max_wait_ns, config.connect_ns);

  // 50 ms with at most 30 connections: it grows to 30 and stops; the rest queues, and what
  // 30 connections cannot carry (600/s of 1000/s) is never started.
  config.service_ns = 50 * kNsPerMs;
  config.limits.max_connections = 30;
  r = Simulation(config).run();
  expect_accounting(r);
  EXPECT_EQ(r.max_open, 30);
  EXPECT_EQ(r.growth_requests, 20);
  const double expected = analytic_never_started_share(1000, 30, config.service_ns);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
}

TEST(DispatcherSimulation, ExpiredWaitsAreCountedNeverStarted) {
  // A queue large enough never to fill, but at most 50 ms of waiting.
  SimConfig config;
  config.service_ns = 20 * kNsPerMs;
  config.limits = {
      .pool = 10, .max_connections = 10, .queue_capacity = 1000, .max_wait_ns = 50 * kNsPerMs};
  const SimResult r = Simulation(config).run();
  expect_accounting(r);
  EXPECT_EQ(r.turned_away_full, 0);
  EXPECT_GT(r.never_started, 0);
  EXPECT_LE(r.max_wait_ns, 50 * kNsPerMs);  // nothing starts after waiting beyond the limit
  EXPECT_GE(r.max_wait_ns, 40 * kNsPerMs);
  const double expected = analytic_never_started_share(1000, 10, config.service_ns);
  EXPECT_NEAR(never_started_share(r), expected, 0.02 * expected);
}

TEST(DispatcherSimulation, LostConnectionsAndFailedConnectsKeepTheAccounting) {
  // The server closes every 7th connection after its response, and every 3rd connect fails;
  // the engine reopens as should_open_connection() says.
  SimConfig config;
  config.close_after_every_nth_response = 7;
  config.fail_every_nth_connect = 3;
  config.limits = {
      .pool = 10, .max_connections = 12, .queue_capacity = 100, .max_wait_ns = kNsPerS};
  const SimResult r = Simulation(config).run();
  expect_accounting(r);
  EXPECT_EQ(r.intended, 10'000);
  EXPECT_EQ(r.never_started, 0);  // reconnects are fast enough to keep up
  EXPECT_LE(r.max_open, 12);
  EXPECT_GE(r.open_at_end, 10);  // the pool was restored
}

}  // namespace
}  // namespace proofload::schedule
