// A connection's byte stream, plain or TLS (see transport.h).
#include "net/transport.h"

#include <openssl/err.h>
#include <openssl/x509.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/uring_streams.h"

namespace proofload::net {

std::string failure_text(const TransportFailure& failure) {
  if (failure.verify_result != X509_V_OK) {
    return std::string("certificate verify failed: ") +
           X509_verify_cert_error_string(failure.verify_result);
  }
  if (failure.tls_error != 0) {
    const char* reason = ERR_reason_error_string(failure.tls_error);
    std::string text =
        reason != nullptr ? reason : "TLS error " + std::to_string(failure.tls_error);
    if (ERR_GET_REASON(failure.tls_error) == SSL_R_WRONG_VERSION_NUMBER ||
        ERR_GET_REASON(failure.tls_error) == SSL_R_PACKET_LENGTH_TOO_LONG) {
      text += " (is the server speaking TLS on this port?)";
    }
    return text;
  }
  if (failure.eof) return "connection closed during the TLS handshake";
  if (failure.error_number != 0) return std::strerror(failure.error_number);
  return "unknown failure";
}

int Transport::connect(const Address& address, const Address* source) {
  close();
  failure_ = {};
  closed_without_close_notify_ = false;
  const int fd = start_connect(address, source);
  if (fd < 0) {
    failure_.error_number = -fd;
    return fd;
  }
  fd_ = fd;
  return 0;
}

void Transport::adopt(int fd) {
  close();
  failure_ = {};
  closed_without_close_notify_ = false;
  fd_ = fd;
}

int Transport::finish_connect() {
  const int error = net::finish_connect(fd_);
  failure_.error_number = error;
  return error;
}

void Transport::begin_tls(const TlsContext& context, TlsSessionCache* cache) {
  ssl_ = SSL_new(context.get());
  if (ssl_ == nullptr) throw std::bad_alloc();
  SSL_set_fd(ssl_, fd_);
  SSL_set_connect_state(ssl_);
  if (!context.name_is_ip()) SSL_set_tlsext_host_name(ssl_, context.verify_name().c_str());
  if (context.options().verify) {
    X509_VERIFY_PARAM* param = SSL_get0_param(ssl_);
    if (context.name_is_ip()) {
      X509_VERIFY_PARAM_set1_ip_asc(param, context.verify_name().c_str());
    } else {
      SSL_set1_host(ssl_, context.verify_name().c_str());
    }
  }
  if (cache != nullptr) {
    TlsSessionCache::attach(ssl_, cache);
    if (cache->session() != nullptr) SSL_set_session(ssl_, cache->session());
  }
}

Io Transport::handshake() {
  ERR_clear_error();
  const int ret = SSL_do_handshake(ssl_);
  if (ret == 1) return {IoStatus::kOk};
  return tls_result(ret, true);
}

bool Transport::resumed() const { return ssl_ != nullptr && SSL_session_reused(ssl_) == 1; }

int Transport::tls_version() const { return ssl_ != nullptr ? SSL_version(ssl_) : 0; }

std::string_view Transport::alpn() const {
  if (ssl_ == nullptr) return {};
  const unsigned char* data = nullptr;
  unsigned length = 0;
  SSL_get0_alpn_selected(ssl_, &data, &length);
  return {reinterpret_cast<const char*>(data), length};
}

Io Transport::read(char* buffer, size_t size) {
  if (streams_ != nullptr) return streams_->read(fd_, buffer, size, failure_.error_number);
  if (ssl_ == nullptr) {
    for (;;) {
      const ssize_t n = recv(fd_, buffer, size, 0);
      if (n > 0) return {IoStatus::kOk, static_cast<size_t>(n)};
      if (n == 0) return {IoStatus::kClosed};
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return {IoStatus::kWantRead};
      failure_.error_number = errno;
      return {IoStatus::kFailed};
    }
  }
  size_t n = 0;
  const int ret = SSL_read_ex(ssl_, buffer, size, &n);
  if (ret == 1) return {IoStatus::kOk, n};
  return tls_result(0, false);
}

int64_t Transport::sent_ns() const { return streams_ != nullptr ? streams_->sent_ns(fd_) : 0; }

Io Transport::write(const char* data, size_t size) {
  if (streams_ != nullptr) return streams_->write(fd_, data, size, failure_.error_number);
  if (ssl_ == nullptr) {
    for (;;) {
      const ssize_t n = send(fd_, data, size, MSG_NOSIGNAL);
      if (n > 0) return {IoStatus::kOk, static_cast<size_t>(n)};
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {IoStatus::kWantWrite};
      failure_.error_number = n < 0 ? errno : EPIPE;
      return {IoStatus::kFailed};
    }
  }
  size_t n = 0;
  const int ret = SSL_write_ex(ssl_, data, size, &n);
  if (ret == 1) return {IoStatus::kOk, n};
  return tls_result(0, false);
}

// What SSL_get_error says about a call that did not succeed. The thread's error queue is left
// empty, as the next call on any connection of this thread needs it.
Io Transport::tls_result(int ret, bool handshaking) {
  const int saved_errno = errno;
  const int error = SSL_get_error(ssl_, ret);
  switch (error) {
    case SSL_ERROR_WANT_READ:
      return {IoStatus::kWantRead};
    case SSL_ERROR_WANT_WRITE:
      return {IoStatus::kWantWrite};
    case SSL_ERROR_ZERO_RETURN:  // close_notify
      ERR_clear_error();
      if (!handshaking) return {IoStatus::kClosed};
      failure_.eof = true;
      return {IoStatus::kFailed};
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      if (saved_errno == 0 || saved_errno == EPIPE) {
        if (!handshaking) {
          closed_without_close_notify_ = true;  // OpenSSL before 3.0's word for a bare FIN
          return {IoStatus::kClosed};
        }
        failure_.eof = true;
      } else {
        failure_.error_number = saved_errno;
      }
      return {IoStatus::kFailed};
    default:
      // OpenSSL 3: a bare FIN. After the handshake, an end of stream all the same: the caller
      // asks whether the body it ends was delimited by it (closed_without_close_notify).
      if (ERR_GET_LIB(ERR_peek_error()) == ERR_LIB_SSL &&
          ERR_GET_REASON(ERR_peek_error()) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        ERR_clear_error();
        if (handshaking) {
          failure_.eof = true;
          return {IoStatus::kFailed};
        }
        closed_without_close_notify_ = true;
        return {IoStatus::kClosed};
      }
      failure_.tls_error = ERR_peek_error();
      if (handshaking) {
        // Without verification (--insecure) OpenSSL still records what it would have found (a
        // self-signed certificate): a handshake the server refused later is not a verify failure.
        const long verify = SSL_get_verify_result(ssl_);
        if (verify != X509_V_OK && (SSL_get_verify_mode(ssl_) & SSL_VERIFY_PEER) != 0) {
          failure_.verify_result = verify;
        }
      }
      ERR_clear_error();
      return {IoStatus::kFailed};
  }
}

void Transport::close() {
  if (ssl_ != nullptr) {
    // OpenSSL invalidates the session of a connection freed without a shutdown (its tickets
    // could no longer resume). A close that followed no TLS error is a good end: marked as shut
    // down (no close_notify is written: a write the server would not wait for), the session
    // kept in the worker's cache stays resumable.
    if (!failure_.tls()) SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN);
    SSL_free(ssl_);
    ssl_ = nullptr;
  }
  if (streams_ != nullptr) {
    streams_->detach(fd_);
    streams_ = nullptr;
  }
  if (fd_ >= 0) ::close(fd_);  // closing removes it from epoll
  fd_ = -1;
}

