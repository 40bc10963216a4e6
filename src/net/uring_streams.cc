// The io_uring data path: see uring_streams.h.
#include "net/uring_streams.h"

#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include "common/clock.h"
#include "net/event_loop.h"

namespace proofload::net {
namespace {

constexpr uint16_t kBufferGroup = 0;
// What a completion is of, in user_data's top byte; then 24 bits of the socket's generation and
// 32 of its fd.
enum Kind : uint64_t { kReceive = 1, kSend = 2, kEpollPoll = 3, kCancel = 4 };
constexpr uint32_t kGenerationMask = 0xffffff;

Kind kind_of(uint64_t user_data) { return static_cast<Kind>(user_data >> 56); }
uint32_t generation_of(uint64_t user_data) {
  return static_cast<uint32_t>(user_data >> 32) & kGenerationMask;
}
int fd_of(uint64_t user_data) { return static_cast<int>(user_data & 0xffffffff); }

void* map_anonymous(size_t bytes) {
  void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap");
  return memory;
}

}  // namespace

uint64_t UringStreams::user_data(int kind, int fd, uint32_t generation) const {
  return (static_cast<uint64_t>(kind) << 56) |
         (static_cast<uint64_t>(generation & kGenerationMask) << 32) | static_cast<uint32_t>(fd);
}

UringStreams::UringStreams(int epoll_fd, int streams) : epoll_fd_(epoll_fd) {
  const auto wanted = static_cast<unsigned>(std::clamp(streams, 1, 1 << 20));
  // The submission queue holds a turn's sends and receives (two a socket; more are submitted as
  // it fills); completions are a send's and a receive's per request, so the completion queue is
  // four times as deep (the kernel keeps what overflows: IORING_FEAT_NODROP).
  const unsigned entries = std::bit_ceil(std::clamp(2 * wanted + 16, 64u, 16384u));
  io_uring_params params{};
  params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_CQSIZE |
                 IORING_SETUP_SUBMIT_ALL;
  params.cq_entries = entries * 4;
  if (int ret = io_uring_queue_init_params(entries, &ring_, &params); ret < 0) {
    throw std::system_error(-ret, std::generic_category(), "io_uring_setup");
  }
  try {
    // A buffer per streamed socket that has bytes waiting, at least 256 (1 MiB), at most 8192
    // (32 MiB). Pages never written are never resident: a small response touches one page of
    // its buffer. A socket finding the ring dry stops receiving until buffers come back.
    buffer_count_ = std::bit_ceil(std::clamp(wanted, 256u, 8192u));
    buffer_ring_bytes_ = buffer_count_ * sizeof(io_uring_buf);
    buffer_ring_ = static_cast<io_uring_buf_ring*>(map_anonymous(buffer_ring_bytes_));
    buffers_bytes_ = buffer_count_ * kBufferBytes;
    buffers_ = static_cast<char*>(map_anonymous(buffers_bytes_));
    io_uring_buf_reg registration{};
    registration.ring_addr = reinterpret_cast<uint64_t>(buffer_ring_);
    registration.ring_entries = buffer_count_;
    registration.bgid = kBufferGroup;
    if (int ret = io_uring_register_buf_ring(&ring_, &registration, 0); ret < 0) {
      throw std::system_error(-ret, std::generic_category(), "io_uring_register_buf_ring");
    }
    io_uring_buf_ring_init(buffer_ring_);
    const int mask = io_uring_buf_ring_mask(buffer_count_);
    for (uint32_t b = 0; b < buffer_count_; ++b) {
      io_uring_buf_ring_add(buffer_ring_, buffer_data(static_cast<int32_t>(b)), kBufferBytes,
                            static_cast<uint16_t>(b), mask, static_cast<int>(b));
    }
    io_uring_buf_ring_advance(buffer_ring_, static_cast<int>(buffer_count_));
    next_.assign(buffer_count_, -1);
    length_.assign(buffer_count_, 0);
    ready_.reserve(wanted);
    reported_.reserve(wanted);
    to_send_.reserve(wanted);
    arm_epoll_poll();
  } catch (...) {
    if (buffers_ != nullptr) munmap(buffers_, buffers_bytes_);
    if (buffer_ring_ != nullptr) munmap(buffer_ring_, buffer_ring_bytes_);
    io_uring_queue_exit(&ring_);
    throw;
  }
}

UringStreams::~UringStreams() {
  // Every socket has been detached (the transports close before their loop goes); exiting the
  // ring cancels what is left and waits for it, so the buffers are unmapped after.
  io_uring_queue_exit(&ring_);
  munmap(buffers_, buffers_bytes_);
  munmap(buffer_ring_, buffer_ring_bytes_);
}

io_uring_sqe* UringStreams::next_sqe() {
  for (int attempt = 0; attempt < 4; ++attempt) {
    if (io_uring_sqe* sqe = io_uring_get_sqe(&ring_)) return sqe;
    // The queue is full: hand it to the kernel. While completions it had no room for wait
    // (the queue overflowed), it takes no more: they are reaped and set aside first.
    const int ret = io_uring_submit(&ring_);
    if (ret == -EBUSY || ret == -EAGAIN) {
      set_aside_completions();
    } else if (ret < 0 && ret != -EINTR) {
      throw std::system_error(-ret, std::generic_category(), "io_uring_enter");
    }
  }
  throw std::system_error(EBUSY, std::generic_category(),
                          "io_uring: the submission queue stays full");
}

// One completion, taken off the queue before it is handled (handling may reap the queue itself).
bool UringStreams::take_completion(Completion& out) {
  unsigned head = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    out = {cqe->user_data, cqe->res, cqe->flags};
    io_uring_cq_advance(&ring_, 1);
    return true;
  }
  return false;
}

