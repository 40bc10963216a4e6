// Test support: Debian's nginx (nginx-light) on 127.0.0.1, started by the test in its own
// directory with a configuration the test writes: TLS with the test's certificate, HTTP/2,
// keep-alive limits. One process (master_process off), killed with the test.
#pragma once

#include <memory>
#include <string>

#include "process.h"

namespace proofload::testing {

struct NginxOptions {
  bool tls = true;                // listen with ssl (the certificate is made by the test)
  bool http2 = false;             // `http2` on the listen line (h2 over TLS, h2c without)
  int keepalive_requests = 1000;  // requests per connection before nginx closes it
  bool session_tickets = true;
  int max_concurrent_streams = 128;  // http2_max_concurrent_streams
  // A client certificate (PEM) nginx requires (ssl_verify_client on) and trusts; "" asks none.
  std::string client_ca_pem;
  std::string locations;  // more `location` blocks for the server, as nginx.conf text
};

class NginxServer {
 public:
  explicit NginxServer(const NginxOptions& options = {});
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  // nginx is installed (scripts/bootstrap installs nginx-light); tests skip, saying so, if not.
  static bool available();

  int port() const { return port_; }
  // "https://127.0.0.1:PORT/path" (or http:// without TLS); the certificate names localhost,
  // 127.0.0.1 and ::1.
  std::string url(const std::string& path = "/") const;
  // The certificate (PEM) that signs itself: what --cacert trusts.
  const std::string& ca_file() const { return ca_file_; }
  const std::string& directory() const { return dir_; }

 private:
  NginxOptions options_;
  std::string dir_;
  std::string ca_file_;
  int port_ = 0;
  std::unique_ptr<Process> process_;
};

}  // namespace proofload::testing
