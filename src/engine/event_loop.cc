// epoll wrapper and timer heap; see event_loop.h.
#include "engine/event_loop.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "common/clock.h"

namespace proofload::engine {

EventLoop::EventLoop(int max_events) : epoll_fd_(epoll_create1(EPOLL_CLOEXEC)), events_(max_events) {
  if (epoll_fd_ < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
}

EventLoop::~EventLoop() { close(epoll_fd_); }

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

std::span<const epoll_event> EventLoop::wait(int64_t deadline_ns) {
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
    throw std::system_error(errno, std::generic_category(), "epoll_pwait2");
  }
  return {events_.data(), static_cast<size_t>(n)};
}

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

}  // namespace proofload::engine