namespace {

// Whether OpenSSL's error is the alert of a server that wanted a (different) client certificate.
// A handshake_failure alert says so once the handshake is done (TLS 1.3's judgement after it), or
// when the server had asked for a certificate in it (TLS 1.2's); otherwise it may mean no cipher
// in common.
bool client_certificate_refused(unsigned long error, bool after_handshake_or_asked) {
  if (ERR_GET_LIB(error) != ERR_LIB_SSL) return false;
  switch (ERR_GET_REASON(error)) {
    case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
      return true;
    case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
      return after_handshake_or_asked;
    default:
      return false;
  }
}

[[noreturn]] void refuse_client_certificate(const Address& address, const TlsContext& context,
                                            const TransportFailure& failure) {
  if (context.options().cert_file.empty()) {
    throw UsageError("TLS with " + address.text + ": the server requires a client certificate (" +
                     failure_text(failure) + "); give one with --cert and --key");
  }
  throw UsageError("TLS with " + address.text + ": the server refused the client certificate " +
                   context.options().cert_file + " (" + failure_text(failure) + "); check --cert");
}

}  // namespace

bool wait_until(const Transport& t, IoStatus want, int64_t deadline_ns) {
  const int64_t left_ms = (deadline_ns - monotonic_ns()) / kNsPerMs;
  if (left_ms <= 0) return false;
  pollfd p{t.fd(), static_cast<short>(want == IoStatus::kWantWrite ? POLLOUT : POLLIN), 0};
  int ready;
  do {
    ready = poll(&p, 1, static_cast<int>(left_ms));
  } while (ready < 0 && errno == EINTR);
  return ready > 0;
}

