// See http_probe.h. One exchange of http/blocking_client.h; the answer words its failures.
#include "experiments/http_probe.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/usage_error.h"
#include "experiments/hooks.h"
#include "http/blocking_client.h"
#include "http/request.h"
#include "http/response_parser.h"
#include "http/url.h"
#include "words/numbers.h"

namespace proofload::experiments {

namespace {

bool starts_with_ignoring_case(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

ProbeAnswer failure(std::string error) {
  ProbeAnswer answer;
  answer.error = std::move(error);
  return answer;
}

// "Connection refused" → "connection refused": it reads as part of a sentence in reports.
std::string errno_text(int error) {
  std::string text = std::strerror(error);
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

}  // namespace

std::string ProbeAnswer::text() const { return status ? fmt::format("HTTP {}", *status) : error; }

bool is_url(std::string_view text) {
  return starts_with_ignoring_case(text, "http://") || starts_with_ignoring_case(text, "https://");
}

ProbeAnswer http_get_status(const std::string& url_text, int64_t timeout_ns,
                            const net::TlsOptions& trust, const std::atomic<bool>* cancel) {
  return http_get(url_text, timeout_ns, 0, trust, cancel);
}

ProbeAnswer http_get(const std::string& url_text, int64_t timeout_ns, size_t max_body_bytes,
                     const net::TlsOptions& trust, const std::atomic<bool>* cancel) {
  http::RequestSpec request;
  request.url = http::parse_url(url_text);
  std::unique_ptr<net::TlsContext> tls;
  if (request.url.tls())
    tls = std::make_unique<net::TlsContext>(net::trust_of(trust), request.url.host);
  request.headers = {{"Connection", "close"}};
  const std::string request_bytes = http::build_request(request);

  const int64_t deadline_ns = monotonic_ns() + timeout_ns;
  std::vector<http::SocketAddress> addresses;
  try {
    addresses = http::resolve_addresses(request.url.host, request.url.port);
  } catch (const UsageError& error) {
    return failure(error.what());  // the name may resolve again later: an answer, not a throw
  }
  http::ResponseParser parser;
  http::ResponseCapture capture;
  capture.max_body_bytes = max_body_bytes;
  parser.start(false, capture);
  http::ExchangeLimits limits;
  limits.max_bytes = kProbeMaxBytes + static_cast<int64_t>(max_body_bytes);
  limits.cancel = cancel;
  // The status is known once the head of a final response is in: the body is needed only when
  // asked for.
  if (max_body_bytes == 0) {
    limits.enough = [](const http::ResponseParser& p) { return p.status() >= 200; };
  }
  const http::Exchange done =
      http::exchange(addresses, request_bytes, parser, deadline_ns, limits, tls.get());
  if (!done.ok()) {
    ProbeAnswer answer = failure(exchange_failure_text(done, parser, timeout_ns));
    answer.cancelled = done.failure == http::Exchange::Failure::kCancelled;
    return answer;
  }
  ProbeAnswer answer;
  answer.status = parser.status();
  answer.body = parser.captured_body();
  return answer;
}

std::string exchange_failure_text(const http::Exchange& done, const http::ResponseParser& parser,
                                  int64_t timeout_ns) {
  using Failure = http::Exchange::Failure;
  switch (done.failure) {
    case Failure::kNone:
      return "";
    case Failure::kTimedOut:
      return "timed out after " + words::seconds_text(static_cast<double>(timeout_ns) / kNsPerS);
    case Failure::kBadResponse:
      return std::string("bad response: ") + parser.error_reason();
    case Failure::kClosed:
      return parser.received_any() ? "bad response: connection closed in the head"
                                   : "connection closed without a response";
    case Failure::kOversized:
      return fmt::format("bad response: no complete head in {} bytes", done.bytes_read);
    case Failure::kTls:
      return "TLS: " + done.tls_reason;
    case Failure::kCancelled:
      return "interrupted by a signal";
    case Failure::kSocket:
    case Failure::kConnect:
    case Failure::kPoll:
    case Failure::kSend:
    case Failure::kRead:
      break;
  }
  return errno_text(done.error_number);
}

}  // namespace proofload::experiments
