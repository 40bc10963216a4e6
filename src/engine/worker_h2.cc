// HTTP/2 in the worker: a link of h2_streams slots, and its nghttp2 session (http::H2Session).
// A slot keeps its whole lifecycle in worker_connection.cc and its link's in worker_link.cc; what
// is HTTP/2's is here: a slot is ready once the link has the server's SETTINGS and within its
// stream limit; its request is a stream, written with the other streams' frames at the end of
// the turn; a stream that fails (reset, refused, timed out) leaves the link up; a link that goes
// away (GOAWAY) sends its idle slots to the next connection.
#include <algorithm>

#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {
namespace {

using measure::Outcome;

}  // namespace

// A slot past the server's stream limit waits (it is a user, or pool capacity, the server does
// not allow): never more streams than SETTINGS_MAX_CONCURRENT_STREAMS.
bool Worker::slot_usable(const Connection& c) const {
  const Link& link = links_[static_cast<size_t>(slot_of(c) / slots_per_link_)];
  return slot_of(c) % slots_per_link_ < link.usable_streams;
}

void Worker::on_h2_event(Link& link, uint32_t events) {
  if (events & EPOLLOUT) flush_link(link);
  // Any event reads (TLS may have wanted writable to go on reading). Unless the flush lost the
  // link: then it is closed, or already connecting again.
  if (link.h2 && (link.state == LinkState::kSettings || link.state == LinkState::kReady)) {
    read_link(link);
  }
}

// The preface and our SETTINGS go out; streams start once the server's SETTINGS arrived, so
// that its stream limit is known before the first request.
void Worker::start_h2(Link& link) {
  link.state = LinkState::kSettings;
  http::H2Settings settings;
  if (spec_.send.h2_stream_window_bytes) {
    settings.stream_window_bytes = *spec_.send.h2_stream_window_bytes;
  }
  link.h2 = std::make_unique<http::H2Session>(settings, h2_memory_.nghttp2());
  set_link_epollout(link, false);
  mark_dirty(link);
}

void Worker::on_link_ready(Link& link, int64_t now) {
  link.state = LinkState::kReady;
  link.usable_streams = 0;
  follow_stream_limit(link, now);
}

// The server's stream limit as its latest SETTINGS says: a server may change it while the
// connection lives (one that starts at 0 until it is ready, then raises it). The slots it now
// allows that wait start; one it no longer allows finishes its stream (nghttp2 holds a new stream
// past the limit until one ends).
void Worker::follow_stream_limit(Link& link, int64_t now) {
  const uint32_t limit = link.h2->max_concurrent_streams();
  h2_server_max_streams_ = std::min(h2_server_max_streams_, limit);
  const int usable = static_cast<int>(std::min<uint32_t>(limit, spec_.h2_streams));
  if (usable == link.usable_streams) return;
  link.usable_streams = usable;
  const int first = first_slot_of(link);
  const int end = end_slot_of(link);
  for (int j = first; j < end; ++j) {
    Connection& c = connections_[static_cast<size_t>(j)];
    if (c.attached && c.state == ConnState::kConnecting && slot_usable(c)) {
      on_transport_ready(c, now);
    }
  }
}

