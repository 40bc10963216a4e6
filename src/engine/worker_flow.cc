// A scenario's flows on a connection: what follows a step, the flow's next step after its think
// time, and the end (or abandonment) of an iteration. See worker.h. Hot path for flows: no
// allocation, no locks.
#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {

// After a step that got a response: the iteration ends (the connection goes back to work or is
// reopened as usual), or the flow's next step follows on this connection, after its think time.
void Worker::after_step(Connection& c, const workload::Session::StepEnd& end, int64_t now,
                        bool reusable) {
  bool over = end.iteration_over;
  if (over) {
    end_iteration(c, end, now);
    if (end.think_ns > 0 && !draining_ && may_continue_iteration(c)) {
      pause_after_iteration(c, now, end.think_ns, reusable);
      return;
    }
  } else if (!may_continue_iteration(c)) {
    abandon_iteration(c);  // the user was ramped down, or the run ends now
    over = true;
  }
  if (over) {
    if (reusable) {
      on_ready(c, now);
      return;
    }
    close_connection(c);
    reopen_after_loss(c, now);
    return;
  }
  c.session.next_step_due_ns = now + end.think_ns;
  if (end.think_ns > 0) {
    c.waiting_think = true;
    think_timers_.push(c.session.next_step_due_ns, token_of(c));
  }
  if (reusable) {
    on_ready(c, now);  // thinks, or sends the next step now
    return;
  }
  close_connection(c);
  if (open_loop()) schedule_.pool().on_connection_lost(false);
  if (!c.waiting_think) reopen_mid_iteration(c, now);  // else the think timer reopens it
}

// The pause at the end of an iteration (a think on a flow's last step): the connection holds
// itself back until it is over, then takes its next pick as it would have at once, its latency
// counted from the end of the pause. The think timer ends it (fire_think_timers), reopening the
// connection first when it was or gets closed.
void Worker::pause_after_iteration(Connection& c, int64_t now, int64_t pause_ns, bool reusable) {
  c.waiting_think = true;
  c.session.next_step_due_ns = now + pause_ns;
  c.ready_ns = now + pause_ns;
  think_timers_.push(c.session.next_step_due_ns, token_of(c));
  if (reusable) {
    c.state = ConnState::kThinking;
    return;
  }
  close_connection(c);
  if (open_loop()) schedule_.pool().on_connection_lost(false);
}

// A flow that has begun may finish within the grace period after the schedule ends (or after
// Ctrl-C): its steps are in-flight work, not new work. It stops when its user is ramped down or
// the run must end now.
bool Worker::may_continue_iteration(const Connection& c) const {
  return (open_loop() || c.active) && control_.stop_level.load(std::memory_order_relaxed) < 2 &&
         !(draining_ && worker_now() >= drain_deadline_ns_);
}

// Sends the flow's next step on this (connected, idle) connection, due when the previous step
// ended plus the think time: its latency counts from then. False (and the iteration abandoned)
// when the run no longer starts work.
bool Worker::continue_iteration(Connection& c, int64_t now) {
  if (!may_continue_iteration(c)) {
    abandon_iteration(c);
    return false;
  }
  int64_t due = c.session.next_step_due_ns;
  recorder_.count_intended(
      due, false);  // a flow's later step: not new work (-n counts picks of the mix)
  start_request(c, due, now);
  return true;
}

// A flow's connection was closed between steps: open it again for the next step (which starts
// once it is connected, in on_ready).
void Worker::reopen_mid_iteration(Connection& c, int64_t now) {
  if (!may_continue_iteration(c)) {
    abandon_iteration(c);
    if (open_loop()) {
      reopen_after_loss_open_loop(c, now);
    } else if (c.active && may_start_request()) {
      open_connection(c, now);
    }
    return;
  }
  if (open_loop()) schedule_.pool().on_connection_opening();
  open_connection(c, now);
}

void Worker::end_iteration(Connection& c, const workload::Session::StepEnd& end, int64_t now) {
  c.waiting_think = false;
  if (end.iteration_over) --iterations_in_progress_;
  if (end.iteration_over) {
    recorder_.count_iteration_end(c.session.flow(), end.flow_succeeded,
                                  c.session.iteration_start_ns, now);
  }
}

void Worker::abandon_iteration(Connection& c) {
  c.waiting_think = false;
  if (!c.session.in_iteration()) return;
  --iterations_in_progress_;
  recorder_.count_flow_abandoned(c.session.flow(), c.session.iteration_start_ns);
  c.session.abandon();
}

void Worker::fire_think_timers(int64_t now) {
  while (!think_timers_.empty() && think_timers_.next_deadline() <= now) {
    net::TimerHeap::Timer timer = think_timers_.pop();
    Connection& c = connections_[timer.token];
    // A timer whose flow was abandoned (drain, ramp-down) or already moved on is stale.
    if (!c.waiting_think || c.session.next_step_due_ns > now) continue;
    c.waiting_think = false;
    if (c.state == ConnState::kThinking) {
      on_ready(c, now);
    } else if (c.state == ConnState::kClosed) {
      reopen_mid_iteration(c, now);
    }
  }
}

}  // namespace proofload::engine
