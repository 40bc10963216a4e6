// One blocking HTTP GET that only wants the status: the ladder's pre-check and its drain gate
// ("is the server up?", "has it caught up?"). Not for load. Thread-safe (no shared state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace proofload::experiments {

struct ProbeAnswer {
  std::optional<int> status;  // the final response's status code, when one was read
  std::string body;           // with http_get(.., max_body_bytes > 0): its first bytes
  // Without a status: "connection refused", "timed out after 2 s", "bad response: ...",
  // "connection closed without a response", "cannot resolve host 'x': ...".
  std::string error;
  std::string text() const;  // "HTTP 200", or the error
};

// Sends "GET <path> HTTP/1.1" with Connection: close to an http:// URL and reads the response
// head; the body is not read. Bounded by `timeout_ns` in all (connect, send, read) and by
// kProbeMaxBytes read. Throws UsageError for a URL that http::parse_url rejects and for https
// (the probe speaks plain HTTP only); every failure at run time is an answer, never a throw.
ProbeAnswer http_get_status(const std::string& url, int64_t timeout_ns);

// The same GET, reading the whole response and keeping up to `max_body_bytes` of its body (a
// drain gate's JSON condition reads it). A body still unfinished at the timeout is an error.
ProbeAnswer http_get(const std::string& url, int64_t timeout_ns, size_t max_body_bytes);

// Bytes read at most before a response without a complete head counts as bad.
constexpr int64_t kProbeMaxBytes = 1024 * 1024;

// Does the text name a URL (http:// or https://, any case) rather than a shell command?
bool is_url(std::string_view text);

}  // namespace proofload::experiments
