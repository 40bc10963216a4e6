// A link's life, the same for every protocol: slots attach to it and it connects (and
// handshakes) for them; once its wire is open, its protocol's session runs on it until it is
// lost, and its slots go the way their state says. Below, the session seam: the few calls where
// a protocol's own code is chosen (worker_http1.cc, worker_h2.cc). See worker.h.
#include <algorithm>

#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {

using measure::Outcome;

void Worker::attach_to_link(Connection& c, int64_t now) {
  c.state = ConnState::kConnecting;
  Link& link = link_of(c);
  if (!c.attached) {
    c.attached = true;
    ++link.attached;
  }
  if (link.state == LinkState::kClosed) {
    open_link(link, now);
  } else if (link.state == LinkState::kReady && !link.going_away && slot_usable(c)) {
    // HTTP/2: a slot joins a link that is up; started at the end of the turn, never from inside.
    ready_slots_.push_back(slot_of(c));
  }
}

void Worker::detach_from_link(Connection& c) {
  if (!c.attached) return;
  Link& link = link_of(c);
  c.attached = false;
  // HTTP/2: its stream is reset (an HTTP/1.1 request goes with its connection, closed below).
  if (c.state == ConnState::kBusy) cancel_stream(c);
  if (--link.attached == 0) close_link(link);
}

void Worker::open_link(Link& link, int64_t now) {
  link.state = LinkState::kConnecting;
  link.going_away = false;
  link.usable_streams = 0;
  if (!dial(link.wire, address_of_slot(first_slot_of(link)), token_of(link), now)) {
    fail_link_open(link, now, Outcome::kConnectError);
  }
}

void Worker::close_link(Link& link) {
  link.wire.transport.close();
  link.h2.reset();
  link.state = LinkState::kClosed;
  link.wire.want_epollout = false;
  link.dirty = false;
}

void Worker::set_link_epollout(Link& link, bool on) {
  set_wire_epollout(link.wire, token_of(link), on);
}

void Worker::on_link_event(Link& link, uint32_t events) {
  // A running session's events first: they are the hot path, and read the clock as they read.
  if (link.state == LinkState::kReady || link.state == LinkState::kSettings) {
    on_session_event(link, events);
    return;
  }
  const int64_t now = worker_now();
  switch (link.state) {
    case LinkState::kConnecting:
      if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
        if (link.wire.transport.finish_connect() == 0) {
          if (spec_.tls) link.state = LinkState::kHandshaking;
          after_link_wire_step(link, on_wire_connected(link.wire, token_of(link), now), now);
        } else {
          fail_link_open(link, now, Outcome::kConnectError);
        }
      }
      return;
    case LinkState::kHandshaking:
      after_link_wire_step(link, advance_wire_handshake(link.wire, token_of(link), now), now);
      return;
    case LinkState::kSettings:
    case LinkState::kReady:
    case LinkState::kClosed:
      return;
  }
}

void Worker::after_link_wire_step(Link& link, WireStep step, int64_t now) {
  if (step == WireStep::kFailed) {
    fail_link_open(link, now, Outcome::kTlsError);
  } else if (step == WireStep::kOpen) {
    open_session(link, now);
  }
}

// The link is gone (closed, reset, failed, or done after GOAWAY): requests in flight on it fail
// with `outcome`, and every slot goes the way an HTTP/1.1 connection lost in its state would.
void Worker::lose_link(Link& link, int64_t now, Outcome outcome, bool orderly) {
  const int first = first_slot_of(link);
  const int end = end_slot_of(link);
  const bool was_ready = link.state == LinkState::kReady;
  if (link.h2) {
    link.h2->fail_all_streams();
    link.h2->ended().clear();  // the busy slots fail below
  }
  close_link(link);
  link.attached = 0;
  for (int j = first; j < end; ++j) connections_[static_cast<size_t>(j)].attached = false;
  for (int j = first; j < end; ++j) {
    Connection& c = connections_[static_cast<size_t>(j)];
    switch (c.state) {
      case ConnState::kBusy:
        fail_request(c, outcome, now);
        break;
      case ConnState::kIdle:
        lose_idle_connection(c, now, orderly);
        break;
      case ConnState::kThinking:
        close_connection(c);
        if (!orderly) back_off(c, now);
        if (open_loop()) schedule_.pool().on_connection_lost(false);
        break;
      case ConnState::kConnecting:
        // Waiting for this link: for the next one if it had been up, else its open failed.
        if (was_ready) {
          attach_to_link(c, now);
        } else {
          on_connect_failed(c, now,
                            outcome == Outcome::kTlsError ? outcome : Outcome::kConnectError);
        }
        break;
      case ConnState::kClosed:
        break;
    }
  }
}