void UringStreams::set_aside_completions() {
  io_uring_get_events(&ring_);  // moves what overflowed into the queue
  unsigned head = 0;
  unsigned seen = 0;
  io_uring_cqe* cqe = nullptr;
  io_uring_for_each_cqe(&ring_, head, cqe) {
    set_aside_.push_back({cqe->user_data, cqe->res, cqe->flags});
    ++seen;
  }
  io_uring_cq_advance(&ring_, seen);
}

void UringStreams::arm_epoll_poll() {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_poll_multishot(sqe, epoll_fd_, POLLIN);
  io_uring_sqe_set_data64(sqe, user_data(kEpollPoll, 0, 0));
  epoll_polled_ = true;
}

void UringStreams::arm_receive(int fd, Stream& s) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_recv_multishot(sqe, fd, nullptr, 0, 0);
  sqe->flags |= IOSQE_BUFFER_SELECT;
  sqe->buf_group = kBufferGroup;
  io_uring_sqe_set_data64(sqe, user_data(kReceive, fd, s.generation));
  s.receiving = true;
}

void UringStreams::attach(int fd, uint64_t token) {
  if (static_cast<size_t>(fd) >= streams_.size()) streams_.resize(static_cast<size_t>(fd) + 1);
  Stream& s = streams_[static_cast<size_t>(fd)];
  s.token = token;
  s.generation = (s.generation + 1) & kGenerationMask;
  s.attached = true;
  s.want_write = false;
  s.starved = false;
  s.eof = false;
  s.error = 0;
  s.first_buffer = s.last_buffer = -1;
  s.first_offset = 0;
  // The kernel reads a send's bytes from in_flight's own allocation: never the short-string
  // buffer inside the Stream, which moves when streams_ grows.
  s.queued.clear();
  s.in_flight.clear();
  s.queued.reserve(32);  // past the short-string size; grows once to a request's size
  s.in_flight.reserve(32);
  s.in_flight_sent = 0;
  s.sent_ns = 0;
  arm_receive(fd, s);
}

