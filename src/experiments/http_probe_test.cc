// Tests of the blocking status probe against scripted servers on 127.0.0.1.
#include "experiments/http_probe.h"

#include <gtest/gtest.h>

#include <fstream>

#include "common/usage_error.h"
#include "experiments/hooks_test_support.h"
#include "net/tls_test_server.h"

namespace proofload::experiments {
namespace {

using testing::LoopbackSocket;
using testing::response_with_status;
using testing::ScriptedServer;

constexpr int64_t kTimeoutNs = 2'000'000'000;

TEST(HttpProbe, ReadsTheStatusOfA200AndSendsAPlainGet) {
  ScriptedServer server({response_with_status(200)});
  const ProbeAnswer answer = http_get_status(server.url("/health?deep=1"), kTimeoutNs);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.text(), "HTTP 200");
  const std::string request = server.first_request();
  EXPECT_EQ(request.rfind("GET /health?deep=1 HTTP/1.1\r\n", 0), 0u) << request;
  EXPECT_NE(request.find("\r\nHost: 127.0.0.1:"), std::string::npos) << request;
  EXPECT_NE(request.find("\r\nConnection: close\r\n"), std::string::npos) << request;
}

TEST(HttpProbe, AnErrorStatusIsAnAnswerNotAFailure) {
  ScriptedServer server({response_with_status(500)});
  const ProbeAnswer answer = http_get_status(server.url(), kTimeoutNs);
  EXPECT_EQ(answer.status, 500);
  EXPECT_EQ(answer.text(), "HTTP 500");
}

TEST(HttpProbe, DoesNotWaitForTheBody) {
  // The body never comes and the server keeps the connection open: the head is enough.
  ScriptedServer server({"HTTP/1.1 503 Busy\r\nContent-Length: 100000\r\n\r\npartial"});
  const ProbeAnswer answer = http_get_status(server.url(), kTimeoutNs);
  EXPECT_EQ(answer.text(), "HTTP 503");
}

TEST(HttpProbe, SkipsAnInterimResponse) {
  ScriptedServer server({"HTTP/1.1 100 Continue\r\n\r\n" + response_with_status(204)});
  EXPECT_EQ(http_get_status(server.url(), kTimeoutNs).text(), "HTTP 204");
}

TEST(HttpProbe, ARefusedPortIsSaidSo) {
  LoopbackSocket closed_port(false);
  const ProbeAnswer answer = http_get_status(closed_port.url(), kTimeoutNs);
  EXPECT_FALSE(answer.status);
  EXPECT_EQ(answer.text(), "connection refused");
}

TEST(HttpProbe, AServerThatNeverAnswersTimesOut) {
  LoopbackSocket silent(true);  // the kernel accepts the connection; nobody reads or answers
  const ProbeAnswer answer = http_get_status(silent.url(), 200'000'000);
  EXPECT_FALSE(answer.status);
  EXPECT_EQ(answer.text(), "timed out after 0.2 s");
}

TEST(HttpProbe, GarbageIsABadResponse) {
  ScriptedServer server({"garbage that is not http\r\n\r\n"});
  const ProbeAnswer answer = http_get_status(server.url(), kTimeoutNs);
  EXPECT_FALSE(answer.status);
  EXPECT_EQ(answer.text().rfind("bad response: ", 0), 0u) << answer.text();
}

TEST(HttpProbe, AConnectionClosedWithoutAResponseIsSaidSo) {
  ScriptedServer server({""}, /*wait_for_client_close=*/false);
  EXPECT_EQ(http_get_status(server.url(), kTimeoutNs).text(),
            "connection closed without a response");
}

TEST(HttpProbe, AConnectionClosedInTheMiddleOfTheHeadIsABadResponse) {
  ScriptedServer server({"HTTP/1.1 200 OK\r\nContent-Le"}, /*wait_for_client_close=*/false);
  const std::string text = http_get_status(server.url(), kTimeoutNs).text();
  EXPECT_EQ(text.rfind("bad response: ", 0), 0u) << text;
}

TEST(HttpProbe, MalformedUrlsAndUnreadableCaFilesAreUsageErrors) {
  EXPECT_THROW(http_get_status("http://", kTimeoutNs), UsageError);
  net::TlsOptions trust;
  trust.ca_file = "/nonexistent/ca.pem";
  EXPECT_THROW(http_get_status("https://127.0.0.1:1/", kTimeoutNs, trust), UsageError);
}

TEST(HttpProbe, AnHttpsUrlIsVerifiedAsTheCommandsTrustSays) {
  const net::PemPair pem = net::make_self_signed("localhost");
  net::testing::TlsTestServer server(net::testing::ServerMode::kTlsEcho, pem);
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/health";
  // The system's CAs do not know the test's certificate: an answer, not a throw.
  EXPECT_EQ(http_get_status(url, kTimeoutNs).text(),
            "TLS: certificate verify failed: self-signed certificate");
  net::TlsOptions insecure;
  insecure.verify = false;
  EXPECT_EQ(http_get_status(url, kTimeoutNs, insecure).text(), "HTTP 200");
  const std::string ca = ::testing::TempDir() + "probe-ca.pem";
  std::ofstream(ca) << pem.certificate;
  net::TlsOptions trusted;
  trusted.ca_file = ca;
  const ProbeAnswer answer = http_get(url, kTimeoutNs, 64, trusted);
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "ok");
}

TEST(IsUrl, TellsUrlsFromCommands) {
  EXPECT_TRUE(is_url("http://127.0.0.1:8080/health"));
  EXPECT_TRUE(is_url("https://example.test/"));
  EXPECT_TRUE(is_url("HTTP://127.0.0.1/"));
  EXPECT_FALSE(is_url("./wait-for-queue.sh http://127.0.0.1/"));
  EXPECT_FALSE(is_url("curl -fs http://127.0.0.1/"));
  EXPECT_FALSE(is_url("http:/oops"));
  EXPECT_FALSE(is_url(""));
}

}  // namespace
}  // namespace proofload::experiments