// The link could not be opened (connect, TLS, ALPN, or no SETTINGS in time): each slot waiting
// for it has a failed connect.
void Worker::fail_link_open(Link& link, int64_t now, Outcome outcome) {
  lose_link(link, now, outcome, false);
}

// Slots that became ready inside an event (their link came up, their stream failed) start here,
// at the end of the turn, so a slot never starts a request from inside its link's callbacks.
void Worker::start_ready_slots(int64_t now) {
  for (size_t i = 0; i < ready_slots_.size(); ++i) {
    Connection& c = connections_[static_cast<size_t>(ready_slots_[i])];
    const Link& link = link_of(c);
    if (!c.attached || link.state != LinkState::kReady || link.going_away) continue;
    if (c.state == ConnState::kConnecting) {
      on_transport_ready(c, now);
    } else if (c.state == ConnState::kIdle) {
      on_ready(c, now);
    }
  }
  ready_slots_.clear();
  flush_dirty_links();
}

// Links that did not connect, handshake or hear the server's SETTINGS within the connect
// timeout.
void Worker::sweep_links(int64_t now) {
  for (Link& link : links_) {
    if (link.state == LinkState::kClosed || link.state == LinkState::kReady) continue;
    if (now - link.wire.connect_start_ns <= spec_.send.connect_timeout_ns) continue;
    fail_link_open(link, now, wire_timed_out(link.state == LinkState::kHandshaking));
  }
}

// ---- the session seam -----------------------------------------------------------------------

void Worker::open_session(Link& link, int64_t now) {
  switch (spec_.protocol) {
    case Protocol::kHttp11:
      // The connection carries its one slot's requests at once.
      set_link_epollout(link, false);
      link.state = LinkState::kReady;
      link.usable_streams = 1;
      on_transport_ready(connections_[static_cast<size_t>(first_slot_of(link))], now);
      return;
    case Protocol::kHttp2:
      // Over TLS, once the server agreed to HTTP/2 in ALPN (h2c needs no agreement); the
      // preface goes out at once.
      if (spec_.tls && link.wire.transport.alpn() != "h2") {
        note_tls_failure("the server did not agree to HTTP/2 in ALPN");
        fail_link_open(link, now, Outcome::kTlsError);
        return;
      }
      start_h2(link);
      return;
  }
}

void Worker::on_session_event(Link& link, uint32_t events) {
  switch (spec_.protocol) {
    case Protocol::kHttp11:
      on_http1_event(link, connections_[static_cast<size_t>(first_slot_of(link))], events);
      return;
    case Protocol::kHttp2:
      on_h2_event(link, events);
      return;
  }
}

void Worker::submit(Connection& c, const workload::CompiledRequest& request,
                    const http::ResponseCapture& capture) {
  switch (spec_.protocol) {
    case Protocol::kHttp11: {
      Link& link = link_of(c);
      link.http1.submit(c.session.request_bytes(), request.is_head, capture);
      write_request(link, c);  // at once: one send per request, usually
      return;
    }
    case Protocol::kHttp2:
      submit_stream(c, c.session.request_bytes(), capture);
      return;
  }
}

void Worker::fail_in_flight(Connection& c, Outcome outcome, int64_t now) {
  switch (spec_.protocol) {
    case Protocol::kHttp11:
      fail_request(c, outcome, now);
      return;
    case Protocol::kHttp2:
      cancel_stream(c);
      fail_stream(c, outcome, now);
      return;
  }
}

}  // namespace proofload::engine
