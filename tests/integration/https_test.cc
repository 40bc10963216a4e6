// `proofload run` over TLS, end to end: the real binary against nginx (Debian's nginx-light,
// started by the test with a certificate the test made) and against TLS servers that fail in
// known ways. Every run is bounded by -n or -d and a deadline on the child process.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "net/self_signed.h"
#include "net/tls_test_server.h"
#include "nginx_server.h"
#include "process.h"

namespace proofload::testing {
namespace {

using nlohmann::json;

json read_result(const std::string& dir) { return json::parse(read_file(dir + "/result.json")); }

class Https : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!NginxServer::available()) GTEST_SKIP() << "needs nginx (scripts/bootstrap installs it)";
  }
};

TEST_F(Https, AVerifiedRunRecordsTheProtocolTheHandshakesAndTheirResumption) {
  NginxOptions options;
  options.keepalive_requests = 5;  // nginx closes each connection after 5: reconnects resume
  NginxServer nginx(options);
  const std::string out = make_temp_dir("https-run");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-c", "2",
                                     "-n", "200", "--cacert", nginx.ca_file(), "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  const json& spec = result["spec"];
  EXPECT_EQ(spec["protocol"], "http/1.1");
  EXPECT_EQ(spec["tls"]["version"], "TLSv1.3");
  EXPECT_EQ(spec["tls"]["alpn"], "http/1.1");
  EXPECT_EQ(spec["tls"]["verify"], true);
  EXPECT_EQ(spec["tls"]["server_name"], "127.0.0.1");
  const json& summary = result["summary"];
  EXPECT_EQ(summary["outcomes"]["success"], 200) << summary.dump(2);
  EXPECT_EQ(summary["outcomes"]["tls_error"], 0);
  const int64_t handshakes = summary["tls"]["handshakes"].get<int64_t>();
  EXPECT_GE(handshakes, 40);  // at least one per 5 requests
  EXPECT_EQ(handshakes, summary["connects"].get<int64_t>());
  // Every handshake after each worker's first can resume the ticket nginx gave.
  EXPECT_GE(summary["tls"]["resumed"].get<int64_t>(), handshakes - 4);
  EXPECT_TRUE(summary["tls"]["handshake_ms"]["p50"].is_number());
  EXPECT_TRUE(summary["connect_ms"]["p99"].is_number());
  EXPECT_TRUE(summary["tls"]["first_error"].is_null());
  int64_t by_window = 0;  // the windows hold every handshake, each where it happened
  for (const json& w : result["windows"]) by_window += w["tls_handshakes"].get<int64_t>();
  EXPECT_EQ(by_window, handshakes);
  const std::string md = read_file(out + "/summary.md");
  EXPECT_NE(md.find("HTTP/1.1 over TLSv1.3 (ALPN http/1.1)."), std::string::npos) << md;
  EXPECT_NE(md.find("| TLS handshake | "), std::string::npos) << md;
  EXPECT_NE(md.find(" resumed, "), std::string::npos) << md;
  EXPECT_NE(result["command_line"].get<std::string>().find("--cacert"), std::string::npos);
}

TEST_F(Https, WithoutResumptionEveryHandshakeIsFull) {
  NginxOptions options;
  options.keepalive_requests = 5;
  NginxServer nginx(options);
  const std::string out = make_temp_dir("https-no-resume");
  Completed run = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-c", "1",
                                     "-n", "30", "--cacert", nginx.ca_file(), "--no-tls-resume",
                                     "--tls-min", "1.3", "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  EXPECT_EQ(summary["outcomes"]["success"], 30);
  EXPECT_GE(summary["tls"]["handshakes"].get<int64_t>(), 6);
  EXPECT_EQ(summary["tls"]["resumed"], 0);
}

