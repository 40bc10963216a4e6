// See connection_io.h.
#include "serve/connection_io.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <cerrno>

#include "serve/connection.h"

namespace proofload::serve {
namespace {

// A failed TLS call as errno: EAGAIN when it only has to wait, else ECONNRESET (the connection
// is closed either way). The thread's error queue is left empty for the next connection.
ssize_t tls_failure(Connection& c, int ret) {
  const int error = SSL_get_error(c.ssl, ret);
  ERR_clear_error();
  if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
    errno = EAGAIN;
    return -1;
  }
  errno = ECONNRESET;
  return -1;
}

}  // namespace

ssize_t read_from(Connection& c, char* buffer, size_t size) {
  if (c.ssl == nullptr) return recv(c.fd, buffer, size, 0);
  size_t n = 0;
  const int ret = SSL_read_ex(c.ssl, buffer, size, &n);
  if (ret == 1) return static_cast<ssize_t>(n);
  const int error = SSL_get_error(c.ssl, ret);
  if (error == SSL_ERROR_ZERO_RETURN ||
      (error == SSL_ERROR_SYSCALL && errno == 0)) {  // close_notify, or a bare EOF
    ERR_clear_error();
    return 0;
  }
  return tls_failure(c, ret);
}

ssize_t write_to(Connection& c, const iovec* iov, size_t count) {
  if (c.ssl == nullptr) {
    msghdr message{};
    message.msg_iov = const_cast<iovec*>(iov);
    message.msg_iovlen = count;
    return sendmsg(c.fd, &message, MSG_NOSIGNAL | MSG_DONTWAIT);
  }
  // One record per part: OpenSSL has no gather write. Stops at the first part not taken whole.
  ssize_t total = 0;
  for (size_t i = 0; i < count; ++i) {
    size_t n = 0;
    const int ret = SSL_write_ex(c.ssl, iov[i].iov_base, iov[i].iov_len, &n);
    if (ret != 1) {
      if (total > 0) {
        ERR_clear_error();
        return total;
      }
      return tls_failure(c, ret);
    }
    total += static_cast<ssize_t>(n);
    if (n < iov[i].iov_len) break;
  }
  return total;
}

std::optional<Wait> continue_handshake(Connection& c) {
  const int ret = SSL_do_handshake(c.ssl);
  if (ret == 1) {
    c.handshaking = false;
    return Wait::kNone;
  }
  const int error = SSL_get_error(c.ssl, ret);
  ERR_clear_error();
  if (error == SSL_ERROR_WANT_READ) return Wait::kRead;
  if (error == SSL_ERROR_WANT_WRITE) return Wait::kWrite;
  return std::nullopt;
}

void send_close_notify(Connection& c) {
  if (c.ssl == nullptr || c.handshaking) return;
  SSL_shutdown(c.ssl);
  ERR_clear_error();
}

void end_tls(Connection& c) {
  if (c.ssl == nullptr) return;
  SSL_free(c.ssl);
  c.ssl = nullptr;
  c.handshaking = false;
}

}  // namespace proofload::serve
