// The load loop over each backend, against a TCP peer in the test on 127.0.0.1: what the worker
// relies on must hold the same over epoll and over io_uring: bytes in order, level-triggered
// events (what is left unread is reported again), the end and a reset told apart, a close the
// peer sees, a full write queue that waits for writable, sockets still in the epoll set (a
// connect, an eventfd) seen in the same wait, a deadline kept, and an fd reused at once without
// the old socket's bytes.
#include "net/load_loop.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "common/clock.h"

namespace proofload::net {
namespace {

constexpr uint64_t kToken = 42;

// A listening socket on 127.0.0.1 and the server end of each accepted connection.
class Peer {
 public:
  Peer() {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length), 0);
    EXPECT_EQ(listen(listen_fd_, 16), 0);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
  }
  ~Peer() { close(listen_fd_); }
  Address address() const { return resolve("127.0.0.1", port_); }
  int accept_one() const { return accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC); }

 private:
  int listen_fd_;
  uint16_t port_ = 0;
};

// Reads exactly n bytes from a blocking socket (the peer's end).
std::string read_exactly(int fd, size_t n) {
  std::string out(n, '\0');
  size_t got = 0;
  while (got < n) {
    const ssize_t r = recv(fd, out.data() + got, n - got, 0);
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  out.resize(got);
  return out;
}

class LoadLoopTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  void SetUp() override {
    if (GetParam() == IoBackend::kUring) {
      const std::string reason = uring_unavailable_reason();
      if (!reason.empty()) GTEST_SKIP() << "io_uring cannot be used here: " << reason;
    }
    loop_.start_on_this_thread();
  }

  // A transport connected to the peer and handed to the loop as the worker does; `server` gets
  // the peer's end.
  Transport connect_streamed(int& server) {
    Transport t;
    EXPECT_EQ(t.connect(peer_.address()), 0);
    loop_.add(t.fd(), EPOLLOUT, kToken);
    bool connected = false;
    const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
    while (!connected && monotonic_ns() < deadline) {
      for (const epoll_event& e : loop_.wait(deadline)) {
        connected = e.data.u64 == kToken && (e.events & EPOLLOUT) != 0;
      }
    }
    EXPECT_TRUE(connected);
    EXPECT_EQ(t.finish_connect(), 0);
    loop_.stream(t, kToken);
    loop_.modify(t.fd(), EPOLLIN, kToken);
    server = peer_.accept_one();
    return t;
  }

  // The events of the next turn (waiting up to 5 s for one) for kToken; 0 if none came.
  uint32_t next_events() {
    const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
    while (monotonic_ns() < deadline) {
      for (const epoll_event& e : loop_.wait(deadline)) {
        if (e.data.u64 == kToken) return e.events;
      }
    }
    return 0;
  }

  // Reads what the next turns bring until `n` bytes came, the end, or a failure.
  std::string read_until(Transport& t, size_t n, IoStatus* last = nullptr) {
    std::string out;
    char buffer[65536];
    while (out.size() < n) {
      if ((next_events() & EPOLLIN) == 0) break;
      const Io io = t.read(buffer, sizeof buffer);
      if (last != nullptr) *last = io.status;
      if (io.status == IoStatus::kOk) out.append(buffer, io.bytes);
      if (io.status == IoStatus::kClosed || io.status == IoStatus::kFailed) break;
    }
    return out;
  }

  Peer peer_;
  LoadLoop loop_{GetParam(), 16};
};

TEST_P(LoadLoopTest, BytesGoBothWaysInOrder) {
  int server = -1;
  Transport t = connect_streamed(server);
  const std::string request = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
  ASSERT_EQ(t.write(request.data(), request.size()).bytes, request.size());
  loop_.wait(0);  // io_uring: the send goes out with the turn
  EXPECT_EQ(read_exactly(server, request.size()), request);
  const std::string response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi";
  ASSERT_EQ(send(server, response.data(), response.size(), 0),
            static_cast<ssize_t>(response.size()));
  EXPECT_EQ(read_until(t, response.size()), response);
  close(server);
}

