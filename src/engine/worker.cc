// The load worker's event loop and its open/closed-loop executors (a slot's lifecycle is
// worker_connection.cc, a link's worker_link.cc, what is recorded window_recorder.h). See
// worker.h. Runs on its own
// thread; touches nothing shared but RunControl (atomics) and, through its recorder, the
// WindowMailbox (once per window).
#include "engine/worker.h"

#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "common/clock.h"

namespace proofload::engine {
namespace {

using measure::Outcome;

constexpr uint64_t kWakeToken = UINT64_MAX;
constexpr int64_t kSweepIntervalNs = 10 * kNsPerMs;  // timeouts, ramps, reconnects

// About how many connections worker `index` carries at most (sizes its loop's io_uring rings).
int connections_hint(const LoadSpec& spec, int index) {
  const int64_t most = std::max(spec.connections, spec.max_connections);
  const int shards = spec.segments * spec.workers;
  const auto share = schedule::share_of(most, spec.segment + spec.segments * index, shards);
  return static_cast<int>(std::min<int64_t>(share, 1 << 20));
}

}  // namespace

Worker::Worker(const LoadSpec& spec, int index, int64_t start_ns, RunControl& control,
               WindowMailbox& mailbox)
    : spec_(spec),
      workload_(*spec.workload),
      start_ns_(start_ns),
      control_(control),
      loop_(spec.io, connections_hint(spec, index)),
      wake_fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)),
      shard_(spec.segment + spec.segments * index),
      shards_(spec.segments * spec.workers),
      slots_per_link_(spec.protocol == Protocol::kHttp2 ? spec.h2_streams : 1),
      context_(*spec.workload, shard_, shards_),
      recorder_(spec, index, start_ns, mailbox),
      read_buffer_(kReadBufferBytes) {
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  loop_.add(wake_fd_, EPOLLIN, kWakeToken);
  const int shard = shard_;
  const int shards = shards_;
  // Every count of connections is of links, with slots_per_link_ slots each.
  const int slots = slots_per_link_;
  if (open_loop()) {
    int pool = schedule::share_of(spec.connections, shard, shards) * slots;
    int most = schedule::share_of(spec.max_connections, shard, shards) * slots;
    auto queue = static_cast<size_t>(schedule::share_of(spec.queue_capacity, shard, shards));
    dispatcher_.emplace(
        schedule::OpenLoopDispatcher::Limits{pool, most, queue, spec.send.request_timeout_ns});
    // -n counts measured arrivals: the warm-up's are sent on top of them.
    arrival_cap_ = spec.max_requests > 0
                       ? spec.max_requests + schedule::ArrivalSchedule(spec.profile)
                                                 .total_arrivals_until(spec.warmup_ns)
                       : 0;
    arrivals_.emplace(spec.profile, shard, shards, arrival_cap_);
    dispatcher_->set_split(start_ns + spec.warmup_ns);
    connections_.resize(most);
    idle_.reserve(most);
  } else {
    connections_.resize(schedule::share_of(spec.connections, shard, shards) * slots);
    if (spec.max_requests > 0)
      request_budget_ = schedule::share_of(spec.max_requests, shard, shards);
  }
  streams_ = spec.stream != nullptr || workload_.has_streams();
  for (Connection& c : connections_) {
    c.session.bind(workload_);
    if (streams_) c.stream_body = std::make_unique<StreamBody>(spec.stream_goodput.get());
  }
  // The slots of the segments before this one, then of the workers before this one, come first
  // in the count over targets.
  const int64_t pool_size = open_loop() ? spec.max_connections : spec.connections;
  for (int s = 0; s < spec.segment; ++s) {
    first_slot_ += schedule::share_of(pool_size, s, spec.segments) * slots;
  }
  for (int w = 0; w < index; ++w) {
    first_slot_ += schedule::share_of(pool_size, spec.segment + spec.segments * w, shards) * slots;
  }
  if (!spec.sources.empty()) source_ = &spec.sources.at(static_cast<size_t>(index));
  links_.resize((connections_.size() + static_cast<size_t>(slots) - 1) / slots);
}

const net::Address& Worker::address_of_slot(int slot) const {
  if (spec_.targets.empty()) return spec_.address;
  const int64_t n = static_cast<int64_t>(spec_.targets.size());
  return spec_.targets[static_cast<size_t>(((first_slot_ + slot) / slots_per_link_) % n)];
}

Worker::~Worker() {
  close(wake_fd_);  // the connections close themselves
}

void Worker::wake() const {
  uint64_t one = 1;
  [[maybe_unused]] ssize_t ignored = write(wake_fd_, &one, sizeof one);
}

// ---- the loop ----------------------------------------------------------------------------

