// The built-in server in-process on 127.0.0.1, port 0, talked to with plain blocking sockets.
// Every wait is a poll() with a timeout, so a broken server fails a test instead of hanging it.
#include "serve/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/clock.h"
#include "common/usage_error.h"
#include "serve/server_test_support.h"

namespace proofload::serve {
namespace {

using namespace test_support;

TEST(ServerTest, ListensOnLoopbackAndReportsTheChosenPort) {
  RunningServer s({});
  EXPECT_GT(s.port(), 0);
  EXPECT_EQ(s.server().address(), "127.0.0.1:" + std::to_string(s.port()));
}

TEST(ServerTest, KeepAliveServesSeveralRequestsOnOneConnection) {
  RunningServer s({});
  Client c(s.port());
  ASSERT_TRUE(c.connected());
  for (int i = 0; i < 5; ++i) {
    c.send(kGet);
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r) << "request " << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, "ok\n");
    EXPECT_NE(r->head.find("Content-Length: 3\r\n"), std::string::npos);
    EXPECT_EQ(r->head.find("Connection: close"), std::string::npos);
  }
}

TEST(ServerTest, ServesTheConfiguredBody) {
  ServerOptions options;
  options.body = std::string(10'000, 'x');
  RunningServer s(options);
  Client c(s.port());
  c.send(kGet);
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->body, options.body);
}

TEST(ServerTest, PipelinedRequestsAreAnsweredInOrder) {
  RunningServer s({});
  Client c(s.port());
  // More requests than the per-connection reply queue holds, in one write; a HEAD, a POST with
  // a body (read and discarded) and a final Connection: close mark positions in the order.
  std::string batch;
  constexpr int kRequests = 100;
  for (int i = 0; i < kRequests; ++i) {
    if (i == 40) {
      batch += "HEAD / HTTP/1.1\r\nHost: t\r\n\r\n";
    } else if (i == 60) {
      batch += "POST /x HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello";
    } else if (i == kRequests - 1) {
      batch += "GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";
    } else {
      batch += kGet;
    }
  }
  c.send(batch);
  for (int i = 0; i < kRequests; ++i) {
    c.expect_head_only_ = i == 40;
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r) << "response " << i;
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, i == 40 ? "" : "ok\n") << "response " << i;
    EXPECT_EQ(r->head.find("Connection: close") != std::string::npos, i == kRequests - 1)
        << "response " << i;
  }
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerTest, ConnectionCloseIsAnsweredThenClosed) {
  RunningServer s({});
  Client c(s.port());
  c.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n" + kGet);
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->head.find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(c.closed_within()) << "the request after Connection: close must be ignored";
}

TEST(ServerTest, Http10ClosesByDefaultAndKeepsAliveWhenAsked) {
  RunningServer s({});
  {
    Client c(s.port());
    c.send("GET / HTTP/1.0\r\n\r\n");
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->body, "ok\n");
    EXPECT_TRUE(c.closed_within());
  }
  Client c(s.port());
  for (int i = 0; i < 2; ++i) {
    c.send("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r);
    EXPECT_NE(r->head.find("Connection: keep-alive\r\n"), std::string::npos);
  }
}

TEST(ServerTest, PeerHalfCloseStillGetsItsAnswers) {
  RunningServer s({});
  Client c(s.port());
  c.send(kGet + kGet);
  c.shutdown_write();
  EXPECT_TRUE(c.next());
  EXPECT_TRUE(c.next());
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerTest, RequestBodiesAreReadAndDiscarded) {
  RunningServer s({});
  Client c(s.port());
  c.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n" + std::string(100000, 'z') +
         kGet);
  for (int i = 0; i < 2; ++i) {
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r) << "response " << i;
    EXPECT_EQ(r->status, 200);
  }
}

TEST(ServerTest, DelayHoldsEachResponseAndRequestsOverlap) {
  ServerOptions options;
  options.delay_ns = 100 * kNsPerMs;
  RunningServer s(options);
  Client c(s.port());
  int64_t sent_ns = monotonic_ns();
  c.send(kGet);
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_GE(r->received_ns - sent_ns, options.delay_ns);

  // Five pipelined requests each wait 100 ms from when they were read, concurrently: all are
  // answered long before the 500 ms a one-at-a-time server would need.
  sent_ns = monotonic_ns();
  for (int i = 0; i < 5; ++i) c.send(kGet);
  for (int i = 0; i < 5; ++i) {
    r = c.next();
    ASSERT_TRUE(r);
    EXPECT_GE(r->received_ns - sent_ns, options.delay_ns);
  }
  EXPECT_LT(r->received_ns - sent_ns, 400 * kNsPerMs);
}

