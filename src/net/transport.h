// One client connection's byte stream: a non-blocking TCP socket, with TLS over it when the
// target is https (in the spirit of wrk's `sock` table: connect, handshake, read, write, close,
// each saying whether it must wait for the socket to be readable or writable).
//
//   Transport t;
//   t.connect(address);                 // then wait for writable
//   t.finish_connect();                 // 0: connected
//   t.begin_tls(context, &cache);       // https only
//   t.handshake();                      // kOk, or wait as it says and call again
//   t.write(...); t.read(...);          // kOk with bytes, or wait as it says
//
// The plain path is a branch, not a virtual call: it is the load's hot path (one send and one
// recv per request, as before the seam). No allocation after the handshake. Not thread-safe: a
// connection belongs to one worker.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "net/tcp.h"
#include "net/tls.h"

namespace proofload::net {

class UringStreams;

enum class IoStatus : uint8_t {
  kOk,         // done (read/write: `bytes` moved, > 0)
  kWantRead,   // wait until the socket is readable, then call again
  kWantWrite,  // wait until the socket is writable, then call again
  kClosed,     // the peer ended the stream (read: EOF or TLS close_notify)
  kFailed,     // reset, or a TLS error: failure() says what
};

struct Io {
  IoStatus status;
  size_t bytes = 0;
};

// Why the last handshake, read or write failed. Kept as codes (no allocation when it happens);
// failure_text() words it.
struct TransportFailure {
  int error_number = 0;         // a system call's errno (0 if none)
  unsigned long tls_error = 0;  // the first OpenSSL error code (0 if none)
  long verify_result = 0;       // X509_V_OK unless the certificate was refused
  bool eof = false;             // the peer closed during the handshake
  bool tls() const { return tls_error != 0 || verify_result != 0; }
};

// One line: "certificate verify failed: self-signed certificate", "wrong version number (is the
// server speaking TLS?)", "connection closed during the TLS handshake", "Connection reset by peer".
std::string failure_text(const TransportFailure& failure);

class Transport {
 public:
  Transport() = default;
  ~Transport() { close(); }
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;
  // Movable (a pool of connections is sized once, before any is opened).
  Transport(Transport&& other) noexcept
      : fd_(std::exchange(other.fd_, -1)),
        ssl_(std::exchange(other.ssl_, nullptr)),
        streams_(std::exchange(other.streams_, nullptr)),
        failure_(other.failure_),
        closed_without_close_notify_(other.closed_without_close_notify_) {}
  Transport& operator=(Transport&& other) noexcept {
    if (this != &other) {
      close();
      fd_ = std::exchange(other.fd_, -1);
      ssl_ = std::exchange(other.ssl_, nullptr);
      streams_ = std::exchange(other.streams_, nullptr);
      failure_ = other.failure_;
      closed_without_close_notify_ = other.closed_without_close_notify_;
    }
    return *this;
  }

  int fd() const { return fd_; }
  bool is_open() const { return fd_ >= 0; }
  bool tls() const { return ssl_ != nullptr; }

  // Starts a TCP connect (start_connect), from the local address `source` when given: 0 when in
  // progress or done, else -errno.
  int connect(const Address& address, const Address* source = nullptr);
  // After the socket became writable: 0 when connected, else the errno.
  int finish_connect();
  // Takes a socket connected elsewhere (owned from now on; non-blocking for the load's loops):
  // a socketpair's end in fuzz/tls_transport_fuzz.cc, where the server is in the same thread.
  void adopt(int fd);
  // Starts TLS on the connected socket; the session in `cache` is offered, and new ones stored
  // there (nullptr: no resumption).
  void begin_tls(const TlsContext& context, TlsSessionCache* cache);
  // Advances the handshake: kOk when done; kWantRead / kWantWrite; kFailed.
  Io handshake();
  // The handshake resumed an earlier session; the version and ALPN protocol it agreed.
  bool resumed() const;
  int tls_version() const;
  std::string_view alpn() const;

  // A plain connected socket's bytes go through `streams` (LoadLoop's io_uring) from now until
  // close(), which detaches it.
  void stream_through(UringStreams* streams) { streams_ = streams; }

  Io read(char* buffer, size_t size);
  // TLS: decrypted bytes are waiting inside OpenSSL (epoll cannot see them).
  bool buffered() const { return ssl_ != nullptr && SSL_has_pending(ssl_) == 1; }
  Io write(const char* data, size_t size);
  // Streamed through io_uring: when the written bytes were last handed to the kernel (they wait
  // for the end of the loop's turn); 0 otherwise (a write sends at once).
  int64_t sent_ns() const;
  // Closes the socket (and frees the TLS state) at once; no close_notify is sent (the load does
  // not wait for one, and the server gets the FIN).
  void close();

  const TransportFailure& failure() const { return failure_; }
  // TLS: the last read's end of stream was a bare FIN, without the server's close_notify. The
  // HTTP framing says whether that matters: a body delimited by the close may have been cut (an
  // attacker or a proxy can end it anywhere), one with a length or chunks is checked anyway.
  bool closed_without_close_notify() const { return closed_without_close_notify_; }
  // TLS: the server asked for a client certificate in the handshake (a CertificateRequest: OpenSSL
  // keeps its CA names, an empty list too, on the client only when one came).
  bool certificate_requested() const {
    return ssl_ != nullptr && SSL_get_client_CA_list(ssl_) != nullptr;
  }

 private:
  Io tls_result(int ret, bool handshaking);

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  UringStreams* streams_ = nullptr;  // stream_through
  TransportFailure failure_;
  bool closed_without_close_notify_ = false;
};

// What a finished handshake agreed.
struct TlsFacts {
  std::string version;  // "TLSv1.3"
  std::string alpn;     // "http/1.1", "h2", or "" when the server chose none
};

// Blocking check before any load is sent: connects and handshakes once within timeout_ns, then
// closes. Throws UsageError with one line: "certificate verify failed: self-signed certificate;
// use --cacert or --insecure", "TLS handshake with 127.0.0.1:8443 failed: wrong version number
// (is the server speaking TLS on this port?)", or check_reachable's "cannot connect to ...".
TlsFacts check_tls_handshake(const Address& address, const TlsContext& context, int64_t timeout_ns);

// For the blocking checks before any load: waits (poll) until `t` can go on as `want` says;
// false when the deadline (monotonic ns) passed first.
bool wait_until(const Transport& t, IoStatus want, int64_t deadline_ns);
// Connects (and with `tls`, handshakes) before the deadline, or throws UsageError with
// check_tls_handshake's one line.
Transport connect_checked(const Address& address, const TlsContext* tls, int64_t deadline_ns);

}  // namespace proofload::net
