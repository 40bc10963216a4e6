// A thin epoll event loop with nanosecond wait deadlines, shared by the load engine's workers
// and the built-in server. One loop per thread, never shared; the owner runs its own loop:
//
//   while (running) {
//     for (const epoll_event& e : loop.wait(next_deadline_ns)) handle(e);
//     fire_due_timers(monotonic_ns());
//   }
//
// No callbacks or virtual calls: each fd carries a 64-bit token the owner decodes.
#pragma once

#include <sys/epoll.h>

#include <cstdint>
#include <span>
#include <vector>

namespace proofload::net {

class EventLoop {
 public:
  explicit EventLoop(int max_events = 256);
  ~EventLoop();
  EventLoop(const EventLoop&) = delete;
  EventLoop& operator=(const EventLoop&) = delete;

  // The epoll fd (LoadLoop's io_uring watches it).
  int fd() const { return epoll_fd_; }

  // Level-triggered unless `events` says EPOLLET. Throw std::system_error on failure (these
  // fail only on programming errors or exhausted kernel memory).
  void add(int fd, uint32_t events, uint64_t token);
  void modify(int fd, uint32_t events, uint64_t token);
  // Silently ignores fds that are not registered (closing an fd removes it anyway).
  void remove(int fd);

  // Waits until an fd is ready or the absolute monotonic `deadline_ns` passes (a deadline in
  // the past polls; kNoDeadline waits for an fd). Precise to microseconds: epoll_pwait2 where
  // the kernel has it (Linux 5.11+), else epoll_wait with a timerfd armed to the deadline.
  // The span is valid until the next call.
  static constexpr int64_t kNoDeadline = INT64_MAX;
  std::span<const epoll_event> wait(int64_t deadline_ns);

  // Makes every loop of the process use the epoll_wait + timerfd fallback (for its tests).
  static void use_timerfd_for_tests();

  // Reserved: the loop's own timerfd uses this token; owners must not register it.
  static constexpr uint64_t kReservedToken = UINT64_MAX - 1;

 private:
  std::span<const epoll_event> wait_with_timerfd(int64_t deadline_ns);

  int epoll_fd_;
  int timer_fd_ = -1;                      // created on first use of the fallback
  int64_t timer_armed_for_ = kNoDeadline;  // the deadline the timerfd is armed to
  std::vector<epoll_event> events_;
};

// Asks the kernel to wake this thread within ~1 us of a deadline instead of the default 50 us
// timer slack. Call once from each thread that needs sub-millisecond timers.
void use_precise_timers_on_this_thread();

// A min-heap of (deadline, token) with storage reserved up front, so pushing in the steady state
// does not allocate. Not thread-safe.
class TimerHeap {
 public:
  struct Timer {
    int64_t deadline_ns;
    uint64_t token;
  };
  explicit TimerHeap(size_t reserve = 1024) { timers_.reserve(reserve); }
  void push(int64_t deadline_ns, uint64_t token);
  bool empty() const { return timers_.empty(); }
  size_t size() const { return timers_.size(); }
  int64_t next_deadline() const {
    return timers_.empty() ? EventLoop::kNoDeadline : timers_[0].deadline_ns;
  }
  // Removes and returns the earliest timer. Precondition: !empty().
  Timer pop();

 private:
  std::vector<Timer> timers_;
};

}  // namespace proofload::net