// A stall from +200 ms to +500 ms after a known start. Several threads, several connections:
// every thread must stall together.
TEST(ServerTest, StallAnswersNothingUntilItEndsThenAnswersAtOnce) {
  constexpr int64_t kFirstNs = 200 * kNsPerMs;
  constexpr int64_t kStallNs = 300 * kNsPerMs;
  constexpr int64_t kPromptNs = 15 * kNsPerMs;  // "right after the stall"
  ServerOptions options;
  options.threads = 2;
  options.stall_ns = kStallNs;
  options.stall_every_ns = 10 * kNsPerS;
  options.stall_first_ns = kFirstNs;
  options.start_ns = monotonic_ns();
  int64_t stall_end_ns = options.start_ns + kFirstNs + kStallNs;
  RunningServer s(options);

  constexpr int kClients = 4;
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < kClients; ++i) clients.push_back(std::make_unique<Client>(s.port()));
  for (auto& c : clients) {
    int64_t sent_ns = monotonic_ns();
    c->send(kGet);
    std::optional<Response> r = c->next();
    ASSERT_TRUE(r);
    ASSERT_LT(r->received_ns, options.start_ns + kFirstNs) << "test machine too slow";
    EXPECT_LT(r->received_ns - sent_ns, 50 * kNsPerMs) << "requests before the stall are fast";
  }
  // Wait (with a poll that also proves nothing arrives unasked) until 50 ms into the stall.
  int64_t wait_ms = (options.start_ns + kFirstNs + 50 * kNsPerMs - monotonic_ns()) / kNsPerMs;
  ASSERT_GT(wait_ms, 0);
  EXPECT_TRUE(clients[0]->silent_for(static_cast<int>(wait_ms)));
  for (auto& c : clients) c->send(kGet);
  for (auto& c : clients) {
    std::optional<Response> r = c->next();
    ASSERT_TRUE(r);
    EXPECT_GE(r->received_ns, stall_end_ns);
    EXPECT_LT(r->received_ns, stall_end_ns + kPromptNs);
  }
}

TEST(ServerTest, DelayRunsFromWhenTheRequestWasReadEvenAcrossAStall) {
  // Read at +100 ms with a 150 ms delay: due at +250 ms, inside the stall [200, 400) ms, so
  // answered as soon as the stall ends.
  ServerOptions options;
  options.delay_ns = 150 * kNsPerMs;
  options.stall_ns = 200 * kNsPerMs;
  options.stall_every_ns = 10 * kNsPerS;
  options.stall_first_ns = 200 * kNsPerMs;
  options.start_ns = monotonic_ns();
  int64_t stall_end_ns = options.start_ns + 400 * kNsPerMs;
  RunningServer s(options);
  Client c(s.port());
  int64_t wait_ms = (options.start_ns + 100 * kNsPerMs - monotonic_ns()) / kNsPerMs;
  ASSERT_GT(wait_ms, 0);
  EXPECT_TRUE(c.silent_for(static_cast<int>(wait_ms)));
  c.send(kGet);
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_GE(r->received_ns, stall_end_ns);
  EXPECT_LT(r->received_ns, stall_end_ns + 15 * kNsPerMs);
}

TEST(ServerTest, GracefulStopFinishesResponsesInProgressThenReturns) {
  ServerOptions options;
  options.delay_ns = 300 * kNsPerMs;
  RunningServer s(options);
  Client idle(s.port());
  Client busy(s.port());
  idle.send(kGet);
  busy.send(kGet);
  EXPECT_TRUE(busy.silent_for(100));  // read by now, answer still 200 ms away
  ASSERT_TRUE(idle.next());           // answered: idle from here on
  s.server().stop();
  EXPECT_TRUE(idle.closed_within(1000)) << "idle keep-alive connections close at once";
  std::optional<Response> r = busy.next();
  ASSERT_TRUE(r) << "the response in progress is finished";
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(busy.closed_within());
  s.stop_and_join();
  EXPECT_FALSE(Client(s.port()).connected()) << "no longer listening";
}

TEST(ServerTest, GracefulStopIsBoundedByTheGracePeriod) {
  ServerOptions options;
  options.delay_ns = 60 * kNsPerS;
  options.shutdown_grace_ns = 200 * kNsPerMs;
  RunningServer s(options);
  Client c(s.port());
  c.send(kGet);
  EXPECT_TRUE(c.silent_for(50));
  int64_t stop_ns = monotonic_ns();
  s.stop_and_join();
  int64_t took_ns = monotonic_ns() - stop_ns;
  EXPECT_GE(took_ns, 150 * kNsPerMs);
  EXPECT_LT(took_ns, 2 * kNsPerS);
  EXPECT_TRUE(c.closed_within(1000));
}

TEST(ServerTest, SeveralThreadsServeManyConnections) {
  ServerOptions options;
  options.threads = 3;
  RunningServer s(options);
  std::vector<std::unique_ptr<Client>> clients;
  for (int i = 0; i < 30; ++i) clients.push_back(std::make_unique<Client>(s.port()));
  for (int round = 0; round < 3; ++round) {
    for (auto& c : clients) c->send(kGet);
    for (auto& c : clients) {
      std::optional<Response> r = c->next();
      ASSERT_TRUE(r);
      EXPECT_EQ(r->body, "ok\n");
    }
  }
}

TEST(ServerTest, RejectsBadOptionsWithAUsageError) {
  ServerOptions options;
  options.stall_ns = kNsPerS;
  options.stall_every_ns = kNsPerS;
  EXPECT_THROW(Server{options}, UsageError);
  options = {};
  options.threads = 0;
  EXPECT_THROW(Server{options}, UsageError);
  options = {};
  options.host = "no.such.host.invalid";
  EXPECT_THROW(Server{options}, UsageError);
}

