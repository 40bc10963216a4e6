#include "http/h2_check.h"

#include <string>

#include "common/clock.h"
#include "common/usage_error.h"
#include "http/h2_session.h"
#include "net/transport.h"

namespace proofload::http {

H2Facts check_h2(const net::Address& address, const net::TlsContext* tls, int64_t timeout_ns) {
  const int64_t deadline = monotonic_ns() + timeout_ns;
  net::Transport t = net::connect_checked(address, tls, deadline);
  const std::string hint = "; without --http2 the run uses HTTP/1.1";
  if (tls != nullptr && t.alpn() != "h2") {
    throw UsageError("the server at " + address.text + " did not agree to HTTP/2 in ALPN" +
                     (t.alpn().empty() ? "" : " (it chose " + std::string(t.alpn()) + ")") + hint);
  }
  H2Session session;
  char buffer[16 * 1024];
  while (!session.settings_received()) {
    net::Io io{net::IoStatus::kOk, 0};
    for (std::string_view out = session.output(); !out.empty(); out = session.output()) {
      io = t.write(out.data(), out.size());
      if (io.status != net::IoStatus::kOk) break;
      session.wrote(io.bytes);
    }
    if (io.status == net::IoStatus::kOk) io = t.read(buffer, sizeof buffer);
    if (io.status == net::IoStatus::kOk) {
      if (!session.receive(buffer, io.bytes, monotonic_ns())) {
        throw UsageError("the server at " + address.text + ": " + session.error() + hint);
      }
      continue;
    }
    if (io.status == net::IoStatus::kClosed || io.status == net::IoStatus::kFailed) {
      throw UsageError("the server at " + address.text +
                       " closed the connection instead of answering the HTTP/2 preface" + hint);
    }
    if (!net::wait_until(t, io.status, deadline)) {
      throw UsageError("the server at " + address.text +
                       " sent no HTTP/2 SETTINGS within the connect timeout" + hint);
    }
  }
  return {session.max_concurrent_streams()};
}

}  // namespace proofload::http
