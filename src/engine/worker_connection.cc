// The worker's connection and request lifecycle: connect, write the request, read and parse the
// response, record the outcome, reuse or reopen (a flow's next step: worker_flow.cc). See
// worker.h. Hot path: no allocation, no locks; one send and (usually) one recv per request.
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

void Worker::open_connection(Connection& c, int64_t now) {
  if (h2()) {
    attach_to_link(c, now);
    return;
  }
  c.state = ConnState::kConnecting;  // the failure path, too, sees a connect in progress
  if (!dial(c.wire, address_of_slot(slot_of(c)), token_of(c), now)) {
    on_connect_failed(c, now, Outcome::kConnectError);
  }
}

void Worker::after_wire_step(Connection& c, WireStep step, int64_t now) {
  if (step == WireStep::kOpen) {
    on_transport_ready(c, now);
  } else if (step == WireStep::kFailed) {
    on_connect_failed(c, now, Outcome::kTlsError);
  }
}

void Worker::close_connection(Connection& c) {
  if (h2()) detach_from_link(c);
  c.wire.transport.close();  // closing removes it from epoll
  c.state = ConnState::kClosed;
  c.wire.want_epollout = false;
}

void Worker::set_epollout(Connection& c, bool on) {
  if (!h2()) set_wire_epollout(c.wire, token_of(c), on);
}

void Worker::on_event(Connection& c, uint32_t events) {
  // A request's response (kBusy, most events) takes the time of each read itself: the clock is
  // read here only for the other states, one read less per request.
  const int64_t now = c.state == ConnState::kBusy ? 0 : worker_now();
  switch (c.state) {
    case ConnState::kConnecting:
      if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        if (c.wire.transport.finish_connect() == 0) {
          if (spec_.tls) c.state = ConnState::kHandshaking;
          after_wire_step(c, on_wire_connected(c.wire, token_of(c), now), now);
        } else {
          on_connect_failed(c, now, Outcome::kConnectError);
        }
      }
      return;
    case ConnState::kHandshaking:
      after_wire_step(c, advance_wire_handshake(c.wire, token_of(c), now), now);
      return;
    case ConnState::kBusy:
      if (!c.http1.request_written()) write_request(c);
      // TLS may want the socket writable to go on reading (a key update): any event reads.
      if (c.state == ConnState::kBusy &&
          ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || c.wire.transport.tls())) {
        read_response(c);
      }
      return;
    case ConnState::kIdle:
      // The server closed a kept-alive connection (normal: reopen at once), or sent bytes
      // nobody asked for or reset it (reopen after a backoff, so a server that speaks first
      // cannot make us spin).
      if (auto orderly = lost_while_idle(c)) lose_idle_connection(c, now, *orderly);
      return;
    case ConnState::kThinking:
      // As for an idle connection; the flow's next step reconnects when its think time is over.
      if (auto orderly = lost_while_idle(c)) {
        close_connection(c);
        if (!*orderly) back_off(c, now);
        if (open_loop()) dispatcher_->on_connection_lost(false);
      }
      return;
    case ConnState::kClosed:
      return;
  }
}

// A connection with no request on it became readable: nullopt when that was nothing (TLS: a
// session ticket, taken in), else whether it was an orderly close (true) or bytes or a reset.
std::optional<bool> Worker::lost_while_idle(Connection& c) {
  char byte;
  const net::Io io = c.wire.transport.read(&byte, 1);
  if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
    wait_for(c, io.status);
    return std::nullopt;
  }
  return io.status == net::IoStatus::kClosed;
}

void Worker::note_tls_failure(std::string_view reason) {
  if (first_tls_failure_.empty()) first_tls_failure_ = reason;
}

// Connected (and for https, the handshake done): the connection takes its first request.
void Worker::on_transport_ready(Connection& c, int64_t now) {
  set_epollout(c, false);
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
    dispatcher_->on_connection_lost(false);
    if (c.session.in_iteration()) {
      // Reopened for a flow's next step: that step fails (the queue's work was not waiting on it).
      fail_unsent_step(c, outcome, c.session.next_step_due_ns);
    } else if (auto intended = dispatcher_->fail_oldest_queued()) {
      recorder_.count_outcome(outcome, *intended);
    }
    c.reopen_pending = true;
    return;
  }
  if (c.session.in_iteration() && !may_continue_iteration(c)) abandon_iteration(c);
  if (c.session.in_iteration()) {
    fail_unsent_step(c, outcome, c.session.next_step_due_ns);
  } else if (c.active && may_start_request()) {
    if (request_budget_ > 0 && c.ready_ns >= start_ns_ + spec_.warmup_ns) --request_budget_;
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
    if (auto intended = dispatcher_->on_connection_ready(now)) {
      sync_never_started();
      start_request(c, *intended, now);
    } else {
      sync_never_started();
      idle_.push_back(slot_of(c));
    }
    return;
  }
  if (!c.active) {
    close_connection(c);
  } else if (may_start_request() && now >= start_ns_) {
    recorder_.count_intended(c.ready_ns, true);
    if (request_budget_ > 0 && c.ready_ns >= start_ns_ + spec_.warmup_ns) --request_budget_;
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
  if (h2()) {
    submit_stream(c, c.session.request_bytes(), capture);
    return;
  }
  c.http1.submit(c.session.request_bytes(), request.is_head, capture);
  write_request(c);
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

void Worker::write_request(Connection& c) {
  for (std::string_view out = c.http1.output(); !out.empty(); out = c.http1.output()) {
    const net::Io io = c.wire.transport.write(out.data(), out.size());
    if (io.status == net::IoStatus::kOk) {
      c.http1.wrote(io.bytes);
      recorder_.window().bytes_out += static_cast<int64_t>(io.bytes);
      continue;
    }
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      wait_for(c, io.status);
      return;
    }
    fail_request(c, lost_outcome(c), worker_now());
    return;
  }
  set_epollout(c, false);
}

