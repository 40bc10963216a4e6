// The load worker's event loop, and the slots' side of its schedule (when requests arrive or
// how many users are active is worker_schedule.h; a slot's lifecycle is worker_connection.cc, a
// link's worker_link.cc, what is recorded window_recorder.h). See worker.h. Runs on its own
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
      schedule_(spec, shard_, shards_, slots_per_link_, start_ns, recorder_),
      read_buffer_(kReadBufferBytes) {
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
  loop_.add(wake_fd_, EPOLLIN, kWakeToken);
  connections_.resize(static_cast<size_t>(schedule_.slots()));
  if (open_loop()) idle_.reserve(connections_.size());
  streams_ = spec.stream != nullptr || workload_.has_streams();
  for (Connection& c : connections_) {
    c.session.bind(workload_);
    if (streams_) c.stream_body = std::make_unique<StreamBody>(spec.stream_goodput.get());
  }
  // The slots of the segments before this one, then of the workers before this one, come first
  // in the count over targets.
  const int64_t pool_size = open_loop() ? spec.max_connections : spec.connections;
  const int slots = slots_per_link_;
  for (int s = 0; s < spec.segment; ++s) {
    first_slot_ += schedule::share_of(pool_size, s, spec.segments) * slots;
  }
  for (int w = 0; w < index; ++w) {
    first_slot_ += schedule::share_of(pool_size, spec.segment + spec.segments * w, shards_) * slots;
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
    for (int i = 0; i < schedule_.initial_pool(); ++i) {
      schedule_.pool().on_connection_opening();
      open_connection(connections_[i], now);
    }
  } else {
    schedule_.adjust_users(now, *this);
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
    if (auto t = schedule_.next_arrival_ns()) deadline = std::min(deadline, *t);
  } else if (worker_now() < start_ns_) {
    deadline = std::min(deadline, start_ns_);
  }
  return deadline;
}

// ---- the schedule's side: what it asks of the slots ------------------------------------

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
  switch (schedule_.run(now, *this)) {
    case WorkerSchedule::Progress::kRunning:
      break;
    case WorkerSchedule::Progress::kEnded:
      begin_drain(now, false);
      break;
    case WorkerSchedule::Progress::kEndedEarly:
      begin_drain(now, true);
      break;
  }
}

void Worker::start_on_idle_slot(int64_t intended_ns, int64_t now) {
  Connection& c = connections_[idle_.back()];
  idle_.pop_back();
  start_request(c, intended_ns, now);
}

// A slot waiting out a reconnect backoff is taken too: work is waiting.
void Worker::open_closed_slot(int64_t now) {
  for (Connection& c : connections_) {
    if (c.state == ConnState::kClosed) {
      c.reopen_pending = false;
      open_connection(c, now);
      return;
    }
  }
}

void Worker::set_active_users(int users, int64_t now) {
  for (int j = 0; j < static_cast<int>(connections_.size()); ++j) {
    Connection& c = connections_[j];
    bool active = j < users;
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
      if (schedule_.pool().should_open_connection()) {
        schedule_.pool().on_connection_opening();
        open_connection(c, now);
      }
    }
  }
  if (open_loop()) {
    schedule_.expire(now);
  } else if (!draining_ && now >= start_ns_) {
    schedule_.adjust_users(now, *this);
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
  if (open_loop()) schedule_.abandon_queue();
}

}  // namespace proofload::engine
