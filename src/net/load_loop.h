// The load engine's event loop: EventLoop's interface (add, modify, remove, wait with readiness
// events and a nanosecond deadline) over epoll or, with IoBackend::kUring, over io_uring.
//
// With io_uring, a connected plain-TCP socket the worker hands over (stream()) has its bytes
// received and sent through the ring (UringStreams); sockets that are connecting or speak TLS,
// and the worker's wake-up eventfd, stay in the epoll set, which the ring watches. One
// io_uring_enter per turn then submits the turn's sends and waits for everything. With epoll, it
// is EventLoop and nothing else (stream() does nothing).
//
//   LoadLoop loop(backend, connections);
//   loop.start_on_this_thread();   // on the thread that runs the loop
//   ... connect, then loop.stream(transport, token) once connected (plain TCP)
//   for (const epoll_event& e : loop.wait(deadline)) handle(e);
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/io_backend.h"
#include "net/transport.h"
#include "net/uring_streams.h"

namespace proofload::net {

// The backend a run uses: `asked`, or without it epoll. Measured side by side (README, Numbers),
// io_uring costs no less CPU per request against nginx (the kernel's TCP path is four fifths of
// either), over TLS it costs more (its ring carries no TLS bytes, so the ring and the epoll set
// are both paid for), it holds more memory, and it sends on schedule no better: epoll is the
// default until io_uring measures faster. io_uring asked for and not to be had
// (disabled by sysctl, denied by a seccomp profile, an old kernel) gives epoll, and `note` says
// so in one line; else `note` is left empty. The check runs once a process.
IoBackend choose_io_backend(std::optional<IoBackend> asked, std::string& note);

class LoadLoop {
 public:
  // `streams`: about how many connections the loop will carry (sizes the rings).
  LoadLoop(IoBackend backend, int streams);
  ~LoadLoop();
  LoadLoop(const LoadLoop&) = delete;
  LoadLoop& operator=(const LoadLoop&) = delete;

  // io_uring: makes the ring, which admits only the thread that made it. Before stream() and
  // wait(), on the thread that calls them. Throws std::system_error when it cannot.
  void start_on_this_thread();

  void add(int fd, uint32_t events, uint64_t token) { epoll_.add(fd, events, token); }
  void modify(int fd, uint32_t events, uint64_t token);
  void remove(int fd);
  // A connected socket without TLS: io_uring carries its bytes from now until the transport
  // closes (Transport::read, write and close go through the ring). Nothing with epoll.
  void stream(Transport& transport, uint64_t token);
  std::span<const epoll_event> wait(int64_t deadline_ns);

 private:
  EventLoop epoll_;
  IoBackend backend_;
  int streams_hint_;
  std::unique_ptr<UringStreams> uring_;
  bool epoll_pending_ = true;  // the epoll set may have events: look without blocking
  std::vector<epoll_event> events_;
};

}  // namespace proofload::net
