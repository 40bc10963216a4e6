// The event loop's timer heap and wait deadlines, and the TCP helpers' errors.
#include "net/event_loop.h"

#include <gtest/gtest.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <random>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/tcp.h"

namespace proofload::net {
namespace {

TEST(TimerHeap, PopsInDeadlineOrder) {
  TimerHeap heap;
  std::mt19937_64 random(7);
  std::vector<int64_t> deadlines;
  for (int i = 0; i < 1000; ++i) {
    deadlines.push_back(static_cast<int64_t>(random() % 1'000'000));
    heap.push(deadlines.back(), static_cast<uint64_t>(i));
  }
  std::sort(deadlines.begin(), deadlines.end());
  for (int64_t expected : deadlines) {
    ASSERT_FALSE(heap.empty());
    EXPECT_EQ(heap.next_deadline(), expected);
    EXPECT_EQ(heap.pop().deadline_ns, expected);
  }
  EXPECT_TRUE(heap.empty());
  EXPECT_EQ(heap.next_deadline(), EventLoop::kNoDeadline);
}

TEST(EventLoop, WaitNeverReturnsBeforeItsDeadlineWithoutAnEvent) {
  EventLoop loop;
  use_precise_timers_on_this_thread();
  for (int64_t wait_ns : {200'000, 1'000'000, 3'000'000}) {
    int64_t deadline = monotonic_ns() + wait_ns;
    auto events = loop.wait(deadline);
    EXPECT_TRUE(events.empty());
    EXPECT_GE(monotonic_ns(), deadline);
  }
}

TEST(EventLoop, AReadyDescriptorWakesTheWaitWithItsToken) {
  EventLoop loop;
  int fd = eventfd(0, EFD_NONBLOCK);
  loop.add(fd, EPOLLIN, 42);
  uint64_t one = 1;
  ASSERT_EQ(write(fd, &one, sizeof one), static_cast<ssize_t>(sizeof one));
  auto events = loop.wait(EventLoop::kNoDeadline);
  ASSERT_EQ(events.size(), 1u);
  const uint64_t token = events[0].data.u64;  // epoll_event is packed: copy, never bind to it
  EXPECT_EQ(token, 42u);
  loop.remove(fd);
  close(fd);
}

TEST(Tcp, ResolvesNumericLoopback) {
  Address a = resolve("127.0.0.1", 8080);
  EXPECT_EQ(a.text, "127.0.0.1:8080");
  Address b = resolve("::1", 80);
  EXPECT_EQ(b.text, "[::1]:80");
}

TEST(Tcp, UnreachablePortIsAUsageErrorNamingTheAddress) {
  Address a = resolve("127.0.0.1", 1);
  try {
    check_reachable(a, 1'000'000'000);
    FAIL() << "connecting to port 1 succeeded";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "cannot connect to 127.0.0.1:1: Connection refused");
  }
}

}  // namespace
}  // namespace proofload::net

namespace proofload::net {
namespace {

// Kernels before 5.11 (and valgrind) have no epoll_pwait2: the timerfd fallback must keep
// deadlines and still report ready descriptors. Runs last in this binary (it switches the
// process over), and in a child process so the other tests keep the fast path.
TEST(EventLoopFallback, TimerfdKeepsDeadlinesAndEvents) {
  EXPECT_EXIT(
      {
        EventLoop::use_timerfd_for_tests();
        EventLoop loop;
        use_precise_timers_on_this_thread();
        for (int64_t wait_ns : {200'000, 1'000'000, 3'000'000}) {
          int64_t deadline = monotonic_ns() + wait_ns;
          if (!loop.wait(deadline).empty() || monotonic_ns() < deadline) std::exit(1);
        }
        int fd = eventfd(0, EFD_NONBLOCK);
        loop.add(fd, EPOLLIN, 7);
        uint64_t one = 1;
        if (write(fd, &one, sizeof one) != sizeof one) std::exit(2);
        auto events = loop.wait(monotonic_ns() + 1'000'000'000);
        if (events.size() != 1 || events[0].data.u64 != 7) std::exit(3);
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace proofload::net
