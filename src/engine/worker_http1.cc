// HTTP/1.1 in the worker: a link of one slot, and its Http1Session. The request is written at
// submit (one send per request, usually); each readiness event reads at most kMaxReadsPerEvent
// times; a response completes, fails or needs more as the session says. A request that fails
// takes its connection with it (fail_request). See worker.h. Hot path: no allocation, no locks.
#include <algorithm>
#include <optional>

#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {

using measure::Outcome;

void Worker::on_http1_event(Link& link, Connection& c, uint32_t events) {
  switch (c.state) {
    case ConnState::kBusy:
      // A request's response (most events) takes the time of each read itself: the clock is
      // read only for the other states, one read less per request.
      if (!link.http1.request_written()) write_request(link, c);
      // TLS may want the socket writable to go on reading (a key update): any event reads.
      if (c.state == ConnState::kBusy &&
          ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) || link.wire.transport.tls())) {
        read_response(link, c);
      }
      return;
    case ConnState::kIdle:
      // The server closed a kept-alive connection (normal: reopen at once), or sent bytes
      // nobody asked for or reset it (reopen after a backoff, so a server that speaks first
      // cannot make us spin).
      if (auto orderly = lost_while_idle(link)) lose_idle_connection(c, worker_now(), *orderly);
      return;
    case ConnState::kThinking:
      // As for an idle connection; the flow's next step reconnects when its think time is over.
      if (auto orderly = lost_while_idle(link)) {
        close_connection(c);
        if (!*orderly) back_off(c, worker_now());
        if (open_loop()) schedule_.pool().on_connection_lost(false);
      }
      return;
    case ConnState::kConnecting:
    case ConnState::kClosed:
      return;
  }
}

// A connection with no request on it became readable: nullopt when that was nothing (TLS: a
// session ticket, taken in), else whether it was an orderly close (true) or bytes or a reset.
std::optional<bool> Worker::lost_while_idle(Link& link) {
  char byte;
  const net::Io io = link.wire.transport.read(&byte, 1);
  if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
    wait_for(link, io.status);
    return std::nullopt;
  }
  return io.status == net::IoStatus::kClosed;
}

void Worker::write_request(Link& link, Connection& c) {
  for (std::string_view out = link.http1.output(); !out.empty(); out = link.http1.output()) {
    const net::Io io = link.wire.transport.write(out.data(), out.size());
    if (io.status == net::IoStatus::kOk) {
      link.http1.wrote(io.bytes);
      recorder_.window().bytes_out += static_cast<int64_t>(io.bytes);
      continue;
    }
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      wait_for(link, io.status);
      return;
    }
    fail_request(c, lost_outcome(link), worker_now());
    return;
  }
  set_link_epollout(link, false);
}

// A connection that failed under a request: a reset, or (https) a TLS failure with its reason.
Outcome Worker::lost_outcome(const Link& link) {
  if (!link.wire.transport.failure().tls()) return Outcome::kReset;
  note_tls_failure(net::failure_text(link.wire.transport.failure()));
  return Outcome::kTlsError;
}

// At most kMaxReadsPerEvent reads per readiness event: a response that never ends (an endless
// body, 1xx responses without end) must not hold the loop, where timeouts, the window hand-off and
// stop signals are seen. epoll is level-triggered, so what is left is reported again at once.
//
// TLS: OpenSSL reads one record (at most 16 KiB) from the socket at a time, so after a read into
// the 64 KiB buffer nothing is left inside it that epoll would not report; buffered() says so.
void Worker::read_response(Link& link, Connection& c) {
  for (int reads = 0; reads < kMaxReadsPerEvent; ++reads) {
    const net::Io io = link.wire.transport.read(read_buffer_.data(), read_buffer_.size());
    int64_t now = worker_now();
    if (io.status == net::IoStatus::kWantRead || io.status == net::IoStatus::kWantWrite) {
      // Writable is waited for only while the request is unwritten or TLS asked for it (a
      // level-triggered writable socket would wake the loop at once, forever).
      if (link.http1.request_written()) wait_for(link, io.status);
      return;
    }
    if (io.status == net::IoStatus::kFailed) {
      fail_request(c, lost_outcome(link), now);
      return;
    }
    const size_t n = io.status == net::IoStatus::kOk ? io.bytes : 0;
    if (n > 0) recorder_.window().bytes_in += static_cast<int64_t>(n);
    if (c.stream_body && n > 0) c.stream_body->set_now(now);
    const ReadStep step =
        n == 0 ? link.http1.receive_close(link.wire.transport.closed_without_close_notify())
               : link.http1.receive(read_buffer_.data(), n, now);
    if (step == ReadStep::kCompleteReusable || step == ReadStep::kCompleteNotReusable) {
      // io_uring: the request's bytes left when the loop submitted them, at the end of the turn
      // it was written in; service time and TTFB count from then, as they count from the send
      // with epoll (the turn's wait is the generator's, not the server's).
      c.write_start_ns = std::max(c.write_start_ns, link.wire.transport.sent_ns());
    }
    switch (step) {
      case ReadStep::kNeedMore:
        if (n < read_buffer_.size() && !link.wire.transport.buffered()) return;  // wait for more
        continue;  // the buffer was filled: more may be waiting
      case ReadStep::kCompleteReusable:
        complete_request(c, link.http1.response(), link.http1.first_byte_ns(), now,
                         spec_.send.reuse_connections);
        return;
      case ReadStep::kCompleteNotReusable:
        complete_request(c, link.http1.response(), link.http1.first_byte_ns(), now, false);
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

}  // namespace proofload::engine
