// `proofload run --http2` end to end: the real binary against nginx (h2 over TLS, h2c) and
// nghttpd (nghttp2-server), started by the test on 127.0.0.1. Every run is bounded by -n or -d
// and a deadline on the child process.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "net/self_signed.h"
#include "nginx_server.h"
#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

json read_result(const std::string& dir) { return json::parse(read_file(dir + "/result.json")); }

// nghttpd serving a directory over h2c (prior knowledge) or h2 over TLS.
class Nghttpd {
 public:
  static bool available() { return access("/usr/sbin/nghttpd", X_OK) == 0; }

  explicit Nghttpd(bool tls) : tls_(tls) {
    dir_ = make_temp_dir("nghttpd");
    port_ = unused_loopback_port();
    write_file(dir_ + "/index.html", "ok");
    std::vector<std::string> args = {"/usr/sbin/nghttpd", "-d", dir_, "--address=127.0.0.1"};
    if (tls) {
      const net::PemPair pem = net::make_self_signed("localhost");
      ca_file_ = dir_ + "/cert.pem";
      write_file(ca_file_, pem.certificate);
      write_file(dir_ + "/key.pem", pem.private_key);
      args.push_back(std::to_string(port_));
      args.push_back(dir_ + "/key.pem");
      args.push_back(ca_file_);
    } else {
      args.push_back("--no-tls");
      args.push_back(std::to_string(port_));
    }
    process_ = std::make_unique<Process>(args);
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!loopback_accepts(port_)) {
      if (process_->wait(std::chrono::milliseconds(20)).has_value() ||
          std::chrono::steady_clock::now() > until) {
        throw std::runtime_error("nghttpd did not start on port " + std::to_string(port_));
      }
    }
  }

  std::string url(const std::string& path) const {
    return std::string(tls_ ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) + path;
  }
  const std::string& ca_file() const { return ca_file_; }
  // A file it serves from its directory: `url("/" + name)`.
  std::string add_file(const std::string& name, const std::string& content) const {
    write_file(dir_ + "/" + name, content);
    return dir_ + "/" + name;
  }

 private:
  bool tls_;
  std::string dir_;
  std::string ca_file_;
  int port_ = 0;
  std::unique_ptr<Process> process_;
};

class Http2 : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NginxServer::available()) GTEST_SKIP() << "needs nginx (scripts/bootstrap installs it)";
  }
};

int64_t outcome(const json& summary, const char* name) {
  return summary["outcomes"][name].get<int64_t>();
}

TEST_F(Http2, OverTlsStreamsShareEachConnectionAndTheRunSaysH2) {
  NginxOptions options;
  options.http2 = true;
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-tls");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "-c", "2", "--h2-streams", "8", "-n", "2000", "--cacert",
                                     nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(result["spec"]["protocol"], "h2");
  EXPECT_EQ(result["spec"]["h2_streams"], 8);
  EXPECT_EQ(result["spec"]["tls"]["alpn"], "h2");
  const json& summary = result["summary"];
  EXPECT_EQ(outcome(summary, "success"), 2000) << summary.dump(2);
  EXPECT_EQ(summary["status"]["200"], 2000);
  // Two connections carried all 16 users: nginx keeps them open (keepalive_requests 1000 is
  // more than any one of them carries).
  EXPECT_EQ(summary["connects"], 2);
  EXPECT_EQ(summary["tls"]["handshakes"], 2);
  EXPECT_NE(result["command_line"].get<std::string>().find("--h2-streams 8"), std::string::npos);
}

TEST_F(Http2, H2cByPriorKnowledgeOverPlainHttp) {
  NginxOptions options;
  options.tls = false;
  options.http2 = true;
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2c");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "-c", "1", "--h2-streams", "4", "-n", "500", "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(result["spec"]["protocol"], "h2");
  EXPECT_EQ(outcome(result["summary"], "success"), 500) << result["summary"].dump(2);
  EXPECT_EQ(result["summary"]["connects"], 1);
}

