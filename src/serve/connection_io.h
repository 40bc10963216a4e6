// How the built-in server reads and writes a connection: the socket itself, or TLS over it
// (--tls-cert/--tls-key, --tls-self-signed). The plain path is the syscall it always was.
#pragma once

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <optional>

namespace proofload::serve {

struct Connection;

// Reads into `buffer`: the bytes read (> 0), 0 at the end of the stream, or -1 with errno set
// (EAGAIN: nothing now). TLS reads one record at most (16 KiB), so a buffer of that size leaves
// nothing inside OpenSSL that epoll would not report.
ssize_t read_from(Connection& c, char* buffer, size_t size);

// Writes what the socket takes of `iov`: the bytes written (> 0), or -1 with errno (EAGAIN:
// none now). A short count means the socket buffer is full.
ssize_t write_to(Connection& c, const iovec* iov, size_t count);

enum class Wait { kNone, kRead, kWrite };

// TLS: advances the handshake. kNone: done; kRead/kWrite: wait for that; nullopt: it failed
// (the connection is to be closed).
std::optional<Wait> continue_handshake(Connection& c);

// TLS: sends close_notify (once, without waiting for the client's) before the write side is
// shut; nothing for a plain connection.
void send_close_notify(Connection& c);

// Frees the connection's TLS state, if any.
void end_tls(Connection& c);

}  // namespace proofload::serve
