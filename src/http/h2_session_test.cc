// H2Session against an nghttp2 server session in memory: what the client makes of responses,
// resets, refusals, GOAWAY, a server's stream limit and a server that is not HTTP/2.
#include "http/h2_session.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

namespace proofload::http {
namespace {

// The server side: nghttp2's own server session, answering each request the way the test says.
class MemoryServer {
 public:
  struct Request {
    std::map<std::string, std::string> headers;
    std::string body;
  };
  // Called once a request is complete; the test answers through the server's members.
  std::function<void(int32_t stream_id, const Request&)> on_request;

  explicit MemoryServer(uint32_t max_streams = 100) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_header_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* f, const uint8_t* n, size_t nl,
               const uint8_t* v, size_t vl, uint8_t, void* self) {
          static_cast<MemoryServer*>(self)
              ->requests_[f->hd.stream_id]
              .headers[std::string(reinterpret_cast<const char*>(n), nl)] =
              std::string(reinterpret_cast<const char*>(v), vl);
          return 0;
        });
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(
        cb, [](nghttp2_session*, uint8_t, int32_t id, const uint8_t* d, size_t len, void* self) {
          static_cast<MemoryServer*>(self)->requests_[id].body.append(
              reinterpret_cast<const char*>(d), len);
          return 0;
        });
    nghttp2_session_callbacks_set_on_frame_recv_callback(
        cb, [](nghttp2_session*, const nghttp2_frame* f, void* self) {
          auto* server = static_cast<MemoryServer*>(self);
          if ((f->hd.type == NGHTTP2_HEADERS || f->hd.type == NGHTTP2_DATA) &&
              (f->hd.flags & NGHTTP2_FLAG_END_STREAM) && server->on_request) {
            server->on_request(f->hd.stream_id, server->requests_[f->hd.stream_id]);
          }
          return 0;
        });
    nghttp2_session_server_new(&session_, cb, this);
    nghttp2_session_callbacks_del(cb);
    nghttp2_settings_entry entry{NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams};
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, &entry, 1);
  }
  ~MemoryServer() { nghttp2_session_del(session_); }

  void respond(int32_t id, int status, std::string body,
               std::vector<std::pair<std::string, std::string>> extra = {}) {
    bodies_[id] = std::move(body);
    std::string status_text = std::to_string(status);
    std::vector<std::string> keep;  // values outlive the call
    std::vector<nghttp2_nv> nv;
    auto add = [&](const std::string& n, const std::string& v) {
      nv.push_back({reinterpret_cast<uint8_t*>(const_cast<char*>(n.data())),
                    reinterpret_cast<uint8_t*>(const_cast<char*>(v.data())), n.size(), v.size(),
                    NGHTTP2_NV_FLAG_NONE});
    };
    const std::string status_name = ":status";
    add(status_name, status_text);
    for (const auto& [n, v] : extra) add(n, v);
    nghttp2_data_provider provider{};
    provider.source.ptr = &bodies_[id];
    provider.read_callback = [](nghttp2_session*, int32_t, uint8_t* buf, size_t length,
                                uint32_t* flags, nghttp2_data_source* source, void*) -> ssize_t {
      auto* rest = static_cast<std::string*>(source->ptr);
      size_t n = std::min(length, rest->size());
      std::copy(rest->begin(), rest->begin() + static_cast<std::ptrdiff_t>(n), buf);
      rest->erase(0, n);
      if (rest->empty()) *flags |= NGHTTP2_DATA_FLAG_EOF;
      return static_cast<ssize_t>(n);
    };
    nghttp2_submit_response(session_, id, nv.data(), nv.size(), &provider);
  }
  void reset(int32_t id, uint32_t code) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code);
  }
  void goaway(int32_t last_id) {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_id, NGHTTP2_NO_ERROR, nullptr, 0);
  }

  // Moves bytes both ways until neither side has anything to send.
  void exchange(H2Session& client) {
    for (int round = 0; round < 100; ++round) {
      bool moved = false;
      std::string_view out = client.output();
      if (!out.empty()) {
        ASSERT_GE(nghttp2_session_mem_recv(session_, reinterpret_cast<const uint8_t*>(out.data()),
                                           out.size()),
                  0);
        client.wrote(out.size());
        moved = true;
      }
      const uint8_t* data = nullptr;
      ssize_t n = nghttp2_session_mem_send(session_, &data);
      ASSERT_GE(n, 0);
      if (n > 0) {
        client.receive(reinterpret_cast<const char*>(data), static_cast<size_t>(n), ++clock_);
        moved = true;
      }
      if (!moved) return;
    }
  }

 private:
  nghttp2_session* session_ = nullptr;
  std::map<int32_t, Request> requests_;
  std::map<int32_t, std::string> bodies_;
  int64_t clock_ = 0;
};