// A connection that failed under a request: a reset, or (https) a TLS failure with its reason.
Outcome Worker::lost_outcome(Connection& c) {
  if (!c.wire.transport.failure().tls()) return Outcome::kReset;
  note_tls_failure(net::failure_text(c.wire.transport.failure()));
  return Outcome::kTlsError;
}

// At most kMaxReadsPerEvent reads per readiness event: a response that never ends (an endless
// body, 1xx responses without end) must not hold the loop, where timeouts, the window hand-off and
// stop signals are seen. epoll is level-triggered, so what is left is reported again at once.
//
// TLS: OpenSSL reads one record (at most 16 KiB) from the socket at a time, so after a read into
// the 64 KiB buffer nothing is left inside it that epoll would not report; buffered() says so.
void Worker::read_response(Connection& c) {
  for (int reads = 0; reads < kMaxReadsPerEvent; ++reads) {
    const net::Io io = c.wire.transport.read(read_buffer_.data(), read_buffer_.size());
    int64_t now = worker_now();
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      // Writable is waited for only while the request is unwritten or TLS asked for it (a
      // level-triggered writable socket would wake the loop at once, forever).
      if (c.http1.request_written()) wait_for(c, io.status);
      return;
    }
    if (io.status == net::IoStatus::kFailed) {
      fail_request(c, lost_outcome(c), now);
      return;
    }
    const size_t n = io.status == net::IoStatus::kOk ? io.bytes : 0;
    if (n > 0) recorder_.window().bytes_in += static_cast<int64_t>(n);
    if (c.stream_body && n > 0) c.stream_body->set_now(now);
    const ReadStep step =
        n == 0 ? c.http1.receive_close(c.wire.transport.closed_without_close_notify())
               : c.http1.receive(read_buffer_.data(), n, now);
    switch (step) {
      case ReadStep::kNeedMore:
        if (n < read_buffer_.size() && !c.wire.transport.buffered()) return;  // wait for more
        continue;  // the buffer was filled: more may be waiting
      case ReadStep::kCompleteReusable:
        complete_request(c, c.http1.response(), c.http1.first_byte_ns(), now,
                         spec_.send.reuse_connections);
        return;
      case ReadStep::kCompleteNotReusable:
        complete_request(c, c.http1.response(), c.http1.first_byte_ns(), now, false);
        return;
      case ReadStep::kProtocolError:
        fail_request(c, Outcome::kProtocolError, now);
        return;
      case ReadStep::kReset:
        fail_request(c, Outcome::kReset, now);
        return;
      case ReadStep::kTruncated:
        note_tls_failure(
            "the server closed without close_notify, ending a body delimited by the "
            "close (a truncation)");
        fail_request(c, Outcome::kTlsError, now);
        return;
    }
  }
}

void Worker::complete_request(Connection& c, const workload::ResponseView& response,
                              int64_t first_byte_ns, int64_t now, bool reusable) {
  // The status, and for a scenario the checks: its outcome.
  const workload::Session::StepEnd end = c.session.on_response(response);
  // io_uring: the request's bytes left when the loop submitted them, at the end of the turn it
  // was written in; service time and TTFB count from then, as they count from the send with
  // epoll (the turn's wait is the generator's, not the server's).
  c.write_start_ns = std::max(c.write_start_ns, c.wire.transport.sent_ns());
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
    dispatcher_->on_connection_lost(was_idle);
    if (orderly_close) {
      reopen_after_loss_open_loop(c, now);
    } else {
      c.reopen_pending = true;  // the sweep reopens it once the backoff has passed
    }
    return;
  }
  // Closed loop: adjust_closed_loop_users reopens it once retry_at_ns has passed.
  if (orderly_close && c.active && !draining_) open_connection(c, now);
}

// A connection that carried a request is gone (closed by either side). Closed loop: the user
// reconnects for its next request. Open loop: the pool keeps its size while there is work.
void Worker::reopen_after_loss(Connection& c, int64_t now) {
  if (open_loop()) {
    dispatcher_->on_connection_lost(false);
    reopen_after_loss_open_loop(c, now);
    return;
  }
  if (c.active && may_start_request()) open_connection(c, now);
}

void Worker::reopen_after_loss_open_loop(Connection& c, int64_t now) {
  if (draining_ && dispatcher_->queued() == 0) return;  // nothing left for it to carry
  if (!dispatcher_->should_open_connection()) return;
  dispatcher_->on_connection_opening();
  open_connection(c, now);
}

}  // namespace proofload::engine