TEST_P(LoadLoopTest, WhatIsLeftUnreadIsReportedAgain) {
  int server = -1;
  Transport t = connect_streamed(server);
  ASSERT_EQ(send(server, "0123456789", 10, 0), 10);
  ASSERT_NE(next_events() & EPOLLIN, 0u);
  char three[3];
  ASSERT_EQ(t.read(three, 3).bytes, 3u);
  // Nothing new arrived: the seven bytes left are reported on the next turn all the same.
  ASSERT_NE(next_events() & EPOLLIN, 0u);
  char rest[16];
  const Io io = t.read(rest, sizeof rest);
  EXPECT_EQ(std::string(rest, io.bytes), "3456789");
  EXPECT_EQ(t.read(rest, sizeof rest).status, IoStatus::kWantRead);
  close(server);
}

TEST_P(LoadLoopTest, TheEndComesAfterEveryByteBeforeIt) {
  int server = -1;
  Transport t = connect_streamed(server);
  ASSERT_EQ(send(server, "last words", 10, 0), 10);
  close(server);
  IoStatus last = IoStatus::kOk;
  EXPECT_EQ(read_until(t, 100, &last), "last words");
  EXPECT_EQ(last, IoStatus::kClosed);
}

TEST_P(LoadLoopTest, AResetFailsWithItsError) {
  int server = -1;
  Transport t = connect_streamed(server);
  linger abortive{1, 0};
  setsockopt(server, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  close(server);  // RST
  IoStatus last = IoStatus::kOk;
  read_until(t, 1, &last);
  EXPECT_EQ(last, IoStatus::kFailed);
  EXPECT_EQ(t.failure().error_number, ECONNRESET);
}

TEST_P(LoadLoopTest, ThePeerSeesTheClose) {
  int server = -1;
  Transport t = connect_streamed(server);
  t.close();
  pollfd p{server, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 5000), 1);
  char byte;
  EXPECT_EQ(recv(server, &byte, 1, 0), 0);  // the FIN, not a reset
  close(server);
}