void UringStreams::detach(int fd) {
  Stream& s = streams_[static_cast<size_t>(fd)];
  if (s.receiving || s.sending) {
    // Now, before the caller closes the fd, and with the completions' work run (the ring defers
    // it to a wait): a request in flight holds the socket open, and the server must see the
    // close when it happens. A ring that takes nothing more (it failed) leaves the socket open
    // until the loop ends: a close runs in destructors and must not throw.
    try {
      io_uring_sqe* sqe = next_sqe();
      io_uring_prep_cancel_fd(sqe, fd, IORING_ASYNC_CANCEL_ALL);
      io_uring_sqe_set_data64(sqe, user_data(kCancel, fd, s.generation));
      io_uring_submit_and_get_events(&ring_);
    } catch (const std::system_error&) {
    }
  }
  if (s.sending) {
    retired_sends_.emplace_back(user_data(kSend, fd, s.generation), std::move(s.in_flight));
    s.in_flight = std::string();
  }
  for (int32_t b = s.first_buffer; b >= 0;) {
    const int32_t next = next_[static_cast<size_t>(b)];
    give_back(b);
    b = next;
  }
  // `listed` and `send_listed` stay: the lists skip a socket no longer attached, and one
  // attached again with this fd must not be listed twice.
  s.attached = s.receiving = s.sending = s.starved = false;
  s.first_buffer = s.last_buffer = -1;
  s.queued.clear();
}

void UringStreams::want_write(int fd, bool on) {
  Stream& s = streams_[static_cast<size_t>(fd)];
  s.want_write = on;
  if (on) list(fd);
}

Io UringStreams::read(int fd, char* buffer, size_t size, int& error_number) {
  Stream& s = streams_[static_cast<size_t>(fd)];
  size_t copied = 0;
  while (copied < size && s.first_buffer >= 0) {
    const auto b = static_cast<size_t>(s.first_buffer);
    const size_t n = std::min<size_t>(length_[b] - s.first_offset, size - copied);
    std::memcpy(buffer + copied, buffer_data(s.first_buffer) + s.first_offset, n);
    copied += n;
    s.first_offset += static_cast<uint32_t>(n);
    if (s.first_offset == length_[b]) {
      s.first_buffer = next_[b];
      if (s.first_buffer < 0) s.last_buffer = -1;
      s.first_offset = 0;
      give_back(static_cast<int32_t>(b));
    }
  }
  if (copied > 0) return {IoStatus::kOk, copied};
  if (s.error != 0) {
    error_number = s.error;
    return {IoStatus::kFailed};
  }
  return {s.eof ? IoStatus::kClosed : IoStatus::kWantRead};
}

Io UringStreams::write(int fd, const char* data, size_t size, int& error_number) {
  Stream& s = streams_[static_cast<size_t>(fd)];
  if (s.error != 0) {
    error_number = s.error;
    return {IoStatus::kFailed};
  }
  const size_t used = s.queued.size() + s.in_flight.size() - s.in_flight_sent;
  if (used >= kMaxQueuedBytes) return {IoStatus::kWantWrite};
  const size_t n = std::min(size, kMaxQueuedBytes - used);
  s.queued.append(data, n);
  if (!s.send_listed) {
    s.send_listed = true;
    to_send_.push_back(fd);
  }
  return {IoStatus::kOk, n};
}

void UringStreams::send_from(int fd, Stream& s) {
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_send(sqe, fd, s.in_flight.data() + s.in_flight_sent,
                     s.in_flight.size() - s.in_flight_sent, MSG_NOSIGNAL);
  io_uring_sqe_set_data64(sqe, user_data(kSend, fd, s.generation));
  s.sending = true;
  unstamped_.push_back(fd);
}

void UringStreams::submit_sends() {
  for (int fd : to_send_) {
    Stream& s = streams_[static_cast<size_t>(fd)];
    s.send_listed = false;
    if (!s.attached || s.sending || s.queued.empty() || s.error != 0) continue;
    s.in_flight.swap(s.queued);
    s.in_flight_sent = 0;
    send_from(fd, s);
  }
  to_send_.clear();
}

void UringStreams::give_back(int32_t buffer) {
  io_uring_buf_ring_add(buffer_ring_, buffer_data(buffer), kBufferBytes,
                        static_cast<uint16_t>(buffer), io_uring_buf_ring_mask(buffer_count_), 0);
  io_uring_buf_ring_advance(buffer_ring_, 1);
  gave_back_ = true;
}

void UringStreams::list(int fd) {
  Stream& s = streams_[static_cast<size_t>(fd)];
  if (s.listed) return;
  s.listed = true;
  ready_.push_back(fd);
}

uint32_t UringStreams::ready_events(const Stream& s) const {
  uint32_t events = 0;
  if (s.first_buffer >= 0 || s.eof || s.error != 0) events |= EPOLLIN;
  if (s.error != 0) events |= EPOLLERR;
  const size_t used = s.queued.size() + s.in_flight.size() - s.in_flight_sent;
  if (s.want_write && s.error == 0 && used < kMaxQueuedBytes) events |= EPOLLOUT;
  return events;
}

