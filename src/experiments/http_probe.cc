// See http_probe.h. One connection, poll() against one overall deadline, llhttp for the head.
#include "experiments/http_probe.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/clock.h"
#include "common/usage_error.h"
#include "engine/tcp.h"
#include "experiments/hooks.h"
#include "http/request.h"
#include "http/response_parser.h"
#include "http/url.h"

namespace proofload::experiments {

namespace {

class SocketCloser {
 public:
  explicit SocketCloser(int fd) : fd_(fd) {}
  SocketCloser(const SocketCloser&) = delete;
  SocketCloser& operator=(const SocketCloser&) = delete;
  ~SocketCloser() { close(fd_); }

 private:
  int fd_;
};

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

// Waits for `events` on fd until the deadline: 1 when ready, 0 at the deadline, -errno on error.
int wait_for(int fd, short events, int64_t deadline_ns) {
  while (true) {
    const int64_t left_ns = deadline_ns - monotonic_ns();
    if (left_ns <= 0) return 0;
    pollfd p{fd, events, 0};
    // Rounded up so that a wait never ends a little before the deadline and spins.
    const int ready = poll(&p, 1, static_cast<int>((left_ns + kNsPerMs - 1) / kNsPerMs));
    if (ready > 0) return 1;
    if (ready < 0 && errno != EINTR) return -errno;
  }
}

}  // namespace

std::string ProbeAnswer::text() const { return status ? fmt::format("HTTP {}", *status) : error; }

bool is_url(std::string_view text) {
  return starts_with_ignoring_case(text, "http://") || starts_with_ignoring_case(text, "https://");
}

ProbeAnswer http_get_status(const std::string& url_text, int64_t timeout_ns) {
  return http_get(url_text, timeout_ns, 0);
}

ProbeAnswer http_get(const std::string& url_text, int64_t timeout_ns, size_t max_body_bytes) {
  if (starts_with_ignoring_case(url_text, "https://")) {
    throw UsageError("cannot probe '" + url_text + "': https is not supported here (http only)");
  }
  http::RequestSpec request;
  request.url = http::parse_url(url_text);
  request.headers = {{"Connection", "close"}};
  const std::string request_bytes = http::build_request(request);

  const int64_t deadline_ns = monotonic_ns() + timeout_ns;
  const std::string timed_out =
      "timed out after " + seconds_text(static_cast<double>(timeout_ns) / kNsPerS) + " s";

  engine::Address address;
  try {
    address = engine::resolve(request.url.host, request.url.port);
  } catch (const UsageError& error) {
    return failure(error.what());  // the name may resolve again later: an answer, not a throw
  }
  const int fd = engine::start_connect(address);
  if (fd < 0) return failure(errno_text(-fd));
  SocketCloser closer(fd);

  int ready = wait_for(fd, POLLOUT, deadline_ns);
  if (ready == 0) return failure(timed_out);
  if (ready < 0) return failure(errno_text(-ready));
  if (const int error = engine::finish_connect(fd); error != 0) return failure(errno_text(error));

  size_t sent = 0;
  while (sent < request_bytes.size()) {
    const ssize_t n =
        send(fd, request_bytes.data() + sent, request_bytes.size() - sent, MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return failure(errno_text(errno));
    ready = wait_for(fd, POLLOUT, deadline_ns);
    if (ready == 0) return failure(timed_out);
    if (ready < 0) return failure(errno_text(-ready));
  }

  http::ResponseParser parser;
  http::ResponseCapture capture;
  capture.max_body_bytes = max_body_bytes;
  parser.start(false, capture);
  char buffer[16 * 1024];
  int64_t received_bytes = 0;
  while (true) {
    ready = wait_for(fd, POLLIN, deadline_ns);
    if (ready == 0) return failure(timed_out);
    if (ready < 0) return failure(errno_text(-ready));
    const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
      return failure(errno_text(errno));
    }
    const http::ResponseParser::Result result =
        n == 0 ? parser.finish_eof() : parser.feed(buffer, static_cast<size_t>(n));
    // The status is known once the head of a final response is in: the body is needed only
    // when asked for.
    if (result.state == http::ResponseParser::State::kComplete ||
        (max_body_bytes == 0 && parser.status() >= 200)) {
      ProbeAnswer answer;
      answer.status = parser.status();
      answer.body = parser.captured_body();
      return answer;
    }
    if (result.state == http::ResponseParser::State::kError) {
      return failure(std::string("bad response: ") + parser.error_reason());
    }
    if (n == 0) {
      return failure(parser.received_any() ? "bad response: connection closed in the head"
                                           : "connection closed without a response");
    }
    received_bytes += n;
    if (received_bytes > kProbeMaxBytes + static_cast<int64_t>(max_body_bytes)) {
      return failure(fmt::format("bad response: no complete head in {} bytes", received_bytes));
    }
  }
}

}  // namespace proofload::experiments
