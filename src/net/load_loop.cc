// The load engine's loop over epoll or io_uring: see load_loop.h.
#include "net/load_loop.h"

namespace proofload::net {

IoBackend choose_io_backend(std::optional<IoBackend> asked, std::string& note) {
  if (asked.value_or(IoBackend::kEpoll) == IoBackend::kEpoll) return IoBackend::kEpoll;
  static const std::string unavailable = uring_unavailable_reason();
  if (unavailable.empty()) return IoBackend::kUring;
  note = "io_uring cannot be used here (" + unavailable + "): using epoll";
  return IoBackend::kEpoll;
}

LoadLoop::LoadLoop(IoBackend backend, int streams) : backend_(backend), streams_hint_(streams) {}

// The transports, closed before their loop, have detached from the ring.
LoadLoop::~LoadLoop() = default;

void LoadLoop::start_on_this_thread() {
  if (backend_ == IoBackend::kUring && !uring_) {
    uring_ = std::make_unique<UringStreams>(epoll_.fd(), streams_hint_);
    events_.reserve(static_cast<size_t>(streams_hint_) + 256);
  }
}

void LoadLoop::modify(int fd, uint32_t events, uint64_t token) {
  if (uring_ && uring_->attached(fd)) {
    uring_->want_write(fd, (events & EPOLLOUT) != 0);
    return;
  }
  epoll_.modify(fd, events, token);
}

void LoadLoop::remove(int fd) {
  if (uring_ && uring_->attached(fd)) return;  // Transport::close detaches it
  epoll_.remove(fd);
}

void LoadLoop::stream(Transport& transport, uint64_t token) {
  if (!uring_ || transport.tls()) return;
  epoll_.remove(transport.fd());
  uring_->attach(transport.fd(), token);
  transport.stream_through(uring_.get());
}

std::span<const epoll_event> LoadLoop::wait(int64_t deadline_ns) {
  if (!uring_) return epoll_.wait(deadline_ns);
  events_.clear();
  // The ring wakes when the epoll set becomes readable; what epoll still holds after a look (it
  // is level-triggered, and a wake-up is not repeated for it) is looked for on the next turn
  // without blocking.
  const bool look = epoll_pending_;
  if (uring_->wait(deadline_ns, look, events_) || look) {
    const std::span<const epoll_event> ready = epoll_.wait(0);
    events_.insert(events_.end(), ready.begin(), ready.end());
    epoll_pending_ = !ready.empty();
  }
  return events_;
}

}  // namespace proofload::net
