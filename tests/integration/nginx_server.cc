// See nginx_server.h.
#include "nginx_server.h"

#include <unistd.h>

#include <chrono>
#include <stdexcept>
#include <thread>

#include "net/self_signed.h"

namespace proofload::testing {

bool NginxServer::available() { return access("/usr/sbin/nginx", X_OK) == 0; }

NginxServer::NginxServer(const NginxOptions& options) : options_(options) {
  dir_ = make_temp_dir("nginx");
  port_ = unused_loopback_port();
  const net::PemPair pem = net::make_self_signed("localhost");
  ca_file_ = dir_ + "/cert.pem";
  write_file(ca_file_, pem.certificate);
  write_file(dir_ + "/key.pem", pem.private_key);
  write_file(dir_ + "/index.html", "ok");
  if (!options.client_ca_pem.empty()) write_file(dir_ + "/client-ca.pem", options.client_ca_pem);
  std::string listen = "127.0.0.1:" + std::to_string(port_);
  if (options.tls) listen += " ssl";
  if (options.http2) listen += " http2";
  std::string conf = std::string(getuid() == 0 ? "user root;\n" : "") +
                     "master_process off;\n"
                     "daemon off;\n"
                     "pid " +
                     dir_ +
                     "/nginx.pid;\n"
                     "error_log " +
                     dir_ +
                     "/error.log;\n"
                     "events { worker_connections 1024; }\n"
                     "http {\n"
                     "  access_log off;\n"
                     "  client_body_temp_path " +
                     dir_ +
                     "/body;\n"
                     "  keepalive_requests " +
                     std::to_string(options.keepalive_requests) +
                     ";\n"
                     "  http2_max_concurrent_streams " +
                     std::to_string(options.max_concurrent_streams) +
                     ";\n"
                     "  server {\n"
                     "    listen " +
                     listen +
                     ";\n"
                     "    root " +
                     dir_ + ";\n";
  if (options.tls) {
    conf += "    ssl_certificate " + dir_ +
            "/cert.pem;\n"
            "    ssl_certificate_key " +
            dir_ +
            "/key.pem;\n"
            "    ssl_protocols TLSv1.2 TLSv1.3;\n" +
            (options.client_ca_pem.empty() ? std::string()
                                           : "    ssl_client_certificate " + dir_ +
                                                 "/client-ca.pem;\n"
                                                 "    ssl_verify_client on;\n") +
            "    ssl_session_tickets " + std::string(options.session_tickets ? "on" : "off") +
            ";\n";
  }
  conf +=
      "    location / { }\n" +
      options.locations +
      "  }\n"
      "}\n";
  write_file(dir_ + "/nginx.conf", conf);
  process_ = std::make_unique<Process>(std::vector<std::string>{
      "/usr/sbin/nginx", "-p", dir_, "-c", dir_ + "/nginx.conf", "-e", dir_ + "/error.log"});
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!loopback_accepts(port_)) {
    if (process_->wait(std::chrono::milliseconds(20)).has_value() ||
        std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("nginx did not start on " + listen + ": " +
                               read_file(dir_ + "/error.log") + process_->err());
    }
  }
}

NginxServer::~NginxServer() = default;

std::string NginxServer::url(const std::string& path) const {
  return std::string(options_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) +
         path;
}

}  // namespace proofload::testing