void UringStreams::on_completion(const Completion& cqe, bool& epoll_ready) {
  const uint64_t data = cqe.data;
  const Kind kind = kind_of(data);
  if (kind == kEpollPoll) {
    epoll_ready = true;
    if ((cqe.flags & IORING_CQE_F_MORE) == 0) arm_epoll_poll();
    return;
  }
  if (kind == kCancel) return;
  const int fd = fd_of(data);
  Stream* s =
      static_cast<size_t>(fd) < streams_.size() ? &streams_[static_cast<size_t>(fd)] : nullptr;
  // A completion of a socket since detached (its fd maybe reused): its buffer goes back, its
  // retired send's bytes are freed.
  if (s != nullptr && (!s->attached || s->generation != generation_of(data))) s = nullptr;
  if (kind == kReceive) {
    on_receive(s, fd, cqe);
  } else if (kind == kSend) {
    on_send(s, cqe);
    if (s == nullptr) {
      auto retired = std::find_if(retired_sends_.begin(), retired_sends_.end(),
                                  [&](const auto& r) { return r.first == data; });
      if (retired != retired_sends_.end()) retired_sends_.erase(retired);
    }
  }
}

void UringStreams::on_receive(Stream* s, int fd, const Completion& cqe) {
  const bool has_buffer = (cqe.flags & IORING_CQE_F_BUFFER) != 0;
  const auto buffer = static_cast<int32_t>(cqe.flags >> IORING_CQE_BUFFER_SHIFT);
  if (s == nullptr || cqe.res <= 0) {
    if (has_buffer) give_back(buffer);
  }
  if (s == nullptr) return;
  const bool more = (cqe.flags & IORING_CQE_F_MORE) != 0;
  if (!more) s->receiving = false;
  if (cqe.res > 0 && has_buffer) {
    const auto b = static_cast<size_t>(buffer);
    length_[b] = static_cast<uint32_t>(cqe.res);
    next_[b] = -1;
    if (s->last_buffer >= 0) {
      next_[static_cast<size_t>(s->last_buffer)] = buffer;
    } else {
      s->first_buffer = buffer;
      s->first_offset = 0;
    }
    s->last_buffer = buffer;
    if (!more) arm_receive(fd, *s);  // the kernel ended the multishot (e.g. a full CQ): again
  } else if (cqe.res == 0) {
    s->eof = true;
  } else if (cqe.res == -ENOBUFS) {
    if (!s->starved) starved_.push_back(fd);
    s->starved = true;
  } else if (cqe.res != -ECANCELED) {
    s->error = -cqe.res;
  }
  list(fd);
}

void UringStreams::on_send(Stream* s, const Completion& cqe) {
  if (s == nullptr) return;
  const int fd = fd_of(cqe.data);
  s->sending = false;
  if (cqe.res < 0) {
    s->error = -cqe.res;
    s->in_flight.clear();
    s->in_flight_sent = 0;
    list(fd);
    return;
  }
  s->in_flight_sent += static_cast<size_t>(cqe.res);
  if (s->in_flight_sent < s->in_flight.size()) {
    send_from(fd, *s);  // a short send: the rest
    return;
  }
  s->in_flight.clear();
  s->in_flight_sent = 0;
  if (!s->queued.empty()) {
    s->in_flight.swap(s->queued);
    send_from(fd, *s);
  }
  if (s->want_write) list(fd);  // room in the queue again
}