void Worker::run() {
  try {
    run_loop();
    close_all();
  } catch (const std::exception& e) {
    // A system call that should never fail did (out of kernel memory, ...). The worker stops,
    // what it recorded is handed over, and the coordinator ends the run and says why.
    failure_ = e.what();
    control_.stop_level.store(2);  // the others see it within a sweep interval and end too
    int64_t now = worker_now();
    roll_windows(now);
    if (!draining_) begin_drain(now, true);
    end_drain(now);  // what was in flight or queued still gets its one outcome
    close_all();
    recorder_.finish(drain_started_ns_, busy_, queued());
  }
}

// The connections close on the worker's own thread, as its loop's io_uring requires (it admits
// only the thread that made it), not when the worker is destroyed on the coordinator's.
void Worker::close_all() {
  for (Connection& c : connections_) close_connection(c);
  for (Link& link : links_) close_link(link);
}

void Worker::run_loop() {
  net::use_precise_timers_on_this_thread();
  loop_.start_on_this_thread();
  int64_t now = worker_now();
  if (open_loop()) {
    // The pool is opened before the start so the first arrivals find connections.
    int pool = schedule::share_of(spec_.connections, shard_, shards_) * slots_per_link_;
    for (int i = 0; i < pool; ++i) {
      dispatcher_->on_connection_opening();
      open_connection(connections_[i], now);
    }
  } else {
    adjust_closed_loop_users(now);
  }
  for (;;) {
    now = worker_now();
    roll_windows(now);
    run_schedule(now);
    if (now >= next_sweep_ns_) sweep(now);
    if (draining_ && (drained() || now >= drain_deadline_ns_)) {
      end_drain(now);
      break;
    }
    // HTTP/2: slots made ready by the last turn start, and every link's frames go out.
    start_ready_slots(worker_now());
    auto events = loop_.wait(next_deadline());
    roll_windows(worker_now());  // what these events end belongs to the window now running
    for (const epoll_event& e : events) {
      if (e.data.u64 == kWakeToken) {
        uint64_t count;
        [[maybe_unused]] ssize_t ignored = read(wake_fd_, &count, sizeof count);
        continue;
      }
      // The token is the link's index. Handling an event changes only its own link and its
      // slots, and each registered socket appears at most once in a batch, so no event is stale.
      on_link_event(links_[e.data.u64], e.events);
    }
    fire_think_timers(worker_now());
  }
  roll_windows(worker_now());
  recorder_.finish(drain_started_ns_, busy_, queued());
}

int64_t Worker::next_deadline() const {
  int64_t deadline =
      std::min({recorder_.window_end_ns(), next_sweep_ns_, think_timers_.next_deadline()});
  if (draining_) return std::min(deadline, drain_deadline_ns_);
  if (open_loop()) {
    if (auto t = arrivals_->peek()) deadline = std::min(deadline, start_ns_ + *t);
  } else if (worker_now() < start_ns_) {
    deadline = std::min(deadline, start_ns_);
  }
  return deadline;
}

// ---- executors ---------------------------------------------------------------------------

bool Worker::may_start_request() const { return !draining_ && request_budget_ != 0; }

void Worker::run_schedule(int64_t now) {
  if (draining_) {
    if (control_.stop_level.load(std::memory_order_relaxed) >= 2) drain_deadline_ns_ = now;
    return;
  }
  int stop = control_.stop_level.load(std::memory_order_relaxed);
  if (stop > 0) {
    begin_drain(now, true);
    if (stop >= 2) drain_deadline_ns_ = now;
    return;
  }
  if (now < start_ns_) return;
  if (open_loop()) {
    dispatch_arrivals(now);
    if (!arrivals_->peek()) {
      // The last arrival is due before the planned end; the span still runs to that end,
      // unless -n used up the schedule early.
      const bool by_count = arrival_cap_ > 0 && arrivals_->next_index() >= arrival_cap_;
      begin_drain(now, by_count);
    }
  } else {
    if (request_budget_ == 0) {
      begin_drain(now, true);
      return;
    }
    if (since_start(now) >= spec_.profile.duration_ns()) {
      begin_drain(now, false);
      return;
    }
    if (!started_) {
      started_ = true;
      adjust_closed_loop_users(now);
    }
  }
}

