// The client TLS context and the per-worker session cache (see tls.h). Configuration happens once
// per run, so it may throw and allocate; the new-session callback runs on a worker's thread and
// touches only that worker's cache.
#include "net/tls.h"

#include <arpa/inet.h>
#include <openssl/err.h>
#include <signal.h>

#include "common/usage_error.h"

namespace proofload::net {
namespace {

// The ex_data slot of an SSL that points at its worker's TlsSessionCache.
int cache_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
  return index;
}

// OpenSSL calls this when a server hands out a session (in TLS 1.3, after the handshake, with a
// NewSessionTicket). Returning 1 keeps the reference we were given.
int on_new_session(SSL* ssl, SSL_SESSION* session) {
  auto* cache = static_cast<TlsSessionCache*>(SSL_get_ex_data(ssl, cache_index()));
  if (cache == nullptr) return 0;  // OpenSSL frees it
  cache->store(session);
  return 1;
}

std::string openssl_reason() {
  unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown reason";
  const char* reason = ERR_reason_error_string(code);
  return reason != nullptr ? reason : "error " + std::to_string(code);
}

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

std::string alpn_wire(const std::vector<std::string>& protocols) {
  std::string wire;
  for (const std::string& p : protocols) {
    wire.push_back(static_cast<char>(p.size()));
    wire += p;
  }
  return wire;
}

}  // namespace

TlsContext::TlsContext(const TlsOptions& options, const std::string& host)
    : options_(options), verify_name_(options.server_name.empty() ? host : options.server_name) {
  name_is_ip_ = is_ip_literal(verify_name_);
  // OpenSSL's socket BIO writes with write(2), not send(MSG_NOSIGNAL): a server that closed
  // must fail the write, not kill the process. (Hooks restore SIGPIPE in their children.)
  signal(SIGPIPE, SIG_IGN);
  ctx_ = SSL_CTX_new(TLS_client_method());
  if (ctx_ == nullptr) throw UsageError("cannot set up TLS: " + openssl_reason());
  SSL_CTX_set_min_proto_version(ctx_, options.min_version);
  // Servers often close a connection without close_notify after `Connection: close`. Such an
  // end reads as an end of stream (Transport::tls_result), and is remembered: the HTTP framing
  // (Content-Length, chunks) says whether a response is whole, and a body delimited only by the
  // close is a truncation (Transport::closed_without_close_notify), as curl judges it.
  // A request may be written in parts (a full socket buffer): the retry passes the rest.
  SSL_CTX_set_mode(ctx_, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  // Read what the socket holds in one read(2), not a record header and then its body in two:
  // small responses come several records at a time. (Transport::buffered asks SSL_has_pending,
  // which also sees records read ahead and not yet decrypted.)
  SSL_CTX_set_read_ahead(ctx_, 1);
  if (options.verify) {
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_PEER, nullptr);
    const bool loaded = options.ca_file.empty() ? SSL_CTX_set_default_verify_paths(ctx_) == 1
                                                : SSL_CTX_load_verify_locations(
                                                      ctx_, options.ca_file.c_str(), nullptr) == 1;
    if (!loaded) {
      SSL_CTX_free(ctx_);
      throw UsageError(options.ca_file.empty()
                           ? "cannot load the system's CA certificates: " + openssl_reason()
                           : "cannot use --cacert '" + options.ca_file + "': " + openssl_reason());
    }
  } else {
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
  }
  if (!options.cert_file.empty() || !options.key_file.empty()) {
    if (options.cert_file.empty() || options.key_file.empty()) {
      SSL_CTX_free(ctx_);
      throw UsageError("--cert and --key go together (a client certificate and its key)");
    }
    if (SSL_CTX_use_certificate_chain_file(ctx_, options.cert_file.c_str()) != 1) {
      std::string why = openssl_reason();
      SSL_CTX_free(ctx_);
      throw UsageError("cannot use --cert '" + options.cert_file + "': " + why);
    }
    if (SSL_CTX_use_PrivateKey_file(ctx_, options.key_file.c_str(), SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx_) != 1) {
      std::string why = openssl_reason();
      SSL_CTX_free(ctx_);
      throw UsageError("cannot use --key '" + options.key_file + "': " + why);
    }
  }
  const std::string alpn = alpn_wire(options.alpn);
  SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>(alpn.data()),
                          static_cast<unsigned>(alpn.size()));
  if (options.resume) {
    // Sessions are kept by the workers (TlsSessionCache), not in OpenSSL's shared store: no
    // lock between threads, and each worker offers the latest ticket it was given.
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx_, on_new_session);
  } else {
    SSL_CTX_set_session_cache_mode(ctx_, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(ctx_, SSL_OP_NO_TICKET);
  }
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsSessionCache::~TlsSessionCache() { SSL_SESSION_free(session_); }

void TlsSessionCache::store(SSL_SESSION* session) {
  SSL_SESSION_free(session_);
  session_ = session;
}

void TlsSessionCache::attach(SSL* ssl, TlsSessionCache* cache) {
  SSL_set_ex_data(ssl, cache_index(), cache);
}

std::string tls_version_name(int version) {
  switch (version) {
    case TLS1_VERSION:
      return "TLSv1";
    case TLS1_1_VERSION:
      return "TLSv1.1";
    case TLS1_2_VERSION:
      return "TLSv1.2";
    case TLS1_3_VERSION:
      return "TLSv1.3";
    default:
      return version == 0 ? "" : "unknown";
  }
}

}  // namespace proofload::net
