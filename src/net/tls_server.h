// The server side of TLS: one SSL_CTX with a certificate and its key, offering HTTP/1.1 by
// ALPN, for `proofload serve --tls-cert/--tls-key` (or --tls-self-signed) and the tests' servers.
#pragma once

#include <openssl/ssl.h>

#include <string>

namespace proofload::net {

class TlsServerContext {
 public:
  // From PEM text. Throws UsageError ("cannot use the TLS certificate: ...") when the
  // certificate or the key cannot be read or do not match.
  TlsServerContext(const std::string& certificate_pem, const std::string& key_pem);
  ~TlsServerContext();
  TlsServerContext(const TlsServerContext&) = delete;
  TlsServerContext& operator=(const TlsServerContext&) = delete;

  SSL_CTX* get() const { return ctx_; }

 private:
  SSL_CTX* ctx_ = nullptr;
};

}  // namespace proofload::net
