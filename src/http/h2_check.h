// The HTTP/2 pre-flight: before any load with --http2, one connection opens (TLS with ALPN h2
// over https, prior knowledge over http) and waits for the server's SETTINGS, so a server that
// does not speak HTTP/2 stops the run with one line, and its stream limit is known up front.
#pragma once

#include <cstdint>

#include "net/tcp.h"
#include "net/tls.h"

namespace proofload::http {

struct H2Facts {
  uint32_t max_concurrent_streams = UINT32_MAX;  // the server's SETTINGS (UINT32_MAX: no limit)
};

// `tls` null for h2c. Throws UsageError: "the server at 127.0.0.1:8080 answered in HTTP/1.1: it
// does not speak HTTP/2 on this port; without --http2 the run uses HTTP/1.1", no SETTINGS within
// the timeout, or the connect and handshake errors of net::connect_checked.
H2Facts check_h2(const net::Address& address, const net::TlsContext* tls, int64_t timeout_ns);

}  // namespace proofload::http