bool UringStreams::wait(int64_t deadline_ns, bool poll, std::vector<epoll_event>& events) {
  // Level-triggered, as epoll: what was reported and is still ready is reported again.
  for (int fd : reported_) {
    if (attached(fd) && ready_events(streams_[static_cast<size_t>(fd)]) != 0) list(fd);
  }
  reported_.clear();
  if (gave_back_ && !starved_.empty()) {
    for (int fd : starved_) {
      Stream& s = streams_[static_cast<size_t>(fd)];
      if (!s.attached || !s.starved) continue;
      s.starved = false;
      if (!s.receiving && !s.eof && s.error == 0) arm_receive(fd, s);
    }
    starved_.clear();
  }
  gave_back_ = false;
  submit_sends();

  int64_t remaining = 0;
  if (!poll && ready_.empty()) {
    remaining = deadline_ns == EventLoop::kNoDeadline
                    ? -1
                    : std::max<int64_t>(0, deadline_ns - monotonic_ns());
  }
  if (!unstamped_.empty()) {  // the sends go out with this enter: one clock read for all
    const int64_t now = monotonic_ns();
    for (int fd : unstamped_) streams_[static_cast<size_t>(fd)].sent_ns = now;
    unstamped_.clear();
  }
  int ret;
  if (remaining == 0) {
    ret = io_uring_submit_and_get_events(&ring_);
  } else if (remaining < 0) {
    ret = io_uring_submit_and_wait(&ring_, 1);
  } else {
    __kernel_timespec timeout{};
    timeout.tv_sec = remaining / kNsPerS;
    timeout.tv_nsec = remaining % kNsPerS;
    io_uring_cqe* first = nullptr;
    ret = io_uring_submit_and_wait_timeout(&ring_, &first, 1, &timeout, nullptr);
  }
  // -ETIME (the deadline), -EINTR (a signal), -EBUSY / -EAGAIN (completions overflowed: they
  // are reaped below and the rest on the next turn) are turns like any other.
  if (ret < 0 && ret != -ETIME && ret != -EINTR && ret != -EBUSY && ret != -EAGAIN) {
    throw std::system_error(-ret, std::generic_category(), "io_uring_enter");
  }
  // In the order the kernel posted them. Handling one may submit, and a submit the kernel refuses
  // sets the queue's completions aside (set_aside_completions): those are older than any still
  // in the queue, so they are handled first.
  bool epoll_ready = false;
  std::vector<Completion> earlier;
  for (Completion c{}; !set_aside_.empty() || take_completion(c);) {
    if (set_aside_.empty()) {
      on_completion(c, epoll_ready);
      continue;
    }
    earlier.swap(set_aside_);
    for (const Completion& aside : earlier) on_completion(aside, epoll_ready);
    earlier.clear();
  }

  for (int fd : ready_) {
    Stream& s = streams_[static_cast<size_t>(fd)];
    s.listed = false;
    if (!s.attached) continue;
    const uint32_t ready = ready_events(s);
    if (ready == 0) continue;
    epoll_event event{};
    event.events = ready;
    event.data.u64 = s.token;
    events.push_back(event);
    reported_.push_back(fd);
  }
  ready_.clear();
  return epoll_ready;
}

std::string uring_unavailable_reason() {
  std::ifstream disabled("/proc/sys/kernel/io_uring_disabled");
  int setting = 0;
  if (disabled >> setting && setting == 2) {
    return "io_uring is disabled (sysctl kernel.io_uring_disabled=2)";
  }
  // One round trip over a socket pair, as the load will do it: a ring with the load's flags,
  // the buffer ring, a multishot receive, a send.
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
    return std::strerror(errno);
  }
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  std::string reason;
  try {
    UringStreams streams(epoll_fd, 1);
    streams.attach(pair[0], 7);
    int error = 0;
    streams.write(pair[0], "x", 1, error);
    std::vector<epoll_event> events;
    const int64_t deadline = monotonic_ns() + kNsPerS;
    char echo = 0;
    bool echoed = false;
    while (events.empty() && monotonic_ns() < deadline) {
      streams.wait(deadline, false, events);
      if (!echoed && ::read(pair[1], &echo, 1) == 1) echoed = ::write(pair[1], "y", 1) == 1;
    }
    char got = 0;
    if (events.empty() || streams.read(pair[0], &got, 1, error).status != IoStatus::kOk ||
        got != 'y' || echo != 'x') {
      reason = "a test round trip through it failed (kernel too old? Linux 6.1 or later)";
    }
    streams.detach(pair[0]);
  } catch (const std::system_error& e) {
    reason = e.code().value() == EINVAL ? "the kernel lacks what it needs (Linux 6.1 or later)"
                                        : e.code().message();
  }
  close(epoll_fd);
  close(pair[0]);
  close(pair[1]);
  return reason;
}

}  // namespace proofload::net
