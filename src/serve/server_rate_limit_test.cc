// A route's `limit` end to end: the RateLimit headers its answers carry, whose allowance a
// request draws from (`key`: address, shared, header) and an allowance split over `instances`.
// Rates are a token per 100 s (per 20 s for an instance below), so no test depends on how fast
// it runs.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>

#include "serve/routes/routes_yaml.h"
#include "serve/server_test_support.h"

namespace proofload::serve {
namespace {

using test_support::Client;
using test_support::Response;
using test_support::RunningServer;

ServerOptions routes_options(std::string_view yaml) {
  ServerOptions options;
  options.routes = parse_routes_yaml(yaml, "test.yaml");
  return options;
}

// The value of header `name` in a response head, or nothing when absent.
std::optional<std::string> header(const Response& r, const std::string& name) {
  size_t at = r.head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return std::nullopt;
  at += name.size() + 4;
  return r.head.substr(at, r.head.find("\r\n", at) - at);
}

Response get(Client& c, const std::string& path, const std::string& headers = "") {
  c.send("GET " + path + " HTTP/1.1\r\nHost: t\r\n" + headers + "\r\n");
  std::optional<Response> r = c.next();
  EXPECT_TRUE(r) << "no answer to GET " << path;
  return r.value_or(Response{});
}

TEST(ServerRateLimitTest, AnswersCountDownTheAllowanceAndA429SaysWhenToRetry) {
  RunningServer s(routes_options(R"(routes:
  - path: /limited
    body: "ok\n"
    limit: {rate: 0.01/s, burst: 3, trusted_header: "X-Trusted: yes"}
  - path: /open
    body: "ok\n"
)"));
  Client c(s.port());
  ASSERT_TRUE(c.connected());
  Response lifted = get(c, "/limited", "X-Trusted: yes\r\n");
  EXPECT_EQ(lifted.status, 200);
  EXPECT_EQ(header(lifted, "RateLimit-Limit"), std::nullopt) << "the header lifted the limit";
  for (std::string remaining : {"2", "1", "0"}) {
    Response r = get(c, "/limited");
    EXPECT_EQ(r.status, 200);
    EXPECT_EQ(r.body, "ok\n");
    EXPECT_EQ(header(r, "RateLimit-Limit"), "3");
    EXPECT_EQ(header(r, "RateLimit-Remaining"), remaining);
    EXPECT_EQ(header(r, "Retry-After"), std::nullopt);
  }
  Response refused = get(c, "/limited");
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(header(refused, "Retry-After"), "100") << refused.head;
  EXPECT_EQ(header(refused, "RateLimit-Limit"), "3");
  EXPECT_EQ(header(refused, "RateLimit-Remaining"), "0");
  // A route without a limit still sends its prepared bytes, nothing added.
  EXPECT_EQ(get(c, "/open").head,
            "HTTP/1.1 200 OK\r\nServer: proofload\r\nContent-Type: text/plain\r\n"
            "Content-Length: 3\r\n");
}

// The headers are added to the prepared head; the body (large here) is sent from the prepared
// bytes. Pipelined, a HEAD, an SSE stream, a built-in and a close keep their shape and order.
TEST(ServerRateLimitTest, EveryKindOfAnswerOfALimitedRouteCarriesTheHeaders) {
  RunningServer s(routes_options(R"(routes:
  - path: /big
    body_bytes: 100KiB
    limit: {rate: 0.01/s, burst: 10}
  - path: /events
    sse: {events: 3, over: 0s}
    limit: {rate: 0.01/s, burst: 10}
  - path: /health
    builtin: health
    limit: {rate: 0.01/s, burst: 10}
)"));
  Client c(s.port());
  const std::string get_big = "GET /big HTTP/1.1\r\nHost: t\r\n\r\n";
  c.send(get_big + "HEAD /big HTTP/1.1\r\nHost: t\r\n\r\n" + get_big +
         "GET /events HTTP/1.1\r\nHost: t\r\n\r\n" + "GET /health HTTP/1.1\r\nHost: t\r\n\r\n" +
         "GET /big HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  for (std::string remaining : {"9", "8", "7"}) {
    c.expect_head_only_ = remaining == "8";
    std::optional<Response> r = c.next();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    EXPECT_EQ(r->body, c.expect_head_only_ ? "" : std::string(100 * 1024, 'x'));
    EXPECT_EQ(header(*r, "Content-Length"), "102400");
    EXPECT_EQ(header(*r, "RateLimit-Remaining"), remaining);
  }
  c.expect_head_only_ = false;
  std::optional<Response> events = c.next();
  ASSERT_TRUE(events);
  EXPECT_EQ(header(*events, "Cache-Control"), "no-cache");
  EXPECT_EQ(header(*events, "RateLimit-Remaining"), "9");
  EXPECT_NE(events->body.find("data: [DONE]"), std::string::npos);
  std::optional<Response> health = c.next();
  ASSERT_TRUE(health);
  EXPECT_EQ(health->body, "ok\n");
  EXPECT_EQ(header(*health, "RateLimit-Remaining"), "9");
  std::optional<Response> last = c.next();
  ASSERT_TRUE(last);
  EXPECT_EQ(header(*last, "Connection"), "close");
  EXPECT_EQ(header(*last, "RateLimit-Remaining"), "6");
  EXPECT_EQ(last->body.size(), 100u * 1024);
  EXPECT_TRUE(c.closed_within());
}

// How many 200s clients a and b get, asking in turn until each has had a 429.
std::pair<int, int> alternate(Client& a, Client& b, const std::string& path) {
  int passed_a = 0;
  int passed_b = 0;
  bool a_open = true;
  bool b_open = true;
  for (int i = 0; i < 100 && (a_open || b_open); ++i) {
    if (a_open) a_open = get(a, path).status == 200;
    if (a_open) ++passed_a;
    if (b_open) b_open = get(b, path).status == 200;
    if (b_open) ++passed_b;
  }
  return {passed_a, passed_b};
}

TEST(ServerRateLimitTest, SharedOneMakesTwoAddressesShareOneBurst) {
  RunningServer s(routes_options(R"(routes:
  - path: /shared
    limit: {rate: 0.01/s, burst: 4, key: shared:1}
  - path: /own
    limit: {rate: 0.01/s, burst: 4, key: address}
)"));
  Client a(s.port(), "127.0.0.2");
  Client b(s.port(), "127.0.0.3");
  ASSERT_TRUE(a.connected());
  ASSERT_TRUE(b.connected());
  auto [shared_a, shared_b] = alternate(a, b, "/shared");
  EXPECT_EQ(shared_a + shared_b, 4) << "one allowance between them";
  EXPECT_GE(shared_b, 1);
  EXPECT_EQ(alternate(a, b, "/own"), std::make_pair(4, 4)) << "an allowance each";
}

TEST(ServerRateLimitTest, AHeaderKeyGivesEachValueAFreshAllowanceAndFallsBackToTheAddress) {
  RunningServer s(routes_options(R"(routes:
  - path: /api
    limit: {rate: 0.01/s, burst: 1, key: "header:X-Forwarded-For"}
)"));
  Client a(s.port(), "127.0.0.2");
  EXPECT_EQ(get(a, "/api", "X-Forwarded-For: 198.51.100.1\r\n").status, 200);
  EXPECT_EQ(get(a, "/api", "x-forwarded-for: 198.51.100.2\r\n").status, 200) << "a new value";
  EXPECT_EQ(get(a, "/api", "X-Forwarded-For: 198.51.100.1\r\n").status, 429);
  EXPECT_EQ(get(a, "/api").status, 200) << "without the header: the address's allowance";
  EXPECT_EQ(get(a, "/api").status, 429);
  Client b(s.port(), "127.0.0.3");
  EXPECT_EQ(get(b, "/api").status, 200) << "another address, another allowance";
}

// 20 instances of 30 tokens: the first answer already shows the split (30 - 1 left of 600), and
// one client's first 429 comes well before 600 answers.
TEST(ServerRateLimitTest, InstancesRefuseAClientBeforeTheWholeBurstIsSpent) {
  RunningServer s(routes_options(R"(routes:
  - path: /split
    limit: {rate: 1/s, burst: 600, instances: 20}
)"));
  Client c(s.port());
  Response first = get(c, "/split");
  EXPECT_EQ(header(first, "RateLimit-Limit"), "600");
  EXPECT_EQ(header(first, "RateLimit-Remaining"), "29");
  int passed = 1;
  while (passed < 600) {
    Response r = get(c, "/split");
    if (r.status != 200) {
      EXPECT_EQ(r.status, 429);
      break;
    }
    ++passed;
  }
  EXPECT_LT(passed, 600);
  EXPECT_GE(passed, 30);
}

}  // namespace
}  // namespace proofload::serve
