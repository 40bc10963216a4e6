// One blocking HTTP GET that only wants the status: the ladder's pre-check and its drain gate
// ("is the server up?", "has it caught up?"). Not for load. Thread-safe (no shared state).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "http/blocking_client.h"
#include "http/response_parser.h"
#include "net/tls.h"

namespace proofload::experiments {

struct ProbeAnswer {
  std::optional<int> status;  // the final response's status code, when one was read
  std::string body;           // with http_get(.., max_body_bytes > 0): its first bytes
  // Without a status: "connection refused", "timed out after 2 s", "bad response: ...",
  // "connection closed without a response", "cannot resolve host 'x': ...".
  std::string error;
  bool cancelled = false;    // the caller's cancel flag (a stop signal) ended the wait
  std::string text() const;  // "HTTP 200", or the error
};

// Sends "GET <path> HTTP/1.1" with Connection: close to an http:// or https:// URL and reads the
// response head; the body is not read. Bounded by `timeout_ns` in all (connect, handshake, send,
// read) and by kProbeMaxBytes read. An https URL is verified as `trust` says (the command's
// --cacert, --insecure; see net::trust_of). Throws UsageError for a URL that http::parse_url
// rejects and for a --cacert that cannot be read; every failure at run time is an answer
// ("TLS: certificate verify failed: ..."), never a throw. `cancel` (a stop signal's flag), when
// set, ends the wait within http::kCancelCheckNs as a cancelled answer.
ProbeAnswer http_get_status(const std::string& url, int64_t timeout_ns,
                            const net::TlsOptions& trust = {},
                            const std::atomic<bool>* cancel = nullptr);

// The same GET, reading the whole response and keeping up to `max_body_bytes` of its body (a
// drain gate's JSON condition reads it). A body still unfinished at the timeout is an error.
ProbeAnswer http_get(const std::string& url, int64_t timeout_ns, size_t max_body_bytes,
                     const net::TlsOptions& trust = {}, const std::atomic<bool>* cancel = nullptr);

// Why a blocking exchange failed, as a probe's or a canary's answer says it: "connection
// refused", "timed out after 2 s", "bad response: ...", "TLS: ...". "" when it did not fail.
std::string exchange_failure_text(const http::Exchange& done, const http::ResponseParser& parser,
                                  int64_t timeout_ns);

// Bytes read at most before a response without a complete head counts as bad.
constexpr int64_t kProbeMaxBytes = 1024 * 1024;

// Does the text name a URL (http:// or https://, any case) rather than a shell command?
bool is_url(std::string_view text);

}  // namespace proofload::experiments
