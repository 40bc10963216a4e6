// TLS over OpenSSL for the load's connections and the blocking exchanges around it: what the user
// asked of it (TlsOptions), the one client context a run shares (TlsContext), and each worker's
// remembered session for resumption (TlsSessionCache). The connection itself is net::Transport.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <vector>

namespace proofload::net {

struct TlsOptions {
  std::string ca_file;  // --cacert: the CAs to trust; "" trusts the system's
  bool verify = true;   // --insecure turns verification (chain and name) off
  // --sni: the name sent in SNI and required in the certificate; "" uses the URL's host (an IP
  // literal is verified as an IP address and sends no SNI, as browsers do).
  std::string server_name;
  std::string cert_file;  // --cert / --key: a client certificate
  std::string key_file;
  int min_version = TLS1_2_VERSION;  // --tls-min 1.2|1.3
  bool resume = true;                // --no-tls-resume: a full handshake on every connection
  // ALPN protocols offered, in preference order ("http/1.1", "h2").
  std::vector<std::string> alpn = {"http/1.1"};

  bool operator==(const TlsOptions&) const = default;
};

// The trust of a command's https requests other than the load itself (probes, drain gates,
// prom: observers): its --cacert, --insecure and client certificate, but not its --sni (that
// names the target) nor its ALPN.
inline TlsOptions trust_of(const TlsOptions& options) {
  TlsOptions trust = options;
  trust.server_name.clear();
  trust.alpn = {"http/1.1"};
  return trust;
}

// The client SSL_CTX of a run, built once from the options and shared by every worker (OpenSSL's
// contexts are safe to use from many threads once configured). Owns the host name a connection
// verifies against.
class TlsContext {
 public:
  // Throws UsageError with one line for a CA, certificate or key file that cannot be used.
  // `host`: the URL's host, used when options.server_name is empty.
  TlsContext(const TlsOptions& options, const std::string& host);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* get() const { return ctx_; }
  const TlsOptions& options() const { return options_; }
  const std::string& verify_name() const { return verify_name_; }
  bool name_is_ip() const { return name_is_ip_; }

 private:
  TlsOptions options_;
  std::string verify_name_;
  bool name_is_ip_ = false;
  SSL_CTX* ctx_ = nullptr;
};

// The last session a server gave one worker, offered on its next connection (resumption). A
// TLS 1.3 server sends tickets after the handshake, so sessions arrive through OpenSSL's new-
// session callback (TlsContext installs it), found from the SSL by its ex_data. One per worker;
// not thread-safe.
class TlsSessionCache {
 public:
  TlsSessionCache() = default;
  ~TlsSessionCache();
  TlsSessionCache(const TlsSessionCache&) = delete;
  TlsSessionCache& operator=(const TlsSessionCache&) = delete;

  // Takes ownership of `session` (replacing the one kept).
  void store(SSL_SESSION* session);
  SSL_SESSION* session() const { return session_; }
  // Forget the kept session (a resumption the server refused is not offered again).
  void clear() { store(nullptr); }

  // Binds `ssl` to `cache`, so that the callback can store the sessions it receives.
  static void attach(SSL* ssl, TlsSessionCache* cache);

 private:
  SSL_SESSION* session_ = nullptr;
};

// "TLSv1.3" for a protocol version number; "" for 0.
std::string tls_version_name(int version);

}  // namespace proofload::net
