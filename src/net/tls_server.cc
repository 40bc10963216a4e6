// See tls_server.h.
#include "net/tls_server.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <signal.h>

#include <cstring>
#include <memory>

#include "common/usage_error.h"

namespace proofload::net {
namespace {

constexpr unsigned char kHttp11[] = {'h', 't', 't', 'p', '/', '1', '.', '1'};

// Chooses http/1.1 when the client offers it; a client that offers only h2 gets no ALPN answer
// (and speaks HTTP/1.1 or gives up, as it would with a server that knows no ALPN).
int select_http11(SSL*, const unsigned char** out, unsigned char* out_length,
                  const unsigned char* in, unsigned in_length, void*) {
  for (unsigned i = 0; i < in_length; i += 1u + in[i]) {
    if (in[i] == sizeof kHttp11 && i + 1 + in[i] <= in_length &&
        std::memcmp(in + i + 1, kHttp11, sizeof kHttp11) == 0) {
      *out = in + i + 1;
      *out_length = sizeof kHttp11;
      return SSL_TLSEXT_ERR_OK;
    }
  }
  return SSL_TLSEXT_ERR_NOACK;
}

std::string reason() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  const char* text = code != 0 ? ERR_reason_error_string(code) : nullptr;
  return text != nullptr ? text : "unknown reason";
}

}  // namespace

TlsServerContext::TlsServerContext(const std::string& certificate_pem, const std::string& key_pem) {
  signal(SIGPIPE, SIG_IGN);  // OpenSSL writes with write(2): a client that left must not kill us
  ctx_ = SSL_CTX_new(TLS_server_method());
  if (ctx_ == nullptr) throw UsageError("cannot set up TLS: " + reason());
  SSL_CTX_set_min_proto_version(ctx_, TLS1_2_VERSION);
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_alpn_select_cb(ctx_, select_http11, nullptr);
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(
      BIO_new_mem_buf(certificate_pem.data(), static_cast<int>(certificate_pem.size())), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(
      BIO_new_mem_buf(key_pem.data(), static_cast<int>(key_pem.size())), BIO_free);
  X509* cert = PEM_read_bio_X509(cert_bio.get(), nullptr, nullptr, nullptr);
  EVP_PKEY* key = PEM_read_bio_PrivateKey(key_bio.get(), nullptr, nullptr, nullptr);
  const bool ok = cert != nullptr && key != nullptr && SSL_CTX_use_certificate(ctx_, cert) == 1 &&
                  SSL_CTX_use_PrivateKey(ctx_, key) == 1 && SSL_CTX_check_private_key(ctx_) == 1;
  X509_free(cert);
  EVP_PKEY_free(key);
  if (!ok) {
    const std::string why = reason();
    SSL_CTX_free(ctx_);
    throw UsageError("cannot use the TLS certificate and key: " + why);
  }
}

TlsServerContext::~TlsServerContext() { SSL_CTX_free(ctx_); }

}  // namespace proofload::net