TEST_F(Https, WithoutConnectionReuseEveryRequestPaysForItsOwnConnectionAndHandshake) {
  NginxServer nginx;  // keeps a connection for 1000 requests
  auto connects_of = [&](const std::vector<std::string>& flags) {
    const std::string out = make_temp_dir("https-no-reuse");
    std::vector<std::string> args = {proofload_binary(),
                                     "run",
                                     nginx.url("/index.html"),
                                     "-c",
                                     "1",
                                     "-n",
                                     "30",
                                     "--cacert",
                                     nginx.ca_file(),
                                     "-q",
                                     "-o",
                                     out};
    args.insert(args.end(), flags.begin(), flags.end());
    const Completed run = run_to_completion(args);
    EXPECT_EQ(run.exit_code, 0) << run.err;
    const json summary = read_result(out)["summary"];
    EXPECT_EQ(summary["outcomes"]["success"], 30);
    EXPECT_EQ(summary["tls"]["handshakes"], summary["connects"]);
    return summary["connects"].get<int64_t>();
  };
  EXPECT_EQ(connects_of({}), 1);
  // A connection per request: the one connection is opened again after each answer (and, as the
  // last answer ends the run, perhaps once more).
  const int64_t without_reuse = connects_of({"--no-connection-reuse"});
  EXPECT_GE(without_reuse, 30);
  EXPECT_LE(without_reuse, 31);
  EXPECT_GE(connects_of({"--disable-keepalive"}), 30);  // hey's spelling, taken as an alias
}

TEST_F(Https, AnUntrustedCertificateStopsTheRunBeforeAnyLoadWithExit2) {
  NginxServer nginx;
  const std::string out = make_temp_dir("https-untrusted") + "/run";
  Completed run = run_to_completion(
      {proofload_binary(), "run", nginx.url("/index.html"), "-n", "10", "-q", "-o", out});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "proofload: error: certificate verify failed: self-signed certificate; use --cacert or "
            "--insecure\n");
  EXPECT_FALSE(std::filesystem::exists(out));  // nothing was run, so nothing was recorded

  Completed insecure = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-n",
                                          "10", "--insecure", "-q", "-o", out});
  ASSERT_EQ(insecure.exit_code, 0) << insecure.err;
  EXPECT_EQ(read_result(out)["summary"]["outcomes"]["success"], 10);
  EXPECT_EQ(read_result(out)["spec"]["tls"]["verify"], false);
}

TEST_F(Https, ANameTheCertificateDoesNotCarryStopsTheRun) {
  NginxServer nginx;
  Completed run =
      run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-n", "10",
                         "--cacert", nginx.ca_file(), "--sni", "other.example", "-q"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "proofload: error: certificate verify failed: hostname mismatch; use --cacert or "
            "--insecure\n");
  Completed named = run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-n",
                                       "10", "--cacert", nginx.ca_file(), "--sni", "localhost",
                                       "-q", "-o", make_temp_dir("https-sni")});
  EXPECT_EQ(named.exit_code, 0) << named.err;
}

TEST_F(Https, ALadderItsPreCheckDrainGateAndObserverAllSpeakTls) {
  NginxServer nginx;
  const std::string out = make_temp_dir("https-ladder") + "/ladder";
  // nginx serves no /metrics: a file in its root with one series stands in for one.
  write_file(nginx.directory() + "/metrics", "# TYPE up gauge\nup 1\n");
  Completed run = run_to_completion({proofload_binary(),
                                     "ladder",
                                     nginx.url("/index.html"),
                                     "--rates",
                                     "20,40",
                                     "--hold",
                                     "1s",
                                     "--warmup",
                                     "0s",
                                     "--cacert",
                                     nginx.ca_file(),
                                     "--precheck",
                                     nginx.url("/index.html"),
                                     "--drain-until",
                                     nginx.url("/index.html"),
                                     "--observe",
                                     "prom:" + nginx.url("/metrics"),
                                     "--workers",
                                     "1",
                                     "-q",
                                     "-o",
                                     out},
                                    std::chrono::seconds(60));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  ASSERT_EQ(result["rows"].size(), 2u) << result.dump(2);
  for (const json& row : result["rows"]) {
    EXPECT_EQ(row["error_rate"], 0.0) << row.dump(2);
    EXPECT_GT(row["responses"].get<int64_t>(), 0);
  }
  ASSERT_GE(result["events"].size(), 3u);  // the pre-check, then a drain wait before each level
  for (const json& event : result["events"]) {
    EXPECT_EQ(event["ok"], true) << event.dump(2);  // the pre-check and each drain wait
  }
  EXPECT_EQ(result["source"]["tls_version"], "TLSv1.3");
  EXPECT_NE(
      read_file(out + "/summary.md").find("Over HTTPS: HTTP/1.1 over TLSv1.3 (ALPN http/1.1)."),
      std::string::npos);
  const json level_run = read_result(out + "/" + result["rows"][0]["directory"].get<std::string>());
  EXPECT_EQ(level_run["spec"]["tls"]["version"], "TLSv1.3");
  EXPECT_GT(level_run["observed"].size(), 1u) << level_run["observed"].dump(2);
}

