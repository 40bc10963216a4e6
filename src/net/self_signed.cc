// A self-signed certificate made with OpenSSL's key and X509 builders (see self_signed.h).
#include "net/self_signed.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace proofload::net {
namespace {

constexpr long kValidSeconds = 24 * 3600;

struct Freer {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(BIO* p) const { BIO_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
template <typename T>
using Owned = std::unique_ptr<T, Freer>;

[[noreturn]] void fail(const char* what) {
  throw std::runtime_error(std::string("cannot make a self-signed certificate: ") + what);
}

std::string pem_of(BIO* bio) {
  char* data = nullptr;
  const long length = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(length));
}

void add_extension(X509* cert, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, cert, cert, nullptr, nullptr, 0);
  Owned<X509_EXTENSION> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) fail("extension");
}

}  // namespace

PemPair make_self_signed(const std::string& name) {
  Owned<EVP_PKEY> key(EVP_EC_gen("P-256"));
  if (!key) fail("key");
  Owned<X509> cert(X509_new());
  if (!cert) fail("certificate");
  X509_set_version(cert.get(), 2);  // v3, for the extensions
  ASN1_INTEGER_set(X509_get_serialNumber(cert.get()), 1);
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidSeconds);
  X509_set_pubkey(cert.get(), key.get());
  X509_NAME* subject = X509_get_subject_name(cert.get());
  X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(name.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert.get(), subject);
  add_extension(cert.get(), NID_subject_alt_name, "DNS:" + name + ",IP:127.0.0.1,IP:::1");
  add_extension(cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  if (X509_sign(cert.get(), key.get(), EVP_sha256()) == 0) fail("signature");

  PemPair pair;
  Owned<BIO> cert_bio(BIO_new(BIO_s_mem()));
  Owned<BIO> key_bio(BIO_new(BIO_s_mem()));
  if (!cert_bio || !key_bio || PEM_write_bio_X509(cert_bio.get(), cert.get()) != 1 ||
      PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    fail("PEM");
  }
  pair.certificate = pem_of(cert_bio.get());
  pair.private_key = pem_of(key_bio.get());
  return pair;
}

}  // namespace proofload::net
