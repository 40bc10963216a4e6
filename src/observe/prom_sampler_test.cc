// The prom: sampler against real endpoints on 127.0.0.1: the built-in server's /metrics
// (`proofload serve --profile demo`), Debian's prometheus-node-exporter (skipped when not
// installed), and a test endpoint that answers well, in pieces, with garbage, a 500, never, or
// not at all. Gaps must come within the timeout, measured.
#include "observe/prom_sampler.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/tls_test_server.h"
#include "observe/prom_text.h"
#include "process.h"

#include "observe/prom_sampler_test_support.h"

namespace proofload::observe {
namespace {


TEST(PromSamplerSpec, OnlyPromSpecsMakeASampler) {
  EXPECT_EQ(make_prom_sampler("pid:1", 0), nullptr);
  EXPECT_EQ(make_prom_sampler("prom", 0), nullptr);
  EXPECT_EQ(make_prom_sampler("cgroup:/sys/fs/cgroup", 0), nullptr);
  auto sampler = make_prom_sampler("prom:http://127.0.0.1:9100/metrics", 0);
  ASSERT_NE(sampler, nullptr);
  EXPECT_EQ(sampler->spec(), "prom:http://127.0.0.1:9100/metrics");
}

TEST(PromSamplerSpec, MalformedSpecsAreOneLineUsageErrors) {
  const char* bad[] = {
      "prom:",
      "prom:127.0.0.1:9100/metrics",
      "prom:ftp://127.0.0.1/metrics",
      "prom:http://127.0.0.1:99999/metrics",
      "prom:http:///metrics",
      "prom:http://127.0.0.1/metrics?match=",
      "prom:http://127.0.0.1/metrics?match",
      "prom:http://127.0.0.1/metrics?match=node_,,go_",
      "prom:http://127.0.0.1/metrics?match=9lives",
      "prom:http://127.0.0.1/metrics?match=node-cpu",
  };
  for (const char* spec : bad) {
    try {
      make_prom_sampler(spec, 0);
      ADD_FAILURE() << "accepted: " << spec;
    } catch (const UsageError& error) {
      EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos) << error.what();
      EXPECT_FALSE(std::string(error.what()).empty());
    }
  }
}

TEST(PromSamplerSpec, TimeoutIsTwoSecondsAndAtMost80PercentOfThePeriod) {
  EXPECT_EQ(prom_timeout_ns(0), 2 * kNsPerS);
  EXPECT_EQ(prom_timeout_ns(10 * kNsPerS), 2 * kNsPerS);
  EXPECT_EQ(prom_timeout_ns(kNsPerS), 800 * kNsPerMs);
  EXPECT_EQ(prom_timeout_ns(100 * kNsPerMs), 80 * kNsPerMs);
}

TEST(PromSampler, ReadingsAreTheSeriesWithTheirKinds) {
  const std::string body = exposition_fixture("node_exporter.prom");
  TestEndpoint endpoint(TestEndpoint::Mode::kReply, ok_response(body));
  auto sampler = make_prom_sampler(endpoint.spec(), 0);
  Sample sample = sampler->sample(12345);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(sample.at_ns, 12345);
  PromParseResult expected = parse_prom_text(body);
  ASSERT_EQ(sample.readings.size(), expected.series.size());  // no prom_bad_lines: none bad
  for (size_t i = 0; i < expected.series.size(); ++i) {
    EXPECT_EQ(sample.readings[i].name, expected.series[i].key);
    EXPECT_EQ(sample.readings[i].kind, expected.series[i].kind);
    if (!std::isnan(expected.series[i].value)) {
      EXPECT_EQ(sample.readings[i].value, expected.series[i].value);
    }
  }
  auto readings = by_name(sample);
  EXPECT_EQ(readings.at("node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}").kind,
            MetricKind::kCounter);
  EXPECT_EQ(readings.at("go_gc_duration_seconds{quantile=\"0.75\"}").kind, MetricKind::kGauge);
  EXPECT_EQ(readings.at("node_textfile_plain").kind, MetricKind::kGauge);  // untyped
}

TEST(PromSampler, SendsOneGetWithConnectionCloseAndKeepsMatchToItself) {
  TestEndpoint endpoint(TestEndpoint::Mode::kReply,
                        ok_response(exposition_fixture("node_exporter.prom")));
  auto sampler = make_prom_sampler(endpoint.spec("/metrics?x=1&match=node_cpu,go_&y=2#top"), 0);
  Sample sample = sampler->sample(0);
  ASSERT_TRUE(sample.ok) << sample.error;
  std::string request = endpoint.last_request();
  EXPECT_EQ(request.substr(0, request.find("\r\n")), "GET /metrics?x=1&y=2 HTTP/1.1");
  EXPECT_NE(request.find("\r\nHost: 127.0.0.1:" + std::to_string(endpoint.port()) + "\r\n"),
            std::string::npos);
  EXPECT_NE(request.find("\r\nConnection: close\r\n"), std::string::npos);
  EXPECT_NE(request.find("\r\nAccept: text/plain;version=0.0.4\r\n"), std::string::npos);
  // node_cpu_seconds_total's 8 series; go_gc_duration_seconds' 7, go_goroutines, go_info.
  ASSERT_EQ(sample.readings.size(), 17u);
  for (const Reading& reading : sample.readings) {
    EXPECT_TRUE(reading.name.rfind("node_cpu", 0) == 0 || reading.name.rfind("go_", 0) == 0)
        << reading.name;
  }
}

TEST(PromSampler, AMatchThatKeepsNothingIsAnEmptySampleNotAGap) {
  TestEndpoint endpoint(TestEndpoint::Mode::kReply,
                        ok_response(exposition_fixture("node_exporter.prom")));
  Sample sample = make_prom_sampler(endpoint.spec("/metrics?match=not_yet_seen"), 0)->sample(0);
  EXPECT_TRUE(sample.ok) << sample.error;
  EXPECT_TRUE(sample.readings.empty());
}

TEST(PromSampler, ChunkedAndCloseDelimitedBodiesAreReadWhole) {
  const std::string body = exposition_fixture("node_exporter.prom");
  std::string chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
  for (size_t at = 0; at < body.size(); at += 100) {
    std::string part = body.substr(at, 100);
    char size[16];
    snprintf(size, sizeof size, "%zx\r\n", part.size());
    chunked += size + part + "\r\n";
  }
  chunked += "0\r\n\r\n";
  for (const std::string& reply : {chunked, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body,
                                   "HTTP/1.0 200 OK\r\n\r\n" + body}) {
    TestEndpoint endpoint(TestEndpoint::Mode::kReply, reply);
    Sample sample = make_prom_sampler(endpoint.spec(), 0)->sample(0);
    ASSERT_TRUE(sample.ok) << sample.error;
    EXPECT_EQ(sample.readings.size(), 38u) << reply.substr(0, 40);
  }
}

TEST(PromSampler, MalformedLinesGiveTheGoodSeriesAndACountOfTheBad) {
  TestEndpoint endpoint(TestEndpoint::Mode::kReply,
                        ok_response(exposition_fixture("malformed.prom")));
  Sample sample = make_prom_sampler(endpoint.spec(), 0)->sample(0);
  ASSERT_TRUE(sample.ok) << sample.error;
  auto readings = by_name(sample);
  ASSERT_EQ(readings.size(), 4u);
  EXPECT_EQ(readings.at("good_total").value, 1);
  EXPECT_EQ(readings.at("good_gauge").value, 3);
  EXPECT_EQ(readings.at("late_total").value, 4);
  EXPECT_EQ(readings.at("prom_bad_lines").value, 30);
  EXPECT_EQ(readings.at("prom_bad_lines").kind, MetricKind::kGauge);
}

// Each misbehaviour: a gap with a one-line error saying what happened, promptly.
struct GapCase {
  const char* name;
  TestEndpoint::Mode mode;
  std::string reply;
  const char* error;
};

TEST(PromSampler, MisbehavingEndpointsAreGapsWithOneLineErrors) {
  const GapCase cases[] = {
      {"a 500", TestEndpoint::Mode::kReply,
       "HTTP/1.1 500 Internal Server Error\r\nContent-Length: 5\r\n\r\noops\n",
       "HTTP status 500 (expected 200)"},
      {"a redirect", TestEndpoint::Mode::kReply,
       "HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 0\r\n\r\n",
       "HTTP status 301 (expected 200)"},
      {"garbage instead of HTTP", TestEndpoint::Mode::kReply, "this is not HTTP\r\n\r\n",
       "bad HTTP response: "},
      {"a body of garbage", TestEndpoint::Mode::kReply, ok_response("<html>hello</html>\n"),
       "no valid series in the body: 1 malformed lines, the first at line 1: invalid metric "
       "name"},
      {"an empty body", TestEndpoint::Mode::kReply, ok_response(""),
       "no series in the body (0 bytes)"},
      {"only comments", TestEndpoint::Mode::kReply, ok_response("# TYPE x counter\n"),
       "no series in the body (17 bytes)"},
      {"a compressed body", TestEndpoint::Mode::kReply,
       ok_response("\x1f\x8b\x08", "Content-Encoding: gzip\r\n"),
       "the body is compressed (Content-Encoding), though identity was asked for"},
      {"a close after the request", TestEndpoint::Mode::kCloseAfterRequest, "",
       "connection closed before a response"},
      {"a response cut by a close", TestEndpoint::Mode::kReply,
       "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nx 1\n", "bad HTTP response: "},
  };
  for (const GapCase& c : cases) {
    TestEndpoint endpoint(c.mode, c.reply);
    int64_t elapsed_ns = 0;
    auto sampler = make_prom_sampler(endpoint.spec(), kShortTimeoutNs);
    Sample sample = timed_sample(*sampler, elapsed_ns);
    EXPECT_FALSE(sample.ok) << c.name;
    EXPECT_TRUE(sample.readings.empty()) << c.name;
    EXPECT_EQ(sample.error.rfind(c.error, 0), 0u) << c.name << ": " << sample.error;
    EXPECT_EQ(sample.error.find('\n'), std::string::npos) << c.name;
    EXPECT_LT(elapsed_ns, kShortTimeoutNs) << c.name << ": answered, so no wait for the timeout";
  }
}

TEST(PromSampler, AConnectionClosedAtAcceptIsAGap) {
  TestEndpoint endpoint(TestEndpoint::Mode::kCloseAtAccept);
  int64_t elapsed_ns = 0;
  auto sampler = make_prom_sampler(endpoint.spec(), kShortTimeoutNs);
  Sample sample = timed_sample(*sampler, elapsed_ns);
  EXPECT_FALSE(sample.ok);
  // Whether the close arrives before or after the request was sent decides which of the two.
  EXPECT_TRUE(sample.error == "connection closed before a response" ||
              sample.error == "read: Connection reset by peer")
      << sample.error;
  EXPECT_LT(elapsed_ns, kShortTimeoutNs);
}

TEST(PromSampler, ARefusedConnectionIsAGapAtOnce) {
  int port = testing::unused_loopback_port();
  auto sampler = make_prom_sampler("prom:http://127.0.0.1:" + std::to_string(port) + "/m", 0);
  int64_t elapsed_ns = 0;
  Sample sample = timed_sample(*sampler, elapsed_ns);
  EXPECT_FALSE(sample.ok);
  EXPECT_EQ(sample.error, "connect to 127.0.0.1:" + std::to_string(port) + ": Connection refused");
  EXPECT_LT(elapsed_ns, 100 * kNsPerMs);
}

TEST(PromSampler, AnEndpointThatNeverAnswersIsAGapWithinTheTimeout) {
  TestEndpoint endpoint(TestEndpoint::Mode::kHold);
  auto sampler = make_prom_sampler(endpoint.spec(), kShortTimeoutNs);
  for (int round = 0; round < 2; ++round) {  // and the next sample does the same
    int64_t elapsed_ns = 0;
    Sample sample = timed_sample(*sampler, elapsed_ns);
    EXPECT_FALSE(sample.ok);
    EXPECT_EQ(sample.error, "timed out after 300 ms waiting for the response");
    EXPECT_GE(elapsed_ns, kShortTimeoutNs);
    EXPECT_LT(elapsed_ns, kShortTimeoutNs + kLateNs);
  }
}

TEST(PromSampler, TheTimeoutCoversTheWholeResponseNotEachRead) {
  // Headers and part of the body, then nothing: one deadline for connect, send and every read.
  TestEndpoint endpoint(TestEndpoint::Mode::kHold,
                        "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\nx 1\ny 2\n");
  auto sampler = make_prom_sampler(endpoint.spec(), kShortTimeoutNs);
  int64_t elapsed_ns = 0;
  Sample sample = timed_sample(*sampler, elapsed_ns);
  EXPECT_FALSE(sample.ok);
  EXPECT_EQ(sample.error, "timed out after 300 ms reading the response");
  EXPECT_GE(elapsed_ns, kShortTimeoutNs);
  EXPECT_LT(elapsed_ns, kShortTimeoutNs + kLateNs);
}

TEST(PromSampler, TheDefaultTimeoutIsTwoSeconds) {
  TestEndpoint endpoint(TestEndpoint::Mode::kHold);
  auto sampler = make_prom_sampler(endpoint.spec(), 0);
  int64_t elapsed_ns = 0;
  Sample sample = timed_sample(*sampler, elapsed_ns);
  EXPECT_EQ(sample.error, "timed out after 2000 ms waiting for the response");
  EXPECT_GE(elapsed_ns, 2 * kNsPerS);
  EXPECT_LT(elapsed_ns, 2 * kNsPerS + kLateNs);
}

TEST(PromSampler, AnHttpsEndpointIsReadWhenTrustedAndAGapSayingWhyWhenNot) {
  const net::PemPair pem = net::make_self_signed("localhost");
  net::testing::TlsTestServer server(net::testing::ServerMode::kTlsEcho, pem,
                                     "# TYPE up gauge\nup 1\n");
  const std::string spec = "prom:https://127.0.0.1:" + std::to_string(server.port()) + "/metrics";
  Sample refused = make_prom_sampler(spec, 2 * kNsPerS)->sample(monotonic_ns());
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.error, "TLS with 127.0.0.1:" + std::to_string(server.port()) +
                               ": certificate verify failed: self-signed certificate");
  const std::string ca = ::testing::TempDir() + "prom-ca.pem";
  std::ofstream(ca) << pem.certificate;
  net::TlsOptions trust;
  trust.ca_file = ca;
  Sample sample = make_prom_sampler(spec, 2 * kNsPerS, trust)->sample(monotonic_ns());
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_EQ(by_name(sample)["up"].value, 1);
}