TEST_F(Https, AClientCertificateIsPresentedWhenTheServerAsksForOne) {
  const net::PemPair client = net::make_self_signed("proofload-client");
  NginxOptions options;
  options.client_ca_pem = client.certificate;
  NginxServer nginx(options);
  const std::string dir = make_temp_dir("https-client-cert");
  write_file(dir + "/client.pem", client.certificate);
  write_file(dir + "/client-key.pem", client.private_key);
  Completed with = run_to_completion(
      {proofload_binary(), "run", nginx.url("/index.html"), "-n", "10", "--cacert", nginx.ca_file(),
       "--cert", dir + "/client.pem", "--key", dir + "/client-key.pem", "-q", "-o", dir + "/with"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(read_result(dir + "/with")["summary"]["outcomes"]["success"], 10);
  EXPECT_EQ(read_result(dir + "/with")["spec"]["tls"]["client_certificate"], dir + "/client.pem");
  // Without it nginx answers 400 ("No required SSL certificate was sent"): a status, counted.
  Completed without =
      run_to_completion({proofload_binary(), "run", nginx.url("/index.html"), "-n", "10",
                         "--cacert", nginx.ca_file(), "-q", "-o", dir + "/without"});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_EQ(read_result(dir + "/without")["summary"]["status"]["400"], 10);
}

TEST(HttpsTargets, APlainServerOnAnHttpsUrlIsNamedAsNotSpeakingTls) {
  ServeProcess server;
  Completed run = run_to_completion({proofload_binary(), "run",
                                     "https://127.0.0.1:" + std::to_string(server.port()) + "/",
                                     "-n", "5", "--insecure", "-q"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "proofload: error: TLS handshake with 127.0.0.1:" + std::to_string(server.port()) +
                " failed: wrong version number (is the server speaking TLS on this "
                "port?)\n");
}

TEST(HttpsTargets, HandshakesThatFailDuringTheRunAreCountedAsTlsErrorsWithTheirReason) {
  // The first connection (pre-flight) handshakes; every later one is closed in its handshake.
  net::testing::TlsTestServer server(net::testing::ServerMode::kFirstOnly);
  const std::string out = make_temp_dir("https-tls-errors");
  Completed run = run_to_completion({proofload_binary(), "run",
                                     "https://127.0.0.1:" + std::to_string(server.port()) + "/",
                                     "-c", "1", "-n", "5", "--insecure", "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  const json& summary = result["summary"];
  EXPECT_EQ(summary["outcomes"]["tls_error"], 5) << summary.dump(2);
  EXPECT_EQ(summary["intended"], 5);
  // No warm-up was asked for: a failure in the lead time before the start is not dated into one.
  EXPECT_EQ(result["warmup"]["outcomes"]["tls_error"], 0);
  const std::string reason = summary["tls"]["first_error"].get<std::string>();
  EXPECT_TRUE(reason == "connection closed during the TLS handshake" ||
              reason == "Connection reset by peer")
      << reason;
  const std::string md = read_file(out + "/summary.md");
  EXPECT_NE(md.find("First TLS failure: " + reason + "."), std::string::npos) << md;
  EXPECT_NE(md.find("| tls error | 5 |"), std::string::npos) << md;
}

TEST(HttpsTargets, ABodyDelimitedByACloseWithoutCloseNotifyIsATruncationNotASuccess) {
  // Each connection answers one request with a body that only the close ends. With close_notify
  // the body is whole; with a bare FIN nothing says so (before: all counted success).
  for (const auto mode :
       {net::testing::ServerMode::kCloseDelimited, net::testing::ServerMode::kCloseDelimitedCut}) {
    const bool cut = mode == net::testing::ServerMode::kCloseDelimitedCut;
    SCOPED_TRACE(cut ? "without close_notify" : "with close_notify");
    net::testing::TlsTestServer server(mode);
    const std::string out = make_temp_dir(cut ? "https-cut" : "https-whole");
    Completed run = run_to_completion({proofload_binary(), "run",
                                       "https://127.0.0.1:" + std::to_string(server.port()) + "/",
                                       "-c", "1", "-n", "6", "--insecure", "-q", "-o", out});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const json result = read_result(out);
    EXPECT_EQ(result["summary"]["outcomes"].value("success", 0), cut ? 0 : 6) << result["summary"];
    EXPECT_EQ(result["summary"]["outcomes"].value("tls_error", 0), cut ? 6 : 0)
        << result["summary"];
    if (cut) {
      EXPECT_NE(result["summary"]["tls"]["first_error"].get<std::string>().find("close_notify"),
                std::string::npos);
    }
  }
}

TEST(HttpsTargets, AServerThatRequiresAClientCertificateStopsThePreflightNamingCert) {
  // TLS 1.3: the client's handshake ends before the server judges its (missing) certificate;
  // before, the pre-flight passed and every request failed (reset or tls_error).
  net::testing::TlsTestServer server(net::testing::ServerMode::kRequireClientCert);
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port()) + "/";
  const Completed without =
      run_to_completion({proofload_binary(), "run", url, "-c", "1", "-n", "5", "--insecure", "-q"});
  EXPECT_EQ(without.exit_code, 2) << without.err;
  EXPECT_NE(without.err.find("requires a client certificate"), std::string::npos) << without.err;
  EXPECT_NE(without.err.find("--cert"), std::string::npos) << without.err;
  EXPECT_EQ(without.err.find('\n'), without.err.size() - 1) << without.err;

  const net::PemPair client = net::make_self_signed("proofload-client");
  const std::string dir = make_temp_dir("https-requires-cert");
  write_file(dir + "/client.pem", client.certificate);
  write_file(dir + "/client-key.pem", client.private_key);
  const Completed with = run_to_completion({proofload_binary(), "run", url, "-c", "1", "-n", "5",
                                            "--insecure", "--cert", dir + "/client.pem", "--key",
                                            dir + "/client-key.pem", "-q", "-o", dir + "/run"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  EXPECT_EQ(read_result(dir + "/run")["summary"]["outcomes"]["success"], 5);
}

TEST(HttpsTargets, AServerThatNeverFinishesTheHandshakeStopsThePreflightWithinTheTimeout) {
  net::testing::TlsTestServer server(net::testing::ServerMode::kStallInHandshake);
  const auto start = std::chrono::steady_clock::now();
  Completed run = run_to_completion({proofload_binary(), "run",
                                     "https://127.0.0.1:" + std::to_string(server.port()) + "/",
                                     "-n", "5", "--insecure", "--connect-timeout", "300ms", "-q"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err,
            "proofload: error: TLS handshake with 127.0.0.1:" + std::to_string(server.port()) +
                " did not finish within the connect timeout\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST(HttpsTargets, AHandshakeThatStallsDuringTheRunIsATlsErrorAtTheConnectTimeout) {
  net::testing::TlsTestServer server(net::testing::ServerMode::kFirstThenStall);
  const std::string out = make_temp_dir("https-stall");
  Completed run = run_to_completion(
      {proofload_binary(), "run", "https://127.0.0.1:" + std::to_string(server.port()) + "/", "-c",
       "1", "-n", "2", "--insecure", "--connect-timeout", "200ms", "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json summary = read_result(out)["summary"];
  EXPECT_EQ(summary["outcomes"]["tls_error"], 2) << summary.dump(2);
  EXPECT_EQ(summary["tls"]["first_error"],
            "the TLS handshake did not finish within the connect timeout");
}

TEST(HttpsTargets, TlsFlagsAreRefusedForAnHttpTarget) {
  Completed run = run_to_completion(
      {proofload_binary(), "run", "http://127.0.0.1:1/", "--insecure", "-n", "1", "--plan"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("are for an https:// target, not 'http://127.0.0.1:1/'"),
            std::string::npos)
      << run.err;
  Completed bad_min = run_to_completion(
      {proofload_binary(), "run", "https://127.0.0.1:1/", "--tls-min", "1.1", "--plan"});
  EXPECT_EQ(bad_min.exit_code, 2);
  EXPECT_EQ(bad_min.err, "proofload: error: --tls-min must be 1.2 or 1.3, got '1.1'\n");
  Completed missing_ca = run_to_completion({proofload_binary(), "run", "https://127.0.0.1:1/",
                                            "--cacert", "/nonexistent.pem", "--plan"});
  EXPECT_EQ(missing_ca.exit_code, 2);
  EXPECT_EQ(missing_ca.err.rfind("proofload: error: cannot use --cacert '/nonexistent.pem': ", 0),
            0u)
      << missing_ca.err;
}

// `proofload serve --tls-self-signed FILE`: the same routes over TLS, its certificate where a
// client's --cacert can find it.
TEST(ServeTls, TheBuiltInServerServesItsRoutesOverTlsAndResumesSessions) {
  const std::string dir = make_temp_dir("serve-tls");
  const std::string ca = dir + "/serve.pem";
  ServeProcess server({"--tls-self-signed", ca, "--profile", "demo"});
  EXPECT_NE(server.process().err().find("written to " + ca), std::string::npos)
      << server.process().err();
  const std::string url = "https://127.0.0.1:" + std::to_string(server.port());
  const std::string out = dir + "/run";
  Completed run = run_to_completion({proofload_binary(), "run", url + "/health", "-c", "2", "-n",
                                     "100", "--cacert", ca, "-q", "-o", out});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const json result = read_result(out);
  EXPECT_EQ(result["summary"]["outcomes"]["success"], 100) << result["summary"].dump(2);
  EXPECT_EQ(result["spec"]["tls"]["version"], "TLSv1.3");
  EXPECT_EQ(result["spec"]["tls"]["alpn"], "http/1.1");

  // Connection: close on every request: each reconnects, and resumes the session.
  const std::string again = dir + "/close";
  Completed reconnecting =
      run_to_completion({proofload_binary(), "run", url + "/health", "-H", "Connection: close",
                         "-c", "1", "-n", "20", "--cacert", ca, "-q", "-o", again});
  ASSERT_EQ(reconnecting.exit_code, 0) << reconnecting.err;
  const json summary = read_result(again)["summary"];
  EXPECT_EQ(summary["outcomes"]["success"], 20) << summary.dump(2);
  EXPECT_GE(summary["tls"]["handshakes"].get<int64_t>(), 20);
  EXPECT_GE(summary["tls"]["resumed"].get<int64_t>(), 18);
}

TEST(ServeTls, ACertificateThatCannotBeUsedIsOneLineAndExit2) {
  const std::string dir = make_temp_dir("serve-tls-bad");
  write_file(dir + "/cert.pem", "not a certificate");
  Completed bad = run_to_completion({proofload_binary(), "serve", "--port", "0", "--tls-cert",
                                     dir + "/cert.pem", "--tls-key", dir + "/cert.pem"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.rfind("proofload: error: cannot use the TLS certificate and key: ", 0), 0u)
      << bad.err;
  Completed half = run_to_completion(
      {proofload_binary(), "serve", "--port", "0", "--tls-cert", dir + "/cert.pem"});
  EXPECT_EQ(half.exit_code, 2);
  EXPECT_EQ(half.err,
            "proofload: error: --tls-cert and --tls-key go together (the certificate and its "
            "key)\n");
}

}  // namespace
}  // namespace proofload::testing
