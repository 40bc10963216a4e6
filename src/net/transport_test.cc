// The transport against a TLS server in the test (tls_test_server.h): a verified handshake and an
// exchange, resumption on the next connection, and each way a handshake fails, worded as the
// summary says it.
#include "net/transport.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/clock.h"
#include "common/usage_error.h"
#include "net/tls_test_server.h"

namespace proofload::net {
namespace {

using testing::ServerMode;
using testing::TlsTestServer;

// Waits (at most 5 s) for what `io` says the transport wants.
bool wait_for(const Transport& t, IoStatus want) {
  pollfd p{t.fd(), static_cast<short>(want == IoStatus::kWantWrite ? POLLOUT : POLLIN), 0};
  return poll(&p, 1, 5000) == 1;
}

class TransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pem_ = make_self_signed("localhost");
    ca_path_ = std::filesystem::temp_directory_path() /
               ("proofload-ca-" + std::to_string(getpid()) + ".pem");
    std::ofstream(ca_path_) << pem_.certificate;
  }
  void TearDown() override { std::filesystem::remove(ca_path_); }

  TlsOptions trusting_the_server() const {
    TlsOptions options;
    options.ca_file = ca_path_.string();
    return options;
  }

  // Connects and handshakes; the last handshake step's status.
  IoStatus connect_and_handshake(Transport& t, uint16_t port, const TlsContext& context,
                                 TlsSessionCache* cache) {
    if (t.connect(resolve("127.0.0.1", port)) != 0) return IoStatus::kFailed;
    if (!wait_for(t, IoStatus::kWantWrite) || t.finish_connect() != 0) return IoStatus::kFailed;
    t.begin_tls(context, cache);
    for (;;) {
      Io io = t.handshake();
      if (io.status != IoStatus::kWantRead && io.status != IoStatus::kWantWrite) return io.status;
      if (!wait_for(t, io.status)) return IoStatus::kFailed;
    }
  }

  // One request and its whole (tiny) response.
  std::string exchange(Transport& t) {
    const std::string request = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    Io w = t.write(request.data(), request.size());
    EXPECT_EQ(w.status, IoStatus::kOk);
    EXPECT_EQ(w.bytes, request.size());
    std::string response;
    char buffer[1024];
    while (response.find("ok") == std::string::npos) {
      Io r = t.read(buffer, sizeof buffer);
      if (r.status == IoStatus::kOk) {
        response.append(buffer, r.bytes);
      } else if (r.status == IoStatus::kWantRead || r.status == IoStatus::kWantWrite) {
        if (!wait_for(t, r.status)) break;
      } else {
        break;
      }
    }
    return response;
  }

  PemPair pem_;
  std::filesystem::path ca_path_;
};

TEST_F(TransportTest, AVerifiedHandshakeCarriesAnExchangeAndAgreesOnAlpn) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsContext context(trusting_the_server(), "localhost");
  Transport t;
  ASSERT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kOk)
      << failure_text(t.failure());
  EXPECT_EQ(tls_version_name(t.tls_version()), "TLSv1.3");
  EXPECT_EQ(t.alpn(), "http/1.1");
  EXPECT_FALSE(t.resumed());
  EXPECT_EQ(exchange(t), "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
}

TEST_F(TransportTest, TheNextConnectionResumesTheSessionTheServerGave) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsContext context(trusting_the_server(), "localhost");
  TlsSessionCache cache;
  {
    Transport first;
    ASSERT_EQ(connect_and_handshake(first, server.port(), context, &cache), IoStatus::kOk);
    exchange(first);  // reading takes in the server's session tickets
  }
  ASSERT_NE(cache.session(), nullptr);
  Transport second;
  ASSERT_EQ(connect_and_handshake(second, server.port(), context, &cache), IoStatus::kOk);
  EXPECT_TRUE(second.resumed());
  EXPECT_EQ(exchange(second).substr(0, 15), "HTTP/1.1 200 OK");
}

TEST_F(TransportTest, WithoutResumptionEveryHandshakeIsFull) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsOptions options = trusting_the_server();
  options.resume = false;
  TlsContext context(options, "localhost");
  TlsSessionCache cache;
  for (int i = 0; i < 2; ++i) {
    Transport t;
    ASSERT_EQ(connect_and_handshake(t, server.port(), context, &cache), IoStatus::kOk);
    exchange(t);
    EXPECT_FALSE(t.resumed());
  }
  EXPECT_EQ(cache.session(), nullptr);
}

TEST_F(TransportTest, AnUntrustedCertificateFailsVerification) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsContext context(TlsOptions{}, "localhost");  // the system's CAs do not know it
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kFailed);
  EXPECT_TRUE(t.failure().tls());
  EXPECT_EQ(failure_text(t.failure()), "certificate verify failed: self-signed certificate");
}

TEST_F(TransportTest, AnotherHostNameFailsVerificationUnlessInsecure) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsContext context(trusting_the_server(), "other.example");
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kFailed);
  EXPECT_EQ(failure_text(t.failure()), "certificate verify failed: hostname mismatch");

  TlsOptions insecure;
  insecure.verify = false;
  TlsContext anything(insecure, "other.example");
  Transport again;
  EXPECT_EQ(connect_and_handshake(again, server.port(), anything, nullptr), IoStatus::kOk);
}