Transport connect_checked(const Address& address, const TlsContext* tls, int64_t deadline_ns) {
  Transport t;
  int error = t.connect(address) != 0 ? t.failure().error_number : 0;
  if (error == 0) {
    error = !wait_until(t, IoStatus::kWantWrite, deadline_ns) ? ETIMEDOUT : t.finish_connect();
  }
  if (error != 0) {
    throw UsageError("cannot connect to " + address.text + ": " + std::strerror(error));
  }
  if (tls == nullptr) return t;
  t.begin_tls(*tls, nullptr);
  for (;;) {
    const Io io = t.handshake();
    if (io.status == IoStatus::kOk) return t;
    if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
      if (wait_until(t, io.status, deadline_ns)) continue;
      throw UsageError("TLS handshake with " + address.text + " did not finish within the " +
                       "connect timeout");
    }
    if (t.failure().verify_result != X509_V_OK) {
      throw UsageError(failure_text(t.failure()) + "; use --cacert or --insecure");
    }
    if (client_certificate_refused(t.failure().tls_error, t.certificate_requested())) {
      refuse_client_certificate(address, *tls, t.failure());
    }
    throw UsageError("TLS handshake with " + address.text +
                     " failed: " + failure_text(t.failure()));
  }
}

namespace {

// TLS 1.3 asks for a client certificate inside the handshake but judges it after: the client's
// handshake has finished when a server that requires one sends its alert. One exchange shows it:
// the HTTP/2 preface (ALPN h2) or `OPTIONS *` (no resource touched) is written and the first
// bytes read. Bytes, an end or no answer pass; only a TLS failure stops. The alert comes a
// round trip after the handshake, so a server slow to answer is waited for a second at most.
void exchange_once(Transport& t, const Address& address, const TlsContext& context,
                   int64_t deadline_ns) {
  deadline_ns = std::min(deadline_ns, monotonic_ns() + kNsPerS);
  static constexpr std::string_view kH2Preface{
      "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00", 33};
  const std::string http1 =
      "OPTIONS * HTTP/1.1\r\nHost: " + address.text + "\r\nConnection: close\r\n\r\n";
  const std::string_view hello = t.alpn() == "h2" ? kH2Preface : std::string_view(http1);
  size_t written = 0;
  char buffer[4096];
  for (;;) {
    const bool writing = written < hello.size();
    const Io io = writing ? t.write(hello.data() + written, hello.size() - written)
                          : t.read(buffer, sizeof buffer);
    if (io.status == IoStatus::kOk) {
      if (!writing) return;  // the server answered: the connection carries requests
      written += io.bytes;
      continue;
    }
    if (io.status == IoStatus::kWantRead || io.status == IoStatus::kWantWrite) {
      if (!wait_until(t, io.status, deadline_ns)) return;  // no answer in time: not judged here
      continue;
    }
    if (io.status == IoStatus::kFailed &&
        client_certificate_refused(t.failure().tls_error, /*after_handshake_or_asked=*/true)) {
      refuse_client_certificate(address, context, t.failure());
    }
    return;
  }
}

}  // namespace

TlsFacts check_tls_handshake(const Address& address, const TlsContext& context,
                             int64_t timeout_ns) {
  const int64_t deadline_ns = monotonic_ns() + timeout_ns;
  Transport t = connect_checked(address, &context, deadline_ns);
  exchange_once(t, address, context, deadline_ns);
  return {tls_version_name(t.tls_version()), std::string(t.alpn())};
}

}  // namespace proofload::net