TEST_F(Http2, OpenLoopHandsRequestsToFreeStreams) {
  NginxOptions options;
  options.http2 = true;
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-open");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "--rate", "500", "-d", "1s", "-c", "1", "--h2-streams", "4",
                                     "--cacert", nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  EXPECT_EQ(outcome(summary, "success"), 500) << summary.dump(2);
  EXPECT_EQ(outcome(summary, "never_started"), 0);
  EXPECT_EQ(summary["connects"], 1);
}

TEST_F(Http2, NeverMoreStreamsThanTheServerAllows) {
  NginxOptions options;
  options.http2 = true;
  options.max_concurrent_streams = 1;
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-one-stream");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "-c", "1", "--h2-streams", "8", "-n", "300", "--cacert",
                                     nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  // Streams past the server's limit would be refused; none was sent.
  EXPECT_EQ(outcome(summary, "success"), 300) << summary.dump(2);
  EXPECT_EQ(outcome(summary, "refused"), 0);
  EXPECT_EQ(summary["h2"]["server_max_concurrent_streams"], 1);
  const std::string md = read_file(out + "/summary.md");
  EXPECT_NE(md.find("Up to 8 streams on each connection; the server allowed 1 "
                    "(SETTINGS_MAX_CONCURRENT_STREAMS), so that many were used."),
            std::string::npos)
      << md;
}

TEST_F(Http2, GoawayMidRunMovesTheStreamsToANewConnection) {
  NginxOptions options;
  options.http2 = true;
  options.keepalive_requests = 50;  // nginx sends GOAWAY after 50 streams on a connection
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-goaway");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "-c", "1", "--h2-streams", "4", "-n", "400", "--cacert",
                                     nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  EXPECT_GE(summary["connects"].get<int64_t>(), 8);
  EXPECT_GE(summary["h2"]["goaways"].get<int64_t>(), 7);
  // What nginx did not take before its GOAWAY is refused (past its last stream: not processed);
  // a stream its GOAWAY still covered but that it closed the connection without answering
  // (nginx does, now and then) is a reset. Every request has its outcome, none is lost quietly.
  EXPECT_EQ(outcome(summary, "success") + outcome(summary, "refused") + outcome(summary, "reset"),
            400)
      << summary.dump(2);
  EXPECT_GT(outcome(summary, "refused"), 0);
  EXPECT_GE(outcome(summary, "success"), 350);
  EXPECT_EQ(outcome(summary, "stream_reset") + outcome(summary, "timeout"), 0);
  const std::string md = read_file(out + "/summary.md");
  EXPECT_NE(md.find(" GOAWAYs from the server: each connection closed after its last streams"),
            std::string::npos)
      << md;
}

TEST_F(Http2, AStreamTheServerResetsIsCountedAndTheConnectionStays) {
  NginxOptions options;
  options.http2 = true;
  options.locations = "    location /reset { return 444; }\n";  // nginx resets the stream
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-rst");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/reset"), "--http2",
                                     "-c", "1", "--h2-streams", "2", "-n", "100", "--cacert",
                                     nginx.ca_file(), "-q", "-o", out});
  const json summary = read_result(out)["summary"];
  EXPECT_EQ(outcome(summary, "stream_reset"), 100) << summary.dump(2) << run.err;
  EXPECT_EQ(summary["connects"], 1);
}