TEST(PromSampler, AHostNameIsResolvedOnce) {
  TestEndpoint endpoint(TestEndpoint::Mode::kReply, ok_response("x 1\n"));
  auto sampler =
      make_prom_sampler("prom:http://localhost:" + std::to_string(endpoint.port()) + "/m", 0);
  Sample sample = sampler->sample(0);
  ASSERT_TRUE(sample.ok) << sample.error;
  EXPECT_NE(endpoint.last_request().find("\r\nHost: localhost:"), std::string::npos);
}

// The test's own requests to the built-in server: one blocking GET, its status (-1 if none).
int http_get_status(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  timeval timeout{5, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<uint16_t>(port));
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    std::string request =
        "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    char buffer[4096];
    ssize_t n;
    while ((n = read(fd, buffer, sizeof buffer)) > 0)
      response.append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return response.rfind("HTTP/1.1 ", 0) == 0 ? std::stoi(response.substr(9, 3)) : -1;
}

TEST(PromSamplerServe, TheBuiltInServersMetricsCountItsRequests) {
  testing::ServeProcess serve({"--profile", "demo"});
  auto sampler = make_prom_sampler("prom:" + serve.url("/metrics"), 0);
  Sample first = sampler->sample(monotonic_ns());
  ASSERT_TRUE(first.ok) << first.error;
  auto readings = by_name(first);
  EXPECT_EQ(readings.at("proofload_in_flight_requests").kind, MetricKind::kGauge);
  EXPECT_EQ(readings.at("process_cpu_seconds_total").kind, MetricKind::kCounter);
  EXPECT_GT(readings.at("process_resident_memory_bytes").value, 1e6);
  const std::string health = "proofload_requests_total{route=\"health\",status=\"200\"}";
  EXPECT_EQ(readings.count(health), 0u);  // a series appears with its first request

  for (int i = 0; i < 3; ++i) ASSERT_EQ(http_get_status(serve.port(), "/health"), 200);
  Sample second = sampler->sample(monotonic_ns());
  ASSERT_TRUE(second.ok) << second.error;
  readings = by_name(second);
  EXPECT_EQ(readings.at(health).kind, MetricKind::kCounter);
  EXPECT_EQ(readings.at(health).value, 3);
  EXPECT_EQ(readings.at("proofload_requests_total{route=\"metrics\",status=\"200\"}").value, 1);
  EXPECT_EQ(readings.count("prom_bad_lines"), 0u);
}