TEST_F(TransportTest, TheSniNameIsTheOneVerified) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsOptions options = trusting_the_server();
  options.server_name = "localhost";
  TlsContext context(options, "127.0.0.2");  // the URL's host; --sni names the certificate's
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kOk)
      << failure_text(t.failure());
}

TEST_F(TransportTest, AnIpAddressIsVerifiedAgainstTheCertificatesAddresses) {
  TlsTestServer server(ServerMode::kTlsEcho, pem_);
  TlsContext context(trusting_the_server(), "127.0.0.1");
  {
    Transport t;  // closed before the next: the server answers one connection at a time
    EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kOk)
        << failure_text(t.failure());
  }
  TlsContext wrong(trusting_the_server(), "127.0.0.9");
  Transport other;
  EXPECT_EQ(connect_and_handshake(other, server.port(), wrong, nullptr), IoStatus::kFailed);
  EXPECT_EQ(failure_text(other.failure()), "certificate verify failed: IP address mismatch");
}

TEST_F(TransportTest, APlainServerIsNamedAsNotSpeakingTls) {
  TlsTestServer server(ServerMode::kPlain, pem_);
  TlsContext context(trusting_the_server(), "localhost");
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kFailed);
  EXPECT_EQ(failure_text(t.failure()),
            "wrong version number (is the server speaking TLS on this port?)");
}

TEST_F(TransportTest, AServerThatClosesInTheHandshakeIsSaidSo) {
  TlsTestServer server(ServerMode::kCloseInHandshake, pem_);
  TlsContext context(trusting_the_server(), "localhost");
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kFailed);
  const std::string text = failure_text(t.failure());
  EXPECT_TRUE(text == "connection closed during the TLS handshake" ||
              text == "Connection reset by peer")
      << text;
}

TEST_F(TransportTest, AnInsecureHandshakeTheServerRefusesIsNotCalledAVerifyFailure) {
  // --insecure judges no certificate, yet OpenSSL records what it would have found (self-signed).
  // TLS 1.2 refuses a missing client certificate inside the handshake: that was reported as
  // "certificate verify failed: self-signed certificate; use --cacert or --insecure" (found by
  // fuzz/tls_transport_fuzz.cc).
  TlsTestServer server(ServerMode::kRequireClientCertTls12, pem_);
  TlsOptions insecure;
  insecure.verify = false;
  TlsContext context(insecure, "localhost");
  Transport t;
  EXPECT_EQ(connect_and_handshake(t, server.port(), context, nullptr), IoStatus::kFailed);
  EXPECT_EQ(t.failure().verify_result, X509_V_OK);
  EXPECT_EQ(failure_text(t.failure()), "sslv3 alert handshake failure");
  t.close();  // the server takes one connection at a time
  try {
    check_tls_handshake(resolve("127.0.0.1", server.port()), context, 5 * kNsPerS);
    FAIL() << "the refused handshake passed the pre-flight";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).find("verify"), std::string::npos) << e.what();
    // It had asked for a certificate in the handshake: the alert is its refusal of none.
    EXPECT_NE(std::string(e.what()).find("requires a client certificate"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("--cert"), std::string::npos) << e.what();
  }
}

TEST_F(TransportTest, UnusableFilesAreRefusedWithOneLine) {
  TlsOptions options;
  options.ca_file = "/nonexistent/ca.pem";
  try {
    TlsContext context(options, "localhost");
    FAIL() << "a missing --cacert was accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot use --cacert '/nonexistent/ca.pem': ", 0), 0u)
        << e.what();
  }
  TlsOptions only_cert;
  only_cert.cert_file = ca_path_.string();
  EXPECT_THROW(TlsContext(only_cert, "localhost"), UsageError);
}

TEST(PlainTransport, ReadsWritesAndSeesTheEndWithoutTls) {
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t len = sizeof addr;
  getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len);

  Transport t;
  ASSERT_EQ(t.connect(resolve("127.0.0.1", ntohs(addr.sin_port))), 0);
  ASSERT_TRUE(wait_for(t, IoStatus::kWantWrite));
  ASSERT_EQ(t.finish_connect(), 0);
  EXPECT_FALSE(t.tls());
  int server = accept(listener, nullptr, nullptr);
  ASSERT_GE(server, 0);
  char buffer[16];
  EXPECT_EQ(t.read(buffer, sizeof buffer).status, IoStatus::kWantRead);
  EXPECT_EQ(t.write("ping", 4).bytes, 4u);
  ASSERT_EQ(recv(server, buffer, sizeof buffer, 0), 4);
  ASSERT_EQ(send(server, "pong", 4, 0), 4);
  ASSERT_TRUE(wait_for(t, IoStatus::kWantRead));
  Io r = t.read(buffer, sizeof buffer);
  EXPECT_EQ(r.status, IoStatus::kOk);
  EXPECT_EQ(std::string(buffer, r.bytes), "pong");
  ::close(server);
  ASSERT_TRUE(wait_for(t, IoStatus::kWantRead));
  EXPECT_EQ(t.read(buffer, sizeof buffer).status, IoStatus::kClosed);
  ::close(listener);
}

}  // namespace
}  // namespace proofload::net