// An sse route of `events` events over 0 s (all due at once) of `event_bytes` bytes, and /plain.
ServerOptions stream_routes(int events, int64_t event_bytes) {
  RouteSpec stream;
  stream.name = "stream";
  stream.method = "GET";
  stream.path = "/stream";
  stream.content_type = "text/event-stream";
  stream.sse = SseSpec{events, 0, event_bytes, 2};
  RouteSpec plain;
  plain.name = "plain";
  plain.method = "*";
  plain.path = "/plain";
  plain.body = "plain\n";
  ServerOptions options;
  options.routes = RouteTable{{stream, plain}, std::nullopt, std::nullopt, 1};
  return options;
}

size_t count_of(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const std::string kTerminator = "event: done\ndata: [DONE]\n\n";

TEST(ServerTest, AStreamOfAnyLengthIsWrittenWholeAndTheConnectionIsReused) {
  // 200,000 events (once refused: the reply queue held 22) come out whole, in order, with the
  // announced Content-Length, and the connection then carries another request.
  RunningServer s(stream_routes(200'000, 32));
  Client c(s.port());
  c.send("GET /stream HTTP/1.1\r\nHost: t\r\n\r\n");
  std::optional<Response> r = c.next(30'000);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(count_of(r->body, "event: tokens\n"), 200'000u);
  EXPECT_NE(r->body.find("{\"i\":199999,"), std::string::npos);
  EXPECT_EQ(r->body.rfind(kTerminator), r->body.size() - kTerminator.size());
  c.send("GET /plain HTTP/1.1\r\nHost: t\r\n\r\n");
  std::optional<Response> after = c.next();
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, "plain\n");
}

TEST(ServerTest, PipelinedStreamsAreAnsweredInOrder) {
  RunningServer s(stream_routes(1000, 64));
  Client c(s.port());
  const std::string get_stream = "GET /stream HTTP/1.1\r\nHost: t\r\n\r\n";
  c.send(get_stream + "GET /plain HTTP/1.1\r\nHost: t\r\n\r\n" +
         "HEAD /stream HTTP/1.1\r\nHost: t\r\n\r\n" + get_stream +
         "GET /stream HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  std::optional<Response> first = c.next();
  ASSERT_TRUE(first);
  EXPECT_EQ(count_of(first->body, "event: tokens\n"), 1000u);
  std::optional<Response> plain = c.next();
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->body, "plain\n");
  c.expect_head_only_ = true;
  std::optional<Response> head = c.next();
  ASSERT_TRUE(head);
  EXPECT_EQ(head->head.find("Content-Length: " + std::to_string(first->body.size()) + "\r\n") !=
                std::string::npos,
            true)
      << head->head;
  c.expect_head_only_ = false;
  for (int i = 0; i < 2; ++i) {
    std::optional<Response> again = c.next();
    ASSERT_TRUE(again) << i;
    EXPECT_EQ(again->body, first->body) << i;
  }
  EXPECT_TRUE(c.closed_within());
}

// /metrics counts each streamed answer once: completed when its last part was written, dropped
// when its client went away first (what a client's count of complete streams is set against).
TEST(ServerTest, MetricsCountStreamsCompletedAndDropped) {
  RouteSpec quick;
  quick.name = "quick";
  quick.method = "GET";
  quick.path = "/quick";
  quick.content_type = "text/event-stream";
  quick.sse = SseSpec{10, 0, 32, 1};
  RouteSpec slow = quick;
  slow.name = "slow";
  slow.path = "/slow";
  slow.sse = SseSpec{100, 50 * kNsPerS, 32, 1};  // an event every half second
  RouteSpec metrics;
  metrics.name = "metrics";
  metrics.method = "GET";
  metrics.path = "/metrics";
  metrics.builtin = "metrics";
  ServerOptions options;
  options.routes = RouteTable{{quick, slow, metrics}, std::nullopt, std::nullopt, 1};
  RunningServer s(options);
  auto scrape = [&] {
    Client m(s.port());
    m.send("GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n");
    std::optional<Response> r = m.next();
    return r ? r->body : std::string();
  };
  {
    Client c(s.port());
    for (int i = 0; i < 2; ++i) {
      c.send("GET /quick HTTP/1.1\r\nHost: t\r\n\r\n");
      ASSERT_TRUE(c.next());
    }
  }
  std::string text = scrape();
  EXPECT_NE(text.find("proofload_streams_completed_total 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("proofload_streams_dropped_total 0\n"), std::string::npos) << text;
  {
    Client c(s.port());
    c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
  }  // gone before its second event
  const int64_t deadline = monotonic_ns() + 10 * kNsPerS;
  while (monotonic_ns() < deadline &&
         (text = scrape()).find("proofload_streams_dropped_total 1\n") == std::string::npos) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // the server notices on a write
  }
  EXPECT_NE(text.find("proofload_streams_dropped_total 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("proofload_streams_completed_total 2\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace proofload::serve