constexpr const char* kNodeExporter = "/usr/bin/prometheus-node-exporter";

// cpu0's idle time from /proc/stat, in seconds, as node exporter reads it.
double cpu0_idle_seconds() {
  std::ifstream in("/proc/stat");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("cpu0 ", 0) != 0) continue;
    std::istringstream fields(line.substr(5));
    double user = 0, nice = 0, system = 0, idle = 0;
    fields >> user >> nice >> system >> idle;
    return idle / static_cast<double>(sysconf(_SC_CLK_TCK));
  }
  return -1;
}

TEST(PromSamplerNodeExporter, ItsCountersGaugesAndSummariesAreReadAsExposed) {
  if (access(kNodeExporter, X_OK) != 0) {
    GTEST_SKIP() << kNodeExporter << " is not installed (scripts/bootstrap installs Debian's "
                 << "prometheus-node-exporter)";
  }
  const std::string address = "127.0.0.1:" + std::to_string(testing::unused_loopback_port());
  // Its log goes to stderr; joined to stdout so that its "Listening on" line says it is ready.
  testing::Process exporter(
      {"/bin/sh", "-c",
       std::string("exec ") + kNodeExporter + " --web.listen-address=" + address + " 2>&1"});
  bool listening = false;
  while (auto line = exporter.read_stdout_line(std::chrono::seconds(10))) {
    if (line->find("Listening on") != std::string::npos) {
      listening = true;
      break;
    }
  }
  ASSERT_TRUE(listening) << exporter.out();

  auto sampler = make_prom_sampler("prom:http://" + address + "/metrics", 0);
  const double idle_before = cpu0_idle_seconds();
  Sample first = sampler->sample(monotonic_ns());
  const double idle_after = cpu0_idle_seconds();
  ASSERT_TRUE(first.ok) << first.error;
  auto readings = by_name(first);
  EXPECT_EQ(readings.count("prom_bad_lines"), 0u);
  EXPECT_GT(readings.size(), 100u);
  const Reading& idle = readings.at("node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"}");
  EXPECT_EQ(idle.kind, MetricKind::kCounter);
  EXPECT_GE(idle.value, idle_before - 0.01);  // the exporter read /proc/stat in between
  EXPECT_LE(idle.value, idle_after + 0.01);
  EXPECT_EQ(readings.at("node_load1").kind, MetricKind::kGauge);
  EXPECT_EQ(readings.at("go_gc_duration_seconds{quantile=\"0.5\"}").kind, MetricKind::kGauge);
  EXPECT_EQ(readings.at("go_gc_duration_seconds_count").kind, MetricKind::kCounter);

  // It counts its scrapes: the second sees the first.
  const std::string scrapes = "promhttp_metric_handler_requests_total{code=\"200\"}";
  Sample second = sampler->sample(monotonic_ns());
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(by_name(second).at(scrapes).value, readings.at(scrapes).value + 1);

  Sample cpu_only =
      make_prom_sampler("prom:http://" + address + "/metrics?match=node_cpu_", 0)->sample(0);
  ASSERT_TRUE(cpu_only.ok) << cpu_only.error;
  EXPECT_GE(cpu_only.readings.size(), 8u);  // at least one CPU's eight modes
  for (const Reading& reading : cpu_only.readings) {
    EXPECT_EQ(reading.name.rfind("node_cpu_", 0), 0u) << reading.name;
  }
  exporter.signal(SIGTERM);
  EXPECT_TRUE(exporter.wait(std::chrono::seconds(10)).has_value());
}

}  // namespace
}  // namespace proofload::observe
