// A slot's lifecycle, the same for every protocol: it opens (attaches to its link), takes a
// request, records the outcome its session hands back, and is reused or reopened (a flow's next
// step: worker_flow.cc). The link and the protocol's session move the bytes (worker_link.cc,
// worker_http1.cc, worker_h2.cc). See worker.h. Hot path: no allocation, no locks.
#include <algorithm>
#include <optional>

#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {
namespace {

using measure::Outcome;

constexpr int64_t kFirstBackoffNs = 10 * kNsPerMs;  // after a failed connect
constexpr int64_t kMaxBackoffNs = 1 * kNsPerS;

}  // namespace

// The slot leaves its link (the last to leave closes it).
void Worker::close_connection(Connection& c) {
  detach_from_link(c);
  c.state = ConnState::kClosed;
}

void Worker::note_tls_failure(std::string_view reason) {
  if (first_tls_failure_.empty()) first_tls_failure_ = reason;
}

// The slot's link is ready for it (connected, for https the handshake done, for HTTP/2 the
// server's SETTINGS in and the slot within its stream limit): it takes its first request.
void Worker::on_transport_ready(Connection& c, int64_t now) {
  c.state = ConnState::kIdle;
  on_ready(c, now);
}

// The next reconnect of `c` waits: 10 ms, doubling to 1 s, until a request succeeds on it.
void Worker::back_off(Connection& c, int64_t now) {
  c.backoff_ns = c.backoff_ns == 0 ? kFirstBackoffNs : std::min(kMaxBackoffNs, 2 * c.backoff_ns);
  c.retry_at_ns = now + c.backoff_ns;
}

// A failed connect is the failure of the request that needed the connection: in closed loop
// the user's next request; in open loop the oldest request waiting for a connection, if any.
void Worker::on_connect_failed(Connection& c, int64_t now, Outcome outcome) {
  close_connection(c);
  back_off(c, now);
  if (open_loop()) {
    schedule_.pool().on_connection_lost(false);
    if (c.session.in_iteration()) {
      // Reopened for a flow's next step: that step fails (the queue's work was not waiting on it).
      fail_unsent_step(c, outcome, c.session.next_step_due_ns);
    } else if (auto intended = schedule_.pool().fail_oldest_queued()) {
      recorder_.count_outcome(outcome, *intended);
    }
    c.reopen_pending = true;
    return;
  }
  if (c.session.in_iteration() && !may_continue_iteration(c)) abandon_iteration(c);
  if (c.session.in_iteration()) {
    fail_unsent_step(c, outcome, c.session.next_step_due_ns);
  } else if (c.active && may_start_request()) {
    schedule_.take_from_budget(c.ready_ns);
    fail_unsent_step(c, outcome, c.ready_ns);
  } else {
    return;
  }
  // The backoff is the user's pause, not the next one's latency. A connect that failed in the
  // lead time before the start must not date the next request before it (into the warm-up).
  c.ready_ns = std::max(c.retry_at_ns, start_ns_);
}

// The request the connection was to carry (a flow's next step, or the user's next pick) fails
// before a byte was sent: one intended request, one outcome, and the iteration ends.
void Worker::fail_unsent_step(Connection& c, Outcome outcome, int64_t intended_ns) {
  const bool arrival = !c.session.in_iteration();
  if (arrival) {
    c.session.begin_step(context_);
    ++iterations_in_progress_;
    c.session.iteration_start_ns = intended_ns;
    recorder_.count_flow_started(c.session.flow(), intended_ns);
  }
  c.intended_ns = intended_ns;
  recorder_.count_intended(intended_ns, arrival);
  recorder_.count_outcome(outcome, intended_ns);
  const int64_t now = worker_now();
  record_named(c, outcome, now, false);
  end_iteration(c, c.session.on_failure(outcome), now);
}

void Worker::on_ready(Connection& c, int64_t now) {
  c.state = ConnState::kIdle;
  if (c.session.in_iteration()) {
    // The connection belongs to its flow until the flow ends: the next step goes here.
    if (c.waiting_think) {
      c.state = ConnState::kThinking;
      return;
    }
    if (continue_iteration(c, now)) return;
  }
  if (open_loop()) {
    if (auto intended = schedule_.pool().on_connection_ready(now)) {
      schedule_.sync_never_started();
      start_request(c, *intended, now);
    } else {
      schedule_.sync_never_started();
      idle_.push_back(slot_of(c));
    }
    return;
  }
  if (!c.active) {
    close_connection(c);
  } else if (may_start_request() && now >= start_ns_) {
    recorder_.count_intended(c.ready_ns, true);
    schedule_.take_from_budget(c.ready_ns);
    start_request(c, c.ready_ns, now);
  }
}

