// One blocking HTTP/1.1 exchange on a fresh connection, every wait (connect, send, each read) a
// poll() against one deadline for the whole exchange. For the few requests around a load that must
// not hang: the ladder's pre-check and drain gate, status probes, the Prometheus observer's
// scrapes; never the load itself (the engine's). The caller words the failures: a report and an
// observer's gap say them differently. Thread-safe (no shared state).
#pragma once

#include <sys/socket.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "http/response_parser.h"
#include "net/tls.h"

namespace proofload::http {

struct SocketAddress {
  sockaddr_storage storage{};
  socklen_t length = 0;
};

// Every address `host` names (a numeric one without a lookup, in order). Resolving has no
// timeout of ours, so it is done once, before the exchanges. Throws UsageError
// "cannot resolve host 'x': reason".
std::vector<SocketAddress> resolve_addresses(const std::string& host, uint16_t port);

struct Exchange {
  enum class Failure {
    kNone,
    kSocket,       // no socket (error_number)
    kConnect,      // every address refused or failed (error_number: the last one's)
    kTimedOut,     // the deadline passed (stage says while doing what)
    kPoll,         // poll failed (error_number)
    kSend,         // send failed (error_number)
    kRead,         // recv failed (error_number)
    kBadResponse,  // the parser refused the bytes (parser.error_reason())
    kClosed,       // the peer closed before the response was complete
    kOversized,    // more than ExchangeLimits::max_bytes arrived before it was
    kTls,          // https: the handshake (or TLS later) failed (tls_reason says why)
    kCancelled,    // ExchangeLimits::cancel was set (a stop signal) while it waited
  };
  // kWaiting: no byte yet. kHandshaking: https, connected, TLS under way.
  enum class Stage { kConnecting, kHandshaking, kSending, kWaiting, kReading };

  Failure failure = Failure::kNone;
  Stage stage = Stage::kConnecting;
  int error_number = 0;
  int64_t bytes_read = 0;
  std::string tls_reason;  // kTls: "certificate verify failed: ...", one line
  bool ok() const { return failure == Failure::kNone; }
};

struct ExchangeLimits {
  int64_t max_bytes = std::numeric_limits<int64_t>::max();
  // Ends the exchange as a success before the response is complete once this says so (the
  // status is known and the body is not wanted; enough of the body is in).
  std::function<bool(const ResponseParser&)> enough;
  // When set (a command's stop signal), every wait ends within kCancelCheckNs of it.
  const std::atomic<bool>* cancel = nullptr;
};

// How often a wait looks at ExchangeLimits::cancel: a Ctrl-C is heard within this.
constexpr int64_t kCancelCheckNs = 50'000'000;

// Connects to the first of `addresses` that accepts, (https: handshakes with `tls`), sends
// `request`, and feeds what comes back to `parser` (started by the caller, with the capture it
// wants) until a response is complete, `limits.enough` holds, or something fails.
Exchange exchange(std::span<const SocketAddress> addresses, std::string_view request,
                  ResponseParser& parser, int64_t deadline_ns, const ExchangeLimits& limits = {},
                  const net::TlsContext* tls = nullptr);

}  // namespace proofload::http
