// A wire's connect and TLS handshake: the start of every link's life, whatever its protocol
// (worker_link.cc says what follows). See worker.h. Not the per-request path: once per
// connection.
#include "common/clock.h"
#include "engine/worker.h"

namespace proofload::engine {

bool Worker::dial(Wire& w, const net::Address& to, uint64_t token, int64_t now) {
  w.connect_start_ns = now;
  if (w.transport.connect(to, source_) != 0) return false;
  w.want_epollout = true;
  loop_.add(w.transport.fd(), EPOLLOUT, token);
  return true;
}

Worker::WireStep Worker::on_wire_connected(Wire& w, uint64_t token, int64_t now) {
  measure::WindowStats& window = recorder_.window();
  ++window.connects;
  window.connection.connect_us.record(micros_of(now - w.connect_start_ns));
  if (spec_.tls) {
    w.handshake_start_ns = now;
    w.transport.begin_tls(*spec_.tls, spec_.tls->options().resume ? &tls_sessions_ : nullptr);
    return advance_wire_handshake(w, token, now);
  }
  loop_.stream(w.transport, token);  // with io_uring, its bytes go through the ring
  return WireStep::kOpen;
}

Worker::WireStep Worker::advance_wire_handshake(Wire& w, uint64_t token, int64_t now) {
  const net::Io io = w.transport.handshake();
  switch (io.status) {
    case net::IoStatus::kOk: {
      measure::ConnectionTimes& times = recorder_.window().connection;
      times.handshake_us.record(micros_of(now - w.handshake_start_ns));
      ++times.handshakes;
      if (w.transport.resumed()) ++times.resumed;
      return WireStep::kOpen;
    }
    case net::IoStatus::kWantRead:
    case net::IoStatus::kWantWrite:
      set_wire_epollout(w, token, io.status == net::IoStatus::kWantWrite);
      return WireStep::kWaiting;
    case net::IoStatus::kClosed:
    case net::IoStatus::kFailed:
      note_tls_failure(net::failure_text(w.transport.failure()));
      tls_sessions_.clear();  // a session the server chokes on is not offered again
      return WireStep::kFailed;
  }
  return WireStep::kFailed;
}

measure::Outcome Worker::wire_timed_out(bool handshaking) {
  if (!handshaking) return measure::Outcome::kConnectError;
  note_tls_failure("the TLS handshake did not finish within the connect timeout");
  return measure::Outcome::kTlsError;
}

}  // namespace proofload::engine
