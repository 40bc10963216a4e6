// TCP plumbing shared by the load engine and the built-in server: resolving the target once,
// non-blocking connects, the pre-flight check, and the file-descriptor limit. Thread-safe (no
// shared state).
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

namespace proofload::net {

struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;
  std::string text;  // "127.0.0.1:8080", for messages
};

// Resolves host:port (numeric or by name). Throws UsageError ("cannot resolve host 'x': ...").
Address resolve(const std::string& host, uint16_t port);

// A local address to bind connections to, from its numeric text ("127.0.0.2", "::1"); its text
// is the address alone. Throws UsageError when the text is not a numeric IP address. Whether it
// is an address of this machine shows at the first bind (check_reachable with a source).
Address local_address(const std::string& text);

// Opens a non-blocking TCP socket with TCP_NODELAY and starts connecting. With `source`, the
// socket is bound to that local address first (its port is ignored: the kernel picks one at the
// connect, per destination, so one source can hold as many connections as without binding);
// a source that is not an address of this machine fails with -EADDRNOTAVAIL before anything is
// sent. Returns the fd (>= 0) with the connect in progress or done, or -errno when it failed at
// once.
int start_connect(const Address& address, const Address* source = nullptr);

// For an fd whose connect was in progress and is now writable: 0 if connected, else the errno.
int finish_connect(int fd);

// Blocking check before any load is sent: connects once within timeout_ns and closes.
// Throws UsageError ("cannot connect to 127.0.0.1:1: Connection refused"). With `source`, from
// that local address ("cannot connect from 10.9.9.9: it is not an address of this machine").
void check_reachable(const Address& address, int64_t timeout_ns,
                     const Address* source = nullptr);

// Raises the soft RLIMIT_NOFILE towards `wanted` (never past the hard limit); returns the soft
// limit it ends at, which is below `wanted` only when the hard limit is.
int64_t raise_fd_limit(int64_t wanted);

// raise_fd_limit, and a UsageError saying how many can be opened when `needed` do not fit.
void ensure_fd_limit(int64_t needed);

}  // namespace proofload::net
