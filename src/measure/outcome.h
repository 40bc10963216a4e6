// How a request the schedule wanted ended. Every intended request ends in exactly one outcome,
// so the counts of a run add up to the number of intended requests.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace proofload::measure {

enum class Outcome : uint8_t {
  kSuccess,        // a complete response with status 1xx-3xx
  kStatus429,      // Too Many Requests (counted apart: rate limits are a finding, not a crash)
  kStatus503,      // Service Unavailable (counted apart: overload shedding)
  kOther4xx,       // any other 4xx
  kOther5xx,       // any other 5xx (and statuses outside 100-599)
  kCheckFailed,    // a complete response that failed a scenario check (or an extraction)
  kConnectError,   // the connection could not be opened (refused, unreachable, connect timeout)
  kTlsError,       // the TLS handshake failed (certificate refused, not TLS, closed in it), or
                   // the TLS layer failed later on the connection
  kTimeout,        // no complete response within the request timeout (or the end-of-run grace)
  kReset,          // the server closed or reset the connection before the response was complete
  kRefused,        // HTTP/2: the server refused the stream (REFUSED_STREAM, or past its GOAWAY),
                   // so it did not process the request
  kStreamReset,    // HTTP/2: the server reset the stream (RST_STREAM) before the response ended
  kProtocolError,  // the response was not valid HTTP (garbage, oversized header, ...)
  kNeverStarted,   // open loop: due, but no connection was free within the queue's limit
  kCount
};

constexpr int kOutcomeCount = static_cast<int>(Outcome::kCount);

constexpr std::array<std::string_view, kOutcomeCount> kOutcomeNames = {
    "success",       "status_429", "status_503", "other_4xx", "other_5xx",      "check_failed",
    "connect_error", "tls_error",  "timeout",    "reset",     "refused",        "stream_reset",
    "protocol_error", "never_started"};

constexpr std::string_view outcome_name(Outcome o) { return kOutcomeNames[static_cast<int>(o)]; }

constexpr Outcome outcome_for_status(int status) {
  if (status >= 100 && status < 400) return Outcome::kSuccess;
  if (status == 429) return Outcome::kStatus429;
  if (status == 503) return Outcome::kStatus503;
  if (status >= 400 && status < 500) return Outcome::kOther4xx;
  return Outcome::kOther5xx;
}

// True for outcomes that had an HTTP response (whatever its status).
constexpr bool outcome_has_response(Outcome o) {
  return o == Outcome::kSuccess || o == Outcome::kStatus429 || o == Outcome::kStatus503 ||
         o == Outcome::kOther4xx || o == Outcome::kOther5xx || o == Outcome::kCheckFailed;
}

// True for failures: everything but success and never-started (which is reported apart, as a
// share of the arrivals offered: single requests or whole flows).
constexpr bool outcome_is_error(Outcome o) {
  return o != Outcome::kSuccess && o != Outcome::kNeverStarted;
}

}  // namespace proofload::measure