// At most kMaxArrivalsPerTurn arrivals are handed out per turn of the loop, so that timers,
// windows and stop signals keep their turn at any rate (the loop does not sleep while arrivals
// are due). Arrivals that could neither be sent nor queued (every connection busy, the pool at
// its limit, the queue full) are counted never started in bulk, up to the moment something
// could change that: a rate far beyond what the generator can send costs O(1) per turn, not
// O(arrivals).
void Worker::dispatch_arrivals(int64_t now) {
  for (int handed_out = 0; handed_out < kMaxArrivalsPerTurn; ++handed_out) {
    const std::optional<int64_t> t = arrivals_->peek();
    if (!t) return;
    int64_t intended = start_ns_ + *t;
    if (intended > now) return;
    if (const std::optional<int64_t> until = dispatcher_->saturated_until(intended)) {
      int64_t before_split = 0;
      const int64_t through = std::min(now, *until) - start_ns_;
      const int64_t skipped = arrivals_->skip_through(through, spec_.warmup_ns, before_split);
      recorder_.count_skipped_arrivals(skipped, before_split);
      dispatcher_->never_start(skipped, before_split);
      sync_never_started();
      continue;
    }
    arrivals_->advance();
    recorder_.count_intended(intended, true);
    switch (dispatcher_->on_arrival(intended)) {
      case schedule::OpenLoopDispatcher::Action::kSendNow: {
        Connection& c = connections_[idle_.back()];
        idle_.pop_back();
        start_request(c, intended, now);
        break;
      }
      case schedule::OpenLoopDispatcher::Action::kQueuedOpenNew:
        // The dispatcher counts one closed slot for every connection it may still ask for, so
        // one is found. A slot waiting out a reconnect backoff is taken too: work is waiting.
        for (Connection& c : connections_) {
          if (c.state == ConnState::kClosed) {
            c.reopen_pending = false;
            dispatcher_->on_connection_opening();
            open_connection(c, now);
            break;
          }
        }
        break;
      case schedule::OpenLoopDispatcher::Action::kQueued:
      case schedule::OpenLoopDispatcher::Action::kNeverStarted:
        break;
    }
    sync_never_started();  // on_arrival may also have dropped expired requests
  }
}

// Closed loop: connection slot j of this worker is user j; the profile says how many are active.
void Worker::adjust_closed_loop_users(int64_t now) {
  int64_t t = std::max<int64_t>(0, since_start(now));
  int target =
      schedule::connections_for_shard_at(spec_.profile, t, shard_, shards_) * slots_per_link_;
  for (int j = 0; j < static_cast<int>(connections_.size()); ++j) {
    Connection& c = connections_[j];
    bool active = j < target;
    if (active && !c.active) {
      c.active = true;
      c.ready_ns = std::max(now, start_ns_);
    } else if (!active && c.active) {
      c.active = false;
      if (c.waiting_think) abandon_iteration(c);
      if (c.state == ConnState::kIdle || c.state == ConnState::kConnecting ||
          c.state == ConnState::kThinking) {
        close_connection(c);
      }
      continue;
    }
    if (!c.active) continue;
    if (c.state == ConnState::kClosed && now >= c.retry_at_ns && !c.waiting_think) {
      open_connection(c, now);
    } else if (c.state == ConnState::kIdle) {
      on_ready(c, now);
    }
  }
}

void Worker::sweep(int64_t now) {
  next_sweep_ns_ = now + kSweepIntervalNs;
  sweep_links(now);  // connects and handshakes past the connect timeout
  for (Connection& c : connections_) {
    if (c.state == ConnState::kBusy && now - c.write_start_ns > spec_.send.request_timeout_ns) {
      fail_in_flight(c, Outcome::kTimeout, now);
    } else if (c.state == ConnState::kBusy && stream_idle(c, now)) {
      c.stream_body->end(workload::StreamEnd::kIdleTimeout, now);
      fail_in_flight(c, Outcome::kTimeout, now);
    } else if (open_loop() && c.reopen_pending && now >= c.retry_at_ns) {
      c.reopen_pending = false;
      if (dispatcher_->should_open_connection()) {
        dispatcher_->on_connection_opening();
        open_connection(c, now);
      }
    }
  }
  if (open_loop()) {
    dispatcher_->expire(now);
    sync_never_started();
  } else if (!draining_ && now >= start_ns_) {
    adjust_closed_loop_users(now);
  }
}

// No new work starts; work in progress (requests in flight, queued arrivals, the remaining steps
// of flows that have begun) may finish until the grace period ends.
void Worker::begin_drain(int64_t now, bool early) {
  if (early) recorder_.cut_span(now);
  draining_ = true;
  drain_deadline_ns_ = now + spec_.send.grace_ns;
  drain_started_ns_ = now;
}

bool Worker::drained() const { return busy_ == 0 && iterations_in_progress_ == 0 && queued() == 0; }

// Whatever is still unanswered when the grace period ends is a timeout; whatever still waits
// for a connection never started.
void Worker::end_drain(int64_t now) {
  for (Connection& c : connections_) {
    if (c.state == ConnState::kBusy) fail_in_flight(c, Outcome::kTimeout, now);
  }
  // Flows still between steps (thinking, or reconnecting) when the grace period is over.
  for (Connection& c : connections_) abandon_iteration(c);
  if (open_loop()) {
    dispatcher_->abandon_queue();
    sync_never_started();
  }
}

}  // namespace proofload::engine
