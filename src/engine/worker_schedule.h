// One worker's share of the run's schedule: when its requests arrive (open loop) or how many of
// its users are active (closed loop), how many it may still start (-n), and when its part of the
// schedule ends. It decides; the Worker's slots carry out what it decides, through the narrow
// WorkerSchedule::Slots interface (start on an idle slot, open a closed slot, set the active
// users), so the connection lifecycle never reads the schedule and the schedule never touches a
// connection.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/load_spec.h"
#include "engine/window_recorder.h"
#include "schedule/arrivals.h"
#include "schedule/open_loop_dispatcher.h"

namespace proofload::engine {

class WorkerSchedule {
 public:
  // What the schedule asks of the slots (the Worker). A call per arrival handed to a slot, not
  // per byte.
  class Slots {
   public:
    // Open loop: the request intended at `intended_ns` starts on an idle slot (the dispatcher
    // said one is idle).
    virtual void start_on_idle_slot(int64_t intended_ns, int64_t now) = 0;
    // Open loop: a closed slot opens (the dispatcher counts one closed for every connection it
    // may still ask for, so there is one).
    virtual void open_closed_slot(int64_t now) = 0;
    // Closed loop: slots [0, users) are the active users, the others are not.
    virtual void set_active_users(int users, int64_t now) = 0;

   protected:
    ~Slots() = default;
  };

  // Where the schedule is after a turn.
  enum class Progress : uint8_t {
    kRunning,
    kEnded,       // the schedule ran out at its planned end (the span runs to that end)
    kEndedEarly,  // -n used it up before its planned end (the span ends now)
  };

  // Shard `shard` of `shards` of the spec's load, starting at `start_ns`; its slots come in
  // links of `slots_per_link` (every count of connections in the spec is of links).
  WorkerSchedule(const LoadSpec& spec, int shard, int shards, int slots_per_link, int64_t start_ns,
                 WindowRecorder& recorder);

  bool open_loop() const { return dispatcher_.has_value(); }
  // The slots this worker needs: the open loop's largest pool, or the closed loop's users.
  int slots() const { return slots_; }
  // Open loop: the slots opened before the start, so the first arrivals find connections.
  int initial_pool() const { return initial_pool_; }
  // Open loop: the pool of connections and the queue of requests waiting for one. The slots'
  // lifecycle tells it when a connection opens, is ready or is lost.
  schedule::OpenLoopDispatcher& pool() { return *dispatcher_; }
  // Open loop: requests waiting for a connection (0 in closed loop).
  int64_t queued() const { return open_loop() ? static_cast<int64_t>(dispatcher_->queued()) : 0; }
  // Open loop: when the next arrival is due (absolute), if one is still to come.
  std::optional<int64_t> next_arrival_ns() const;

  // Closed loop with -n: false once this worker's share of the measured requests has started.
  bool budget_left() const { return request_budget_ != 0; }
  // Closed loop: a user's request intended at `intended_ns` starts (or fails unsent): it takes
  // one from the budget unless it belongs to the warm-up (-n N measures N requests).
  void take_from_budget(int64_t intended_ns) {
    if (request_budget_ > 0 && intended_ns >= start_ns_ + warmup_ns_) --request_budget_;
  }

  // A turn of the loop at `now`, before the drain: hands out the arrivals that are due (open
  // loop) or releases the users at the start (closed loop), and says whether the schedule ended.
  Progress run(int64_t now, Slots& slots);
  // Closed loop: the users the profile wants active at `now`, set on the slots.
  void adjust_users(int64_t now, Slots& slots);
  // Open loop: drops queued requests past their timeout (each never started).
  void expire(int64_t now);
  // Open loop, at the drain's end: every request still queued never started.
  void abandon_queue();
  // The open loop's requests that never started, handed to the recorder as the dispatcher
  // tallies them.
  void sync_never_started();

 private:
  void dispatch_arrivals(int64_t now, Slots& slots);

  const LoadSpec& spec_;
  const int64_t start_ns_;
  const int64_t warmup_ns_;
  const int shard_;
  const int shards_;
  const int slots_per_link_;
  WindowRecorder& recorder_;
  int slots_ = 0;
  int initial_pool_ = 0;
  std::optional<schedule::ArrivalSchedule> arrivals_;
  std::optional<schedule::OpenLoopDispatcher> dispatcher_;
  // Closed loop with -n: measured requests this worker may still start (-1: no limit).
  int64_t request_budget_ = -1;
  int64_t arrival_cap_ = 0;  // open loop with -n: arrivals of the whole schedule, warm-up's too
  bool started_ = false;     // closed loop: users were released at the start time

  static constexpr int kMaxArrivalsPerTurn = 4096;
};

}  // namespace proofload::engine