// Reads until the socket is empty (or kMaxLinkReadBytes per event, so that one connection cannot
// hold the loop): every response that arrived is settled before the frames the slots submit in
// return go out, in one write for the whole batch.
void Worker::read_link(Link& link) {
  size_t taken = 0;
  while (taken < kMaxLinkReadBytes) {
    const net::Io io = link.wire.transport.read(read_buffer_.data(), read_buffer_.size());
    const int64_t now = worker_now();
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      if (io.status == net::IoStatus::kWantWrite) set_link_epollout(link, true);
      return;
    }
    if (io.status == net::IoStatus::kClosed) {
      lose_link(link, now, Outcome::kReset, true);
      return;
    }
    if (io.status == net::IoStatus::kFailed) {
      const bool tls = link.wire.transport.failure().tls();
      if (tls) note_tls_failure(net::failure_text(link.wire.transport.failure()));
      lose_link(link, now, tls ? Outcome::kTlsError : Outcome::kReset, false);
      return;
    }
    recorder_.window().bytes_in += static_cast<int64_t>(io.bytes);
    taken += io.bytes;
    if (streams_) stamp_link_streams(link, now);
    if (!link.h2->receive(read_buffer_.data(), io.bytes, now)) {
      lose_link(link, now, Outcome::kProtocolError, false);
      return;
    }
    if (link.state == LinkState::kSettings && link.h2->settings_received()) {
      on_link_ready(link, now);
    } else if (link.state == LinkState::kReady) {
      follow_stream_limit(link, now);
    }
    settle_link(link, now);
    if (link.state == LinkState::kClosed) return;
    // What nghttp2 answers (ACKs, window updates, the RST_STREAM or GOAWAY of a malformed
    // response) goes out this turn, not with the next request: a reset stream ends only once
    // its RST_STREAM is written, and with no other request to send it would wait for its timeout.
    if (link.h2 && link.h2->wants_write()) mark_dirty(link);
    // Plain TCP: a short read emptied the socket. TLS reads a record at a time, so it reads on
    // until OpenSSL says it waits.
    if (!link.wire.transport.tls() && io.bytes < read_buffer_.size()) return;
  }
}

void Worker::stamp_link_streams(Link& link, int64_t now) {
  const int first = first_slot_of(link);
  const int end = end_slot_of(link);
  for (int slot = first; slot < end; ++slot) {
    Connection& c = connections_[static_cast<size_t>(slot)];
    if (c.stream_body && c.stream_body->active()) c.stream_body->set_now(now);
  }
}

// The streams that ended, then what the session's state asks of the link: on GOAWAY the idle
// slots leave for a new connection; once nothing is open on it, it closes.
void Worker::settle_link(Link& link, int64_t now) {
  while (link.h2 && !link.h2->ended().empty()) {
    std::swap(ended_streams_, link.h2->ended());
    for (http::H2Stream* stream : ended_streams_) {
      end_stream(connections_[static_cast<size_t>(stream->owner)], now);
    }
    ended_streams_.clear();
  }
  if (!link.h2) return;
  if (link.h2->going_away() && !link.going_away) {
    link.going_away = true;
    if (link.h2->goaway_received()) ++recorder_.window().connection.goaways;
    leave_going_away_link(link, now);
  }
  if (link.h2 && (link.h2->finished() || (link.going_away && link.h2->open_streams() == 0))) {
    // Ended by our GOAWAY for a broken rule: its streams are protocol errors, not resets.
    const bool broken = link.h2->sent_protocol_error();
    lose_link(link, now, broken ? Outcome::kProtocolError : Outcome::kReset, !broken);
  }
}

// A link that takes no new streams: its slots that are not waiting for a response move to the
// next connection (as an idle HTTP/1.1 connection the server closed would).
void Worker::leave_going_away_link(Link& link, int64_t now) {
  const int first = first_slot_of(link);
  const int end = end_slot_of(link);
  for (int j = first; j < end; ++j) {
    Connection& c = connections_[static_cast<size_t>(j)];
    if (!c.attached) continue;
    if (c.state == ConnState::kIdle) {
      lose_idle_connection(c, now, true);
    } else if (c.state == ConnState::kThinking) {
      close_connection(c);
      if (open_loop()) schedule_.pool().on_connection_lost(false);
    }
  }
}

