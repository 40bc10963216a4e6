// A throwaway certificate: a fresh P-256 key and a self-signed certificate for a name (and
// 127.0.0.1 and ::1), valid for a day. For `proofload serve --tls-self-signed` and the tests,
// which must not depend on files nobody made. Not for anything that needs a trusted identity.
#pragma once

#include <string>

namespace proofload::net {

struct PemPair {
  std::string certificate;  // PEM
  std::string private_key;  // PEM (PKCS#8, unencrypted)
};

// Throws std::runtime_error if OpenSSL cannot make one (out of memory).
PemPair make_self_signed(const std::string& name = "localhost");

}  // namespace proofload::net