void Worker::start_request(Connection& c, int64_t intended_ns, int64_t now) {
  c.state = ConnState::kBusy;
  ++busy_;
  c.intended_ns = intended_ns;
  c.write_start_ns = now;
  bool first_step = !c.session.in_iteration();
  const workload::CompiledRequest& request = c.session.begin_step(context_);
  if (first_step) {
    ++iterations_in_progress_;
    c.session.iteration_start_ns = intended_ns;
    recorder_.count_flow_started(c.session.flow(), intended_ns);
  }
  http::ResponseCapture capture = capture_for(request);
  capture.body_sink = begin_stream(c, request, intended_ns, now);
  submit(c, request, capture);
}

// A streamed request (its own `stream:`, or --stream's): its StreamBody begins, and takes the
// body's pieces. Null when the request is not a stream.
http::BodySink* Worker::begin_stream(Connection& c, const workload::CompiledRequest& request,
                                     int64_t intended_ns, int64_t now) {
  const workload::StreamRules* rules = request.stream ? request.stream.get() : spec_.stream.get();
  if (rules == nullptr || !c.stream_body) return nullptr;
  c.stream_body->begin(*rules, intended_ns,
                       recorder_.stream_windows(c.session.request(), intended_ns));
  c.stream_body->set_now(now);
  return c.stream_body.get();
}

void Worker::complete_request(Connection& c, const workload::ResponseView& response,
                              int64_t first_byte_ns, int64_t now, bool reusable) {
  // The status, and for a scenario the checks: its outcome.
  const workload::Session::StepEnd end = c.session.on_response(response);
  if (recorder_.counts_source()) recorder_.count_source_answer(response.status, response.headers);
  recorder_.count_response(response.status, end.outcome,
                           {c.intended_ns, c.write_start_ns, first_byte_ns, now},
                           c.session.request(), c.stream_body.get());
  --busy_;
  c.ready_ns = now;
  c.backoff_ns = 0;  // the server answers on this connection again
  after_step(c, end, now, reusable);
}

void Worker::fail_request(Connection& c, Outcome outcome, int64_t now) {
  recorder_.count_outcome(outcome, c.intended_ns);
  // A stream that failed (a timeout, a reset, a bad response) is cut short.
  if (c.stream_body) c.stream_body->end(workload::StreamEnd::kCutShort, now);
  record_named(c, outcome, now, false);
  end_iteration(c, c.session.on_failure(outcome), now);
  --busy_;
  c.ready_ns = now;
  close_connection(c);
  reopen_after_loss(c, now);
}

void Worker::lose_idle_connection(Connection& c, int64_t now, bool orderly_close) {
  close_connection(c);
  if (!orderly_close) back_off(c, now);
  if (open_loop()) {
    // An HTTP/2 slot whose stream failed alone is idle but waits in ready_slots_ until the end of
    // the turn, not yet in idle_ nor counted idle by the dispatcher; a GOAWAY or the link's loss
    // in that same turn finds it so.
    const auto in_idle = std::find(idle_.begin(), idle_.end(), slot_of(c));
    const bool was_idle = in_idle != idle_.end();
    if (was_idle) idle_.erase(in_idle);
    schedule_.pool().on_connection_lost(was_idle);
    if (orderly_close) {
      reopen_after_loss_open_loop(c, now);
    } else {
      c.reopen_pending = true;  // the sweep reopens it once the backoff has passed
    }
    return;
  }
  // Closed loop: the schedule's adjust_users reopens it once retry_at_ns has passed.
  if (orderly_close && c.active && !draining_) open_connection(c, now);
}

// A connection that carried a request is gone (closed by either side). Closed loop: the user
// reconnects for its next request. Open loop: the pool keeps its size while there is work.
void Worker::reopen_after_loss(Connection& c, int64_t now) {
  if (open_loop()) {
    schedule_.pool().on_connection_lost(false);
    reopen_after_loss_open_loop(c, now);
    return;
  }
  if (c.active && may_start_request()) open_connection(c, now);
}

void Worker::reopen_after_loss_open_loop(Connection& c, int64_t now) {
  if (draining_ && schedule_.pool().queued() == 0) return;  // nothing left for it to carry
  if (!schedule_.pool().should_open_connection()) return;
  schedule_.pool().on_connection_opening();
  open_connection(c, now);
}

}  // namespace proofload::engine
