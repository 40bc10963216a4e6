// The event loop's timer heap and wait deadlines, and the TCP helpers: errors, source binding.
#include "net/event_loop.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
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

// The probe's sources: a connection bound to 127.0.0.2 reaches a server on 127.0.0.1 from there.
TEST(Tcp, AConnectionBoundToALocalAddressComesFromIt) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&server), sizeof server), 0);
  ASSERT_EQ(listen(listener, 8), 0);
  socklen_t length = sizeof server;
  ASSERT_EQ(getsockname(listener, reinterpret_cast<sockaddr*>(&server), &length), 0);
  const Address target = resolve("127.0.0.1", ntohs(server.sin_port));

  for (const char* source_ip : {"127.0.0.2", "127.0.0.3"}) {
    const Address source = resolve(source_ip, 0);
    const int fd = start_connect(target, &source);
    ASSERT_GE(fd, 0) << source_ip;
    pollfd writable{fd, POLLOUT, 0};
    ASSERT_EQ(poll(&writable, 1, 5000), 1);
    EXPECT_EQ(finish_connect(fd), 0);
    const int accepted = accept(listener, nullptr, nullptr);
    ASSERT_GE(accepted, 0);
    sockaddr_in peer{};
    length = sizeof peer;
    ASSERT_EQ(getpeername(accepted, reinterpret_cast<sockaddr*>(&peer), &length), 0);
    char text[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &peer.sin_addr, text, sizeof text);
    EXPECT_STREQ(text, source_ip);
    close(accepted);
    close(fd);
  }
  close(listener);
}

TEST(Tcp, ASourceThatIsNotOursFailsBeforeAnythingIsSent) {
  // 192.0.2.1 (TEST-NET-1) is no address of this machine: the bind fails, nothing is sent.
  const Address source = resolve("192.0.2.1", 0);
  EXPECT_EQ(start_connect(resolve("127.0.0.1", 9), &source), -EADDRNOTAVAIL);
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
