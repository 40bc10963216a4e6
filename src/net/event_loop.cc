// epoll wrapper and timer heap; see event_loop.h.
#include "net/event_loop.h"

#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <system_error>

#include "common/clock.h"

namespace proofload::net {

EventLoop::EventLoop(int max_events)
    : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)), events_(max_events) {
  if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

EventLoop::~EventLoop() {
  close(epoll_fd_);
  if (timer_fd_ >= 0) close(timer_fd_);
}

void EventLoop::add(int fd, uint32_t events, uint64_t token) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = token;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
    throw std::system_error(errno, std::generic_category(), "epoll_ctl(ADD)");
  }
}

void EventLoop::modify(int fd, uint32_t events, uint64_t token) {
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = token;
  if (epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, fd, &ev) != 0) {
    throw std::system_error(errno, std::generic_category(), "epoll_ctl(MOD)");
  }
}

void EventLoop::remove(int fd) { epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr); }

namespace {
// Whether this kernel has epoll_pwait2; learned from the first ENOSYS (old kernels, valgrind).
std::atomic<bool> g_have_epoll_pwait2{true};
}  // namespace

std::span<const epoll_event> EventLoop::wait(int64_t deadline_ns) {
  if (!g_have_epoll_pwait2.load(std::memory_order_relaxed)) return wait_with_timerfd(deadline_ns);
  timespec timeout{};
  timespec* timeout_ptr = nullptr;
  if (deadline_ns != kNoDeadline) {
    int64_t remaining = std::max<int64_t>(0, deadline_ns - monotonic_ns());
    timeout.tv_sec = remaining / kNsPerS;
    timeout.tv_nsec = remaining % kNsPerS;
    timeout_ptr = &timeout;
  }
  int n = epoll_pwait2(epoll_fd_, events_.data(), static_cast<int>(events_.size()), timeout_ptr,
                       nullptr);
  if (n < 0) {
    if (errno == EINTR) return {};
    if (errno == ENOSYS) {
      g_have_epoll_pwait2.store(false);
      return wait_with_timerfd(deadline_ns);
    }
    throw std::system_error(errno, std::generic_category(), "epoll_pwait2");
  }
  return {events_.data(), static_cast<size_t>(n)};
}

// epoll_wait's timeout is in whole milliseconds, too coarse for open-loop schedules: a timerfd
// in the same epoll set carries the deadline instead. It is re-armed only when the deadline
// changes, and its own event is taken out of what the caller sees.
std::span<const epoll_event> EventLoop::wait_with_timerfd(int64_t deadline_ns) {
  if (timer_fd_ < 0) {
    timer_fd_ = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (timer_fd_ < 0) throw std::system_error(errno, std::generic_category(), "timerfd_create");
    add(timer_fd_, EPOLLIN, kReservedToken);
  }
  if (deadline_ns != timer_armed_for_) {
    itimerspec when{};  // all zero disarms
    if (deadline_ns != kNoDeadline) {
      int64_t at = std::max<int64_t>(deadline_ns, 1);
      when.it_value.tv_sec = at / kNsPerS;
      when.it_value.tv_nsec = at % kNsPerS;
    }
    if (timerfd_settime(timer_fd_, TFD_TIMER_ABSTIME, &when, nullptr) != 0) {
      throw std::system_error(errno, std::generic_category(), "timerfd_settime");
    }
    timer_armed_for_ = deadline_ns;
  }
  int timeout_ms = deadline_ns != kNoDeadline && deadline_ns <= monotonic_ns() ? 0 : -1;
  int n = epoll_wait(epoll_fd_, events_.data(), static_cast<int>(events_.size()), timeout_ms);
  if (n < 0) {
    if (errno == EINTR) return {};
    throw std::system_error(errno, std::generic_category(), "epoll_wait");
  }
  for (int i = 0; i < n; ++i) {
    if (events_[i].data.u64 != kReservedToken) continue;
    uint64_t expirations;
    [[maybe_unused]] ssize_t ignored = read(timer_fd_, &expirations, sizeof expirations);
    timer_armed_for_ = kNoDeadline;  // a fired one-shot timer is disarmed
    events_[i] = events_[n - 1];
    --n;
    break;
  }
  return {events_.data(), static_cast<size_t>(n)};
}

void EventLoop::use_timerfd_for_tests() { g_have_epoll_pwait2.store(false); }

void use_precise_timers_on_this_thread() { prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); }

namespace {
bool later(const TimerHeap::Timer& a, const TimerHeap::Timer& b) {
  return a.deadline_ns > b.deadline_ns;
}
}  // namespace

void TimerHeap::push(int64_t deadline_ns, uint64_t token) {
  timers_.push_back({deadline_ns, token});
  std::push_heap(timers_.begin(), timers_.end(), later);
}

TimerHeap::Timer TimerHeap::pop() {
  std::pop_heap(timers_.begin(), timers_.end(), later);
  Timer t = timers_.back();
  timers_.pop_back();
  return t;
}

}  // namespace proofload::net