H2RequestHead head_of(std::string_view request) {
  H2RequestHead head;
  EXPECT_TRUE(head.parse(request, "https"));
  return head;
}

constexpr std::string_view kGet =
    "GET /items?x=1 HTTP/1.1\r\nHost: example.test:8443\r\n"
    "User-Agent: proofload/0\r\nConnection: keep-alive\r\n\r\n";

TEST(H2RequestHead, TakesMethodTargetAndHeadersFromTheHttp11Bytes) {
  H2RequestHead head;
  ASSERT_TRUE(
      head.parse("POST /a/b HTTP/1.1\r\nHost: h:1\r\nX-Trace: Abc\r\n"
                 "Connection: keep-alive\r\nTransfer-Encoding: x\r\nTE: gzip\r\n"
                 "Content-Length: 3\r\n\r\nxyz",
                 "http"));
  std::vector<std::pair<std::string, std::string>> got;
  for (size_t i = 0; i < head.header_count(); ++i) {
    const nghttp2_nv& nv = head.headers()[i];
    got.emplace_back(std::string(reinterpret_cast<char*>(nv.name), nv.namelen),
                     std::string(reinterpret_cast<char*>(nv.value), nv.valuelen));
  }
  const std::vector<std::pair<std::string, std::string>> want = {
      {":method", "POST"}, {":scheme", "http"}, {":authority", "h:1"},
      {":path", "/a/b"},   {"x-trace", "Abc"},  {"content-length", "3"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(head.body(), "xyz");
}

TEST(H2RequestHead, RefusesBytesThatAreNotARequest) {
  H2RequestHead head;
  EXPECT_FALSE(head.parse("GET / HTTP/1.1\r\nHost: x\r\n", "http"));  // no blank line
  EXPECT_FALSE(head.parse("GET\r\n\r\n", "http"));
  EXPECT_FALSE(head.parse("GET / HTTP/1.1\r\nno colon\r\n\r\n", "http"));
  EXPECT_FALSE(head.parse("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "http"));
}

TEST(H2Session, ARequestGetsItsResponseWithHeadersAndBodyCaptured) {
  MemoryServer server;
  MemoryServer::Request seen;
  server.on_request = [&](int32_t id, const MemoryServer::Request& r) {
    seen = r;
    server.respond(id, 201, std::string(5000, 'b'), {{"x-answer", "42"}});
  };
  H2Session client;
  H2Stream stream;
  ASSERT_TRUE(client.submit(stream, head_of(kGet), {true, 100}));
  server.exchange(client);
  EXPECT_EQ(seen.headers[":authority"], "example.test:8443");
  EXPECT_EQ(seen.headers[":path"], "/items?x=1");
  EXPECT_EQ(seen.headers.count("connection"), 0u);
  ASSERT_EQ(client.ended().size(), 1u);
  EXPECT_EQ(client.ended()[0], &stream);
  EXPECT_EQ(stream.end, H2End::kComplete);
  EXPECT_EQ(stream.status, 201);
  EXPECT_EQ(stream.body_bytes, 5000);
  EXPECT_EQ(stream.body, std::string(100, 'b'));
  EXPECT_TRUE(stream.body_truncated);
  EXPECT_NE(stream.headers.find("x-answer: 42\r\n"), std::string::npos);
  EXPECT_TRUE(stream.got_first_byte);
  EXPECT_EQ(client.open_streams(), 0);
}

TEST(H2Session, ARequestBodyReachesTheServer) {
  MemoryServer server;
  std::string body;
  server.on_request = [&](int32_t id, const MemoryServer::Request& r) {
    body = r.body;
    server.respond(id, 200, "");
  };
  H2Session client;
  H2Stream stream;
  const std::string payload(40000, 'p');  // more than one DATA frame
  const std::string request =
      "POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 40000\r\n\r\n" + payload;
  ASSERT_TRUE(client.submit(stream, head_of(request), {}));
  server.exchange(client);
  EXPECT_EQ(body, payload);
  EXPECT_EQ(stream.end, H2End::kComplete);
}

TEST(H2Session, ReportsTheServersStreamLimit) {
  MemoryServer server(1);
  H2Session client;
  EXPECT_FALSE(client.settings_received());
  server.exchange(client);
  EXPECT_TRUE(client.settings_received());
  EXPECT_EQ(client.max_concurrent_streams(), 1u);
}

TEST(H2Session, ResetAndRefusedStreamsEndAsSuch) {
  MemoryServer server;
  int n = 0;
  server.on_request = [&](int32_t id, const MemoryServer::Request&) {
    server.reset(id, n++ == 0 ? NGHTTP2_INTERNAL_ERROR : NGHTTP2_REFUSED_STREAM);
  };
  H2Session client;
  H2Stream first, second;
  ASSERT_TRUE(client.submit(first, head_of(kGet), {}));
  ASSERT_TRUE(client.submit(second, head_of(kGet), {}));
  server.exchange(client);
  EXPECT_EQ(first.end, H2End::kReset);
  EXPECT_EQ(first.error_code, static_cast<uint32_t>(NGHTTP2_INTERNAL_ERROR));
  EXPECT_EQ(second.end, H2End::kRefused);
  EXPECT_FALSE(client.going_away());
}

TEST(H2Session, GoawayRefusesTheStreamsAfterItsLastAndLetsTheOthersFinish) {
  MemoryServer server;
  std::vector<int32_t> ids;
  server.on_request = [&](int32_t id, const MemoryServer::Request&) { ids.push_back(id); };
  H2Session client;
  H2Stream first, second;
  ASSERT_TRUE(client.submit(first, head_of(kGet), {}));
  ASSERT_TRUE(client.submit(second, head_of(kGet), {}));
  server.exchange(client);
  ASSERT_EQ(ids.size(), 2u);
  server.goaway(ids[0]);
  server.respond(ids[0], 200, "ok");
  server.exchange(client);
  EXPECT_TRUE(client.goaway_received());
  EXPECT_TRUE(client.going_away());
  EXPECT_EQ(first.end, H2End::kComplete);
  EXPECT_EQ(second.end, H2End::kRefused);
  H2Stream third;
  EXPECT_FALSE(client.submit(third, head_of(kGet), {}));
}

TEST(H2Session, OversizedResponseHeadersAreAProtocolErrorOfTheStream) {
  MemoryServer server;
  server.on_request = [&](int32_t id, const MemoryServer::Request&) {
    server.respond(id, 200, "", {{"x-big", std::string(3000, 'v')}});
  };
  H2Settings settings;
  settings.max_header_bytes = 1000;
  H2Session client(settings);
  H2Stream stream;
  ASSERT_TRUE(client.submit(stream, head_of(kGet), {}));
  server.exchange(client);
  EXPECT_EQ(stream.end, H2End::kProtocolError);
  EXPECT_STREQ(stream.error_reason, "response headers over the limit");
}

TEST(H2Session, AnHttp11AnswerToThePrefaceSaysTheServerIsNotHttp2) {
  H2Session client;
  H2Stream stream;
  ASSERT_TRUE(client.submit(stream, head_of(kGet), {}));
  client.wrote(client.output().size());
  const std::string answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  EXPECT_FALSE(client.receive(answer.data(), answer.size(), 1));
  EXPECT_EQ(client.error(),
            "the server answered in HTTP/1.1: it does not speak HTTP/2 on this port");
  ASSERT_EQ(client.ended().size(), 1u);
  EXPECT_EQ(stream.end, H2End::kReset);
  EXPECT_TRUE(client.going_away());
}

TEST(H2Session, ACancelledStreamIsNeverReported) {
  MemoryServer server;
  server.on_request = [&](int32_t id, const MemoryServer::Request&) {
    server.respond(id, 200, "x");
  };
  H2Session client;
  H2Stream stream;
  ASSERT_TRUE(client.submit(stream, head_of(kGet), {}));
  client.cancel(stream);
  server.exchange(client);
  EXPECT_TRUE(client.ended().empty());
  EXPECT_EQ(client.open_streams(), 0);
}

}  // namespace
}  // namespace proofload::http
