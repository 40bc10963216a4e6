// The built-in server's limits: what it answers to malformed, oversized and never-finished
// requests, and how it holds its connection cap and idle timeout.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "serve/server.h"
#include "serve/server_test_support.h"

namespace proofload::serve {
namespace {

using namespace test_support;

TEST(ServerTest, GarbageGets400AndClose) {
  RunningServer s({});
  Client c(s.port());
  c.send("\x01\x02 not http at all\r\n\r\n");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->head.find("Connection: close\r\n"), std::string::npos);
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerTest, ARequestNeverFinishedGets408WhileOthersAreServed) {
  ServerOptions options;
  options.request_timeout_ns = 200 * kNsPerMs;
  RunningServer s(options);
  Client slow(s.port());
  slow.send("GET / HTTP/1.1\r\nHost: t\r\nX-Never-Ends: ");  // and nothing more
  Client other(s.port());
  other.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n");
  std::optional<Response> served = other.next();
  ASSERT_TRUE(served);
  EXPECT_EQ(served->status, 200);
  std::optional<Response> r = slow.next();  // waits for the timeout to fire
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 408);
  EXPECT_TRUE(slow.closed_within());
}

TEST(ServerTest, OversizedHeaderGets431AndClose) {
  RunningServer s({});
  Client c(s.port());
  // Sent in full although the server stops parsing at 64 KiB: the answer must survive the
  // unread remainder (no reset before the client reads it).
  c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 431);
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerTest, HeaderJustUnderTheLimitIsServed) {
  RunningServer s({});
  Client c(s.port());
  c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + std::string(60 * 1024, 'a') + "\r\n\r\n");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
}

TEST(ServerTest, OversizedBodyGets413AndClose) {
  RunningServer s({});
  Client c(s.port());
  c.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 2000000\r\n\r\nabc");
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  EXPECT_TRUE(c.closed_within());
}

TEST(ServerTest, OversizedChunkedBodyGets413) {
  ServerOptions options;
  options.max_body_bytes = 1000;
  RunningServer s(options);
  Client c(s.port());
  std::string chunk = "400\r\n" + std::string(1024, 'b') + "\r\n";
  c.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n" + chunk);
  std::optional<Response> r = c.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
}

TEST(ServerTest, ConnectionsBeyondTheLimitAreAcceptedAndClosed) {
  ServerOptions options;
  options.max_connections = 2;
  RunningServer s(options);
  Client a(s.port());
  Client b(s.port());
  for (Client* c : {&a, &b}) {
    c->send(kGet);
    ASSERT_TRUE(c->next());
  }
  Client over(s.port());
  EXPECT_TRUE(over.closed_within());
  a.send(kGet);
  EXPECT_TRUE(a.next()) << "connections within the limit are unaffected";
}

// Idle clients once held their sockets for ever: 10,000 of them filled the cap and every new
// client was then closed at once.
TEST(ServerTest, AnIdleConnectionIsClosedAfterTheIdleTimeoutAndABusyOneIsNot) {
  ServerOptions options;
  options.idle_timeout_ns = 300 * kNsPerMs;
  options.delay_ns = 700 * kNsPerMs;  // longer than the idle timeout: waiting on us is not idle
  RunningServer s(options);
  Client idle(s.port());
  idle.send(kGet);
  ASSERT_TRUE(idle.next());
  const int64_t answered_ns = monotonic_ns();
  Client busy(s.port());
  busy.send(kGet);
  EXPECT_TRUE(idle.silent_for(150)) << "closed before the idle timeout";
  EXPECT_TRUE(idle.closed_within(2000));
  EXPECT_GE(monotonic_ns() - answered_ns, 300 * kNsPerMs);
  std::optional<Response> r = busy.next();
  ASSERT_TRUE(r) << "a request waiting on the server's delay is not idle";
  EXPECT_EQ(r->status, 200);
}

TEST(ServerTest, IdleClientsAtTheCapMakeRoomOnceTheyTimeOut) {
  ServerOptions options;
  options.max_connections = 20;
  options.idle_timeout_ns = 200 * kNsPerMs;
  RunningServer s(options);
  std::vector<std::unique_ptr<Client>> idle;
  for (int i = 0; i < 20; ++i) {
    idle.push_back(std::make_unique<Client>(s.port()));
    idle.back()->send(kGet);
    ASSERT_TRUE(idle.back()->next());
  }
  Client refused(s.port());
  EXPECT_TRUE(refused.closed_within()) << "the cap holds";
  for (auto& c : idle) EXPECT_TRUE(c->closed_within(2000));
  Client served(s.port());
  served.send(kGet);
  EXPECT_TRUE(served.next()) << "the idle ones made room";
}

}  // namespace
}  // namespace proofload::serve