// More than the provided buffers hold (io_uring: at least 256 of 4 KiB) arrives while the
// reader is slow: every byte comes, in order, as the buffers are read and given back.
TEST_P(LoadLoopTest, ALongResponseComesWholeThroughFewBuffers) {
  int server = -1;
  Transport t = connect_streamed(server);
  std::string body(6 * 1024 * 1024, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + (i * 7) % 26);
  std::thread writer([&] {
    size_t sent = 0;
    while (sent < body.size()) {
      const ssize_t n = send(server, body.data() + sent, body.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  });
  EXPECT_TRUE(read_until(t, body.size()) == body);
  writer.join();
  close(server);
}

TEST_P(LoadLoopTest, AFullWriteQueueWaitsForWritable) {
  int server = -1;
  Transport t = connect_streamed(server);
  const std::string chunk(64 * 1024, 'w');
  size_t written = 0;
  // The peer reads nothing: the socket's buffers, then (io_uring) the queue fill up.
  for (int i = 0; i < 1000; ++i) {
    const Io io = t.write(chunk.data(), chunk.size());
    if (io.status != IoStatus::kOk) {
      ASSERT_EQ(io.status, IoStatus::kWantWrite);
      break;
    }
    written += io.bytes;
    loop_.wait(0);
  }
  ASSERT_LT(written, 1000 * chunk.size());
  loop_.modify(t.fd(), EPOLLIN | EPOLLOUT, kToken);
  std::atomic<bool> read_all{false};
  std::thread reader([&] { read_all = read_exactly(server, written).size() == written; });
  // The loop goes on turning (io_uring sends what was queued with each turn) while the peer
  // reads everything: writable is reported once there is room.
  bool writable = false;
  const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
  while (!(writable && read_all) && monotonic_ns() < deadline) {
    for (const epoll_event& e : loop_.wait(monotonic_ns() + kNsPerMs)) {
      writable = writable || (e.data.u64 == kToken && (e.events & EPOLLOUT) != 0);
    }
  }
  EXPECT_TRUE(writable);
  close(server);  // a reader still waiting (a failure above) sees the end
  reader.join();
  EXPECT_TRUE(read_all);
}

TEST_P(LoadLoopTest, SocketsInTheEpollSetAreSeenInTheSameWait) {
  const int wake = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  loop_.add(wake, EPOLLIN, 7);
  std::thread waker([&] {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t ignored = write(wake, &one, sizeof one);
  });
  bool woken = false;
  const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
  while (!woken && monotonic_ns() < deadline) {
    for (const epoll_event& e : loop_.wait(deadline)) woken = e.data.u64 == 7;
  }
  waker.join();
  EXPECT_TRUE(woken);
  close(wake);
}

TEST_P(LoadLoopTest, AWaitWithNothingToDoEndsAtItsDeadline) {
  const int64_t deadline = monotonic_ns() + 20 * kNsPerMs;
  std::span<const epoll_event> events = loop_.wait(deadline);
  // A first look may report nothing early; the loop's owner waits again until its deadline.
  while (events.empty() && monotonic_ns() < deadline) events = loop_.wait(deadline);
  EXPECT_TRUE(events.empty());
  EXPECT_GE(monotonic_ns(), deadline);
}

// A socket closed with bytes unread, and a new one given the same fd at once: the new one gets
// only its own bytes (io_uring: the old receive's completions are told apart and dropped).
TEST_P(LoadLoopTest, AReusedFdGetsOnlyItsOwnBytes) {
  int first_server = -1;
  Transport first = connect_streamed(first_server);
  ASSERT_EQ(send(first_server, "old bytes", 9, 0), 9);
  ASSERT_NE(next_events() & EPOLLIN, 0u);
  const int fd = first.fd();
  first.close();
  int second_server = -1;
  Transport second = connect_streamed(second_server);
  EXPECT_EQ(second.fd(), fd);
  ASSERT_EQ(send(second_server, "new", 3, 0), 3);
  EXPECT_EQ(read_until(second, 3), "new");
  close(first_server);
  close(second_server);
}

// More sockets attached in one turn than the submission queue holds, and more completions at once
// than the completion queue holds (a ring sized for 16): every socket still gets its bytes (the
// queue is submitted as it fills, and completions the kernel kept aside are reaped first).
TEST(UringStreams, MoreSocketsAndCompletionsThanTheRingsHoldAllGetTheirBytes) {
  if (const std::string reason = uring_unavailable_reason(); !reason.empty()) {
    GTEST_SKIP() << "io_uring cannot be used here: " << reason;
  }
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  UringStreams streams(epoll_fd, 16);  // 64 submissions, 256 completions
  constexpr int kSockets = 600;
  std::vector<std::array<int, 2>> pairs(kSockets);
  for (auto& pair : pairs) {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair.data()), 0);
    streams.attach(pair[0], static_cast<uint64_t>(pair[0]));
  }
  std::vector<epoll_event> events;
  streams.wait(0, true, events);  // every receive armed
  for (auto& pair : pairs) ASSERT_EQ(write(pair[1], "ab", 2), 2);
  std::set<int> got;
  const int64_t deadline = monotonic_ns() + 5 * kNsPerS;
  while (got.size() < pairs.size() && monotonic_ns() < deadline) {
    events.clear();
    streams.wait(deadline, false, events);
    for (const epoll_event& e : events) {
      const int fd = static_cast<int>(e.data.u64);
      char two[2];
      int error = 0;
      if (streams.read(fd, two, 2, error).bytes == 2 && two[0] == 'a' && two[1] == 'b') {
        got.insert(fd);
      }
    }
  }
  EXPECT_EQ(got.size(), pairs.size());
  for (auto& pair : pairs) {
    streams.detach(pair[0]);
    close(pair[0]);
    close(pair[1]);
  }
  close(epoll_fd);
}

INSTANTIATE_TEST_SUITE_P(Backends, LoadLoopTest,
                         ::testing::Values(IoBackend::kEpoll, IoBackend::kUring),
                         [](const ::testing::TestParamInfo<IoBackend>& info) {
                           return info.param == IoBackend::kUring ? "io_uring" : "epoll";
                         });

TEST(ChooseIoBackend, EpollByDefaultOrAskedIsEpollWithoutANote) {
  std::string note;
  EXPECT_EQ(choose_io_backend(std::nullopt, note), IoBackend::kEpoll);
  EXPECT_EQ(choose_io_backend(IoBackend::kEpoll, note), IoBackend::kEpoll);
  EXPECT_EQ(note, "");
}

TEST(ChooseIoBackend, IoUringAskedForWhereItWorksElseEpollWithTheReason) {
  std::string note;
  const IoBackend chosen = choose_io_backend(IoBackend::kUring, note);
  if (uring_unavailable_reason().empty()) {
    EXPECT_EQ(chosen, IoBackend::kUring);
    EXPECT_EQ(note, "");
  } else {
    EXPECT_EQ(chosen, IoBackend::kEpoll);
    EXPECT_NE(note.find("using epoll"), std::string::npos) << note;
  }
}

}  // namespace
}  // namespace proofload::net