void Worker::end_stream(Connection& c, int64_t now) {
  if (c.state != ConnState::kBusy) return;
  const Link& link = link_of(c);
  switch (c.stream.end) {
    case http::H2End::kComplete:
      complete_request(
          c, {c.stream.status, c.stream.headers, c.stream.body, c.stream.body_truncated},
          c.stream.first_byte_ns, now, !link.going_away && !(link.h2 && link.h2->going_away()));
      return;
    case http::H2End::kRefused:
      fail_stream(c, Outcome::kRefused, now);
      return;
    case http::H2End::kReset:
      fail_stream(c, Outcome::kStreamReset, now);
      return;
    case http::H2End::kProtocolError:
      fail_stream(c, Outcome::kProtocolError, now);
      return;
    case http::H2End::kOpen:
      return;
  }
}

void Worker::submit_stream(Connection& c, std::string_view request, http::ResponseCapture capture) {
  Link& link = link_of(c);
  c.stream.owner = slot_of(c);
  if (!link.h2 || !h2_head_.parse(request, spec_.tls ? "https" : "http") ||
      !link.h2->submit(c.stream, h2_head_, capture)) {
    // The link went away under it (or the bytes were not a request, which cannot happen for
    // what the workload renders): the slot waits for the next connection.
    fail_request(c, Outcome::kRefused, worker_now());
    return;
  }
  mark_dirty(link);  // written at the end of the turn, with the other streams' frames
}

void Worker::mark_dirty(Link& link) {
  if (link.dirty) return;
  link.dirty = true;
  dirty_links_.push_back(static_cast<int>(&link - links_.data()));
}

void Worker::flush_dirty_links() {
  for (size_t i = 0; i < dirty_links_.size(); ++i) {
    Link& link = links_[static_cast<size_t>(dirty_links_[i])];
    link.dirty = false;
    if (link.h2) flush_link(link);
  }
  dirty_links_.clear();
}

void Worker::flush_link(Link& link) {
  for (;;) {
    const std::string_view out = link.h2->output();
    if (out.empty()) break;
    const net::Io io = link.wire.transport.write(out.data(), out.size());
    if (io.status == net::IoStatus::kOk) {
      link.h2->wrote(io.bytes);
      recorder_.window().bytes_out += static_cast<int64_t>(io.bytes);
      continue;
    }
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      set_link_epollout(link, true);
      return;
    }
    // The server closed (say after its GOAWAY and its last responses): over plain TCP what it
    // sent before is still to be read, and ends those streams as they ended. (After a failed
    // TLS write OpenSSL reads nothing more.) Then the link is lost.
    const bool tls = link.wire.transport.failure().tls();
    if (tls) note_tls_failure(net::failure_text(link.wire.transport.failure()));
    if (!link.wire.transport.tls()) read_link(link);
    if (link.h2) lose_link(link, worker_now(), tls ? Outcome::kTlsError : Outcome::kReset, false);
    return;
  }
  set_link_epollout(link, false);
  settle_link(link, worker_now());  // sending may have closed streams (a reset we sent)
}

void Worker::cancel_stream(Connection& c) {
  Link& link = link_of(c);
  if (!link.h2) return;
  link.h2->cancel(c.stream);
  mark_dirty(link);
}

// A stream that failed alone: its outcome, and the slot takes its next request on the same
// connection.
void Worker::fail_stream(Connection& c, Outcome outcome, int64_t now) {
  recorder_.count_outcome(outcome, c.intended_ns);
  // A streamed request that failed is cut short, as over HTTP/1.1 (fail_request): every stream
  // ends in exactly one of the stream figures' categories.
  if (c.stream_body) c.stream_body->end(workload::StreamEnd::kCutShort, now);
  record_named(c, outcome, now, false);
  end_iteration(c, c.session.on_failure(outcome), now);
  --busy_;
  c.ready_ns = now;
  c.state = ConnState::kIdle;
  Link& link = link_of(c);
  if (link.going_away || !link.h2 || link.h2->going_away()) {
    close_connection(c);
    reopen_after_loss(c, now);
    return;
  }
  ready_slots_.push_back(slot_of(c));
}

}  // namespace proofload::engine
