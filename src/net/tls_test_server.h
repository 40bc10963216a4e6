// A small blocking TLS (or plain) server on 127.0.0.1 for the transport's tests: one thread,
// connections one after another, each answered in the way the test asks. Test-only.
#pragma once

#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "net/self_signed.h"
#include "net/tls_server.h"

namespace proofload::net::testing {

enum class ServerMode {
  kTlsEcho,            // handshake, then answer each "\r\n\r\n"-ended request with "ok"
  kPlain,              // no TLS: answer the ClientHello bytes with an HTTP 400
  kCloseInHandshake,   // read the ClientHello, then close
  kFirstOnly,          // the first connection as kTlsEcho (a pre-flight passes), later ones closed
                       // in the handshake
  kStallInHandshake,   // read the ClientHello, answer nothing until the client leaves
  kFirstThenStall,     // the first connection as kTlsEcho, later ones as kStallInHandshake
  kCloseDelimited,     // handshake, answer one request with a body ended by the close, then
                       // close_notify and close
  kCloseDelimitedCut,  // as kCloseDelimited, but a bare FIN, without close_notify (a truncation)
  kRequireClientCert,  // as kTlsEcho, for clients that present a certificate (any); the others
                       // get TLS 1.3's certificate_required alert after their handshake
  kRequireClientCertTls12,  // as kRequireClientCert in TLS 1.2: the alert ends the handshake
};

class TlsTestServer {
 public:
  // Each request is answered 200 with `body`.
  explicit TlsTestServer(ServerMode mode, const PemPair& pem = make_self_signed("localhost"),
                         std::string body = "ok")
      : mode_(mode), pem_(pem), body_(std::move(body)) {
    signal(SIGPIPE, SIG_IGN);  // SSL_write to a client that left must fail, not end the test
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(listen_fd_, 16);
    socklen_t len = sizeof addr;
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~TlsTestServer() {
    stopping_ = true;
    shutdown(listen_fd_, SHUT_RDWR);
    thread_.join();
    close(listen_fd_);
  }
  uint16_t port() const { return port_; }
  int handshakes() const { return handshakes_.load(); }

 private:
  void serve() {
    while (!stopping_) {
      int fd = accept(listen_fd_, nullptr, nullptr);
      if (fd < 0) return;
      const bool first = accepted_++ == 0;
      const bool first_only =
          mode_ == ServerMode::kFirstOnly || mode_ == ServerMode::kFirstThenStall;
      if (mode_ == ServerMode::kTlsEcho || requires_client_cert() || (first_only && first)) {
        serve_tls(fd);
      } else if (mode_ == ServerMode::kCloseDelimited || mode_ == ServerMode::kCloseDelimitedCut) {
        serve_close_delimited(fd, mode_ == ServerMode::kCloseDelimited);
      } else {
        char buffer[4096];
        [[maybe_unused]] ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (mode_ == ServerMode::kStallInHandshake || mode_ == ServerMode::kFirstThenStall) {
          while (recv(fd, buffer, sizeof buffer, 0) > 0) {
          }
        }
        if (mode_ == ServerMode::kPlain) {
          const char reply[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
          [[maybe_unused]] ssize_t w = send(fd, reply, sizeof reply - 1, MSG_NOSIGNAL);
        }
      }
      close(fd);
    }
  }

  bool requires_client_cert() const {
    return mode_ == ServerMode::kRequireClientCert || mode_ == ServerMode::kRequireClientCertTls12;
  }

  void serve_tls(int fd) {
    SSL* ssl = SSL_new(context_.get());
    SSL_set_fd(ssl, fd);
    if (requires_client_cert()) {
      SSL_set_verify(ssl, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT,
                     [](int, X509_STORE_CTX*) { return 1; });
    }
    if (mode_ == ServerMode::kRequireClientCertTls12) {
      SSL_set_max_proto_version(ssl, TLS1_2_VERSION);
    }
    if (SSL_accept(ssl) == 1) {
      ++handshakes_;
      std::string pending;
      char buffer[4096];
      for (;;) {
        int n = SSL_read(ssl, buffer, sizeof buffer);
        if (n <= 0) break;
        pending.append(buffer, static_cast<size_t>(n));
        size_t end;
        while ((end = pending.find("\r\n\r\n")) != std::string::npos) {
          pending.erase(0, end + 4);
          const std::string reply =
              "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(body_.size()) + "\r\n\r\n" +
              body_;
          SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
        }
      }
    } else if (requires_client_cert()) {
      // The alert is sent; a close with the client's request unread would be a reset that can
      // overtake it, so the client's bytes are read to their end first (as s_server and nginx).
      shutdown(fd, SHUT_WR);
      char buffer[4096];
      while (recv(fd, buffer, sizeof buffer, 0) > 0) {
      }
    }
    ERR_clear_error();
    SSL_free(ssl);
  }

  // One request's answer, its body delimited by the close (no Content-Length, no chunks).
  void serve_close_delimited(int fd, bool close_notify) {
    SSL* ssl = SSL_new(context_.get());
    SSL_set_fd(ssl, fd);
    if (SSL_accept(ssl) == 1) {
      ++handshakes_;
      std::string request;
      char buffer[4096];
      int n;
      while (request.find("\r\n\r\n") == std::string::npos &&
             (n = SSL_read(ssl, buffer, sizeof buffer)) > 0) {
        request.append(buffer, static_cast<size_t>(n));
      }
      const std::string reply = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + body_;
      SSL_write(ssl, reply.data(), static_cast<int>(reply.size()));
      if (close_notify) SSL_shutdown(ssl);
    }
    ERR_clear_error();
    SSL_free(ssl);
  }

  ServerMode mode_;
  PemPair pem_;
  TlsServerContext context_{pem_.certificate, pem_.private_key};
  std::string body_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> handshakes_{0};
  int accepted_ = 0;
  std::thread thread_;
};

}  // namespace proofload::net::testing
