// One worker's share of the schedule (see worker_schedule.h).
#include "engine/worker_schedule.h"

#include <algorithm>

namespace proofload::engine {

WorkerSchedule::WorkerSchedule(const LoadSpec& spec, int shard, int shards, int slots_per_link,
                               int64_t start_ns, WindowRecorder& recorder)
    : spec_(spec),
      start_ns_(start_ns),
      warmup_ns_(spec.warmup_ns),
      shard_(shard),
      shards_(shards),
      slots_per_link_(slots_per_link),
      recorder_(recorder) {
  if (spec.executor == Executor::kOpenLoop) {
    initial_pool_ = schedule::share_of(spec.connections, shard, shards) * slots_per_link;
    slots_ = schedule::share_of(spec.max_connections, shard, shards) * slots_per_link;
    auto queue = static_cast<size_t>(schedule::share_of(spec.queue_capacity, shard, shards));
    dispatcher_.emplace(schedule::OpenLoopDispatcher::Limits{initial_pool_, slots_, queue,
                                                             spec.send.request_timeout_ns});
    // -n counts measured arrivals: the warm-up's are sent on top of them.
    arrival_cap_ =
        spec.max_requests > 0
            ? spec.max_requests +
                  schedule::ArrivalSchedule(spec.profile).total_arrivals_until(spec.warmup_ns)
            : 0;
    arrivals_.emplace(spec.profile, shard, shards, arrival_cap_);
    dispatcher_->set_split(start_ns + spec.warmup_ns);
  } else {
    slots_ = schedule::share_of(spec.connections, shard, shards) * slots_per_link;
    if (spec.max_requests > 0) {
      request_budget_ = schedule::share_of(spec.max_requests, shard, shards);
    }
  }
}

std::optional<int64_t> WorkerSchedule::next_arrival_ns() const {
  if (!arrivals_) return std::nullopt;
  if (auto t = arrivals_->peek()) return start_ns_ + *t;
  return std::nullopt;
}

WorkerSchedule::Progress WorkerSchedule::run(int64_t now, Slots& slots) {
  if (now < start_ns_) return Progress::kRunning;
  if (open_loop()) {
    dispatch_arrivals(now, slots);
    if (arrivals_->peek()) return Progress::kRunning;
    // The last arrival is due before the planned end; the span still runs to that end, unless
    // -n used up the schedule early.
    const bool by_count = arrival_cap_ > 0 && arrivals_->next_index() >= arrival_cap_;
    return by_count ? Progress::kEndedEarly : Progress::kEnded;
  }
  if (request_budget_ == 0) return Progress::kEndedEarly;
  if (now - start_ns_ >= spec_.profile.duration_ns()) return Progress::kEnded;
  if (!started_) {
    started_ = true;
    adjust_users(now, slots);
  }
  return Progress::kRunning;
}

// At most kMaxArrivalsPerTurn arrivals are handed out per turn of the loop, so that timers,
// windows and stop signals keep their turn at any rate (the loop does not sleep while arrivals
// are due). Arrivals that could neither be sent nor queued (every connection busy, the pool at
// its limit, the queue full) are counted never started in bulk, up to the moment something
// could change that: a rate far beyond what the generator can send costs O(1) per turn, not
// O(arrivals).
void WorkerSchedule::dispatch_arrivals(int64_t now, Slots& slots) {
  for (int handed_out = 0; handed_out < kMaxArrivalsPerTurn; ++handed_out) {
    const std::optional<int64_t> t = arrivals_->peek();
    if (!t) return;
    int64_t intended = start_ns_ + *t;
    if (intended > now) return;
    if (const std::optional<int64_t> until = dispatcher_->saturated_until(intended)) {
      int64_t before_split = 0;
      const int64_t through = std::min(now, *until) - start_ns_;
      const int64_t skipped = arrivals_->skip_through(through, warmup_ns_, before_split);
      recorder_.count_skipped_arrivals(skipped, before_split);
      dispatcher_->never_start(skipped, before_split);
      sync_never_started();
      continue;
    }
    arrivals_->advance();
    recorder_.count_intended(intended, true);
    switch (dispatcher_->on_arrival(intended)) {
      case schedule::OpenLoopDispatcher::Action::kSendNow:
        slots.start_on_idle_slot(intended, now);
        break;
      case schedule::OpenLoopDispatcher::Action::kQueuedOpenNew:
        dispatcher_->on_connection_opening();
        slots.open_closed_slot(now);
        break;
      case schedule::OpenLoopDispatcher::Action::kQueued:
      case schedule::OpenLoopDispatcher::Action::kNeverStarted:
        break;
    }
    sync_never_started();  // on_arrival may also have dropped expired requests
  }
}

// Closed loop: slot j of this worker is user j; the profile says how many are active.
void WorkerSchedule::adjust_users(int64_t now, Slots& slots) {
  const int64_t t = std::max<int64_t>(0, now - start_ns_);
  slots.set_active_users(
      schedule::connections_for_shard_at(spec_.profile, t, shard_, shards_) * slots_per_link_, now);
}

void WorkerSchedule::expire(int64_t now) {
  dispatcher_->expire(now);
  sync_never_started();
}

void WorkerSchedule::abandon_queue() {
  dispatcher_->abandon_queue();
  sync_never_started();
}

void WorkerSchedule::sync_never_started() {
  recorder_.count_never_started(dispatcher_->never_started(),
                                dispatcher_->never_started_before_split());
}

}  // namespace proofload::engine