TEST_F(Http2, AServerWithoutH2InAlpnStopsTheRunBeforeAnyLoad) {
  NginxServer nginx;  // TLS, HTTP/1.1 only
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "--http2",
                                     "-n", "10", "--cacert", nginx.ca_file(), "-q"});
  EXPECT_EQ(run.exit_code, 2);
  // nginx refuses a handshake that offers h2 only (servers that pick http/1.1 instead get
  // "did not agree to HTTP/2 in ALPN (it chose http/1.1)").
  EXPECT_NE(run.err.find("the server does not offer HTTP/2 in ALPN; without --http2 the run uses "
                         "HTTP/1.1"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

TEST_F(Http2, H2cAgainstAnHttp11ServerStopsTheRunBeforeAnyLoad) {
  NginxOptions options;
  options.tls = false;  // plain HTTP/1.1
  NginxServer nginx(options);
  Completed run = run_to_completion(
      {proofload_binary(), "run", nginx.url("/index.html"), "--http2", "-n", "10", "-q"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("answered in HTTP/1.1: it does not speak HTTP/2 on this port; without "
                         "--http2 the run uses HTTP/1.1"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find('\n'), run.err.size() - 1) << "one line: " << run.err;
}

TEST_F(Http2, AScenarioFileWithProtocolH2RunsFlowsChecksAndExtractionOverStreams) {
  NginxOptions options;
  options.http2 = true;
  NginxServer nginx(options);
  const std::string dir = make_temp_dir("h2-scenario");
  // The first step takes nginx's ETag (an h2 header, lowercase on the wire); the second sends
  // it back and must get 304.
  write_file(dir + "/flow.yaml",
             "target: " + nginx.url("") +
                 "\n"
                 "protocol: h2\n"
                 "executor: {connections: 1, h2_streams: 4, requests: 200}\n"
                 "requests:\n"
                 "  first:\n"
                 "    path: /index.html\n"
                 "    checks: [{status: 200}, {body_contains: ok}]\n"
                 "    extract: {tag: {header: ETag}}\n"
                 "  again:\n"
                 "    path: /index.html\n"
                 "    headers: {If-None-Match: \"${tag}\"}\n"
                 "    checks: [{status: 304}]\n"
                 "flows:\n"
                 "  revalidate: {steps: [{request: first}, {request: again}]}\n");
  const std::string out = dir + "/out";
  Completed run = run_to_completion({proofload_binary(), "run", dir + "/flow.yaml", "--cacert",
                                     nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(result["spec"]["protocol"], "h2");
  EXPECT_EQ(result["spec"]["h2_streams"], 4);
  const json& summary = result["summary"];
  EXPECT_EQ(outcome(summary, "success"), 400) << summary.dump(2);
  EXPECT_EQ(outcome(summary, "check_failed"), 0);
  EXPECT_EQ(summary["status"]["304"], 200);
  EXPECT_EQ(summary["connects"], 1);
}

TEST_F(Http2, ALadderOverH2RecordsItsProtocolAndSaysItInTheScope) {
  NginxOptions options;
  options.http2 = true;
  options.keepalive_requests = 100'000'000;  // no GOAWAY (and its refused streams) in the levels
  NginxServer nginx(options);
  const std::string out = make_temp_dir("h2-ladder") + "/ladder";
  Completed run =
      run_to_completion({proofload_binary(), "ladder", nginx.url("/index.html"), "--http2",
                         "--h2-streams", "4", "--concurrency", "1,2", "--hold", "1s", "--warmup",
                         "0s", "--cacert", nginx.ca_file(), "--workers", "1", "-q", "-o", out},
                        std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(result["source"]["protocol"], "h2");
  EXPECT_EQ(result["source"]["h2_streams"], 4);
  EXPECT_EQ(result["source"]["tls_alpn"], "h2");
  ASSERT_EQ(result["rows"].size(), 2u) << result.dump(2);
  for (const json& row : result["rows"]) EXPECT_EQ(row["error_rate"], 0.0) << row.dump(2);
  // Each level's own run is an h2 run.
  const json level = read_result(out + "/" + result["rows"][0]["directory"].get<std::string>());
  EXPECT_EQ(level["spec"]["protocol"], "h2");
  const std::string md = read_file(out + "/summary.md");
  EXPECT_NE(md.find("Over HTTPS: HTTP/2 over TLSv1.3 (ALPN h2). Each connection carries up to 4 "
                    "streams: at each level that many times its connections are in flight."),
            std::string::npos)
      << md;
}

TEST_F(Http2, StreamsWithoutHttp2AreRefusedAsUsage) {
  Completed run = run_to_completion(
      {proofload_binary(), "run", "http://127.0.0.1:1/", "--h2-streams", "4", "-n", "1"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--h2-streams is for HTTP/2: add --http2"), std::string::npos) << run.err;
}

TEST(Http2Nghttpd, H2cAndH2OverTlsAgainstNghttpd) {
  if (!Nghttpd::available()) GTEST_SKIP() << "needs nghttpd (scripts/bootstrap installs it)";
  for (bool tls : {false, true}) {
    Nghttpd server(tls);
    const std::string out = make_temp_dir("nghttpd-run");
    std::vector<std::string> args = {proofload_binary(),
                                     "run",
                                     server.url("/index.html"),
                                     "--http2",
                                     "-c",
                                     "2",
                                     "--h2-streams",
                                     "4",
                                     "-n",
                                     "400",
                                     "-q",
                                     "-o",
                                     out};
    if (tls) {
      args.push_back("--cacert");
      args.push_back(server.ca_file());
    }
    Completed run = run_to_completion(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json summary = read_result(out)["summary"];
    EXPECT_EQ(outcome(summary, "success"), 400) << (tls ? "h2: " : "h2c: ") << summary.dump(2);
    EXPECT_EQ(summary["connects"], 2);
  }
}

// --h2-window against nghttpd: a stream window of 16 KiB holds a 256 KiB file to sixteen
// windows, each answered by the client's WINDOW_UPDATE; every response arrives whole, and the
// window is recorded.
TEST(Http2Nghttpd, AStreamWindowSmallerThanTheResponseStillGetsItWhole) {
  if (!Nghttpd::available()) GTEST_SKIP() << "needs nghttpd (scripts/bootstrap installs it)";
  Nghttpd server(false);
  constexpr int64_t kFileBytes = 256 * 1024;
  server.add_file("large.bin", std::string(kFileBytes, 'x'));
  const std::string out = make_temp_dir("nghttpd-window");
  Completed run = run_to_completion({proofload_binary(), "run", server.url("/large.bin"), "--http2",
                                     "-c", "1", "--h2-streams", "4", "--h2-window", "16KiB", "-n",
                                     "200", "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(outcome(result["summary"], "success"), 200) << result["summary"].dump(2);
  EXPECT_GE(result["summary"]["bytes_in"].get<int64_t>(), 200 * kFileBytes);
  EXPECT_EQ(result["spec"]["h2_window_bytes"], 16 * 1024);
}

// Server-sent events over HTTP/2: the DATA frames' pieces go to each stream's tracker as they
// are received, four streams to a connection; every stream is the served file byte for byte
// (the fixture) and its 200 events are counted.
TEST(Http2Nghttpd, StreamsAreReadEventByEventOverHttp2) {
  if (!Nghttpd::available()) GTEST_SKIP() << "needs nghttpd (scripts/bootstrap installs it)";
  Nghttpd server(false);
  std::string events;
  for (int i = 0; i < 200; ++i) {
    events += "data: {\"n\":" + std::to_string(i) + ",\"pad\":\"" + std::string(500, 'x') +
              "\"}\n\n";
  }
  events += "data: [DONE]\n\n";
  const std::string fixture = server.add_file("events.sse", events);
  const std::string out = make_temp_dir("h2-streams");
  Completed run = run_to_completion({proofload_binary(), "run", server.url("/events.sse"),
                                     "--http2", "-c", "2", "--h2-streams", "4", "-n", "100",
                                     "--stream", "sse", "--stream-fixture", fixture, "-q", "-o",
                                     out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  const json& s = summary["streams"];
  EXPECT_EQ(s["completed"], 100) << s.dump(2);
  EXPECT_EQ(s["fixture_mismatch"], 0);
  EXPECT_EQ(s["events"], 100 * 201) << "200 events and the terminator, each stream";
  EXPECT_EQ(s["bytes"], 100 * static_cast<int64_t>(events.size()));
}

}  // namespace
}  // namespace proofload::testing
